"""JAX801/JAX802: the table, the target version, and the fixes the findings carry."""

from __future__ import annotations

import fnmatch
import sys
from pathlib import Path

import pytest

from helpers import jaxlint

from jaxlint.analysis.apis import TABLE_PATH, load_table, newest_version, parse_version
from jaxlint.config import CommandLine, ConfigError, build_settings
from jaxlint.lint import lint_source

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
API_RULES = frozenset({"JAX801", "JAX802"})


def findings(source: str, version: str | None = None) -> list[tuple[int, int, str]]:
    return [(d.row, d.col, d.code) for d in lint_source(source, "m.py", API_RULES, jax_version=version)]


def fixes(source: str) -> list[tuple[str, list[tuple[int, int, int, int, str]]]]:
    return [(d.fix.applicability, [(e.row, e.col, e.end_row, e.end_col, e.content) for e in d.fix.edits])
            for d in lint_source(source, "m.py", API_RULES) if d.fix is not None]


def test_every_entry_is_well_formed() -> None:
    table = load_table()
    assert len(table) >= 60
    for api in table.values():
        assert api.removed_in is None or api.deprecated_in <= api.removed_in, api.api
        assert not api.rename_safe or (api.replacement and " " not in api.replacement), api.api
    assert newest_version() == parse_version("0.10.0")


def test_the_data_files_ship_in_the_wheel() -> None:
    """setuptools' package-data for `jaxlint` must match every data file's path inside the package."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["jaxlint"]
    data = sorted(TABLE_PATH.parent.iterdir())
    assert TABLE_PATH in data
    for path in data:
        relative = path.relative_to(ROOT / "jaxlint").as_posix()
        assert any(fnmatch.fnmatch(relative, pattern) for pattern in patterns), relative


SOURCE = "import jax\n\ntree = jax.tree_map(abs, [1])\nsm = jax.experimental.shard_map.shard_map\n"


@pytest.mark.parametrize("version, expected", [
    (None, [(3, 8, "JAX801"), (4, 6, "JAX802")]),  # the newest jax jaxlint knows
    ("0.6.0", [(3, 8, "JAX801")]),  # removed at the target; shard_map not yet deprecated
    ("0.4.26", [(3, 8, "JAX802")]),  # deprecated but still working
    ("0.4.25", []),  # neither deprecated nor removed yet
    ("0.4", []),
])
def test_the_target_version_decides_the_code(version, expected) -> None:
    assert findings(SOURCE, version) == expected


def test_target_jax_version_comes_from_the_config(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\ntarget-jax-version = "0.4.26"\n')
    assert build_settings(CommandLine(), tmp_path).target_jax_version == "0.4.26"


@pytest.mark.parametrize("value", ['"latest"', "0.4", '"0.4.x"', '"1.2.3.4"'])
def test_a_bad_target_jax_version_is_a_config_error(tmp_path: Path, value: str) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.jaxlint]\ntarget-jax-version = {value}\n")
    with pytest.raises(ConfigError, match="'target-jax-version' must be a jax version"):
        build_settings(CommandLine(), tmp_path)


def test_renames_keep_the_users_spelling_and_add_import_jax_once() -> None:
    source = "import jax.numpy as jnp\n\ny = jnp.round_(jnp.product(x))\nz: jnp.DeviceArray = y\n"
    assert fixes(source) == [
        ("safe", [(3, 5, 3, 15, "jnp.round")]),
        ("safe", [(3, 16, 3, 27, "jnp.prod")]),
        ("safe", [(2, 1, 2, 1, "import jax\n"), (4, 4, 4, 19, "jax.Array")]),
    ]


def test_imports_are_rewritten_so_the_names_they_bind_keep_working() -> None:
    source = ("from jax import jit, tree_map as tm\n"
              "from jax.tree_util import tree_multimap\n"
              "from jax.experimental import stax\n"
              "import jax.experimental.optimizers as opt\n")
    assert fixes(source) == [
        ("safe", [(1, 1, 1, 36, "from jax import jit\nfrom jax.tree import map as tm")]),
        ("safe", [(2, 27, 2, 40, "tree_map as tree_multimap")]),
        ("safe", [(3, 6, 3, 22, "jax.example_libraries")]),
        ("safe", [(4, 8, 4, 35, "jax.example_libraries.optimizers")]),
    ]


def test_index_updates_become_at_updates_and_their_import_goes() -> None:
    source = ("from jax.ops import index_update\nimport jax\n\n"
              "y = index_update(x + 1, (0, 1), v)\n"
              "z = jax.ops.index_mul(x, 0, 2.0, indices_are_sorted=True)\n")
    assert fixes(source) == [
        ("safe", [(1, 1, 1, 33, "")]),
        ("safe", [(4, 5, 4, 35, "(x + 1).at[(0, 1)].set(v)")]),
        ("safe", [(5, 5, 5, 58, "x.at[0].multiply(2.0, indices_are_sorted=True)")]),
    ]


def test_an_index_update_import_stays_while_a_use_cannot_be_rewritten() -> None:
    source = "from jax.ops import index_update\n\nupdate = index_update\ny = index_update(x, 0, 1.0)\n"
    assert fixes(source) == [("safe", [(4, 5, 4, 28, "x.at[0].set(1.0)")])]
    assert findings(source) == [(1, 21, "JAX801"), (4, 5, "JAX801")]


def test_no_fix_where_the_replacement_behaves_differently() -> None:
    source = "import jax\n\njax.random.shuffle(k, x)\njax.device_put_sharded(xs, devices)\n"
    assert [code for _, _, code in findings(source)] == ["JAX801", "JAX801"]
    assert fixes(source) == []


def test_an_older_target_fixes_deprecated_renames_as_jax802(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\ntarget-jax-version = "0.4.26"\n')
    (tmp_path / "m.py").write_text("import jax\n\ntree = jax.tree_map(abs, [1])\n")
    listed = jaxlint(tmp_path, "m.py").stdout.splitlines()
    assert listed[0] == "m.py:3:8: JAX802 [*] `jax.tree_map` is deprecated since jax 0.4.26; use `jax.tree.map`"
    assert jaxlint(tmp_path, "--fix", "m.py").returncode == 0
    assert (tmp_path / "m.py").read_text() == "import jax\n\ntree = jax.tree.map(abs, [1])\n"
