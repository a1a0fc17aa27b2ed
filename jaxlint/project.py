"""Across modules: the files of one project are analysed together.

A helper that a jitted function of another module calls with tracers is checked as traced code, so is
a function that another module transforms (`lax.scan(ops.body, ...)`, `jax.vmap(per_example)`), and
what another module's function returns is traced when it comes from a traced argument. Phase 1
analyses each module alone (cached by content) and gives its interface (jaxlint/analysis/interface.py);
phase 2, here, turns every module's interface into the facts each module imports, and analyses again
the modules whose facts changed (those facts their analysis read), until nothing changes (at most
MAX_ROUNDS times).

A project is the folder imports start from: the folder above a file's topmost package (a folder with
`__init__.py`), or the file's own folder for a script. Every Python file of it that can change the named files'
findings takes part, named on the command line or not (jaxlint/connected.py), so the answer for one file
does not depend on which files were named.

pytest imports every conftest.py from its rootdir down to a test module's folder before the module: a
conftest.py above a project's root that turns on x64 holds for the whole project (conftests_above), though it
belongs to another project (tests/ and tests/sub/ without `__init__.py`); one in a sibling folder does not.
"""

from __future__ import annotations

import os
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from jaxlint.analysis.interface import (
    Applied,
    IncomingContainer,
    IncomingTracer,
    Imported,
    Interface,
    Looped,
    ModuleContext,
    absolute_module,
    made_name,
)
from jaxlint.cache import Cache
from jaxlint.config import DEFAULT_MAX_FILE_SIZE
from jaxlint.connected import X64_MENTIONS, connected

MAX_ROUNDS = 4
# A project larger than this is checked file by file, without the files that were not named.
MAX_PROJECT_FILES = 3000
# pytest's configuration files: the folder holding one is where pytest stops looking for conftest.py upward
# (its confcutdir, the rootdir of the configuration file).
PYTEST_CONFIGS = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")


def module_of(path: str) -> tuple[Path, str]:
    """The folder imports start from, and the module's dotted name (`pkg.sub.train`). A folder without
    `__init__.py` inside a package is a namespace package (PEP 420): `pkg/_src/ops.py` is `pkg._src.ops`. A folder
    whose name no import can spell (`my-project/`, with an `__init__.py` or not) is where imports start: its
    modules are imported with it on the path. A notebook's name is one no import can spell (`examples.train-ipynb`):
    nothing imports it, and it takes no module's place."""
    file = Path(path).absolute()
    parts = [] if file.stem == "__init__" else [f"{file.stem}-ipynb" if file.suffix == ".ipynb" else file.stem]
    folders = list(file.parents)
    spelled = next((index for index, folder in enumerate(folders) if not folder.name.isidentifier()), len(folders))
    top = max((index for index, folder in enumerate(folders[:spelled]) if _is_file(folder / "__init__.py")), default=-1)
    for folder in folders[: top + 1]:
        parts.insert(0, folder.name)
    return folders[top + 1], ".".join(parts)


@lru_cache(maxsize=None)
def top_level(root: Path) -> frozenset[str]:
    """The names `import` finds in the project's root: its modules and packages."""
    try:
        return frozenset(
            entry.stem if entry.suffix == ".py" else entry.name
            for entry in root.iterdir()
            if entry.suffix == ".py" or _is_file(entry / "__init__.py")
        )
    except OSError:
        return frozenset()


def context(
    path: str, imported: Imported = Imported(), linked: dict[Path, dict[str, int]] | None = None
) -> ModuleContext:
    """A module's context: its package, the names its project's code answers for (its root's, and those of the
    packages of the run it imports from above: `linked`, by root), and what the other modules tell it."""
    root, name = module_of(path)
    package = name if Path(path).stem == "__init__" else name.rpartition(".")[0]
    tops = {module.split(".", 1)[0] for module in (linked or {}).get(root, {})}
    return ModuleContext(package, top_level(root) | tops, imported)


def linked_packages(projects: dict[Path, dict[str, int]], files: dict[int, str]) -> dict[Path, dict[str, int]]:
    """For each project of a run (by root) that imports packages of the run's other projects from the folders above
    it, their modules (packages_imported)."""
    found = {root: packages_imported(root, projects, files) for root in projects}
    return {root: modules for root, modules in found.items() if modules}


@lru_cache(maxsize=None)
def conftests_above(root: Path) -> tuple[Path, ...]:
    """The conftest.py files in the folders above a project's root (absolute) that pytest imports before any
    test module of the project, from the top down: up to the folder of pytest's configuration file, or the
    filesystem's root. Each folder is looked at once (cached), so a run costs one look per folder."""
    parent = root.parent
    if parent == root or any(_is_file(root / name) for name in PYTEST_CONFIGS):
        return ()
    conftest = parent / "conftest.py"
    return conftests_above(parent) + ((conftest,) if _is_file(conftest) else ())


def x64_above(root: Path, enabled: set[Path]) -> bool:
    """Whether a conftest.py above the project's root turns on x64 for it; `enabled`: the conftest files
    (absolute) whose analysis found that they set or read `jax_enable_x64`."""
    return any(conftest in enabled for conftest in conftests_above(root))


def x64_packages(projects: dict[Path, dict[str, Interface]]) -> dict[Path, frozenset[str]]:
    """By project root: its top-level packages and modules of which some module sets or reads `jax_enable_x64`."""
    return {
        root: frozenset(name.split(".")[0] for name, interface in modules.items() if interface.x64)
        for root, modules in projects.items()
    }


def x64_imported(root: Path, paths: list[str], packages: dict[Path, frozenset[str]]) -> bool:
    """Whether these modules of the project at `root` import a package of another project that turns on x64
    (`import pkg` in tests/ without `__init__.py`, pkg/ one folder up): `jax_enable_x64` is one flag for the
    whole process, and importing pkg runs its modules. `packages`: x64_packages of the run."""
    if not any(tops for other, tops in packages.items() if other != root):
        return False  # no other project of the run turns it on
    return any(_turns_on_x64(root, _imported_tops(path, importable_above(root)), packages) for path in paths)


def _turns_on_x64(root: Path, names: set[str], packages: dict[Path, frozenset[str]]) -> bool:
    """Whether one of these imported top-level names is a package found above the project at `root` (not in it) that
    turns on x64. `packages`: x64_packages of the run."""
    return any(
        (found := imported_package(root, name)) is not None and name in packages.get(found.parent, ()) for name in names
    )


@lru_cache(maxsize=None)
def importable_above(root: Path) -> frozenset[str]:
    """The names `import` may find from a project (absolute root) in the folders above it or their `src/`, and not
    in the project itself (imported_package)."""
    found = frozenset().union(*(top_level(base) for base in _import_bases(root)))
    return found - top_level(root)


def _import_bases(root: Path) -> list[Path]:
    """Where `import` may find what a project (absolute root) does not hold, nearest first: its own `src/` (a project
    at a repository's root, whose tests import the package from `src/`), then each folder above it and its `src/`
    (pytest run from the repository's root, an editable install)."""
    return [root / "src", *(base for folder in root.parents for base in (folder, folder / "src"))]


def imported_package(root: Path, name: str) -> Path | None:
    """The package folder (or module file) `import name` finds from a project that does not hold it: in the nearest
    of `_import_bases` holding it."""
    if name in top_level(root):
        return None
    for base in _import_bases(root):
        if _is_file(base / name / "__init__.py"):
            return base / name
        if _is_file(base / f"{name}.py"):
            return base / f"{name}.py"
    return None


def packages_imported(root: Path, projects: dict[Path, dict[str, int]], files: dict[int, str]) -> dict[str, int]:
    """The modules of the other projects of a run (by root, then dotted name; `files`: the run's paths by index)
    that a project (absolute root) imports as packages (folders with `__init__.py`) found in the folders above it
    (imported_package), as its modules' import statements name them: every module of each such package."""
    candidates: dict[str, Path] = {}
    for name in importable_above(root):
        package = imported_package(root, name)
        if package is not None and package.suffix != ".py" and package.parent in projects:
            candidates[name] = package.parent
    if not candidates:
        return {}
    among = frozenset(candidates)
    imported = set().union(*(_imported_tops(files[index], among) for index in projects[root].values()))
    return {
        module: index
        for name in imported
        for module, index in projects[candidates[name]].items()
        if module.split(".", 1)[0] == name
    }


def x64_package_files(root: Path, files: list[Path], max_size: int) -> list[Path]:
    """For a run on some files of the project at `root`: the files of the packages of other projects they import
    that may turn on x64 (x64_imported), when they may ask for a 64-bit dtype."""
    found: dict[Path, None] = {}
    for file in files:
        if not _asks_wide(file, max_size):
            continue
        for name in _imported_tops(str(file), importable_above(root)):
            package = imported_package(root, name)
            if package is None:
                continue
            modules = [package] if package.suffix else importable(package.parent)
            for module in modules:
                if module_of(str(module))[1].split(".")[0] == name and _mentions_x64(module, max_size):
                    found[module] = None
    return list(found)


def x64_in_imports(root: Path, source: str, packages: dict[Path, frozenset[str]]) -> bool:
    """Whether code at the project `root` (a notebook's cells, which count only themselves otherwise) imports a
    module or package that turns on x64: of its own project, or found above it (`from xlumina import optics` in
    examples/, xlumina/ one folder up). Importing runs the module, and the flag holds for the whole kernel."""
    names = imported_tops(source, top_level(root) | importable_above(root))
    return bool(names & packages.get(root, frozenset())) or _turns_on_x64(root, names, packages)


def x64_notebook_uses(notebook: str, source: str) -> set[Path]:
    """The project roots whose packages a notebook that turns on x64 imports (`examples/PCA.ipynb` setting
    `jax_enable_x64` in its first cell, then `import spax` from the folder above): x64 is one flag for the kernel,
    so the notebook runs those packages' code with it."""
    root = module_of(notebook)[0]
    found: set[Path] = set()
    for name in imported_tops(source, top_level(root) | importable_above(root)):
        if name in top_level(root):
            found.add(root)
        elif (package := imported_package(root, name)) is not None:
            found.add(package.parent)
    return found


def x64_used(root: Path, packages: dict[Path, frozenset[str]]) -> bool:
    """Whether another project of the run that turns on x64 imports a package of the project at `root` (absolute):
    x64 is one flag for the process, so the repository's tests or scripts that turn it on run that package's code
    with it (a `tests/conftest.py` that sets it, tests that `import pkg` from `src/`). `packages`: x64_packages."""
    return any(other != root and tops and _imports_from(other, root) for other, tops in packages.items())


def x64_user_files(root: Path, files: list[Path], max_size: int) -> list[Path]:
    """For a run on some files of the project at `root` that may ask for a 64-bit dtype: the files of the
    repository around it that may turn on x64, in the other projects that import its packages (x64_used)."""
    repository = _repository(root)
    if repository is None or not any(_asks_wide(file, max_size) for file in files):
        return []
    # The project's own packages and modules, by path: skipped unread.
    own = tuple(path for top in top_level(root) for path in (f"{root / top}{os.sep}", f"{root / top}.py"))
    found, importing = [], {root: False}  # by project: whether it imports the package (asked once)
    for file in _python_files(repository):
        if str(file).startswith(own) or not _mentions_x64(file, max_size):
            continue
        other = module_of(str(file))[0]
        if other not in importing:
            importing[other] = _imports_from(other, root)
        if importing[other]:
            found.append(file)
    return found


def _imports_from(other: Path, root: Path) -> bool:
    """Whether a module of the project at `other` imports a package that `import` finds in the project at `root`, or
    the project at `root` itself when it is a folder of `other` without `__init__.py`: Python imports such a folder
    as a namespace package (PEP 420), `from pkg import data` for pkg/data.py, unless `other` holds a regular package
    or module of that name."""
    among = importable_above(other) & top_level(root)
    namespace = root.name if root.parent == other and root.name.isidentifier() else None
    if namespace is not None and namespace not in top_level(other):
        among |= {namespace}
    return any(
        name == namespace or (package := imported_package(other, name)) is not None and package.parent == root
        for file in importable(other)
        for name in _imported_tops(str(file), among)
    )


def _repository(root: Path) -> Path | None:
    """The folder of the repository holding a project: the project's root or the folder above it (a `src/` layout),
    whichever holds a packaging, pytest or git file first; None when neither does."""
    for folder in (root, root.parent):
        if any(_is_file(folder / name) for name in (*PYTEST_CONFIGS, "setup.py")) or os.path.exists(folder / ".git"):
            return folder
    return None


def _python_files(folder: Path) -> list[Path]:
    """The `.py` files below a folder, but in hidden folders, caches and virtual environments; none when there are
    more than MAX_PROJECT_FILES."""
    found: list[Path] = []
    for parent, folders, names in os.walk(folder):
        folders[:] = sorted(
            name
            for name in folders
            if not name.startswith(".")
            and name not in ("__pycache__", "node_modules", "site-packages")
            and not _is_file(Path(parent) / name / "pyvenv.cfg")
        )
        found.extend(Path(parent) / name for name in sorted(names) if name.endswith(".py"))
        if len(found) > MAX_PROJECT_FILES:
            return []
    return found


def _asks_wide(file: Path, max_size: int) -> bool:
    """Whether a file's text may ask for a 64-bit dtype."""
    try:
        if not file.is_file() or file.stat().st_size > max_size:
            return False  # (a FIFO would block)
        return any(dtype in file.read_bytes() for dtype in _WIDE_MENTIONS)
    except OSError:
        return False


_WIDE_MENTIONS = (b"64", b"128")  # text that every 64-bit dtype request contains (analysis/x64.py)


def _mentions_x64(path: Path, max_size: int) -> bool:
    try:
        return (
            path.is_file()
            and path.stat().st_size <= max_size
            and any(mention in path.read_bytes() for mention in X64_MENTIONS)
        )
    except OSError:
        return False


def _imported_tops(path: str, among: frozenset[str]) -> set[str]:
    """The top-level names of `among` a module imports absolutely, anywhere in it (`pkg` of `from pkg.core import
    f`); a module whose text names none of them is not parsed."""
    try:
        data = Path(path).read_bytes() if Path(path).is_file() else b""  # (a FIFO would block)
    except OSError:
        return set()
    if path.endswith(".ipynb"):  # a notebook's program: its code cells
        from jaxlint.notebooks import Notebook, NotPython

        try:
            return imported_tops(Notebook.read(data).source, among)
        except NotPython:
            return set()
    return imported_tops(data, among)


def imported_tops(source: bytes | str, among: frozenset[str]) -> set[str]:
    """The top-level names of `among` that code imports absolutely, anywhere in it; code that names none of them
    is not parsed."""
    import ast

    data = source.encode() if isinstance(source, str) else source
    try:
        if not any(name.encode() in data for name in among):
            return set()
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found & among


def imported_facts(modules: dict[str, Interface], x64_from_above: bool = False) -> dict[str, Imported]:
    """What each module (by dotted name) learns from the interfaces of all of them, and from a conftest.py
    above their root that turns on x64 (`x64_from_above`)."""

    def resolve(qualified: str, depth: int = 0) -> str:
        """Follow re-exports: `pkg.report` is `pkg.metrics.report` when pkg/__init__.py imports it."""
        module, _, name = qualified.rpartition(".")
        interface = modules.get(module)
        if interface is not None and name in interface.reexports and depth < 8:
            return resolve(interface.reexports[name], depth + 1)
        return qualified

    def split(qualified: str, depth: int = 0) -> tuple[str, str]:
        """The module a qualified name is in and its name there: `Class.method` for a method (a base class's,
        in its module, when the class inherits it from another module: Interface.extends)."""
        module, _, function = resolve(qualified).rpartition(".")
        if module not in modules and "." in module:
            owner, _, cls = resolve(module).rpartition(".")  # `pkg.model.Stats.mean`, `Stats` re-exported too
            if owner in modules:
                extends = modules[owner].extends.get(cls)
                if extends is not None and function not in extends[1] and depth < 8:
                    return split(f"{extends[0]}.{function}", depth + 1)
                return owner, f"{cls}.{function}"
        return module, function

    def computed_by(qualified: str, depth: int = 0) -> tuple[str, ...]:
        """The properties that compute what they give on instances of a class of the project: its module's
        (Interface.computed), and those of the base it extends in another module that no class on the way defines
        again (Interface.extends)."""
        module, cls = split(qualified)
        if module not in modules or depth > 8:
            return ()
        own = modules[module].computed.get(cls, ())
        extends = modules[module].extends.get(cls)
        above = [n for n in computed_by(extends[0], depth + 1) if n not in extends[1]] if extends is not None else []
        return tuple(sorted({*own, *above}))

    def called(caller_module: str, target: str) -> tuple[str, str] | None:
        """The module and function of the project that a call of another module reaches, or None."""
        module, function = split(target)
        if module not in modules or module == caller_module:
            return None
        if "." in function and function.split(".")[0] not in modules[module].classes:
            return None  # `tx.update(...)` on what a function returned: no method of this module
        return module, function

    entries: dict[str, dict[str, list[IncomingTracer]]] = {}
    handed: dict[str, dict[str, list[IncomingContainer]]] = {}
    for caller_module, interface in modules.items():
        for call in interface.calls:
            if (reached := called(caller_module, call.target)) is None:
                continue
            into = entries.setdefault(reached[0], {}).setdefault(reached[1], [])
            params: tuple[int | str, ...] = (*call.positional, *call.keywords)
            kinds, shapes = dict(call.kinds), dict(call.shapes)
            for param in params:
                entry = IncomingTracer(
                    param,
                    call.caller,
                    call.transform,
                    call.staged,
                    call.where,
                    call.instance,
                    call.made,
                    call.differentiates,
                    kinds.get(param),
                    shapes.get(param),
                    call.fixed,
                    call.given,
                )
                if entry not in into:
                    into.append(entry)
        for handing in interface.handed:
            if (reached := called(caller_module, handing.target)) is None:
                continue
            gets = handed.setdefault(reached[0], {}).setdefault(reached[1], [])
            params = (*handing.positional, *handing.keywords)
            for param in params:
                if (incoming := IncomingContainer(param, handing.instance)) not in gets:
                    gets.append(incoming)
    applied: dict[str, dict[str, list[Applied]]] = {}
    for applier, interface in modules.items():
        for application in interface.applications:
            module, function = split(application.target)
            if (
                module in modules
                and module != applier
                and ("." not in function or function.split(".")[0] in modules[module].classes)
            ):
                applications = applied.setdefault(module, {}).setdefault(function, [])
                if application not in applications:
                    applications.append(application)
    looped: dict[str, dict[str, list[Looped]]] = {}
    for caller_module, interface in modules.items():
        for loop_call in interface.looped:
            module, function = split(loop_call.target)
            if module in modules and module != caller_module and "." not in function:
                looped.setdefault(module, {}).setdefault(function, []).append(loop_call)
    x64 = {name for name, interface in modules.items() if interface.x64}
    item_setters = {name for name, interface in modules.items() if interface.item_setters}
    overridden: dict[str, dict[str, set[str]]] = {}
    for subclasses, interface in modules.items():
        for base, names in interface.overrides.items():
            module, cls = split(base)
            if module in modules and module != subclasses:
                overridden.setdefault(module, {}).setdefault(cls, set()).update(names)
    referenced: dict[str, set[str]] = {}  # by module: its names other modules import, call or subclass
    for referrer, interface in modules.items():
        for qualified in (*interface.uses, *interface.reexports.values(), *interface.overrides):
            module, function = split(qualified)
            if module in modules and module != referrer:
                referenced.setdefault(module, set()).add(function.split(".")[0])  # `Class` of `Class.create`
    facts = {}
    for name, interface in modules.items():
        returns, consumes, containers = {}, {}, {}
        for qualified in interface.uses:
            module, function = split(qualified)
            if module not in modules or module == name:
                continue
            if function in modules[module].returns:
                returns[qualified] = modules[module].returns[function]
            if function in modules[module].consumes:
                consumes[qualified] = modules[module].consumes[function]
            if made_name(function) in modules[module].consumes:
                consumes[made_name(qualified)] = modules[module].consumes[made_name(function)]
            if function in modules[module].containers:  # a class: what its instances hold
                containers[qualified] = modules[module].containers[function]
        computed = {}
        for qualified in (*interface.uses, *interface.overrides):
            module, _ = split(qualified)
            if module in modules and module != name and (found := computed_by(qualified)):
                computed[qualified] = found  # a base class: the properties that compute, its own and its bases'
        jitted = tuple(
            named
            for qualified in dict.fromkeys((*interface.uses, *interface.reexports.values()))
            if (found := split(qualified))[0] in modules and found[0] != name
            # the name holds a jitted function; calling it gives one
            for named, exported in ((qualified, found[1]), (made_name(qualified), made_name(found[1])))
            if exported in modules[found[0]].jitted
        )
        given = {function: tuple(found) for function, found in entries.get(name, {}).items()}
        transformed = {function: tuple(found) for function, found in applied.get(name, {}).items()}
        # x64 told only to a module that may ask for a 64-bit dtype: the others need no second check for it.
        facts[name] = Imported(
            given,
            returns,
            consumes,
            interface.wide_dtypes and (x64_from_above or bool(x64 - {name})),
            transformed,
            {cls: tuple(sorted(names)) for cls, names in overridden.get(name, {}).items()},
            {function: tuple(calls) for function, calls in looped.get(name, {}).items()},
            {function: tuple(found) for function, found in handed.get(name, {}).items()},
            containers,
            tuple(sorted(referenced.get(name, ()))),
            computed,
            item_setters=bool(item_setters - {name}),
            jitted=jitted,
        )
    return facts


def read_facts(imported: Imported, interface: Interface) -> Imported:
    """The part of `imported` that the analysis which gave `interface` read: the rest cannot change its
    findings, so a module is checked again only when this part changes. Entries, applied transforms and key
    facts are always read; x64, what functions return (their literals apart), the methods subclasses define
    again, the loops elsewhere that call its functions, the containers eager calls give its parameters, the
    container attributes of other modules' instances and the names other modules reach only when its interface
    says so; a function that returns nothing else known gives what an unknown call gives. Which functions of other
    modules are jitted, only for those its analysis asked about."""
    returns = {}
    for qualified, exported in imported.returns.items():
        if qualified not in interface.read_literals:
            exported = replace(exported, literal=None)
        if qualified not in interface.read_returns:
            exported = replace(exported, params=(), value=None, container=False, tests=None, items=None)
        if exported.params or exported.value is not None or exported.literal is not None or exported.tests is not None:
            returns[qualified] = exported
    overridden = {}
    for cls, names in imported.overridden.items():
        read = tuple(name for name in names if f"{cls}.{name}" in interface.read_self_calls)
        if read:
            overridden[cls] = read
    return Imported(
        imported.entries,
        returns,
        imported.consumes,
        imported.x64 and interface.read_x64,
        imported.applied,
        overridden,
        {function: calls for function, calls in imported.looped.items() if function in interface.read_looped},
        _read_handed(imported, interface),
        _read_containers(imported, interface),
        tuple(name for name in imported.reached if name in interface.read_reached),
        imported.computed,
        item_setters=imported.item_setters and interface.read_item_setters,
        jitted=tuple(qualified for qualified in imported.jitted if qualified in interface.read_jitted),
    )


def _read_handed(imported: Imported, interface: Interface) -> dict[str, tuple[IncomingContainer, ...]]:
    """The eager calls of other modules that give a container to a parameter its analysis looked up."""
    read = set(interface.read_handed)
    handed = {}
    for function, calls in imported.handed.items():
        given = tuple(call for call in calls if (function, call.param, call.instance) in read)
        if given:
            handed[function] = given
    return handed


def _read_containers(imported: Imported, interface: Interface) -> dict[str, tuple[tuple[str, str], ...]]:
    """The container attributes of other modules' classes whose instances' attributes its analysis read."""
    read = set(interface.read_containers)
    containers = {}
    for cls, held in imported.containers.items():
        attributes = tuple((attr, kind) for attr, kind in held if f"{cls}.{attr}" in read)
        if attributes:
            containers[cls] = attributes
    return containers


def importable(root: Path) -> list[Path]:
    """The Python files `import` can reach from the project's root: its top-level modules and the
    files of its packages (folders with `__init__.py`, and the namespace folders inside them, all the way
    down)."""
    found: list[Path] = []
    folders = [(root, False)]
    while folders and len(found) <= MAX_PROJECT_FILES:
        folder, in_package = folders.pop()
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            continue
        for entry in entries:
            if entry.suffix == ".py" and _is_file(entry):
                found.append(entry)
            elif entry.name.startswith(".") or entry.name == "__pycache__":
                continue
            elif _is_file(entry / "__init__.py"):
                folders.append((entry, True))
            elif in_package and entry.is_dir() and entry.name.isidentifier():
                folders.append((entry, True))  # a namespace package inside a package (PEP 420)
    return found if len(found) <= MAX_PROJECT_FILES else []


def _is_file(path: Path) -> bool:
    """Whether `path` is a file; False when it cannot be looked at (a folder without permission)."""
    try:
        return path.is_file()
    except OSError:
        return False


def siblings(files: list[str], cache: Cache | None = None, max_size: int = DEFAULT_MAX_FILE_SIZE) -> list[str]:
    """The files of the named files' projects that were not named themselves and that can change the
    named files' findings (jaxlint/connected.py; `cache` keeps what it reads of each file; files over
    `max_size` bytes are not read), and the conftest.py files above their roots (conftests_above)."""
    named = {Path(file).absolute() for file in files}
    python = [file for file in files if file.endswith((".py", ".pyi"))]
    places = [module_of(file) for file in python]
    extra: dict[Path, None] = {}
    roots = sorted({root for root, _ in places})
    for root in roots:
        modules: dict[str, Path] = {}
        for path in importable(root):
            modules.setdefault(module_of(str(path))[1], path)
        if named.issuperset(modules.values()):
            continue  # the whole project was named
        needed = connected({name for where, name in places if where == root}, modules, cache, max_size)
        extra.update((path, None) for name, path in modules.items() if name in needed and path not in named)
    extra.update((conftest, None) for root in roots for conftest in conftests_above(root) if conftest not in named)
    for root in roots:
        files_here = [Path(file).absolute() for file, (where, _) in zip(python, places) if where == root]
        extra.update((path, None) for path in x64_package_files(root, files_here, max_size) if path not in named)
        extra.update((path, None) for path in x64_user_files(root, files_here, max_size) if path not in named)
    return [_shown(path) for path in extra]


def _shown(path: Path) -> str:
    """A path as findings show it: relative to the working folder when it is below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def projects(files: dict[int, str]) -> dict[Path, dict[str, int]]:
    """The files (by index) of each project, by module name; the first file of a name wins."""
    found: dict[Path, dict[str, int]] = {}
    for index, path in files.items():
        root, name = module_of(path)
        found.setdefault(root, {}).setdefault(name, index)
    return found


def _called(tree, imported: dict[str, str]) -> tuple[str, ...]:
    """The project names a module without jax calls (`sample(key)`, `sampling.draw(key)`, `make_kernel(0.1)`), by
    the imports that bind them: what they draw from decides whether the module is checked (Interface.uses)."""
    import ast

    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func, attributes = node.func, []
        while isinstance(func, ast.Attribute):
            attributes.append(func.attr)
            func = func.value
        if isinstance(func, ast.Name) and func.id in imported:
            found.add(".".join([imported[func.id], *reversed(attributes)]))
    return tuple(sorted(found))


def reexports(source: str, context: ModuleContext) -> Interface:
    """The interface of a module that never mentions jax: the project names it imports, which its
    importers may reach through it (`from mypkg import report` where mypkg/__init__.py imports it), and
    whether it sets `JAX_ENABLE_X64` (`os.environ["JAX_ENABLE_X64"] = "1"` in a conftest.py).
    Python's own parser is enough, and much cheaper than the analysis."""
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Interface()
    found = {}
    for statement in tree.body:
        if not isinstance(statement, ast.ImportFrom):
            continue
        module = absolute_module(statement.level, statement.module, context.package)
        if module is None:
            continue
        for alias in statement.names:
            qualified = f"{module}.{alias.name}"
            if alias.name != "*" and context.in_project(qualified):
                found[alias.asname or alias.name] = qualified
    x64 = "JAX_ENABLE_X64" in source and any(
        isinstance(node, ast.Constant) and node.value == "JAX_ENABLE_X64" for node in ast.walk(tree)
    )
    overrides: dict[str, set[str]] = {}  # its subclasses of imported project classes (Interface.overrides)
    for statement in tree.body:
        if isinstance(statement, ast.ClassDef):
            for base in statement.bases:
                if isinstance(base, ast.Name) and base.id in found:
                    overrides.setdefault(found[base.id], set()).update(_defined(statement))
    classes = tuple(statement.name for statement in tree.body if isinstance(statement, ast.ClassDef))
    return Interface(
        uses=_called(tree, found),
        reexports=found,
        read_jitted=tuple(sorted(set(found.values()))),  # a jitted one among them gets the module checked
        x64=x64,
        overrides={base: tuple(sorted(names)) for base, names in overrides.items()},
        classes=classes,
    )


def _defined(cls) -> set[str]:
    """The names a class body (an `ast.ClassDef`) defines: its defs, the names it assigns and the `self.name`
    its methods assign."""
    import ast

    names = set()
    for item in cls.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(item.name)
            names.update(
                node.attr
                for node in ast.walk(item)
                if isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name)
                and node.value.id == "self"
            )
        elif isinstance(item, (ast.Assign, ast.AnnAssign)):
            targets = item.targets if isinstance(item, ast.Assign) else [item.target]
            names.update(target.id for target in targets if isinstance(target, ast.Name))
    return names
