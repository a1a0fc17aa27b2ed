"""Many files: read, lint (and fix) and collect, so that one bad file never stops the run."""

from __future__ import annotations

import difflib
import traceback
from dataclasses import dataclass, field

from jaxlint.analysis.traced import TransformTable
from jaxlint.config import Settings
from jaxlint.diagnostics import Diagnostic
from jaxlint.files import InputError, decode, discover, read_bytes
from jaxlint.fix import FixError, fix_source, write_atomically
from jaxlint.lint import lint_source, mentions_jax
from jaxlint.notebooks import Notebook, NotPython, is_notebook, line_name, locate


@dataclass(frozen=True)
class FixMode:
    """`--fix` (write the files) or `--diff` (show what would change); `--unsafe-fixes` for both kinds."""

    unsafe: bool = False
    write: bool = True


@dataclass
class RunResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0
    skipped: int = 0  # files that never mention jax, not parsed
    internal_errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # files left out on purpose, and why
    unsafe_fixes: bool = False  # whether unsafe fixes count as available (`[*]` in text)
    fixed: list[Diagnostic] = field(default_factory=list)  # fixed (or, with --diff, fixable) findings
    diffs: list[str] = field(default_factory=list)
    fix_failures: list[str] = field(default_factory=list)  # files that could not be written, and why


def run(paths: list[str], settings: Settings, fix_mode: FixMode | None = None,
        unsafe_fixes: bool = False) -> RunResult:
    result = RunResult(unsafe_fixes=unsafe_fixes)
    table = TransformTable(settings.extra_transforms)
    files, unlistable = discover(paths, settings)
    for folder, error in unlistable:
        if error.code in settings.enabled_for(folder):
            result.diagnostics.append(Diagnostic(folder, 1, 1, error.code, error.message, 1, 1))
    for path in files:
        result.files += 1
        enabled = settings.enabled_for(path)
        notebook = None
        try:
            data = read_bytes(path)
            if is_notebook(path):
                notebook = Notebook.read(data)
            source, encoding = (notebook.source, "utf-8") if notebook else decode(data)
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

        def lint(text: str) -> list[Diagnostic]:
            return lint_source(text, path, enabled, table, settings.key_names, settings.target_jax_version,
                               line_name(text) if notebook else str)

        try:
            if fix_mode is None:
                result.diagnostics.extend(locate(source, lint(source)) if notebook else lint(source))
            else:
                _fix_file(path, data, source, encoding, lint, fix_mode, result, notebook)
        except Exception:  # a bug in jaxlint: report it, keep checking the other files
            result.internal_errors.append(
                f"internal error while checking {path} (please report it):\n{traceback.format_exc()}"
            )
    return result


def _fix_file(path: str, data: bytes, source: str, encoding: str, lint, mode: FixMode,
              result: RunResult, notebook: Notebook | None = None) -> None:
    """Fix one file, or diff it; when it cannot be written, its findings stay as they were.

    A notebook's program is fixed as a whole and written back into its cells (the diff is of its JSON).
    """
    def placed(text: str, found: list[Diagnostic]) -> list[Diagnostic]:
        return locate(text, found) if notebook else found

    fixed = fix_source(source, lint, mode.unsafe)
    if not fixed.fixed:
        result.diagnostics.extend(placed(fixed.source, fixed.remaining))
        return
    try:
        new = notebook.rewrite(fixed.source) if notebook else fixed.source.encode(encoding)
        if mode.write:
            write_atomically(path, new, data)
    except (FixError, UnicodeEncodeError) as error:
        result.fix_failures.append(f"{path}: not fixed: {error}")
        result.diagnostics.extend(placed(source, lint(source)))
        return
    if not mode.write:
        result.diffs.append(_diff(path, data.decode(encoding), new.decode(encoding)))
    result.fixed.extend(placed(source, fixed.fixed))
    result.diagnostics.extend(placed(fixed.source, fixed.remaining))


def _diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{path}", f"b/{path}")
    return "".join(line if line.endswith(("\n", "\r")) else f"{line}\n\\ No newline at end of file\n"
                   for line in lines)
