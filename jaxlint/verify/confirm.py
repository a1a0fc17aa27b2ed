"""What the workers saw, mapped back to lines: each static finding confirmed, not reproduced or unverified
(with the reason), and errors no finding explains as new JAX01x findings at the innermost project line."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from typing import Any

from jaxlint.diagnostics import Diagnostic, Verification
from jaxlint.verify.errors import (
    CONFIRMABLE,
    KEY_REUSE,
    LEAK,
    OBSERVED,
    OBSERVED_DETAIL,
    PRINTED,
    PROBED,
    RECOMPILE,
    RECOMPILED,
    TRACE_ERROR,
    TRACER_LEAK,
    WARNED,
    matches,
    runtime_code,
    unverifiable,
)
from jaxlint.verify.plan import FilePlan

CONFIRMED, NOT_REPRODUCED, UNVERIFIED = "confirmed", "not-reproduced", "unverified"

_MESSAGES = {
    "JAX010": "{doing} raised {cls}: {message}",
    "JAX011": "a tracer leaked out of `{target}` while it was traced (jax.checking_leaks): {message}",
    "JAX012": "a PRNG key is consumed twice (jax.debug_key_reuse): {message}",
}
EXPLAINED = "jax_explain_cache_misses"
IMPORTING = "importing the module"
CHECKERS = {KEY_REUSE: "jax.debug_key_reuse", TRACER_LEAK: "jax.checking_leaks"}
# Where a trace's arguments came from (the worker's outcome events), as the details say it.
ARGUMENTS = {
    "recorded": " with the arguments a run recorded",
    "examples": " with the config's examples",
    "annotations": " with arguments built from its annotations",
    "call": " with the arguments of its call at line {call_line}",
    "made-up": " with made-up arguments",
    "given": "",
}
REAL_ARGUMENTS = ("recorded", "examples", "given")  # another error from any other arguments proves nothing
_NAMED_LINE = re.compile(r"(/[^\s:'\"()]+\.py):(\d+)")


@dataclass
class Report:
    """One worker's events: an imported file (`plan`) or a run command (`label`)."""

    label: str
    plan: FilePlan | None
    events: list[dict[str, Any]]
    failure: str = ""  # why the worker ended without finishing ("" when it finished)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["event"] == kind]

    def doing(self, phase: str) -> str:
        if phase == "import":
            return IMPORTING
        return "the tests" if phase == "test" else f"running `{self.label}`"


def with_status(findings: list[Diagnostic], status: str, detail: str) -> list[Diagnostic]:
    return [replace(d, verify=Verification(status, detail)) for d in findings]


@dataclass
class Evidence:
    """Verdicts keyed by finding, and the new findings, gathered over every report."""

    plans: dict[str, FilePlan]  # real path -> plan
    sites: dict[tuple[str, int], list[Diagnostic]] = field(default_factory=dict)
    confirmed: dict[int, str] = field(default_factory=dict)  # id(finding) -> detail
    against: dict[int, Verification] = field(default_factory=dict)  # id(finding) -> a trace's other verdict
    new: dict[tuple[str, int, str], Diagnostic] = field(default_factory=dict)
    placed_leaks: int = 0  # leaks of the current report already placed at the line that stored them

    def leak(self, event: dict[str, Any]) -> None:
        """A leaked tracer a global holds (observe.Observer.leaked): the JAX308 finding at the line that
        stored it, confirmed, else a new JAX011 there."""
        where = event.get("where")
        if not where:
            return
        self.placed_leaks += 1
        traced = f" while tracing `{event['traced']}`" if event.get("traced") else ""
        if event.get("traced_at"):
            traced += f" (line {event['traced_at'][1]})"
        detail = f"{event['checker']}: `{event['holder']}` holds a {event['tracer']} stored at line {where[1]}{traced}"
        hits = [d for d in self.at(where) if d.code == LEAK]
        for d in hits:
            self.confirm(d, detail)
        if not hits:
            text = (
                f"a tracer leaked: `{event['holder']}` holds a {event['tracer']} stored here{traced}; using it "
                f"later raises UnexpectedTracerError ({event['checker']})"
            )
            self.new.setdefault(
                (where[0], where[1], TRACER_LEAK),
                Diagnostic(
                    where[0],
                    where[1],
                    where[2],
                    TRACER_LEAK,
                    text,
                    where[1],
                    where[2],
                    verify=Verification(CONFIRMED, detail),
                ),
            )

    def observed(self, event: dict[str, Any]) -> None:
        """What an observer saw: the findings at its lines it explains confirmed; a tracer printed where no
        finding says so is a new JAX306 there (the value came through calls jaxlint could not follow)."""
        detail = OBSERVED_DETAIL[event["kind"]].format(detail=event["detail"])
        inside = f" ({event['detail']})" if event["kind"] == "print" and event["detail"] else ""
        detail += inside
        hits = [d for where in event["where"] for d in self.at(where) if d.code in OBSERVED[event["kind"]]]
        for d in hits:
            self.confirm(d, detail)
        if hits or event["kind"] != "print" or len(event["where"][0]) < 3:
            return
        file, row, col = event["where"][0]
        text = (
            f"`print` of a traced value{inside} runs once at trace time and shows a tracer, not the "
            'numbers; use `jax.debug.print("... {}", value)`'
        )
        self.new.setdefault(
            (file, row, PRINTED),
            Diagnostic(file, row, col, PRINTED, text, row, col, verify=Verification(CONFIRMED, detail)),
        )

    def recompiled(self, event: dict[str, Any]) -> None:
        """A function compiled again and again at one call (observe.Observer._compiled, its latest count):
        the recompilation findings (RECOMPILED) at the call or at the function confirmed, else a new JAX013 at both."""
        (file, row, col), *defined = event["where"]
        times = f"`{event['function']}` was compiled {event['count']} times in {event['calls']} calls"
        detail = f"{times} at line {row}: {event['change']} ({EXPLAINED})"
        hits = [d for where in event["where"] for d in self.at(where) if d.code in RECOMPILED]
        for d in hits:
            self.confirm(d, detail)
        if hits:
            return
        verified = Verification(CONFIRMED, f"{event['count']} compiles at line {row}, each explained by {EXPLAINED}")
        text = f"{times} here: {event['change']}; {event['fix']}"
        self.new[(file, row, RECOMPILE)] = Diagnostic(file, row, col, RECOMPILE, text, row, col, verify=verified)
        for def_file, def_row, def_col in defined:
            call = f"line {row}" if def_file == file else f"{os.path.relpath(file)}:{row}"
            text = f"{times} at {call}: {event['change']}; {event['fix']}"
            self.new[(def_file, def_row, RECOMPILE)] = Diagnostic(
                def_file, def_row, def_col, RECOMPILE, text, def_row, def_col, verify=verified
            )

    def at(self, where: list[Any]) -> list[Diagnostic]:
        return self.sites.get((where[0], where[1]), [])

    def confirm(self, d: Diagnostic, detail: str) -> None:
        self.confirmed.setdefault(id(d), detail)

    def owned(self, real: str, row: int) -> list[Diagnostic]:
        """The findings in the function around a line."""
        plan = self.plans.get(real)
        if plan is None:
            return []
        owner = plan.owner_of(row)
        return [
            d
            for (file, r), found in self.sites.items()
            if file == real
            for d in found
            if owner and plan.owners.get(r) == owner
        ]

    def error(
        self, error: dict[str, Any], doing: str, fallback: tuple[str, int] | None, report_new: bool, target: str = ""
    ) -> bool:
        """Confirm the findings an error passes through (innermost first) or, for a leak, the JAX308
        findings of the functions it names; else (when `report_new`) a new finding at the innermost
        project line. Whether anything was confirmed."""
        classes, message = error["classes"], error["message"]
        for where in reversed(error["frames"]):
            hits = [d for d in self.at(where) if matches(d.code, classes, message)]
            for d in hits:
                self.confirm(d, f"{doing} raised {classes[0]} here")
            if hits:
                return True
        code = runtime_code(classes, message)
        if code == TRACER_LEAK and self.placed_leaks:
            return True  # placed at the lines that stored the tracers
        if code == TRACER_LEAK:
            named = [[os.path.realpath(f), int(r)] for f, r in _NAMED_LINE.findall(error.get("text", ""))]
            named += [list(fallback)] if fallback and target else []
            leaks = [
                d for where in [*error["frames"], *named] for d in self.owned(where[0], where[1]) if d.code == LEAK
            ]
            for d in leaks:
                self.confirm(d, f"jax.checking_leaks reported a leak while {doing}")
            if leaks:
                return True
        where = error["frames"][-1] if error["frames"] else fallback
        if report_new and where is not None:
            self._new(code or TRACE_ERROR, error, doing, where, target)
        return False

    def _new(self, code: str, error: dict[str, Any], doing: str, where: list[Any] | tuple, target: str) -> None:
        file, row = where[0], where[1]
        col = where[2] if len(where) > 2 else 1
        cls, message = error["classes"][0], error["message"]
        if code == TRACER_LEAK and target and file in self.plans and target in self.plans[file].defs:
            row, col = self.plans[file].defs[target]  # the leak surfaces after the trace: its function
        text = _MESSAGES[code].format(doing=doing[0].upper() + doing[1:], cls=cls, message=message, target=target)
        if code == TRACE_ERROR and runtime_code(error["classes"], message) is None and doing == IMPORTING:
            text = f"the module could not be imported: {cls}: {message}"
        elif code == TRACER_LEAK and not target:
            text = f"a tracer leaked while {doing} (jax's leak check): {message}"
        detail = f"found by {doing}"
        if code in CHECKERS:  # the evidence: which of jax's checkers said so
            detail = f"{CHECKERS[code]}: {cls} raised by {doing}"
        if code == KEY_REUSE and error.get("first_use"):
            detail += f"; the key was consumed first at line {error['first_use'][1]}"
        self.new.setdefault(
            (file, row, code), Diagnostic(file, row, col, code, text, row, col, verify=Verification(CONFIRMED, detail))
        )


def gather(findings: list[Diagnostic], plans: list[FilePlan], reports: list[Report]) -> Evidence:
    evidence = Evidence({os.path.realpath(p.path): p for p in plans})
    for d in findings:
        evidence.sites.setdefault((os.path.realpath(d.filename), d.row), []).append(d)
    recompiled: dict[str, dict[str, Any]] = {}  # the latest count of each function at each call
    for report in reports:
        plan_file = os.path.realpath(report.plan.path) if report.plan else None
        evidence.placed_leaks = 0
        for event in report.events:
            kind = event["event"]
            if kind == "leak":
                evidence.leak(event)
            elif kind == "error":
                fallback = (plan_file, 1) if plan_file else None
                jaxish = runtime_code(event["classes"], event["message"]) is not None
                evidence.error(
                    event,
                    report.doing(event["phase"]),
                    fallback,
                    report_new=(event["phase"] != "test" or jaxish) and not unverifiable(event),
                )
            elif kind == "observed":
                evidence.observed(event)
            elif kind == "warning":
                for d in evidence.at(event["where"]):
                    cls, fragment = WARNED.get(d.code, ("", ""))
                    if cls in event["classes"] and fragment in event["message"]:
                        evidence.confirm(d, f"{event['classes'][0]} here: {event['message']}")
            elif kind == "probe" and plan_file and event["status"] == "missing":
                for d in evidence.at([plan_file, event["row"]]):
                    if d.code == PROBED:
                        evidence.confirm(d, f"the installed jax {event['jax']} has no `{event['text']}`")
            elif kind == "outcome" and event["status"] == "error" and event["file"]:
                _outcome(evidence, event)
            elif kind == "recompiled":
                recompiled[repr(event["where"])] = event
    for event in recompiled.values():
        evidence.recompiled(event)
    return evidence


def tracing(outcome: dict[str, Any]) -> str:
    """ "tracing `f` with ...": the function and where its arguments came from."""
    return f"tracing `{outcome['target']}`" + ARGUMENTS.get(outcome.get("arguments", ""), "").format(**outcome)


def _outcome(evidence: Evidence, outcome: dict[str, Any]) -> None:
    error, target = outcome["error"], outcome["target"]
    doing = tracing(outcome)
    real_arguments = outcome.get("arguments") in REAL_ARGUMENTS
    jax_verdict = runtime_code(error["classes"], error["message"]) is not None
    found = evidence.error(
        error,
        doing,
        (outcome["file"], outcome["line"]),
        report_new=jax_verdict and (outcome["staged"] or real_arguments) and not unverifiable(error),
        target=target,
    )
    if found:
        return
    for where in error["frames"]:
        for d in evidence.at(where):
            if d.code in CONFIRMABLE and id(d) not in evidence.against:
                status = NOT_REPRODUCED if real_arguments else UNVERIFIED
                evidence.against[id(d)] = Verification(status, f"{doing} raised {error['classes'][0]} here instead")


def could_not_verify(report: Report, error: dict[str, Any]) -> str:
    """ "could not verify: <why>: <error>" for an error that is no verdict on the code (errors.unverifiable)."""
    return (
        f"could not verify: {unverifiable(error)} ({report.doing(error['phase'])} raised "
        f"{error['classes'][0]}: {error['message']})"
    )


def verdict(d: Diagnostic, plan: FilePlan, report: Report, evidence: Evidence) -> Verification:
    """The verification of a static finding that no evidence confirmed."""
    if report.failure:
        return Verification(UNVERIFIED, report.failure)
    for exit_ in report.of("exit"):
        return Verification(UNVERIFIED, f"the module called sys.exit({exit_['code']}) at import")
    for error in report.of("error"):
        if unverifiable(error):
            return Verification(UNVERIFIED, could_not_verify(report, error))
        failed = "import failed" if error["phase"] == "import" else f"{report.doing(error['phase'])} raised"
        return Verification(UNVERIFIED, f"{failed}: {error['classes'][0]}: {error['message']}")
    if d.code == PROBED:
        probes = [p for p in report.of("probe") if p["row"] == d.row]
        if probes and probes[0]["status"] == "present":
            return Verification(UNVERIFIED, f"the installed jax {probes[0]['jax']} still has `{probes[0]['text']}`")
    if d.code in WARNED:
        return Verification(UNVERIFIED, f"no {WARNED[d.code][0]} at this line while the module was imported")
    if d.code in RECOMPILED and id(d) not in evidence.against:
        return Verification(
            UNVERIFIED, "no function was compiled again and again here (the calls must run: --verify=run)"
        )
    if d.code not in CONFIRMABLE:
        return Verification(UNVERIFIED, "not observable by tracing")
    if id(d) in evidence.against:
        return evidence.against[id(d)]
    owner = plan.owners.get(d.row)
    if (
        owner is None
        and plan.main_block
        and plan.main_block[0] <= d.row <= plan.main_block[1]
        and report.label == plan.path
    ):
        return Verification(
            UNVERIFIED, 'under `if __name__ == "__main__":`, which an import skips (--verify=run runs it)'
        )
    if owner is None:
        return Verification(UNVERIFIED, "module-level code: the import ran without this error")
    skipped = {e["owner"]: e["reason"] for e in report.of("skipped")}
    if owner in skipped:
        return Verification(UNVERIFIED, skipped[owner])
    for outcome in report.of("outcome"):
        if outcome["target"] != owner:
            continue
        if outcome["status"] == "ok" and any(d.code in codes for codes in OBSERVED.values()):
            # the observers see only some spellings, and only lines that ran: not seeing is no proof
            return Verification(UNVERIFIED, f"{tracing(outcome)}: nothing was seen at this line")
        if outcome["status"] == "ok":
            return Verification(NOT_REPRODUCED, f"{tracing(outcome)} raised nothing")
        if outcome["status"] == "unbuildable":
            return Verification(UNVERIFIED, outcome["reason"])
        error = outcome["error"]
        where = f" at line {error['frames'][-1][1]}" if error["frames"] else ""
        return Verification(
            UNVERIFIED, f"{tracing(outcome)} stopped first{where}: {error['classes'][0]}: {error['message']}"
        )
    return Verification(UNVERIFIED, f"`{owner}` was traced only through other functions, which never reached it")


def decide(plan: FilePlan, report: Report, evidence: Evidence) -> list[Diagnostic]:
    return [
        replace(
            d,
            verify=Verification(CONFIRMED, evidence.confirmed[id(d)])
            if id(d) in evidence.confirmed
            else verdict(d, plan, report, evidence),
        )
        for d in plan.findings
    ]
