"""What the language server checks, with no LSP in it: a document's text, or a notebook's cells, checked by
the runner's per-file function with the settings found from the document's own path; a module together
with the other modules of its project, as `jaxlint file.py` checks it (jaxlint/project.py).

The server keeps each project's modules as last checked (the editor's text for open documents, the
file's for the others), so an edit checks the edited module again, and the other modules only when
what it tells them changed. Results are remembered by (settings, project facts, content): an undo or a
save parses nothing; the result cache of the command line run in the server's folder is read and written.
"""

from __future__ import annotations

import io
import json
import os
import tokenize
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from pathlib import Path

from jaxlint import project
from jaxlint.analysis.interface import Imported, Interface, ModuleContext
from jaxlint.cache import DEFAULT_DIR, Cache, content_hash, fingerprint
from jaxlint.config import CommandLine, ConfigError, Settings, build_settings
from jaxlint.diagnostics import Diagnostic
from jaxlint.files import PYTHON_SUFFIXES, InputError, read_bytes
from jaxlint.fix import fix_source
from jaxlint.runner import check_bytes

MEMORY = 256  # results kept in memory: a few versions of each open document, and what linking re-checks


@dataclass(frozen=True)
class Checked:
    """A document's findings (in a notebook: rows within their cell, `cell` numbered from 1 in the order
    the cells were given), a problem to tell the user about (a configuration error, a bug), and the
    other files of the project whose findings changed with it."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    problem: str | None = None
    changed: tuple[str, ...] = ()
    docs_url: str | None = None  # the `docs-url` setting: where each finding links its rule's page


@dataclass(frozen=True)
class Cell:
    kind: str  # "code" or "markdown", as in nbformat: only code cells are checked
    text: str


@dataclass(frozen=True)
class Module:
    """One module of a project as last checked, from its file (`stamp`) or an editor's text (None)."""

    path: str
    data: bytes
    stamp: tuple | None
    context: ModuleContext
    checked: Checked
    interface: Interface


class Checker:
    """Checks documents; `fallback_root` gives the settings of documents that are not files (untitled)."""

    def __init__(self, fallback_root: Path) -> None:
        self.fallback_root = fallback_root
        self._settings: dict[Path, tuple[tuple, Settings]] = {}
        self._results: OrderedDict[tuple[str, str], tuple[list[Diagnostic], Interface]] = OrderedDict()
        self._projects: dict[Path, dict[str, Module]] = {}  # by root, then module name
        self._listings: dict[Path, dict[str, Path]] = {}

    def settings_for(self, path: str | None) -> Settings:
        """`[tool.jaxlint]` from the nearest pyproject.toml above the document, read again when one of
        the pyproject.toml files that decide it changes. ConfigError when it is wrong."""
        folder = Path(path).parent if path else self.fallback_root
        stamp = _stamp(folder)
        known = self._settings.get(folder)
        if known is not None and known[0] == stamp:
            return known[1]
        settings = build_settings(CommandLine(), cwd=folder)
        self._settings[folder] = (stamp, settings)
        return settings

    def check_text(self, path: str | None, text: str, with_project: bool = True) -> Checked:
        """The findings of a Python document's text (`path` None: not a file, checked as untitled.py).

        `with_project=False`: a module with what its project told it last time, without reading or
        checking the project's other files (the first time, that is all of them): a first answer."""
        if path and path.endswith(PYTHON_SUFFIXES):
            return self._check_module(path, _encode(text), with_project)
        return self._check_alone(path, _encode(text), notebook=False)

    def check_notebook(self, path: str | None, cells: list[Cell], metadata: dict | None) -> Checked:
        """The findings of a notebook's cells, checked as one program as `jaxlint x.ipynb` does."""
        data = json.dumps(notebook_document(cells, metadata)).encode("utf-8")
        return self._check_alone(path, data, notebook=True)

    def release(self, path: str) -> None:
        """The editor closed the document: its module is the file's again."""
        root, name = project.module_of(path)
        module = self._projects.get(root, {}).get(name)
        if module is not None:
            self._projects[root][name] = replace(module, stamp=())  # no file has this stamp: read it again

    def fix_all(self, path: str | None, text: str) -> str | None:
        """The text with every safe fix applied, as `jaxlint --fix` applies them (a module with what its
        project told it when it was last checked), or None."""
        name = command_line_name(path) if path else "untitled.py"
        settings = self.settings_for(path)
        context = self._context_of(path) if path else None
        fixed = fix_source(
            text, lambda source: self._check(name, _encode(source), settings, None, context)[1].diagnostics
        )
        return fixed.source if fixed.fixed else None

    def _context_of(self, path: str) -> ModuleContext | None:
        """What its project told the module at `path` when it was last checked; None if it never was."""
        root, name = project.module_of(path)
        known = self._projects.get(root, {}).get(name)
        return known.context if known is not None else None

    # One document alone: a notebook, or a file that is not a module of a project.

    def _check_alone(self, path: str | None, data: bytes, notebook: bool) -> Checked:
        try:
            settings = self.settings_for(path)
        except ConfigError as error:
            return Checked(problem=f"jaxlint: error: {error}")
        if path and _excluded(path, settings):
            return Checked()
        name = command_line_name(path) if path else "untitled"
        if notebook and not name.endswith(".ipynb"):
            name += ".ipynb"  # the name tells the per-file function that the bytes are a notebook
        elif not path:
            name += ".py"
        # The cache holds a notebook file's bytes, not the cells an editor sends.
        cache = None if notebook or not path else _cache(settings, path)
        return self._check(name, data, settings, cache, None)[1]

    # A module, with the other modules of its project.

    def _check_module(self, path: str, data: bytes, with_project: bool) -> Checked:
        try:
            if _excluded(path, self.settings_for(path)):
                return Checked()
        except ConfigError as error:
            return Checked(problem=f"jaxlint: error: {error}")
        root, name = project.module_of(path)
        modules = self._projects.setdefault(root, {})
        if not with_project:
            return self._module(path, data, None, _context(path, modules.get(name))).checked
        before = {other: module.checked for other, module in modules.items()}
        self._read_files(root, modules, name)
        modules[name] = self._module(path, data, None, _context(path, modules.get(name)))
        max_size = self.settings_for(path).max_file_size
        self._link(modules, self._x64_above(root) or self._x64_elsewhere(root, modules, max_size))
        changed = tuple(
            module.path
            for other, module in modules.items()
            if other != name and other in before and module.checked != before[other]
        )
        return replace(modules[name].checked, changed=changed)

    def _read_files(self, root: Path, modules: dict[str, Module], editing: str) -> None:
        """The project's modules from their files: new and changed ones checked (phase 1); an editor's
        texts stay. A file added or removed changes what `import` finds: every module is read again."""
        listing: dict[str, Path] = {}
        for file in project.importable(root):
            listing.setdefault(project.module_of(str(file))[1], file)
        if self._listings.get(root) != listing:
            self._listings[root] = listing
            project.top_level.cache_clear()
            project.importable_above.cache_clear()
            for name, module in list(modules.items()):
                if module.stamp is not None:
                    del modules[name]
                elif name != editing:  # an editor's text, in the project as `import` now finds it
                    modules[name] = self._module(module.path, module.data, None, _context(module.path, module))
        for name, file in listing.items():
            known = modules.get(name)
            if name == editing or known is not None and known.stamp is None:
                continue
            try:
                stamp = _file_stamp(file)
                if known is not None and known.stamp == stamp:
                    continue
                data = read_bytes(str(file))
            except (OSError, InputError):
                modules.pop(name, None)
                continue
            modules[name] = self._module(str(file), data, stamp, _context(str(file), known))

    def _x64_above(self, root: Path) -> bool:
        """Whether a conftest.py above the project's root turns on x64 for it (project.conftests_above), as the
        files are now: one may have been added since the last check."""
        project.conftests_above.cache_clear()
        enabled = {conftest for conftest in project.conftests_above(root) if self._interface_of(conftest).x64}
        return project.x64_above(root, enabled)

    def _x64_elsewhere(self, root: Path, modules: dict[str, Module], max_size: int) -> bool:
        """Whether, for the project's modules that may ask for a 64-bit dtype, another project turns on x64: a package
        of a folder above that they import (project.x64_imported), or the repository's tests or scripts that import
        the project's packages (project.x64_used), as their files are now: the command line's answer."""
        asking = [module.path for module in modules.values() if module.interface.wide_dtypes]
        if not asking:
            return False
        project.top_level.cache_clear()  # a package may have been added above since the last check
        project.importable_above.cache_clear()
        paths = [Path(path).absolute() for path in asking]
        others: dict[Path, dict[str, Interface]] = {}
        for file in project.x64_package_files(root, paths, max_size) + project.x64_user_files(root, paths, max_size):
            where, module = project.module_of(str(file))
            others.setdefault(where, {})[module] = self._interface_of(file)
        packages = project.x64_packages(others)
        return project.x64_imported(root, asking, packages) or project.x64_used(root, packages)

    def _interface_of(self, file: Path) -> Interface:
        """What a file of another project (a conftest.py, a package) tells the others; nothing when unreadable."""
        try:
            data, settings = read_bytes(str(file)), self.settings_for(str(file))
        except (InputError, ConfigError):
            return Interface()
        name, context = command_line_name(str(file)), project.context(str(file))
        return self._check(name, data, settings, _cache(settings, str(file)), context)[0]

    def _link(self, modules: dict[str, Module], x64_from_above: bool) -> None:
        """Phase 2: each module checked again with what the others tell it, until nothing changes."""
        for _ in range(project.MAX_ROUNDS):
            interfaces = {name: module.interface for name, module in modules.items()}
            facts = project.imported_facts(interfaces, x64_from_above)
            todo = [name for name, imported in facts.items() if imported != modules[name].context.imported]
            if not todo:
                return
            for name in todo:
                module = modules[name]
                context = replace(module.context, imported=facts[name])
                modules[name] = self._module(module.path, module.data, module.stamp, context)

    def _module(self, path: str, data: bytes, stamp: tuple | None, context: ModuleContext) -> Module:
        try:
            settings = self.settings_for(path)
        except ConfigError as error:
            return Module(path, data, stamp, context, Checked(problem=f"jaxlint: error: {error}"), Interface())
        interface, checked = self._check(command_line_name(path), data, settings, _cache(settings, path), context)
        return Module(path, data, stamp, context, checked, interface)

    def _check(
        self, name: str, data: bytes, settings: Settings, cache: Cache | None, context: ModuleContext | None
    ) -> tuple[Interface, Checked]:
        """The per-file function, answered from memory or the result cache when it can be."""
        key, digest = fingerprint(settings, name, context), content_hash(data)
        known = self._results.get((key, digest))
        if known is not None:
            self._results.move_to_end((key, digest))
            return known[1], Checked(known[0], docs_url=settings.docs_url)
        hit = cache.get(key, digest) if cache else None
        if hit is not None:
            diagnostics, interface = hit[0], hit[2]
        else:
            result = check_bytes(name, data, settings, None, context)
            if result.internal_error:
                return Interface(), Checked(problem=f"jaxlint: {result.internal_error}")
            diagnostics, interface = result.diagnostics, result.interface
            if cache is not None and result.digest is not None:
                cache.put(key, result.digest, diagnostics, result.skipped, interface)
        self._results[(key, digest)] = (diagnostics, interface)
        if len(self._results) > MEMORY:
            self._results.popitem(last=False)
        return interface, Checked(diagnostics, docs_url=settings.docs_url)


def _context(path: str, known: Module | None) -> ModuleContext:
    """The module's place in its project, with what the project told it last time (nothing at first)."""
    return project.context(path, known.context.imported if known else Imported())


def command_line_name(path: str) -> str:
    """A file as `jaxlint` run in the server's working directory names it (relative below it, else
    absolute): editors start the server in the project's root, where the command line runs too, so the
    result cache's entries (keyed by that name) are shared, and test folders are told apart alike."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive
        return path
    return path if relative == os.pardir or relative.startswith(os.pardir + os.sep) else relative


def notebook_document(cells: list[Cell], metadata: dict | None) -> dict:
    """An nbformat 4 notebook of these cells, as the per-file function reads notebooks."""
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": metadata or {},
        "cells": [{"cell_type": cell.kind, "metadata": {}, "source": cell.text} for cell in cells],
    }


def _excluded(path: str, settings: Settings) -> bool:
    """Whether the file or a folder it is in, below the config's folder, is excluded: as with
    `--force-exclude` (pre-commit), an editor opening it gets no findings."""
    absolute = Path(os.path.abspath(path))
    return any(
        settings.is_excluded(str(part)) for part in (absolute, *absolute.parents) if settings.root in part.parents
    )


def _stamp(folder: Path) -> tuple:
    """The modification times of the pyproject.toml files at and above `folder`: when none changed,
    neither did the settings."""
    stamp: list[int | None] = []
    for candidate in (folder, *folder.parents):
        try:
            stamp.append(os.stat(candidate / "pyproject.toml").st_mtime_ns)
        except OSError:
            stamp.append(None)
    return tuple(stamp)


def _file_stamp(file: Path) -> tuple:
    info = file.stat()
    return info.st_mtime_ns, info.st_size


def _cache(settings: Settings, path: str) -> Cache | None:
    """The result cache `jaxlint` run in the server's working directory uses for the file: the project
    config's, else the working directory's for a file below it; none for a file elsewhere (opening a
    file must not leave a cache folder beside it)."""
    if settings.config_file is not None:
        return Cache(settings.cache_dir or settings.root / DEFAULT_DIR)
    if command_line_name(path) != path:  # below the working directory
        return Cache(Path.cwd() / DEFAULT_DIR)
    return None


def _encode(text: str) -> bytes:
    """The document's text as the bytes its file would hold: in the encoding its coding comment names."""
    data = text.encode("utf-8", errors="surrogatepass")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data if encoding in ("utf-8", "utf-8-sig") else text.encode(encoding)
    except (SyntaxError, UnicodeEncodeError, LookupError):
        return data  # an invalid coding comment, or text it cannot hold: the check reports it (JAX001)
