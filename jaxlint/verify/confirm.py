"""What the worker saw, mapped back to lines: each static finding confirmed, not reproduced or unverified
(with the reason), and errors no rule predicted as new JAX0xx findings."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from jaxlint.diagnostics import Diagnostic, Verification
from jaxlint.verify.errors import CONFIRMABLE, LEAK, OBSERVED, TRACER_LEAK, matches, runtime_code
from jaxlint.verify.plan import FilePlan

CONFIRMED, NOT_REPRODUCED, UNVERIFIED = "confirmed", "not-reproduced", "unverified"

_MESSAGES = {
    "JAX010": "tracing under jit raised {cls}: {message}",
    "JAX011": "a tracer leaked out of `{target}` while it was traced (jax.checking_leaks): {message}",
    "JAX012": "a PRNG key is consumed twice (jax.debug_key_reuse): {message}",
}


def with_status(findings: list[Diagnostic], status: str, detail: str) -> list[Diagnostic]:
    return [replace(d, verify=Verification(status, detail)) for d in findings]


def _error_name(error: dict[str, Any]) -> str:
    return error["classes"][0]


def _raised_at(error: dict[str, Any], row: int) -> bool:
    return any(line == row for line, _ in error["frames"])


def import_failed(plan: FilePlan, error: dict[str, Any]) -> list[Diagnostic]:
    """A module that cannot be imported: a finding the failure passes through is confirmed."""
    if error["classes"] == ["SystemExit"]:
        return with_status(plan.findings, UNVERIFIED, f"the module called {error['message']} at import")
    found = []
    for d in plan.findings:
        if _raised_at(error, d.row) and matches(d.code, error["classes"], error["message"]):
            found.append(replace(d, verify=Verification(CONFIRMED, f"importing the module raised "
                                                                    f"{_error_name(error)} here")))
        else:
            found.append(replace(d, verify=Verification(
                UNVERIFIED, f"import failed: {_error_name(error)}: {error['message']}")))
    return found


def _verdict(d: Diagnostic, plan: FilePlan, report: dict[str, Any]) -> Verification:
    if d.code not in CONFIRMABLE:
        return Verification(UNVERIFIED, "not observable by tracing")
    if d.row in report["observed"].get(OBSERVED.get(d.code, ""), ()):
        return Verification(CONFIRMED, "a tracer was printed here while tracing")
    owner = plan.owners.get(d.row)
    outcomes = report["outcomes"]
    mismatch = None
    for outcome in outcomes:
        error = outcome.get("error")
        if outcome["status"] != "error":
            continue
        if d.code == LEAK and outcome["target"] == owner and runtime_code(
                error["classes"], error["message"]) == TRACER_LEAK:
            return Verification(CONFIRMED, f"jax.checking_leaks reported a leak while tracing `{owner}`")
        if _raised_at(error, d.row):
            if matches(d.code, error["classes"], error["message"]):
                return Verification(CONFIRMED, f"{_error_name(error)} here while tracing `{outcome['target']}`")
            mismatch = mismatch or f"tracing `{outcome['target']}` raised {_error_name(error)} here instead"
    if mismatch:
        return Verification(NOT_REPRODUCED, mismatch)
    if owner is None:
        return Verification(UNVERIFIED, "module-level code: not in a function jaxlint can trace")
    if owner in report["skipped"]:
        return Verification(UNVERIFIED, report["skipped"][owner])
    for outcome in outcomes:
        if outcome["target"] != owner:
            continue
        if outcome["status"] == "ok":
            return Verification(NOT_REPRODUCED, f"`{owner}` traced without error")
        if outcome["status"] == "unbuildable":
            return Verification(UNVERIFIED, outcome["reason"])
        error = outcome["error"]
        where = f" at line {error['frames'][-1][0]}" if error["frames"] else ""
        return Verification(UNVERIFIED, f"tracing `{owner}` stopped first{where}: "
                                        f"{_error_name(error)}: {error['message']}")
    return Verification(UNVERIFIED, f"`{owner}` was traced only through other functions, which never reached it")


def new_findings(plan: FilePlan, report: dict[str, Any], confirmed: list[Diagnostic]) -> list[Diagnostic]:
    """Errors from jitted functions (whose non-static arguments are really tracers) that no finding explains."""
    confirmed_rows = {d.row for d in confirmed}
    leaky = {plan.owners.get(d.row) for d in confirmed if d.code == LEAK}
    found = {}
    for outcome in report["outcomes"]:
        error = outcome.get("error")
        if outcome["status"] != "error" or not outcome["staged"]:
            continue
        code = runtime_code(error["classes"], error["message"])
        if code is None:
            continue
        if code == TRACER_LEAK or not error["frames"]:
            row, col = plan.defs.get(outcome["target"], (outcome["line"], 1))
        else:
            row, col = error["frames"][-1]
        if row in confirmed_rows or (code == TRACER_LEAK and outcome["target"] in leaky):
            continue
        message = _MESSAGES[code].format(cls=_error_name(error), message=error["message"],
                                         target=outcome["target"])
        found.setdefault((row, code), Diagnostic(plan.path, row, col, code, message, row, col,
                                                 verify=Verification(CONFIRMED, "found by tracing")))
    return list(found.values())


def confirm(plan: FilePlan, report: dict[str, Any]) -> list[Diagnostic]:
    if "import_error" in report:
        return import_failed(plan, report["import_error"])
    checked = [replace(d, verify=_verdict(d, plan, report)) for d in plan.findings]
    confirmed = [d for d in checked if d.verify.status == CONFIRMED]
    return checked + new_findings(plan, report, confirmed)
