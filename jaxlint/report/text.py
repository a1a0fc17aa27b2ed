"""`path:line:col: CODE message`, one per line, then a one-line summary."""

from __future__ import annotations

from collections import Counter

from jaxlint.rule_index import RULES
from jaxlint.runner import RunResult


def render(result: RunResult) -> str:
    return "".join(f"{d.filename}:{d.row}:{d.col}: {d.code} {d.message}\n" for d in result.diagnostics)


def summary(result: RunResult) -> str:
    checked = f"{result.files} file{'s' if result.files != 1 else ''} checked"
    if result.skipped:
        checked += f", {result.skipped} without jax skipped"
    count = len(result.diagnostics)
    if result.internal_errors:
        errors = len(result.internal_errors)
        return (f"Found {count} finding{'s' if count != 1 else ''} and {errors} internal "
                f"error{'s' if errors != 1 else ''} ({checked}); see stderr.\n")
    if count == 0:
        return f"All checks passed ({checked}).\n"
    return f"Found {count} finding{'s' if count != 1 else ''} ({checked}).\n"


def statistics(result: RunResult) -> str:
    counts = Counter(d.code for d in result.diagnostics)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    width = max((len(str(n)) for _, n in rows), default=1)
    names = {code: name for code, name, _ in RULES}
    return "".join(f"{n:>{width}}  {code}  {names[code]}\n" for code, n in rows)
