"""flake8 plugin: the same findings at the same positions, inside every editor that runs flake8.

Which rules run follows `[tool.jaxlint]` (the nearest at or above each file) like the jaxlint
command; flake8's own --select/--ignore and `# noqa` then apply on top, as for any plugin: the plugin
leaves `# noqa` comments to flake8 (so `flake8 --disable-noqa` shows what they hide, and flake8-noqa
sees them used), and applies only jaxlint's own file-level `# jaxlint: noqa`. A file is
checked with its project, as `jaxlint FILE` checks it: the first file a process checks, with the modules
connected to it (an editor checks one file per process); from the second on, each process analyses
the whole project once (flake8 on a tree).
flake8 cannot fix code, so a fixable finding says which jaxlint command fixes it.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Iterator

from jaxlint import __version__
from jaxlint.cache import DEFAULT_DIR, Cache
from jaxlint.config import CommandLine, Settings, build_settings
from jaxlint.diagnostics import SAFE, Diagnostic
from jaxlint.analysis.interface import ModuleContext
from jaxlint.lint import lint_module
from jaxlint.project import context, importable, module_of
from jaxlint.runner import lint_options, project_contexts


@lru_cache(maxsize=None)
def _settings(cwd: str) -> Settings:
    return build_settings(CommandLine(), Path(cwd))


class JaxlintChecker:
    name = "jaxlint"
    version = __version__

    def __init__(self, tree, filename: str, lines: list[str]) -> None:  # flake8 passes by name
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        folder = str(Path(self.filename).absolute().parent)  # the file's config, as jaxlint finds it
        settings = _settings(folder)
        source = "".join(self.lines)
        options = lint_options(settings, self.filename, line_noqa=False)
        found, _ = lint_module(source, self.filename, options, _context(self.filename))
        for d in found:
            yield d.row, d.col - 1, f"{d.code} {d.message}{_fixable(d)}", type(self)


def _context(filename: str) -> ModuleContext | None:
    """The file's place in its project and what the project's other modules tell it, as `jaxlint` sees it."""
    path = Path(filename)
    if path.suffix not in (".py", ".pyi") or not path.is_file():
        return None  # stdin, or a file flake8 made up: checked on its own
    root, _ = module_of(filename)
    first = _first_file.setdefault(root, path.absolute())
    if first == path.absolute():
        return _contexts(str(root), (str(path),)).get(first) or context(filename)
    return _contexts(str(root)).get(path.absolute()) or context(filename)


_first_file: dict[Path, Path] = {}  # by project root: the first file this process checked


@lru_cache(maxsize=None)
def _contexts(root: str, files: tuple[str, ...] = ()) -> dict[Path, ModuleContext]:
    """The contexts of `files` of a project, or of all its modules, analysed with the modules they need
    (with the project root's settings), through jaxlint's result cache."""
    settings = _settings(root)
    cache = Cache(settings.cache_dir or settings.root / DEFAULT_DIR)
    named = list(files) or [str(path) for path in importable(Path(root))]
    return {Path(path).absolute(): found for path, found in project_contexts(named, settings, cache).items()}


def _fixable(d: Diagnostic) -> str:
    if d.fix is None:
        return ""
    if d.fix.applicability == SAFE:
        return " (fixable with `jaxlint --fix`)"
    return " (fixable with `jaxlint --fix --unsafe-fixes`)"
