"""`path:line:col: CODE message`, one per line, then a one-line summary."""

from __future__ import annotations

from collections import Counter

from jaxlint.checks import BY_CODE
from jaxlint.runner import RunResult
from jaxlint.verify.errors import RUNTIME_CODES


def _verified(d) -> str:
    """` [confirmed]`, ` [not reproduced]`, ` [unverified: reason]` after a finding when --verify ran."""
    if d.verify is None:
        return ""
    if d.verify.status == "unverified":
        return f" [unverified: {d.verify.detail}]"
    return f" [{d.verify.status.replace('-', ' ')}]"


def render(result: RunResult) -> str:
    return "".join(f"{d.filename}:{d.row}:{d.col}: {d.code} {d.message}{_verified(d)}\n"
                   for d in result.diagnostics)


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
    return "".join(f"{n:>{width}}  {code}  {BY_CODE[code].name}\n" for code, n in rows)


def verify_summary(result: RunResult) -> str:
    """One line after the summary when --verify ran; runtime-only (JAX0xx) findings count as new."""
    counts = Counter("new" if d.code in RUNTIME_CODES else d.verify.status
                     for d in result.diagnostics if d.verify is not None)
    return (f"Verify: {counts['confirmed']} confirmed, {counts['not-reproduced']} not reproduced, "
            f"{counts['unverified']} unverified, {counts['new']} new.\n")
