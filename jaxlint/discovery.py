"""Which files to check: the paths given, walked with the config's excludes, without what git ignores and
without Python environments (jaxlint/gitignore.py)."""

from __future__ import annotations

import os
from pathlib import Path

from jaxlint.config import Settings, find_config
from jaxlint.files import InputError, NOTEBOOK_SUFFIX, PYTHON_SUFFIXES
from jaxlint.gitignore import GitIgnore, is_environment


def discover(
    paths: list[str], settings: Settings, nested: list[str] | None = None
) -> tuple[list[str], list[tuple[str, InputError]]]:
    """Files under `paths`, excludes applied, in a stable order, each once; and folders that could not be listed.

    A file or folder named on the command line is checked even when its name is excluded (as in
    ruff and flake8), unless `--force-exclude`, which pre-commit hooks use. With a `nested` list, a
    folder below a named one that has its own config is not walked but added to it: its files follow
    their own config (as in ruff), and the caller checks them with it.
    """
    found: list[str] = []
    unlistable: list[tuple[str, InputError]] = []
    skipped = _Skipped(settings)
    for given in paths:
        if settings.force_exclude and skipped.with_parents(given):
            continue
        if os.path.isdir(given):
            found.extend(_walk(given, skipped, unlistable, nested))
        else:
            found.append(os.path.normpath(given))
    return list(dict.fromkeys(found)), unlistable


class _Skipped:
    """What a walk leaves out: excluded names, what git ignores (unless respect-gitignore is off), environments."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.gitignore = GitIgnore() if settings.respect_gitignore else None

    def __call__(self, path: str, is_folder: bool) -> bool:
        return (
            self.settings.is_excluded(path)
            or (self.gitignore is not None and self.gitignore.ignored(path, is_folder))
            or (is_folder and is_environment(path))
        )

    def with_parents(self, given: str) -> bool:
        """For `--force-exclude`: whether a path named on the command line, or a folder it is in, is left out."""
        path = Path(os.path.abspath(given))
        parents = [folder for folder in path.parents if self.settings.root in folder.parents]  # the project's
        return self(str(path), os.path.isdir(path)) or any(self(str(folder), True) for folder in parents)


def _walk(top: str, skipped: _Skipped, unlistable: list[tuple[str, InputError]], nested: list[str] | None) -> list[str]:
    def failed(error: OSError) -> None:
        reason = error.strerror or str(error)
        unlistable.append(
            (os.path.normpath(error.filename or top), InputError("JAX003", f"cannot list folder: {reason.lower()}"))
        )

    files = []
    for folder, subfolders, names in os.walk(top, onerror=failed):
        subfolders[:] = sorted(d for d in subfolders if not skipped(os.path.join(folder, d), True))
        if nested is not None:
            own = [d for d in subfolders if _has_own_config(os.path.join(folder, d))]
            nested.extend(os.path.normpath(os.path.join(folder, d)) for d in own)
            subfolders[:] = [d for d in subfolders if d not in own]
        for name in sorted(names):
            path = os.path.normpath(os.path.join(folder, name))
            if name.endswith((*PYTHON_SUFFIXES, NOTEBOOK_SUFFIX)) and not skipped(path, False):
                files.append(path)
    return files


def _has_own_config(folder: str) -> bool:
    """Whether a folder holds a pyproject.toml with [tool.jaxlint] (a broken one mentioning jaxlint: ConfigError)."""
    candidate = Path(folder) / "pyproject.toml"
    try:
        here = candidate.is_file()  # cheap: most folders have none, and find_config would look above
    except PermissionError:  # a folder that cannot be looked into: the walk reports it
        return False
    return here and find_config(Path(folder)) == candidate
