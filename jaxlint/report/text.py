"""`path:line:col: CODE message`, one per line, then a one-line summary."""

from __future__ import annotations

from collections import Counter

from jaxlint.diagnostics import Diagnostic
from jaxlint.fix import applicable
from jaxlint.rule_index import RULES
from jaxlint.results import RunResult
from jaxlint.verify.errors import RUNTIME_CODES

_NAMES = {code: name for code, name, _ in RULES}


def _verified(d) -> str:
    """` [confirmed]`, ` [not reproduced]`, ` [unverified: reason]` after a finding when --verify ran."""
    if d.verify is None:
        return ""
    if d.verify.status == "unverified":
        return f" [unverified: {d.verify.detail}]"
    return f" [{d.verify.status.replace('-', ' ')}]"


def location(d: Diagnostic) -> str:
    """`path:line:col`, and `path:cell N:line:col` in a notebook."""
    cell = "" if d.cell is None else f"cell {d.cell}:"
    return f"{d.filename}:{cell}{d.row}:{d.col}"


def render(result: RunResult) -> str:
    return "".join(finding(d, result.unsafe_fixes) for d in result.diagnostics)


def finding(d: Diagnostic, unsafe_fixes: bool) -> str:
    """`[*]` after the code marks a finding `--fix` can fix (with `--unsafe-fixes`, unsafe ones too);
    `[confirmed]` and the like after the message say what `--verify` found. The message is its headline:
    the rest, and the evidence, are in the full format."""
    fixable = " [*]" if applicable(d, unsafe_fixes) else ""
    return f"{location(d)}: {d.code}{fixable} {d.headline}{_verified(d)}\n"


def summary(result: RunResult) -> str:
    checked = f"{result.files} file{'s' if result.files != 1 else ''} checked"
    if result.skipped:
        checked += f", {result.skipped} without jax skipped"
    count = len(result.diagnostics)
    if result.diffs or result.fixed:
        return _fix_summary(result, checked)
    if result.internal_errors:
        errors = len(result.internal_errors)
        return (
            f"Found {count} finding{'s' if count != 1 else ''} and {errors} internal "
            f"error{'s' if errors != 1 else ''} ({checked}); see stderr.\n"
        )
    if count == 0:
        return f"All checks passed ({checked}).\n"
    return f"Found {count} finding{'s' if count != 1 else ''} ({checked}){_fixable(result)}.\n"


def _fixable(result: RunResult) -> str:
    """How many findings `--fix` would fix, and how many more `--unsafe-fixes` would."""
    safe = sum(applicable(d, False) for d in result.diagnostics)
    unsafe = sum(applicable(d, True) for d in result.diagnostics) - safe
    if result.unsafe_fixes and safe + unsafe:
        return f"; {safe + unsafe} fixable with `--fix --unsafe-fixes`"
    if safe and unsafe:
        return f"; {safe} fixable with `--fix`, {unsafe} more with `--unsafe-fixes`"
    if safe:
        return f"; {safe} fixable with `--fix`"
    return f"; {unsafe} fixable with `--fix --unsafe-fixes`" if unsafe else ""


def _fix_summary(result: RunResult, checked: str) -> str:
    fixed, remaining = len(result.fixed), len(result.diagnostics)
    if result.diffs:
        return f"Would fix {fixed} finding{'s' if fixed != 1 else ''} ({remaining} would remain; {checked}).\n"
    total = fixed + remaining
    return f"Found {total} finding{'s' if total != 1 else ''} ({fixed} fixed, {remaining} remaining; {checked}).\n"


def fixes(result: RunResult) -> str:
    """`--show-fixes`: what was fixed, by file and rule."""
    if not result.fixed:
        return "No findings fixed.\n" if not result.diffs else "No findings would be fixed.\n"
    counts = Counter((d.filename, d.code) for d in result.fixed)
    verb = "Would fix" if result.diffs else "Fixed"
    lines = [f"{verb} {len(result.fixed)} finding{'s' if len(result.fixed) != 1 else ''}:\n"]
    for filename in dict.fromkeys(d.filename for d in result.fixed):
        lines.append(f"- {filename}:\n")
        for (name, code), n in sorted(counts.items()):
            if name == filename:
                lines.append(f"    {n} × {code} ({_NAMES[code]})\n")
    return "".join(lines)


def statistics(result: RunResult) -> str:
    counts = Counter(d.code for d in result.diagnostics)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    width = max((len(str(n)) for _, n in rows), default=1)
    return "".join(f"{n:>{width}}  {code}  {_NAMES[code]}\n" for code, n in rows)


def verify_summary(result: RunResult) -> str:
    """One line after the summary when --verify ran; runtime-only (JAX0xx) findings count as new."""
    counts = Counter(
        "new" if d.code in RUNTIME_CODES else d.verify.status for d in result.diagnostics if d.verify is not None
    )
    return (
        f"Verify: {counts['confirmed']} confirmed, {counts['not-reproduced']} not reproduced, "
        f"{counts['unverified']} unverified, {counts['new']} new.\n"
    )
