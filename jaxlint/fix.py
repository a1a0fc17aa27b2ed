"""Apply fixes: pick edits that do not overlap, re-lint, repeat; write only code that parses, atomically.

Several fixes in one file are applied together when their edits are disjoint. When two overlap, the
first wins and the file is linted again, so the other is recomputed against the new text (bounded).
"""

from __future__ import annotations

import ast
import os
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from jaxlint.diagnostics import SAFE, Diagnostic, Edit
from jaxlint.files import LINE_BREAK

MAX_ROUNDS = 10


class FixError(Exception):
    """A file that could not be fixed; the file is left untouched."""


@dataclass
class Fixed:
    source: str
    fixed: list[Diagnostic] = field(default_factory=list)  # as reported in the text they were fixed in
    remaining: list[Diagnostic] = field(default_factory=list)  # in the fixed text


def applicable(diagnostic: Diagnostic, unsafe: bool) -> bool:
    fix = diagnostic.fix
    return fix is not None and (fix.applicability == SAFE or unsafe)


def fix_source(source: str, lint: Callable[[str], list[Diagnostic]], unsafe: bool = False) -> Fixed:
    """Apply every applicable fix `lint` offers, re-linting until none is left (or MAX_ROUNDS)."""
    result = Fixed(source)
    rejected: set[tuple[str, tuple[Edit, ...]]] = set()  # fixes whose result would not parse
    diagnostics = lint(source)
    for _ in range(MAX_ROUNDS):
        candidates = [d for d in diagnostics if applicable(d, unsafe) and (d.code, _edits(d)) not in rejected]
        if not candidates:
            break
        text, applied = apply_fixes(result.source, candidates)
        if not parses(text):
            # Find the fixes that break the code on their own and set them aside; apply the others.
            broken = [d for d in candidates if not parses(apply_fixes(result.source, [d])[0])]
            rejected.update((d.code, _edits(d)) for d in broken)
            text, applied = apply_fixes(result.source, [d for d in candidates if d not in broken])
            if not parses(text):  # fine alone, broken together: one at a time
                text, applied = apply_fixes(result.source, applied[:1])
            if not applied:
                continue
        result.source = text
        result.fixed.extend(applied)
        diagnostics = lint(text)
    result.remaining = diagnostics
    return result


def _edits(diagnostic: Diagnostic) -> tuple[Edit, ...]:
    """The edits of a diagnostic known to carry a fix."""
    assert diagnostic.fix is not None
    return diagnostic.fix.edits


def parses(source: str) -> bool:
    try:
        compile(source, "<fixed>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def apply_fixes(source: str, diagnostics: Iterable[Diagnostic]) -> tuple[str, list[Diagnostic]]:
    """The text with the fixes whose edits do not overlap applied, in source order, and those fixes."""
    offsets = Offsets(source)
    taken: list[tuple[int, int, str]] = []
    applied = []
    for diagnostic in sorted(diagnostics, key=lambda d: (_edits(d), d)):
        spans = [(offsets.of(e.row, e.col), offsets.of(e.end_row, e.end_col), e.content) for e in _edits(diagnostic)]
        new = [span for span in spans if span not in taken]  # an identical edit (an import) is shared
        if any(_overlap(span, other) for span in new for other in taken):
            continue
        taken.extend(new)
        applied.append(diagnostic)
    text = source
    for start, end, content in sorted(taken, reverse=True):
        text = text[:start] + content + text[end:]
    return text, applied


def _overlap(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    """Edits overlap when their ranges share text, or both insert at one point (their order is unknown)."""
    if a[0] == a[1] == b[0] == b[1]:
        return True
    return a[0] < b[1] and b[0] < a[1]


class Offsets:
    """1-based (row, code-point column) -> index into the text."""

    def __init__(self, source: str) -> None:
        self._starts = [0] + [match.end() for match in LINE_BREAK.finditer(source)]
        self._length = len(source)

    @property
    def rows(self) -> int:
        """How many lines the text has (a final line break starts an empty last line)."""
        return len(self._starts)

    def of(self, row: int, col: int) -> int:
        if row > len(self._starts):
            return self._length
        return min(self._starts[row - 1] + col - 1, self._length)


def write_atomically(path: str, data: bytes, expected: bytes) -> None:
    """Replace the file's bytes with `data`, unless it changed since it was read as `expected`.

    The new bytes go to a temporary file beside it, which takes the original's permissions and then
    replaces it in one rename, so a reader never sees half a file. A read-only file is not written.
    """
    target = Path(path)
    try:
        info = target.stat()
        current = target.read_bytes()
    except OSError as error:
        raise FixError(f"cannot read it again before writing: {error.strerror or error}")
    if current != expected:
        raise FixError("it changed while jaxlint was running; run jaxlint --fix again")
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(path, os.W_OK):
        raise FixError("the file is read-only")
    real = os.path.realpath(path)  # write through a symlink, never replace the link itself
    descriptor, temporary = tempfile.mkstemp(prefix=".jaxlint-", suffix=".tmp", dir=os.path.dirname(real))
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
        os.replace(temporary, real)
    except OSError as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise FixError(f"cannot write it: {error.strerror or error}")
