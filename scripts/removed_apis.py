"""Regenerate jaxlint/data/removed_apis.toml from the source of every jax release.

Run by hand, never in CI or the tests (it downloads about 120 releases once):

    python scripts/removed_apis.py            # every release on PyPI from 0.2.0 on
    python scripts/removed_apis.py --offline  # only the releases already in the cache

Each release of the `jax` package is fetched once with `pip download --no-deps` (the wheel, or the
source archive for the releases up to 0.4.14, which have none) into ~/.cache/jaxlint-apis (or
$JAXLINT_APIS_CACHE) and read from there with `ast`: this script imports nothing from it (for a source
archive, pip itself prepares its metadata in an isolated build environment). jaxlib is not read: jax's
public API (`jax.lib` included) lives in the `jax` package, jaxlib only holds the compiled backend.

For each release it lists the public API surface: every public module (no `_`-prefixed part, no
tests) and the names it binds (`__all__`, top-level defs, classes, assignments, re-exports, star
imports resolved through jax's own modules, `_deprecations` tables). A name is removed when the newest
release lacks it; the data keeps the last release that still had it (`last_in`, the evidence), the
first one without it (`removed_in`) and the first release that warned about it (`deprecated_in`, from
`_deprecations` tables and `warnings.warn(..., DeprecationWarning/FutureWarning)` in the function or
module; equal to `removed_in` when no release warned). Names deprecated in the newest release but
still there are kept without `removed_in`. It also lists the public methods and attributes of each
release's array class (DeviceArray, later jax.Array: its class bodies, `setattr` calls and the method
tables of lax_numpy/array_methods; a property kept only to raise counts as gone) and writes a
`jax.Array.<name>` row for each one the newest release lacks, and a `keyword` row for each keyword a function
users call (KEYWORD_MODULES) took in an older release and takes no more: the keywords are read from each release's
def of the function, and a keyword counts as deprecated from the first release whose def warns under an `if`
testing it (`if a_min is not None: warnings.warn(...)`). The hand-written columns (replacement, rename_safe,
at_method, note, taken from jax's CHANGELOG) are read from the existing file and kept. Running it
twice over the same cache writes the same file.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "jaxlint" / "data" / "removed_apis.toml"
CACHE = Path(os.environ.get("JAXLINT_APIS_CACHE", "~/.cache/jaxlint-apis")).expanduser()
FIRST = (0, 2, 0)
HAND_COLUMNS = ("replacement", "rename_safe", "at_method", "note")
KEYWORD_HAND_COLUMNS = ("replacement", "rename_safe")
WARNINGS = frozenset({"DeprecationWarning", "FutureWarning", "PendingDeprecationWarning"})

Version = tuple[int, ...]


def parse_jax_version(text: str) -> Version:
    return tuple(int(part) for part in text.split("."))


def show(version: Version) -> str:
    return ".".join(str(part) for part in version)


# ---------------------------------------------------------------------------- the releases


def releases(offline: bool) -> list[Version]:
    """The jax releases from FIRST on: those PyPI lists, or (offline) those already cached."""
    if offline:
        texts = [path.name.split("-")[1].removesuffix(".tar.gz") for path in CACHE.glob("jax-*")]
    else:
        listed = subprocess.run(
            [sys.executable, "-m", "pip", "index", "versions", "jax"], capture_output=True, text=True, check=True
        ).stdout
        texts = re.search(r"Available versions: (.*)", listed).group(1).split(", ")
    versions = {parse_jax_version(text) for text in texts if re.fullmatch(r"\d+(\.\d+)*", text)}
    return sorted(version for version in versions if version >= FIRST)


def archive(version: Version) -> Path:
    """The cached wheel (or source archive) of one release, downloaded when missing."""
    found = sorted(CACHE.glob(f"jax-{show(version)}-*.whl")) + sorted(CACHE.glob(f"jax-{show(version)}.tar.gz"))
    if found:
        return found[0]
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--prefer-binary",
                f"jax=={show(version)}",
                "--dest",
                folder,
            ],
            check=True,
        )
        (downloaded,) = Path(folder).iterdir()
        return Path(shutil.move(str(downloaded), CACHE / downloaded.name))


def sources(path: Path) -> dict[str, str]:
    """Path inside the package (`jax/numpy/__init__.py`) -> text, for every .py/.pyi file of jax."""
    files: dict[str, str] = {}
    if path.suffix == ".whl":
        with zipfile.ZipFile(path) as wheel:
            for name in wheel.namelist():
                if name.startswith("jax/") and name.endswith((".py", ".pyi")):
                    files[name] = wheel.read(name).decode("utf-8", "replace")
        return files
    with tarfile.open(path) as sdist:
        for member in sdist.getmembers():
            name = member.name.split("/", 1)[-1]
            if member.isfile() and name.startswith("jax/") and name.endswith((".py", ".pyi")):
                files[name] = sdist.extractfile(member).read().decode("utf-8", "replace")
    return files


# ---------------------------------------------------------------------------- one module


@dataclass
class Module:
    """What one module's top level binds, as read from its source."""

    name: str
    package: bool
    bound: set[str] = field(default_factory=set)  # every name bound at the top level
    own: set[str] = field(default_factory=set)  # defs, classes and assignments
    imported: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # local -> (module, name)
    same_alias: set[str] = field(default_factory=set)  # `from m import x as x`: an explicit re-export
    stars: list[str] = field(default_factory=list)  # modules star-imported
    all: set[str] | None = None
    deleted: set[str] = field(default_factory=set)
    deprecations: dict[str, bool] = field(default_factory=dict)  # name -> still has an object
    warning_defs: set[str] = field(default_factory=set)  # top-level functions/classes that warn
    warns: bool = False  # the module warns when imported
    open: bool = False  # a `__getattr__` or `globals()` writes we cannot enumerate


def _warns(node: ast.AST) -> bool:
    """A `warnings.warn(..., DeprecationWarning)` (or FutureWarning) call anywhere under `node`."""
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            func = call.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if (
                isinstance(func, ast.Attribute)
                and func.attr == "warn"
                and getattr(func.value, "id", "") == "deprecations"
            ):
                return True  # jax._src.deprecations.warn(id, message): a DeprecationWarning
            if called in ("warn", "warn_deprecated") and any(
                (getattr(arg, "id", None) or getattr(arg, "attr", None)) in WARNINGS
                for arg in [*call.args, *(keyword.value for keyword in call.keywords)]
            ):
                return True
    return False


def _warns_unconditionally(definition: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
    """A function whose body (or a class whose `__init__`) always warns, not only for some arguments."""
    if isinstance(definition, ast.ClassDef):
        return any(
            isinstance(item, ast.FunctionDef) and item.name == "__init__" and _warns_unconditionally(item)
            for item in definition.body
        )
    return any(isinstance(statement, ast.Expr) and _warns(statement) for statement in definition.body)


def _warned_keywords(definition: ast.FunctionDef | ast.AsyncFunctionDef, taken: frozenset[str]) -> set[str]:
    """The parameters whose use the function warns about: an `if` testing one of them, with a deprecation warning in its body (_warns)."""
    warned = set()
    for node in ast.walk(definition):
        if isinstance(node, ast.If) and any(_warns(statement) for statement in node.body):
            warned |= {name.id for name in ast.walk(node.test) if isinstance(name, ast.Name) and name.id in taken}
    return warned


def _strings(node: ast.AST) -> set[str] | None:
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        if all(isinstance(item, ast.Constant) and isinstance(item.value, str) for item in node.elts):
            return {item.value for item in node.elts}
    return None


def _absolute(module: str, package: bool, level: int, target: str | None) -> str:
    parts = module.split(".")
    base = parts if package else parts[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def read_module(name: str, package: bool, text: str) -> Module | None:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    module = Module(name, package)

    def add(name: str, own: bool) -> None:
        module.bound.add(name)
        module.deleted.discard(name)  # bound again after a `del`
        if own:
            module.own.add(name)

    def bind(target: ast.expr, own: bool) -> None:
        """The names an assignment target binds (`a`, `a, (b, *c)`), not those it reads (`a[i]`, `a.b`)."""
        if isinstance(target, ast.Name):
            add(target.id, own)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                bind(element, own)
        elif isinstance(target, ast.Starred):
            bind(target.value, own)

    def visit(statements: list[ast.stmt], top: bool) -> None:
        for statement in statements:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                add(statement.name, own=True)
                if statement.name == "__getattr__":
                    module.open = True
                if _warns_unconditionally(statement):
                    module.warning_defs.add(statement.name)
            elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                value = statement.value
                for target in targets:
                    if isinstance(target, ast.Name) and target.id == "__all__":
                        listed = _strings(value) if value is not None else None
                        if isinstance(statement, ast.AugAssign) and listed is not None:
                            module.all = (module.all or set()) | listed
                        elif listed is not None:
                            module.all = listed
                        continue
                    if isinstance(target, ast.Name) and target.id == "__getattr__":
                        called = value.func if isinstance(value, ast.Call) else None
                        called_name = getattr(called, "attr", None) or getattr(called, "id", "")
                        if "deprecation_getattr" not in called_name:
                            module.open = True
                    if isinstance(target, ast.Name) and target.id == "_deprecations" and isinstance(value, ast.Dict):
                        for key, entry in zip(value.keys, value.values):
                            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                                last = entry.elts[-1] if isinstance(entry, ast.Tuple) and entry.elts else None
                                module.deprecations[key.value] = not (
                                    isinstance(last, ast.Constant) and last.value is None
                                )
                    if isinstance(target, ast.Subscript) and "globals" in ast.dump(target.value):
                        module.open = True
                    if value is not None:
                        bind(target, own=True)
            elif isinstance(statement, ast.Import):
                for alias in statement.names:
                    local = alias.asname or alias.name.split(".")[0]
                    add(local, own=False)
                    module.imported[local] = (alias.name if alias.asname else local, None)
                    if alias.asname == alias.name:
                        module.same_alias.add(local)
            elif isinstance(statement, ast.ImportFrom):
                source = (
                    _absolute(name, package, statement.level, statement.module)
                    if statement.level
                    else statement.module or ""
                )
                for alias in statement.names:
                    if alias.name == "*":
                        module.stars.append(source)
                        continue
                    local = alias.asname or alias.name
                    add(local, own=False)
                    module.imported[local] = (source, alias.name)
                    if alias.asname == alias.name:
                        module.same_alias.add(local)
            elif isinstance(statement, ast.Delete):
                for target in statement.targets:
                    if isinstance(target, ast.Name) and top:
                        module.deleted.add(target.id)
                        module.bound.discard(target.id)
                        module.own.discard(target.id)
                        module.same_alias.discard(target.id)
                        module.imported.pop(target.id, None)
            elif isinstance(statement, ast.If):
                if not _is_type_checking(statement.test):
                    visit(statement.body, False)
                visit(statement.orelse, False)
            elif isinstance(statement, ast.Try):
                visit(statement.body, False)
                for handler in statement.handlers:
                    visit(handler.body, False)
                visit(statement.orelse, False)
                visit(statement.finalbody, False)
            elif isinstance(statement, (ast.With, ast.For)):
                if isinstance(statement, ast.For):
                    bind(statement.target, own=False)
                visit(statement.body, False)
            elif isinstance(statement, ast.Expr):
                value = statement.value
                if isinstance(value, ast.Call) and "globals" in ast.dump(value.func):
                    module.open = True  # globals().update(...)
                if _warns(statement):
                    module.warns = True  # at import time, possibly under an `if` (`is_accelerated`)
                if (
                    isinstance(value, ast.Call)
                    and isinstance(value.func, ast.Attribute)
                    and isinstance(value.func.value, ast.Name)
                    and value.func.value.id == "__all__"
                    and value.args
                    and _strings(value.args[0]) is not None
                ):
                    module.all = (module.all or set()) | _strings(value.args[0])

    visit(tree.body, True)
    return module


# ---------------------------------------------------------------------------- the array class

ARRAY = "jax.Array"  # the key of the array rows: `jax.Array.device_buffer`
ARRAY_CLASSES = {  # file -> the array classes it defines, across the releases
    "jax/interpreters/xla.py": {"_DeviceArray", "DeviceArray"},
    "jax/_src/device_array.py": {"_DeviceArray", "DeviceArray"},
    "jax/_src/array.py": {"ArrayImpl", "Array"},
    "jax/_src/basearray.py": {"Array"},
    "jax/_src/basearray.pyi": {"Array"},
}
ARRAY_METHOD_FILES = ("jax/numpy/lax_numpy.py", "jax/_src/numpy/lax_numpy.py", "jax/_src/numpy/array_methods.py")
ARRAY_TARGETS = {"device_array", "DeviceArray", "_DeviceArray", "ArrayImpl", "Array", "basearray"}


def _raises_only(definition: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    body = [
        statement
        for statement in definition.body
        if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))
    ]
    return len(body) == 1 and isinstance(body[0], ast.Raise)


def _warning_methods(definition: ast.ClassDef) -> set[str]:
    return {
        statement.name
        for statement in definition.body
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and _warns(statement)
    }


def _class_attributes(definition: ast.ClassDef) -> set[str]:
    """What a class body defines (methods, properties, class attributes, `__slots__`), and the
    `self.x = ...` attributes its methods set."""
    names = set()
    for statement in definition.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if _raises_only(statement):
                continue  # a tombstone (`raise AttributeError("arr.device_buffer has been deprecated")`)
            names.add(statement.name)
            for node in ast.walk(statement):
                targets = (
                    node.targets
                    if isinstance(node, ast.Assign)
                    else [node.target]
                    if isinstance(node, ast.AnnAssign)
                    else []
                )
                names |= {
                    target.attr
                    for target in targets
                    if isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                }
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id == "__slots__":
                    names |= _strings(statement.value) or set()
                elif isinstance(target, ast.Name):
                    names.add(target.id)
    return names


def _attached(tree: ast.AST) -> set[str]:
    """Names attached to the array class by `setattr(device_array, "name", ...)`, and the names in
    the method tables those loops read (`_nondiff_methods`, `_array_methods`, `_array_properties`)."""
    names = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", "") == "setattr"
            and len(node.args) == 3
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            target = node.args[0]
            if (getattr(target, "id", None) or getattr(target, "attr", None)) in ARRAY_TARGETS:
                names.add(node.args[1].value)
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and re.fullmatch(r"_\w*(methods|properties)", target.id)
            for target in node.targets
        ):
            value = node.value
            keys = value.keys if isinstance(value, ast.Dict) else getattr(value, "elts", [])
            names |= {key.value for key in keys if isinstance(key, ast.Constant) and isinstance(key.value, str)}
    return names


def array_attributes(files: dict[str, str]) -> tuple[set[str], set[str]]:
    """The public methods and attributes of one release's array class (DeviceArray, later jax.Array),
    and those of its methods that warn (deprecated)."""
    names: set[str] = set()
    warned: set[str] = set()
    for path, text in files.items():
        if path not in ARRAY_CLASSES and path not in ARRAY_METHOD_FILES:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        if path in ARRAY_METHOD_FILES:
            names |= _attached(tree)
        else:
            names |= _attached(tree)
            for statement in tree.body:
                if isinstance(statement, ast.ClassDef) and statement.name in ARRAY_CLASSES[path]:
                    names |= _class_attributes(statement)
                    warned |= _warning_methods(statement)
    return {name for name in names if not name.startswith("_")}, warned


# ---------------------------------------------------------------------------- one release


def is_public(module: str) -> bool:
    parts = module.split(".")
    return not any(part.startswith("_") or part in ("tests", "examples", "testdata") for part in parts)


class Release:
    """The modules of one jax release and what resolves in them."""

    def __init__(self, version: Version, files: dict[str, str] | None = None) -> None:
        """The release's files are read from its cached archive unless given (path -> source)."""
        self.version = version
        self.files: dict[str, tuple[bool, str]] = {}  # module -> (is a package, source); parsed when needed
        files = sources(archive(version)) if files is None else files
        self.array_attributes, self.array_warnings = array_attributes(files)
        for path, text in sorted(files.items()):
            if path.endswith(".pyi"):
                continue
            package = path.endswith("/__init__.py")
            name = (path[: -len("/__init__.py")] if package else path[: -len(".py")]).replace("/", ".")
            self.files[name] = (package, text)
        self._parsed: dict[str, Module | None] = {}
        self._stars: dict[str, set[str] | None] = {}
        self._names: dict[str, set[str] | None] = {}
        self._trees: dict[str, ast.Module] = {}
        self.public_modules = {
            name for name in self.files if name.startswith("jax") and is_public(name) and self.module(name) is not None
        }
        self.public = {name: self._offered(name) for name in sorted(self.public_modules)}
        self.deprecated = self._deprecated()

    def module(self, name: str) -> Module | None:
        """One module of the release, read on first use (most of jax._src is never needed)."""
        if name not in self._parsed:
            found = self.files.get(name)
            self._parsed[name] = None if found is None else read_module(name, found[0], found[1])
        return self._parsed[name]

    # -- what a module binds

    def names(self, name: str, seen: frozenset[str] = frozenset()) -> set[str] | None:
        """Every name that resolves in module `name`; None when they cannot all be known."""
        if name in self._names:
            return self._names[name]
        module = self.module(name)
        names: set[str] | None = set(module.bound)
        for source in module.stars:
            more = self.star(source, seen | {name})
            if more is None:
                names = None
                break
            names |= more
        if names is not None and module.open and not module.deprecations:
            names = None
        if names is not None:
            names -= module.deleted
            names |= {item for item, alive in module.deprecations.items() if alive}
            names -= {item for item, alive in module.deprecations.items() if not alive}
        if not seen:
            self._names[name] = names
        return names

    def star(self, source: str, seen: frozenset[str]) -> set[str] | None:
        """What `from source import *` binds, or None when it cannot be known (not one of jax's modules)."""
        if source in self._stars:
            return self._stars[source]
        module = self.module(source)
        if module is None or source in seen:
            return None
        if module.all is not None:
            result: set[str] | None = set(module.all)
        else:
            everything = self.names(source, seen)
            result = None if everything is None else {item for item in everything if not item.startswith("_")}
        self._stars[source] = result
        return result

    def bound_module(self, name: str, item: str, depth: int = 0) -> str | None:
        """The module that `item` in module `name` is bound to (`from jax._src.lax import lax`), if any."""
        module = self.module(name)
        if module is None or depth > 20:
            return None
        if f"{name}.{item}" in self.files and item not in module.own:
            return f"{name}.{item}"
        if item in module.imported:
            source, original = module.imported[item]
            if original is None:
                return source if source in self.files else None
            return self.bound_module(source, original, depth + 1)
        for source in module.stars:
            if item in (self.star(source, frozenset()) or ()):
                return self.bound_module(source, item, depth + 1)
        return None

    def origin(self, name: str, item: str, depth: int = 0) -> tuple[Module, str] | None:
        """The module whose top level defines `item`, as reached from module `name`."""
        module = self.module(name)
        if module is None or depth > 20:
            return None
        if item in module.own:
            return module, item
        if item in module.imported:
            source, original = module.imported[item]
            return None if original is None else self.origin(source, original, depth + 1)
        for source in module.stars:
            found = self.origin(source, item, depth + 1)
            if found is not None:
                return found
        return None

    def keywords(self, module: str, item: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]] | None:
        """The keywords public function `module.item` takes in this release, those of them it warns about
        (`if a_min is not None: warnings.warn(...)`) and its positional-only parameters; None unless it is a plain
        def that takes no `**kwargs`."""
        found = self.origin(module, item)
        if found is None:
            return None
        tree = self._trees.get(found[0].name)
        if tree is None:
            tree = self._trees[found[0].name] = ast.parse(self.files[found[0].name][1])
        definitions = [
            node
            for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == found[1]
        ]
        if not definitions or definitions[-1].args.kwarg is not None:
            return None
        arguments = definitions[-1].args
        taken = frozenset(a.arg for a in (*arguments.args, *arguments.kwonlyargs) if not a.arg.startswith("_"))
        positional = frozenset(a.arg for a in arguments.posonlyargs)
        return taken, frozenset(_warned_keywords(definitions[-1], taken)), positional

    # -- the public surface

    def _offered(self, name: str) -> set[str]:
        """The names a public module offers as its API: its own definitions, `__all__`, explicit
        re-exports (`from m import x as x`, and any import of jax's own code in a package's
        `__init__`, and a public module's names imported from jax._src), what its star imports bring,
        and its `_deprecations` table."""
        module = self.module(name)
        offered = module.own | module.same_alias | set(module.deprecations) | (module.all or set())
        for source in module.stars:
            offered |= self.star(source, frozenset({name})) or set()
        for local, (source, original) in module.imported.items():
            if source.split(".")[0] != "jax" or original is None:
                continue
            if module.package or (not is_public(source) and f"{source}.{original}" not in self.files):
                offered.add(local)  # a package's re-export, or a public module's name from jax._src
        return {item for item in offered - module.deleted if not item.startswith("_")}

    def _deprecated(self) -> set[str]:
        """Modules that warn when imported, and names that warn when used."""
        deprecated = set()
        for name in self.public_modules:
            module = self.module(name)
            if module.warns:
                deprecated.add(name)
            deprecated |= {f"{name}.{item}" for item, alive in module.deprecations.items() if alive}
            for item in self.public[name]:
                found = self.origin(name, item)
                if found is not None and found[1] in found[0].warning_defs:
                    deprecated.add(f"{name}.{item}")
        return deprecated

    def warns(self, api: str) -> bool:
        parts = api.split(".")
        return any(".".join(parts[:end]) in self.deprecated for end in range(2, len(parts) + 1))

    def resolves(self, qualified: str) -> bool:
        """Whether `qualified` resolves in this release as attribute access would: through modules, and
        names bound to modules. Past an object that is not a module nothing can be known: True."""
        parts = qualified.split(".")
        current = parts[0]
        if current not in self.files:
            return False
        for index, part in enumerate(parts[1:], start=2):
            if f"{current}.{part}" in self.files:
                current = f"{current}.{part}"
                continue
            names = self.names(current)
            if names is None:
                return True
            if part not in names:
                return False
            if index == len(parts):
                return True
            target = self.bound_module(current, part)
            if target is None:
                return True
            current = target
        return True


# ---------------------------------------------------------------------------- the differences


def entries(history: list[Release], keep: set[str]) -> list[dict]:
    """One row per public name (or module) the newest release lacks or deprecates. The names of a
    removed module are covered by the module's row, unless `keep` (the hand-written rows) names them.
    A module whose file is gone but whose name still resolves (`jax.config`, now an object) gets an
    `import_only` row: only `import` statements naming it fail."""
    newest = history[-1]
    modules = set().union(*(release.public_modules for release in history))
    names = {
        f"{module}.{item}" for release in history for module, offered in release.public.items() for item in offered
    }
    rows = []
    for api in sorted(modules | names):
        is_module = api in modules
        there = (lambda release: api in release.files) if is_module else (lambda release: release.resolves(api))
        if there(newest):
            if api in newest.deprecated:  # the name itself warns, not only its module
                first = len(history) - 1
                while first > 0 and there(history[first - 1]) and api in history[first - 1].deprecated:
                    first -= 1
                rows.append({"api": api, "deprecated_in": show(history[first].version)})
            continue
        if api not in keep and any(
            ".".join(api.split(".")[:end]) in modules and ".".join(api.split(".")[:end]) not in newest.files
            for end in range(2, len(api.split(".")))
        ):
            continue  # the row of its module covers it
        had = [i for i, release in enumerate(history) if there(release)]
        if not had:
            continue  # only ever named by a `_deprecations` table that says it is gone
        index = had[-1]
        first = index
        while first > 0 and there(history[first - 1]):
            first -= 1
        warned = [release for release in history[first : index + 1] if release.warns(api)]
        removed = history[index + 1]
        row = {
            "api": api,
            "deprecated_in": show((warned[0] if warned else removed).version),
            "removed_in": show(removed.version),
            "last_in": show(history[index].version),
        }
        if is_module and newest.resolves(api):
            row["import_only"] = True
        rows.append(row)
    return rows


def array_entries(history: list[Release]) -> list[dict]:
    """One row (`jax.Array.<name>`) per public attribute of the array class that the newest release
    lacks (or only keeps as a property that raises)."""
    newest = history[-1]
    rows = []
    for name in sorted(set().union(*(release.array_attributes for release in history)) - newest.array_attributes):
        index = max(i for i, release in enumerate(history) if name in release.array_attributes)
        first = index
        while first > 0 and name in history[first - 1].array_attributes:
            first -= 1
        warned = [release for release in history[first : index + 1] if name in release.array_warnings]
        removed = history[index + 1]
        rows.append(
            {
                "api": f"{ARRAY}.{name}",
                "deprecated_in": show((warned[0] if warned else removed).version),
                "removed_in": show(removed.version),
                "last_in": show(history[index].version),
            }
        )
    return rows


# The modules whose functions' keywords are compared: those users call. jax's internals (`jax.interpreters`,
# `jax.extend`, pallas' and mosaic's kernels) change their signatures in every release.
KEYWORD_MODULES = (
    "jax.numpy",
    "jax.nn",
    "jax.random",
    "jax.lax",
    "jax.scipy",
    "jax.tree",
    "jax.image",
    "jax.debug",
    "jax.sharding",
    "jax.dtypes",
    "jax.export",
    "jax.experimental.shard_map",
    "jax.experimental.checkify",
    "jax.experimental.ode",
    "jax.example_libraries",
)


def keyword_entries(history: list[Release]) -> list[dict]:
    """One row per keyword that a public function of the newest release took in an older one and takes no more
    (`jax.numpy.clip(a_min=...)`): the call raises TypeError from `removed_in` on. A function that takes
    `**kwargs`, or is not a plain def, in the newest release may take any keyword: it gets no row."""
    newest = history[-1]
    rows = []
    for module in sorted(name for name in newest.public_modules if name.startswith(KEYWORD_MODULES) or name == "jax"):
        for item in sorted(newest.public[module]):
            now = newest.keywords(module, item)
            if now is None:
                continue
            seen = [
                release.keywords(module, item) if item in release.public.get(module, ()) else None
                for release in history
            ]
            for keyword in sorted(set().union(*(found[0] for found in seen if found is not None)) - now[0]):
                had = [i for i, found in enumerate(seen) if found is not None and keyword in found[0]]
                index = had[-1]
                first = index
                while first > 0 and seen[first - 1] is not None and keyword in seen[first - 1][0]:
                    first -= 1
                warned = [history[i] for i in range(first, index + 1) if keyword in seen[i][1]]
                removed = history[index + 1]
                row = {
                    "function": f"{module}.{item}",
                    "keyword": keyword,
                    "deprecated_in": show((warned[0] if warned else removed).version),
                    "removed_in": show(removed.version),
                    "last_in": show(history[index].version),
                }
                if keyword in now[2]:
                    row["positional"] = True  # still taken, by position only (`jnp.clip(arr, /, ...)`)
                rows.append(row)
    return rows


# ---------------------------------------------------------------------------- the data file


def _value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def write(rows: list[dict], keyword_rows: list[dict], history: list[Release], path: Path) -> None:
    lines = [
        "# JAX APIs that were removed or deprecated, read by the JAX801/JAX802 rules (jaxlint/checks/api/).",
        "# Generated by scripts/removed_apis.py from the source of every jax release; do not edit by hand",
        "# except the hand-written columns, which the generator keeps when it re-runs.",
        "#",
        f"# Releases covered: jax {show(history[0].version)} to {show(history[-1].version)} ({len(history)} releases).",
        "#",
        "# Generated columns:",
        "#   api           qualified name (a module, function, class or constant; `jax.Array.<name>` for a",
        "#                 method or attribute of the array class, DeviceArray in older releases)",
        "#   deprecated_in the first release that warned about it; equal to removed_in when none did",
        "#   removed_in    the first release without it; absent while the newest release still has it",
        "#   last_in       the last release that still had it (the evidence)",
        "#   import_only   a module whose file is gone while its name still resolves as an attribute",
        "#                 (`jax.config` is now an object): only `import` statements naming it fail",
        "# The names inside a removed module are covered by the module's row.",
        "# Hand-written columns (from jax's CHANGELOG.md):",
        "#   replacement   what to use instead, as a qualified name when there is one; in a `jax.Array.*`",
        "#                 row, `x` stands for the array",
        "#   rename_safe   true when `replacement` is a drop-in rename, so --fix may rewrite it as a safe fix",
        "#   at_method     for jax.ops.index_*: `f(x, idx, v)` becomes `x.at[idx].<at_method>(v)`",
        "#   note          shown in the message: what differs",
        "#",
        "# `keyword` rows: a keyword a public function of the newest release took in an older one and takes no more",
        "# (the call raises TypeError): function, keyword, deprecated_in, removed_in, last_in as above, and",
        "#   positional    true when the newest release still takes it, by position only",
        "# Hand-written:",
        "#   replacement   the keyword to give instead, when there is one",
        "#   rename_safe   true when giving `replacement` instead does the same, so --fix may rename it",
        "",
        f"newest = {_value(show(history[-1].version))}",
        "",
        "api = [",
    ]
    for row in rows:
        cells = ", ".join(
            f"{key} = {_value(row[key])}"
            for key in ("api", "deprecated_in", "removed_in", "last_in", "import_only", *HAND_COLUMNS)
            if key in row
        )
        lines.append(f"  {{ {cells} }},")
    lines += ["]", "", "keyword = ["]
    for row in keyword_rows:
        cells = ", ".join(
            f"{key} = {_value(row[key])}"
            for key in (
                "function",
                "keyword",
                "deprecated_in",
                "removed_in",
                "last_in",
                "positional",
                *KEYWORD_HAND_COLUMNS,
            )
            if key in row
        )
        lines.append(f"  {{ {cells} }},")
    lines.append("]")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def keyword_hand_columns(path: Path) -> dict[tuple[str, str], dict]:
    """The hand-written columns of the existing file's keyword rows, by (function, keyword)."""
    if not path.exists():
        return {}
    with open(path, "rb") as handle:
        rows = tomllib.load(handle).get("keyword", [])
    return {
        (row["function"], row["keyword"]): {key: row[key] for key in KEYWORD_HAND_COLUMNS if key in row} for row in rows
    }


def hand_columns(path: Path) -> dict[str, dict]:
    """The hand-written columns of the existing file, by api."""
    if not path.exists():
        return {}
    with open(path, "rb") as handle:
        rows = tomllib.load(handle).get("api", [])
    return {row["api"]: {key: row[key] for key in HAND_COLUMNS if key in row} for row in rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offline", action="store_true", help="use only the releases already cached")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    arguments = parser.parse_args()
    history = []
    for version in releases(arguments.offline):
        print(f"jax {show(version)}", file=sys.stderr)
        history.append(Release(version))
    kept = hand_columns(arguments.output)
    rows = sorted(
        entries(history, {api for api, columns in kept.items() if columns}) + array_entries(history),
        key=lambda row: row["api"],
    )
    for row in rows:
        row.update(kept.get(row["api"], {}))
    lost = sorted({api for api, columns in kept.items() if columns} - {row["api"] for row in rows})
    for api in lost:
        print(f"hand-written entry not found in the releases, dropped: {api}", file=sys.stderr)
    kept_keywords = keyword_hand_columns(arguments.output)
    keyword_rows = keyword_entries(history)
    for row in keyword_rows:
        row.update(kept_keywords.get((row["function"], row["keyword"]), {}))
    write(rows, keyword_rows, history, arguments.output)
    print(f"{len(rows)} entries, jax {show(history[0].version)} to {show(history[-1].version)}", file=sys.stderr)


if __name__ == "__main__":
    main()
