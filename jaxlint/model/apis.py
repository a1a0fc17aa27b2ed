"""The table of removed and deprecated JAX APIs (jaxlint/data/removed_apis.toml).

Read once, on first use, and only by the JAX8xx rules: the other rules never pay for it.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

TABLE_PATH = Path(__file__).resolve().parent.parent / "data" / "removed_apis.toml"
VERSION = re.compile(r"^\d+(\.\d+){0,2}$")

Version = tuple[int, ...]


def parse_jax_version(text: str) -> Version:
    """`"0.4.26"` -> (0, 4, 26); `"0.5"` -> (0, 5, 0), so that both compare as jax releases do."""
    parts = tuple(int(part) for part in text.split("."))
    return parts + (0,) * (3 - len(parts))


@dataclass(frozen=True)
class Api:
    api: str
    deprecated_in: Version
    removed_in: Version | None
    replacement: str | None
    rename_safe: bool
    at_method: str | None
    note: str | None
    import_only: bool = False  # a module whose name still resolves as an attribute: only imports of it fail

    def status(self, target: Version) -> str | None:
        """`"removed"` or `"deprecated"` in the target jax version, None while it is fine there."""
        if self.removed_in is not None and self.removed_in <= target:
            return "removed"
        if self.deprecated_in <= target:
            return "deprecated"
        return None

    def when(self, status: str) -> str:
        version = self.removed_in if status == "removed" else self.deprecated_in
        assert version is not None  # `status` is "removed" only with a removal version
        return ".".join(str(part) for part in version)


@lru_cache(maxsize=None)
def _read(path: Path) -> dict:
    with open(path, "rb") as handle:
        return tomllib.load(handle)


@lru_cache(maxsize=None)
def load_table(path: Path = TABLE_PATH) -> dict[str, Api]:
    """Qualified name -> entry."""
    rows = _read(path)["api"]
    table = {}
    for row in rows:
        removed = row.get("removed_in")
        table[row["api"]] = Api(
            api=row["api"],
            deprecated_in=parse_jax_version(row["deprecated_in"]),
            removed_in=parse_jax_version(removed) if removed else None,
            replacement=row.get("replacement"),
            rename_safe=bool(row.get("rename_safe", False)),
            at_method=row.get("at_method"),
            note=row.get("note"),
            import_only=bool(row.get("import_only", False)),
        )
    return table


@lru_cache(maxsize=None)
def load_keywords(path: Path = TABLE_PATH) -> dict[str, dict[str, Api]]:
    """Qualified function -> keyword it no longer takes -> entry (its `api` is `function(keyword=)`)."""
    rows = _read(path).get("keyword", [])
    table: dict[str, dict[str, Api]] = {}
    for row in rows:
        table.setdefault(row["function"], {})[row["keyword"]] = Api(
            api=f"{row['function']}({row['keyword']}=)",
            deprecated_in=parse_jax_version(row["deprecated_in"]),
            removed_in=parse_jax_version(row["removed_in"]),
            replacement=row.get("replacement"),
            rename_safe=bool(row.get("rename_safe", False)),
            at_method=None,
            note="pass it by position" if row.get("positional") else None,
        )
    return table


@lru_cache(maxsize=None)
def newest_version() -> Version:
    """The default target: the newest release the table knows about (asked at every API name a module reads)."""
    return max(
        version
        for api in load_table().values()
        for version in (api.deprecated_in, api.removed_in)
        if version is not None
    )


# Submodules that `import jax` loads: `jax.numpy.maximum` works with nothing but `import jax`.
IMPORTED_WITH_JAX = frozenset(
    {
        "jax",
        "jax.core",
        "jax.debug",
        "jax.dtypes",
        "jax.errors",
        "jax.export",
        "jax.lax",
        "jax.nn",
        "jax.numpy",
        "jax.ops",
        "jax.random",
        "jax.sharding",
        "jax.tree",
        "jax.tree_util",
    }
)
ARRAY_ROWS = "jax.Array"  # the table's rows for methods and attributes of arrays: `jax.Array.device_buffer`
OPS_INDEX = "jax.ops.index"  # `jax.ops.index[i, :]` was how an index for jax.ops.index_* was written
# The removed `jax.ops.index_*` functions -> the `x.at[i]` method that replaces them.
REMOVED_INDEX_OPS = {
    "jax.ops.index_update": "set",
    "jax.ops.index_add": "add",
    "jax.ops.index_mul": "multiply",
    "jax.ops.index_min": "min",
    "jax.ops.index_max": "max",
}
