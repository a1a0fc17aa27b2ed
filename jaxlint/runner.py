"""Many files: read, lint and collect, so that one bad file never stops the run."""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field

from jaxlint.analysis.traced import TransformTable
from jaxlint.config import Settings
from jaxlint.diagnostics import Diagnostic
from jaxlint.files import InputError, discover, read_source
from jaxlint.lint import lint_source, mentions_jax
from jaxlint.notebooks import NotPython, is_notebook, read_notebook


@dataclass
class RunResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0
    skipped: int = 0  # files that never mention jax, not parsed
    internal_errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # files left out on purpose, and why


def run(paths: list[str], settings: Settings) -> RunResult:
    result = RunResult()
    table = TransformTable(settings.extra_transforms)
    files, unlistable = discover(paths, settings)
    for folder, error in unlistable:
        if error.code in settings.enabled_for(folder):
            result.diagnostics.append(Diagnostic(folder, 1, 1, error.code, error.message, 1, 1))
    for path in files:
        result.files += 1
        enabled = settings.enabled_for(path)
        try:
            notebook = read_notebook(path) if is_notebook(path) else None
            source = notebook.source if notebook else read_source(path)
        except NotPython as reason:
            result.notes.append(f"{path}: {reason}")
            continue
        except InputError as error:
            if error.code in enabled:
                result.diagnostics.append(Diagnostic(
                    path, error.row, error.col, error.code, error.message, error.row, error.col))
            continue
        if not mentions_jax(source):
            result.skipped += 1
            continue
        try:
            diagnostics = lint_source(source, path, enabled, table, settings.key_names,
                                      notebook.line_name if notebook else str)
            result.diagnostics.extend(notebook.locate(diagnostics) if notebook else diagnostics)
        except Exception:  # a bug in jaxlint: report it, keep checking the other files
            result.internal_errors.append(
                f"internal error while checking {path} (please report it):\n{traceback.format_exc()}"
            )
    return result
