"""Which files to check: the paths given, walked with the config's excludes."""

from __future__ import annotations

import os
from pathlib import Path

from jaxlint.config import Settings, find_config
from jaxlint.files import InputError, NOTEBOOK_SUFFIX, PYTHON_SUFFIXES


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
    for given in paths:
        if settings.force_exclude and _excluded_with_parents(given, settings):
            continue
        if os.path.isdir(given):
            found.extend(_walk(given, settings, unlistable, nested))
        else:
            found.append(os.path.normpath(given))
    return list(dict.fromkeys(found)), unlistable


def _excluded_with_parents(given: str, settings: Settings) -> bool:
    path = Path(os.path.normpath(given))
    return any(settings.is_excluded(str(p)) for p in (path, *path.parents) if str(p) not in (".", "/"))


def _walk(
    top: str, settings: Settings, unlistable: list[tuple[str, InputError]], nested: list[str] | None
) -> list[str]:
    def failed(error: OSError) -> None:
        reason = error.strerror or str(error)
        unlistable.append(
            (os.path.normpath(error.filename or top), InputError("JAX003", f"cannot list folder: {reason.lower()}"))
        )

    files = []
    for folder, subfolders, names in os.walk(top, onerror=failed):
        subfolders[:] = sorted(d for d in subfolders if not settings.is_excluded(os.path.join(folder, d)))
        if nested is not None:
            own = [d for d in subfolders if _has_own_config(os.path.join(folder, d))]
            nested.extend(os.path.normpath(os.path.join(folder, d)) for d in own)
            subfolders[:] = [d for d in subfolders if d not in own]
        for name in sorted(names):
            path = os.path.normpath(os.path.join(folder, name))
            if name.endswith((*PYTHON_SUFFIXES, NOTEBOOK_SUFFIX)) and not settings.is_excluded(path):
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
