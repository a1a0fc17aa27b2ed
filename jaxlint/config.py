"""Settings: `[tool.jaxlint]` from pyproject.toml merged with the command line.

Every mistake in configuration stops the run with a message naming the key, value or file:
a linter that silently ignores `selct = [...]` checks something other than what its user asked for.
"""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

from jaxlint.model.apis import VERSION as JAX_VERSION
from jaxlint.model.keys import DEFAULT_KEY_NAMES
from jaxlint.selection import UnknownSelector, enabled_codes, resolve
from jaxlint.suggest import unknown_key
from jaxlint.verify_config import VerifyConfigError, validate as validate_verify

DEFAULT_EXCLUDE = (
    ".git",
    ".venv",
    "venv",
    "build",
    "dist",
    "__pycache__",
    ".tox",
    "node_modules",
    ".ipynb_checkpoints",
)

_LIST_KEYS = ("select", "extend-select", "ignore", "exclude", "extend-exclude", "extra-transforms", "key-names")
_KNOWN_KEYS = (
    *_LIST_KEYS,
    "per-file-ignores",
    "target-jax-version",
    "verify",
    "cache-dir",
    "target-version",
    "max-file-size",
    "docs-url",
    "respect-gitignore",
)
# Files larger than this are reported (JAX003) and skipped: generated code and data saved as .py take
# time and memory in proportion to their size, and are not where JAX bugs live.
DEFAULT_MAX_FILE_SIZE = 2_000_000
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(B|KB|MB|GB)?\s*$", re.IGNORECASE)
_UNITS = {"b": 1, "kb": 1_000, "mb": 1_000_000, "gb": 1_000_000_000}
PYTHON_VERSION = re.compile(r"^3\.\d{1,2}$")


class ConfigError(Exception):
    """A problem in the configuration or the command line's rule selection: exit 2."""


@dataclass(frozen=True)
class Settings:
    enabled: frozenset[str]
    root: Path
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    force_exclude: bool = False
    config_file: Path | None = None
    extra_transforms: frozenset[str] = frozenset()  # qualified names that behave like jax.jit
    key_names: tuple[str, ...] = DEFAULT_KEY_NAMES  # parameter names (globs) that hold PRNG keys
    # JAX801/JAX802 judge APIs against this release: `target-jax-version`, else the lowest jax the
    # project's dependencies allow (None: the newest jaxlint knows).
    target_jax_version: str | None = None
    cache_dir: Path | None = None  # where results are cached, from the config (relative to its folder)
    python_version: str | None = None  # the code's Python ("3.12"), whose syntax it is parsed with (None: newest)
    max_file_size: int = DEFAULT_MAX_FILE_SIZE  # bytes; larger files are reported and skipped
    docs_url: str | None = None  # where the rule pages are published ("https://.../{code}.html"), for report links
    respect_gitignore: bool = True  # skip what git ignores (jaxlint/gitignore.py)

    def _relative(self, path: str) -> PurePosixPath:
        """The path from the config's folder; outside that folder, just the file's name.

        Folders above the project never take part in matching: `jaxlint /tmp/dist/proj`
        must not exclude everything because of the `dist` above it.
        """
        absolute = Path(os.path.abspath(path))
        try:
            return PurePosixPath(absolute.relative_to(self.root).as_posix())
        except ValueError:
            return PurePosixPath(absolute.name)

    def enabled_for(self, path: str) -> frozenset[str]:
        """The codes checked in one file, after per-file-ignores."""
        relative = self._relative(path)
        ignored: set[str] = set()
        for pattern, codes in self.per_file_ignores:
            if _matches(pattern, relative, relative.parts):
                ignored |= codes
        return self.enabled - ignored

    def is_excluded(self, path: str) -> bool:
        """Whether one file or folder is excluded by its own name or its path from the config's folder.

        Its parents are not looked at: the walk prunes excluded folders as it meets them.
        """
        relative = self._relative(path)
        return any(_matches(pattern, relative, (relative.name,)) for pattern in self.exclude)


def _matches(pattern: str, relative: PurePosixPath, names: tuple[str, ...]) -> bool:
    """A glob with a slash matches the path from the config's folder; without one, any of `names`."""
    pattern = pattern.rstrip("/")
    if "/" in pattern:
        return fnmatch.fnmatchcase(str(relative), pattern) or fnmatch.fnmatchcase(str(relative), pattern + "/*")
    return any(fnmatch.fnmatchcase(name, pattern) for name in names)


def find_config(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above `start` that has a `[tool.jaxlint]` table."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if _is_file(candidate):
            try:
                if "jaxlint" in _read_toml(candidate).get("tool", {}):
                    return candidate
            except ConfigError:
                # A broken pyproject.toml that never mentions jaxlint is not ours to judge.
                if "[tool.jaxlint" in _read_text(candidate):
                    raise
    return None


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        raise ConfigError(f"cannot read config file {path}: {error.strerror}") from None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as error:
        raise ConfigError(f"cannot read config file {path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"invalid TOML in {path}: {error}") from None
    except UnicodeDecodeError as error:  # TOML is UTF-8
        raise ConfigError(
            f"invalid TOML in {path}: not UTF-8 (byte 0x{error.object[error.start : error.start + 1].hex()} "
            f"at offset {error.start})"
        ) from None


def load_table(path: Path) -> dict[str, Any]:
    """The `[tool.jaxlint]` table of a config file, validated."""
    table = _read_toml(path).get("tool", {}).get("jaxlint", {})
    where = f"[tool.jaxlint] in {path}"
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: expected a table")
    for key, value in table.items():
        if key not in _KNOWN_KEYS:
            raise ConfigError(unknown_key(where, key, _KNOWN_KEYS))
        if key in _LIST_KEYS and not _is_list_of_str(value):
            raise ConfigError(f"{where}: '{key}' must be a list of strings, got {_describe(value)}")
        if key == "target-jax-version" and not (isinstance(value, str) and JAX_VERSION.match(value)):
            raise ConfigError(
                f"{where}: 'target-jax-version' must be a jax version such as \"0.4.30\", got {_describe(value)}"
            )
        if key == "target-version" and not (isinstance(value, str) and PYTHON_VERSION.match(value)):
            raise ConfigError(
                f"{where}: 'target-version' must be a Python version such as \"3.12\", got {_describe(value)}"
            )
        if key == "max-file-size" and file_size(value) is None:
            raise ConfigError(
                f'{where}: \'max-file-size\' must be a size such as "5MB", "500KB" or a number '
                f"of bytes, got {_describe(value)}"
            )
        if key == "docs-url" and not _is_docs_url(value):
            raise ConfigError(
                f"{where}: 'docs-url' must be an http(s) URL with {{code}} where a rule's code goes, such as "
                f'"https://example.org/jaxlint/rules/{{code}}.html", got {_describe(value)}'
            )
        if key == "respect-gitignore" and not isinstance(value, bool):
            raise ConfigError(f"{where}: 'respect-gitignore' must be true or false, got {_describe(value)}")
        if key == "cache-dir" and not isinstance(value, str):
            raise ConfigError(f"{where}: 'cache-dir' must be a string, got {_describe(value)}")
        if key == "per-file-ignores":
            if not isinstance(value, dict):
                raise ConfigError(
                    f"{where}: 'per-file-ignores' must be a table of glob = [codes], got {_describe(value)}"
                )
            for glob, codes in value.items():
                if not _is_list_of_str(codes):
                    raise ConfigError(
                        f"{where}: per-file-ignores '{glob}' must be a list of strings, got {_describe(codes)}"
                    )
        if key == "verify":
            try:
                validate_verify(value, where)
            except VerifyConfigError as error:
                raise ConfigError(str(error)) from None
    return table


_JAX_REQUIREMENT = re.compile(r"\s*jax(?![\w.-])\s*(\[[^\]]*\])?\s*(?P<specifiers>[^;#]*)", re.IGNORECASE)
_LOWER_BOUND = re.compile(r"(===|==|>=|~=|>)\s*(?P<version>\d+(\.\d+){0,2})")
# Poetry's constraints: `^0.3.10`, `~0.3.10`, `>=0.4,<0.5`, a bare `0.4.30` (exactly that one).
_POETRY_LOWER_BOUND = re.compile(r"(?:^|,)\s*(?:\^|~=?|>=|==|>)?\s*(?P<version>\d+(\.\d+){0,2})\b")


def pinned_jax(pyproject: Path | None, folder: Path | None = None) -> str | None:
    """The lowest jax release a project's dependencies allow (`jax==0.4.30`, `jax>=0.4.20,<0.5`,
    poetry's `jax = "^0.3.10"`): the one its code must still run on. Read from its pyproject.toml's
    [project] and [tool.poetry] dependencies and the requirements*.txt files beside it (in `folder`, by
    default the pyproject's); None without a lower bound on jax."""
    folder = folder or (pyproject.parent if pyproject is not None else None)
    specifiers = _requirements_specifiers(folder) if folder is not None else []
    poetry: list[str] = []
    if pyproject is not None and _is_file(pyproject):
        try:
            table = _read_toml(pyproject)
        except ConfigError:
            table = {}
        dependencies = table.get("project", {}).get("dependencies", [])
        specifiers += _specifiers(dependencies if isinstance(dependencies, list) else [])
        poetry = _poetry_constraints(table.get("tool", {}).get("poetry", {}).get("dependencies", {}).get("jax"))
    bounds = [bound.group("version") for text in specifiers for bound in _LOWER_BOUND.finditer(text)]
    bounds += [bound.group("version") for text in poetry for bound in _POETRY_LOWER_BOUND.finditer(text)]
    parsed = [tuple(int(part) for part in bound.split(".")) for bound in bounds]
    return ".".join(str(part) for part in max(parsed)) if parsed else None


def _specifiers(requirements: list) -> list[str]:
    """The version specifiers of the requirements on jax (not jaxlib) among PEP 508 strings."""
    found = [_JAX_REQUIREMENT.match(line) if isinstance(line, str) else None for line in requirements]
    return [match.group("specifiers") for match in found if match]


def _requirements_specifiers(folder: Path) -> list[str]:
    """The specifiers on jax in the folder's requirements*.txt files (`jax[cpu]~=0.4.26`)."""
    lines: list[str] = []
    try:
        files = sorted(folder.glob("requirements*.txt"))
    except OSError:
        return []
    for file in files:
        try:
            lines += file.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
    return _specifiers(lines)


def _poetry_constraints(value: Any) -> list[str]:
    """`jax = "^0.3.10"`, `jax = {version = "^0.3.10", extras = ["cpu"]}` or a list of such tables."""
    entries = value if isinstance(value, list) else [value]
    versions = [entry.get("version") if isinstance(entry, dict) else entry for entry in entries]
    return [version for version in versions if isinstance(version, str)]


def nearest_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above `start`, with a [tool.jaxlint] table or not."""
    return next(
        (folder / "pyproject.toml" for folder in (start, *start.parents) if _is_file(folder / "pyproject.toml")), None
    )


def _is_file(path: Path) -> bool:
    """False for a file in a folder that cannot be looked into (the walk reports that folder)."""
    try:
        return path.is_file()
    except PermissionError:
        return False


def _is_docs_url(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(("https://", "http://")) and "{code}" in value


def _is_list_of_str(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _describe(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"


@dataclass
class CommandLine:
    """The rule and file options given on the command line (None: not given)."""

    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    config: str | None = None
    force_exclude: bool = False
    respect_gitignore: bool | None = None
    target_jax_version: str | None = None
    exclude: list[str] | None = None  # replaces the config's
    extend_exclude: list[str] = field(default_factory=list)
    per_file_ignores: list[tuple[str, list[str]]] | None = None  # replaces the config's


def build_settings(cli: CommandLine, cwd: Path | None = None) -> Settings:
    cwd = cwd or Path.cwd()
    config_file: Path | None
    if cli.config is not None:
        config_file = Path(cli.config)
        if not config_file.is_file():
            raise ConfigError(f"config file not found: {cli.config}")
    else:
        config_file = find_config(cwd)
    table = load_table(config_file) if config_file else {}
    root = config_file.resolve().parent if config_file else cwd.resolve()
    where = f"[tool.jaxlint] in {config_file}"

    def codes(selectors: list[str], label: str, *, for_select: bool) -> set[str]:
        try:
            return resolve(selectors, for_select=for_select)
        except UnknownSelector as error:
            raise ConfigError(f"{label}: unknown rule code or name '{error}'") from None

    select = cli.select if cli.select is not None else table.get("select")
    select_label = "--select" if cli.select is not None else f"{where}: 'select'"
    extend = [(table.get("extend-select", []), f"{where}: 'extend-select'"), (cli.extend_select, "--extend-select")]
    ignore = [(table.get("ignore", []), f"{where}: 'ignore'"), (cli.ignore, "--ignore")]
    for selectors, label in [(select or [], select_label), *extend]:
        codes(selectors, label, for_select=True)
    for selectors, label in ignore:
        codes(selectors, label, for_select=False)
    enabled = enabled_codes(
        select,
        [s for selectors, _ in extend for s in selectors],
        [s for selectors, _ in ignore for s in selectors],
    )
    per_file_label = "--per-file-ignores" if cli.per_file_ignores is not None else f"{where}: per-file-ignores"
    per_file = tuple(
        (glob, frozenset(codes(selectors, f"{per_file_label} '{glob}'", for_select=False)))
        for glob, selectors in (
            cli.per_file_ignores if cli.per_file_ignores is not None else table.get("per-file-ignores", {}).items()
        )
    )
    exclude = cli.exclude if cli.exclude is not None else table.get("exclude", DEFAULT_EXCLUDE)
    exclude = (*exclude, *table.get("extend-exclude", ()), *cli.extend_exclude)
    extra_transforms = frozenset(table.get("extra-transforms", ()))
    for name in extra_transforms:
        if not all(part.isidentifier() for part in name.split(".")) or "." not in name:
            raise ConfigError(
                f"{where}: 'extra-transforms' entries are qualified names such as 'mylib.compile', got {name!r}"
            )
    key_names = tuple(table.get("key-names", DEFAULT_KEY_NAMES))
    cache_dir = root / table["cache-dir"] if "cache-dir" in table else None
    python_version = table.get("target-version") or requires_python(config_file, root)
    # A size (load_table refused any other value): `or` only tells mypy.
    max_file_size = file_size(table.get("max-file-size", DEFAULT_MAX_FILE_SIZE)) or DEFAULT_MAX_FILE_SIZE
    project = config_file or nearest_pyproject(cwd)  # where the jax it depends on is said
    return Settings(
        enabled,
        root,
        per_file,
        exclude,
        cli.force_exclude,
        config_file,
        extra_transforms,
        key_names,
        cli.target_jax_version
        or table.get("target-jax-version")
        or pinned_jax(project, project.parent if project else root),
        cache_dir,
        python_version,
        max_file_size,
        table.get("docs-url"),
        cli.respect_gitignore if cli.respect_gitignore is not None else table.get("respect-gitignore", True),
    )


def file_size(value: Any) -> int | None:
    """Bytes from `2000000`, "2MB" or "500 KB" (units of 1000); None when it is not a size."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if value > 0 else None
    match = _SIZE.match(value) if isinstance(value, str) else None
    if match is None:
        return None
    size = int(float(match.group(1)) * _UNITS[(match.group(2) or "b").lower()])
    return size if size > 0 else None


_PYTHON_LOWER_BOUND = re.compile(r"(?:>=|~=|==|>)\s*(\d+)\.(\d+)")


def requires_python(config_file: Path | None, root: Path) -> str | None:
    """The oldest Python the project supports, from `requires-python` in its pyproject.toml (the config
    file when it is one, else the nearest at or above the root): the syntax its code may use."""
    if config_file is not None and config_file.name == "pyproject.toml":
        candidates = [config_file]
    else:
        candidates = [folder / "pyproject.toml" for folder in (root, *root.parents)]
    for candidate in candidates:
        if not candidate.is_file():
            continue
        try:
            spec = _read_toml(candidate).get("project", {}).get("requires-python")
        except ConfigError:
            return None  # not ours to judge: the file's own tools will say what is wrong
        bounds: list[tuple[str, str]] = _PYTHON_LOWER_BOUND.findall(spec) if isinstance(spec, str) else []
        if not bounds:
            return None
        major, minor = min(bounds, key=lambda b: (int(b[0]), int(b[1])))
        return f"{major}.{minor}"
    return None
