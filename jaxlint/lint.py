"""One file: parse once, run every enabled check in one traversal, apply noqa."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Callable, Iterable

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from jaxlint.analysis.keys import DEFAULT_KEY_NAMES
from jaxlint.analysis.scopes import ScopeFacts
from jaxlint.analysis.traced import DEFAULT_TABLE, TransformTable
from jaxlint.analysis.tracker import ValueTracker
from jaxlint.checks import ALL_RULES
from jaxlint.checks.base import Message, Rule
from jaxlint.diagnostics import Diagnostic
from jaxlint.noqa import file_suppressions, is_suppressed

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def mentions_jax(source: str) -> bool:
    """Files that never say `jax` cannot use it; they are not parsed at all."""
    return "jax" in source


class _Traversal(cst.CSTVisitor):
    """Dispatches each node to the tracker's and the rules' hooks, tracker visits first, leaves last."""

    def __init__(self, tracker: ValueTracker, rules: Iterable[Rule]) -> None:
        self._visit: dict[str, list[Callable]] = defaultdict(list)
        self._leave: dict[str, list[Callable]] = defaultdict(list)
        for handler in (tracker, tracker.keys, *rules):
            for attribute in dir(type(handler)):
                if attribute.startswith("visit_"):
                    self._visit[attribute[6:]].append(getattr(handler, attribute))
        for handler in (*rules, tracker.keys, tracker):
            for attribute in dir(type(handler)):
                if attribute.startswith("leave_"):
                    self._leave[attribute[6:]].append(getattr(handler, attribute))

    def on_visit(self, node: cst.CSTNode) -> bool:
        for hook in self._visit.get(type(node).__name__, ()):
            hook(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        for hook in self._leave.get(type(original_node).__name__, ()):
            hook(original_node)

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        for hook in self._visit.get(f"{type(node).__name__}_{attribute}", ()):
            hook(node)

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        for hook in self._leave.get(f"{type(original_node).__name__}_{attribute}", ()):
            hook(original_node)


def syntax_error(source: str, filename: str, error: cst.ParserSyntaxError) -> Diagnostic:
    """JAX001 at Python's own error position when it has one, else libcst's."""
    try:
        compile(source, filename, "exec", flags=0x400, dont_inherit=True)  # PyCF_ONLY_AST
    except SyntaxError as python_error:
        row = python_error.lineno or 1
        col = python_error.offset or 1
        message = f"syntax error: {python_error.msg}"
    except ValueError as python_error:  # null bytes and the like
        row, col, message = 1, 1, f"cannot parse: {python_error}"
    else:
        row, col = error.raw_line, error.raw_column + 1
        message = f"libcst cannot parse this file: {error.message}"
    return Diagnostic(filename, row, col, "JAX001", message, row, col)


def lint_source(
    source: str,
    filename: str,
    enabled: frozenset[str],
    table: TransformTable = DEFAULT_TABLE,
    key_names: tuple[str, ...] = DEFAULT_KEY_NAMES,
) -> list[Diagnostic]:
    """The findings of the enabled rules in one file's text, sorted, noqa applied."""
    if not mentions_jax(source):
        return []
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        diagnostics = [syntax_error(source, filename, error)] if "JAX001" in enabled else []
    else:
        diagnostics = _check(module, filename, enabled, table, key_names)
    if not diagnostics:
        return []
    lines = _LINE_BREAK.split(source)
    file_level = file_suppressions(source)
    kept = [
        d for d in diagnostics
        if not is_suppressed(d.code, lines[d.noqa_row - 1] if d.noqa_row <= len(lines) else "", file_level)
    ]
    return sorted(kept)


# Each round may discover traced scopes (`jax.jit(f)` below `f`, helpers called with tracers);
# a helper of a helper needs one more. Real code settles in two or three.
MAX_ROUNDS = 5


def _check(
    module: cst.Module, filename: str, enabled: frozenset[str], table: TransformTable, key_names: tuple[str, ...]
) -> list[Diagnostic]:
    rule_classes = [rule for rule in ALL_RULES if rule.code in enabled and _has_hooks(rule)]
    if not rule_classes:
        return []
    facts = ScopeFacts()
    for _ in range(MAX_ROUNDS):
        reports: list[tuple[str, cst.CSTNode, Message]] = []
        tracker = ValueTracker(module, facts, table, key_names)
        rules = [rule(tracker, lambda *report: reports.append(report), filename) for rule in rule_classes]
        module.visit(_Traversal(tracker, rules))
        learned = tracker.recorder.facts()
        if learned == facts:
            break
        facts = learned
    if not reports:
        return []
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)

    def line_of(node: cst.CSTNode) -> int:
        return positions[node].start.line

    diagnostics = []
    for code, node, message in reports:
        where = positions[node]
        text = message if isinstance(message, str) else message(line_of)
        diagnostics.append(Diagnostic(
            filename, where.start.line, where.start.column + 1, code, text,
            where.end.line, where.end.column + 1,
        ))
    return diagnostics


def _has_hooks(rule: type[Rule]) -> bool:
    return any(name.startswith(("visit_", "leave_")) for name in vars(rule))
