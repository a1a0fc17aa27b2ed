"""One file: parse once, run every enabled check in one traversal, apply noqa."""

from __future__ import annotations

import bisect
import functools
import gc
import inspect
import re
import sys
from dataclasses import dataclass
from typing import Callable, cast

import libcst as cst
from libcst._nodes import whitespace
from libcst.metadata import CodeRange, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from jaxlint.analysis.context import Context
from jaxlint.analysis.interface import Interface, ModuleContext
from jaxlint.analysis.name_scopes import NameScopes
from jaxlint.analysis.names import scope_imports
from jaxlint.analysis.scopes import RoundFacts
from jaxlint.analysis.traced import DEFAULT_TABLE, TransformTable
from jaxlint.analysis.tracker import ValueTracker
from jaxlint.checks import ALL_RULES
from jaxlint.checks.base import FixPlan, Message, Rule
from jaxlint.analysis.values import Value
from jaxlint.diagnostics import Diagnostic
from jaxlint.edits import drops_comments, fix_edits
from jaxlint.export import Reads, module_interface
from jaxlint.files import LINE_BREAK, InputError, mentions_jax
from jaxlint.fix import Offsets
from jaxlint.model.keys import DEFAULT_KEY_NAMES
from jaxlint.noqa import UNUSED_NOQA, file_suppressions, is_suppressed, unused as unused_noqa
from jaxlint.syntax import NEWEST, parse, parse_python_version
from jaxlint.traversal import Traversal

DEEP_RECURSION = 20_000
# Python's syntax errors name another line ("expected an indented block after 'for' statement on line 7");
# in a notebook it is named as the other messages name lines ("on line 2 of cell 2").
_LINE_IN_MESSAGE = re.compile(r"(\bon line )(\d+)")


def _too_deep(filename: str) -> Diagnostic:
    message = "nested too deeply for jaxlint to check (Python's recursion limit); the file was skipped"
    return Diagnostic(filename, 1, 1, "JAX003", message, 1, 1)


@dataclass(frozen=True)
class LintOptions:
    """How to lint one file: the rules to run and what they need to know of the project and its setting."""

    enabled: frozenset[str]  # rule codes
    table: TransformTable = DEFAULT_TABLE  # the transforms known, the configured extra ones included
    key_names: tuple[str, ...] = DEFAULT_KEY_NAMES  # names that hold PRNG keys
    jax_version: str | None = None  # the release the code must run on
    python_version: str | None = None  # the syntax to parse ("3.12"); default: the newest jaxlint knows
    # How messages that point at another line ("transformed by `jax.jit` at line 3") spell it.
    line_name: Callable[[int], str] = str
    # How the messages of other files place a row of this one (`cell 5:3` of a notebook's program).
    place_name: Callable[[int], str] = str
    line_noqa: bool = (
        True  # apply noqa comments (flake8 applies them itself; a file-wide `jaxlint: noqa` always applies)
    )
    # Without findings, the interface alone: the analysis runs, the rules do not (a module not named, analysed
    # for what it tells the named ones).
    findings: bool = True


def lint_source(source: str, filename: str, options: LintOptions) -> list[Diagnostic]:
    """The findings of the enabled rules in one file's text, sorted, noqa applied."""
    return lint_module(source, filename, options)[0]


def lint_module(
    source: str, filename: str, options: LintOptions, context: ModuleContext | None = None
) -> tuple[list[Diagnostic], Interface]:
    """`lint_source` for a module of a project: what the other modules tell it in `context`, and
    what it tells them (its interface) besides its findings."""
    if not mentions_jax(source) and (context is None or not context.imported.checked_without_jax):
        return [], Interface()
    diagnostics, interface = _parse_and_check(source, filename, options, context)
    if not diagnostics:
        return [], interface
    lines = LINE_BREAK.split(source)
    file_level = file_suppressions(source)
    kept = [
        d
        for d in diagnostics
        if not is_suppressed(
            d.code, lines[d.noqa_row - 1] if options.line_noqa and d.noqa_row <= len(lines) else "", file_level
        )
    ]
    return sorted(kept), interface


def _parse_and_check(
    source: str, filename: str, options: LintOptions, context: ModuleContext | None
) -> tuple[list[Diagnostic], Interface]:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, DEEP_RECURSION))  # libcst's visitors recurse once per nesting level
    # A big file's syntax tree is millions of objects, and the collector would scan them again and again
    # while they are built and walked, for nothing: the tree holds no cycles (libcst nodes do not point
    # to their parents). The analysis's own cycles (the tracker and its domains) wait for the next
    # collection after the file.
    collecting = gc.isenabled()
    gc.disable()
    try:
        module = parse(source, parse_python_version(options.python_version) if options.python_version else NEWEST)
        if collecting:
            gc.freeze()  # the tree, out of the collector's sight; the analysis's own garbage is collected
            gc.enable()
        diagnostics, interface = _check(module, source, filename, options, context)
        if options.line_noqa and options.findings and UNUSED_NOQA in options.enabled and "noqa" in source:
            diagnostics += unused_noqa(source, filename, diagnostics, options.enabled)
        return diagnostics, interface
    except InputError as error:
        message = _LINE_IN_MESSAGE.sub(lambda m: m[1] + options.line_name(int(m[2])), error.message)
        found = Diagnostic(filename, error.row, error.col, error.code, message, error.row, error.col)
        return [found] if error.code in options.enabled else [], Interface()
    except RecursionError:
        return [_too_deep(filename)] if "JAX003" in options.enabled else [], Interface()
    finally:
        sys.setrecursionlimit(limit)
        if collecting:
            gc.unfreeze()
            gc.enable()


# Each round may discover traced scopes (`jax.jit(f)` below `f`, helpers called with tracers);
# a helper of a helper needs one more. Real code settles in two or three (the deepest seen: six).
MAX_ROUNDS = 8


def _check(
    module: cst.Module, source: str, filename: str, options: LintOptions, context: ModuleContext | None
) -> tuple[list[Diagnostic], Interface]:
    # (mypy deems classes unhashable, for _has_hooks's cache; they hash)
    rule_classes = [rule for rule in ALL_RULES if rule.code in options.enabled and _has_hooks(rule)]  # type: ignore[arg-type]
    if not rule_classes:
        return [], Interface()
    if not any(rule.needs_values(source) for rule in rule_classes):
        # Names alone (JAX801/802 on a file that reads no removed array attribute): one walk, no value
        # analysis, and so nothing to tell the project's other modules. (Those that do read one then
        # miss what this module's traced calls would tell them: a removed attribute of a value traced
        # only through a call from here is found by a run that selects a rule of the analysis too.)
        if not options.findings:
            return [], Interface()
        reports: list[Report] = []
        scopes = NameScopes(module, context.package if context is not None else None)
        names_only = Context(scopes, module, filename, options.jax_version)
        rules = [rule(names_only, lambda *report: reports.append(report)) for rule in rule_classes]
        Traversal((scopes, *rules), (*rules, scopes)).walk(module)
        return _diagnostics(module, source, filename, reports, options.line_name), Interface()
    if not options.findings:
        rule_classes = []  # the analysis alone, for the interface
    facts = RoundFacts()
    donations = any(rule.needs_donations for rule in rule_classes)
    reads = Reads()  # of other modules' facts, in any round
    for round in range(MAX_ROUNDS):
        # Only the last round's reports count: a round that learns something new will not be the last, and
        # its rules stop at that point. When it settles all the same, it runs again with them.
        may_mute = round < MAX_ROUNDS - 1
        while True:
            reports = []
            tracker = ValueTracker(
                module, facts, options.table, options.key_names, context, donations, options.jax_version
            )
            rule_context = Context(tracker, module, filename, options.jax_version)
            rules = [rule(rule_context, lambda *report: reports.append(report)) for rule in rule_classes]
            flow = tracker.flow  # the engine's visits come first and its leaves last, then its domains'
            traversal = Traversal((flow, *flow.domains, *rules), (*rules, *reversed(flow.domains), flow))
            if may_mute and rules:
                tracker.recorder.watch(facts, lambda: traversal.mute(rules), tracker.traced_functions)
            traversal.walk(module)
            tracker.recorder.watch(facts, None)  # the callback holds the traversal: no cycle left to the collector
            reads.add(tracker)
            learned = tracker.recorder.facts()
            settled = learned.settled(facts, tracker.asked, tracker.asked_attributes, tracker.traced_functions)
            if not (settled and traversal.muted):
                break
            may_mute = False
        facts = learned
        if settled:
            break
    if not reports:  # positions are a second full pass: the interface finds a call's line in the text instead
        return [], module_interface(module, source, filename, tracker, facts, reads, place=options.place_name)
    positions = _positions(module)
    if tracker.flow.unreached:
        running = {rule.code for rule in rule_classes if rule.about_running}
        reports = _in_reached_code(reports, tracker.flow.unreached, running, positions)
    interface = module_interface(module, source, filename, tracker, facts, reads, positions, options.place_name)
    return _diagnostics(module, source, filename, reports, options.line_name, positions), interface


# What a rule reported: its code, the node, the message, the fix, the value the finding is about.
Report = tuple[str, cst.CSTNode, Message, "FixPlan | None", "Value | None"]


def _in_reached_code(
    reports: list[Report], unreached: list[cst.CSTNode], running: set[str], positions: dict[cst.CSTNode, CodeRange]
) -> list[Report]:
    """The reports but those of `running` codes (findings about what code does when it runs) in statements no path
    reaches: that code never runs."""
    spans: list[tuple[tuple[int, int], tuple[int, int]]] = []
    for node in sorted(unreached, key=lambda node: (positions[node].start.line, positions[node].start.column)):
        where = positions[node]
        start, end = (where.start.line, where.start.column), (where.end.line, where.end.column)
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))  # (nested statements: one span)
        else:
            spans.append((start, end))
    starts = [span[0] for span in spans]

    def reached(node: cst.CSTNode) -> bool:
        at = (positions[node].start.line, positions[node].start.column)
        index = bisect.bisect_right(starts, at) - 1
        return index < 0 or at > spans[index][1]

    return [report for report in reports if report[0] not in running or reached(report[1])]


def _diagnostics(
    module: cst.Module,
    source: str,
    filename: str,
    reports: list[Report],
    line_name: Callable[[int], str],
    positions=None,
) -> list[Diagnostic]:
    """The rules' reports, placed (positions are a second full pass over the module: only when needed)."""
    if not reports:
        return []
    if positions is None:
        positions = _positions(module)

    def line_of(node: cst.CSTNode) -> str:
        return line_name(positions[node].start.line)

    offsets = Offsets(source)
    bound = functools.cache(lambda: scope_imports(module.body))  # the module's imports, for fixes that add one
    diagnostics = []

    def row_of(node: cst.CSTNode) -> int:
        return positions[node].start.line

    for code, node, message, plan, because in reports:
        where = positions[node]
        # (checks/base.py's Message types the line as an int; notebooks name it as text, "cell 2, line 3")
        text = message if isinstance(message, str) else message(cast(Callable[[cst.CSTNode], int], line_of))
        fix = (
            None if plan is None or drops_comments(plan) else fix_edits(plan, module, source, positions, offsets, bound)
        )
        diagnostics.append(
            Diagnostic(
                filename,
                where.start.line,
                where.start.column + 1,
                code,
                text,
                where.end.line,
                where.end.column + 1,
                fix,
                evidence=because.evidence(row_of) if because is not None else (),
            )
        )
    return diagnostics


def _positions(module: cst.Module) -> dict[cst.CSTNode, CodeRange]:
    """Where each node is (whitespace nodes left out: nothing reports them), from one rendering of the
    module. libcst's MetadataWrapper would also rebuild the whole tree once, in a visit for no provider
    (it visits for the batchable providers even when there are none): that doubled the cost."""
    provider = PositionProvider()
    collecting = gc.isenabled()
    gc.disable()  # a range per node, millions in a big file: nothing for the collector to find
    try:
        module._codegen(
            _PositionState(
                default_indent=module.default_indent, default_newline=module.default_newline, provider=provider
            )
        )
    finally:
        if collecting:
            gc.enable()
    return cast("dict[cst.CSTNode, CodeRange]", provider._computed)  # ranges, all computed by the rendering


_WHITESPACE = frozenset(
    cls
    for _, cls in inspect.getmembers(whitespace, inspect.isclass)
    if issubclass(cls, cst.CSTNode) and cls.__module__ == whitespace.__name__
)


class _PositionState(PositionProvidingCodegenState):
    def after_codegen(self, node: cst.CSTNode) -> None:
        if type(node) in _WHITESPACE:
            self._stack.pop()
        else:
            super().after_codegen(node)


@functools.cache  # (asked for every rule of every file)
def _has_hooks(rule: type[Rule]) -> bool:
    return any(name.startswith(("visit_", "leave_")) for name in dir(rule))
