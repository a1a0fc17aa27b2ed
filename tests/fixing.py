"""Applies the fixes that findings carry, for the fix-pair and upgrade tests.

A stand-in for the fix engine (jaxlint --fix) until it lands on this branch: apply the edits of
non-overlapping fixes, re-lint, repeat, as the engine is specified to.
"""

from __future__ import annotations

import re

from jaxlint.checks import ALL_RULES
from jaxlint.diagnostics import SAFE
from jaxlint.lint import lint_source

DEFAULT_RULES = frozenset(rule.code for rule in ALL_RULES if rule.default_enabled)
_LINE = re.compile(r".*?(?:\r\n|\r|\n)|.+\Z", re.S)


def _offset(starts: list[int], row: int, col: int) -> int:
    return starts[row - 1] + col - 1


def _overlap(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    """Edits that touch the same text, or insert at the same place, go in different rounds."""
    return a[0] == b[0] or not (a[1] <= b[0] or b[1] <= a[0])


def apply_fixes(source: str, unsafe: bool = False, rounds: int = 10) -> str:
    for _ in range(rounds):
        fixes = [d.fix for d in lint_source(source, "fixed.py", DEFAULT_RULES)
                 if d.fix is not None and (unsafe or d.fix.applicability == SAFE)]
        if not fixes:
            return source
        starts, total = [], 0
        for line in _LINE.findall(source):
            starts.append(total)
            total += len(line)
        starts.append(total)
        taken: list[tuple[int, int, str]] = []
        for fix in fixes:
            spans = [(_offset(starts, e.row, e.col), _offset(starts, e.end_row, e.end_col), e.content)
                     for e in fix.edits]
            if not any(_overlap(span, other) for span in spans for other in taken):
                taken.extend(spans)
        for start, end, content in sorted(taken, reverse=True):
            source = source[:start] + content + source[end:]
    return source
