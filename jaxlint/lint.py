"""One file: parse once, run every enabled check in one traversal, apply noqa."""

from __future__ import annotations

import functools
import gc
import inspect
import re
import sys
from typing import Callable

import libcst as cst
from libcst._nodes import whitespace
from libcst.metadata import CodeRange, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from jaxlint.analysis.bindings import is_docstring
from jaxlint.analysis.callees import inherited_methods, module_bindings, plain_class
from jaxlint.analysis.context import Context
from jaxlint.analysis.interface import Applied, Consumes, Exported, Interface, ModuleContext, Outgoing
from jaxlint.analysis.keys import DEFAULT_KEY_NAMES
from jaxlint.analysis.name_scopes import NameScopes
from jaxlint.analysis.names import dotted, scope_imports
from jaxlint.analysis.scopes import ScopeFacts, is_property, method_bound
from jaxlint.analysis.traced import DEFAULT_TABLE, Signature, TransformTable, decorator_transform
from jaxlint.analysis.tracker import ValueTracker
from jaxlint.checks import ALL_RULES
from jaxlint.checks.base import FixPlan, Message, Rule
from jaxlint.diagnostics import Diagnostic, Edit, Fix
from jaxlint.files import LINE_BREAK, InputError, mentions_jax
from jaxlint.fix import Offsets
from jaxlint.model.dtypes import WIDE_DTYPE_WORD
from jaxlint.noqa import file_suppressions, is_suppressed
from jaxlint.syntax import NEWEST, parse, parse_version
from jaxlint.traversal import Traversal

DEEP_RECURSION = 20_000


def _too_deep(filename: str) -> Diagnostic:
    message = "nested too deeply for jaxlint to check (Python's recursion limit); the file was skipped"
    return Diagnostic(filename, 1, 1, "JAX003", message, 1, 1)


def lint_source(
    source: str,
    filename: str,
    enabled: frozenset[str],
    table: TransformTable = DEFAULT_TABLE,
    key_names: tuple[str, ...] = DEFAULT_KEY_NAMES,
    jax_version: str | None = None,
    line_name: Callable[[int], str] = str,
    python_version: str | None = None,
    line_noqa: bool = True,
) -> list[Diagnostic]:
    """The findings of the enabled rules in one file's text, sorted, noqa applied (`# noqa` comments
    only with `line_noqa`: flake8 applies them itself; `# jaxlint: noqa` always).

    Messages that point at another line ("transformed by `jax.jit` at line 3") spell it with `line_name`.
    The text is parsed as code of `python_version` ("3.12"; default: the newest syntax jaxlint knows).
    """
    return lint_module(source, filename, enabled, table, key_names, jax_version, line_name,
                       python_version=python_version, line_noqa=line_noqa)[0]


def lint_module(
    source: str,
    filename: str,
    enabled: frozenset[str],
    table: TransformTable = DEFAULT_TABLE,
    key_names: tuple[str, ...] = DEFAULT_KEY_NAMES,
    jax_version: str | None = None,
    line_name: Callable[[int], str] = str,
    context: ModuleContext | None = None,
    python_version: str | None = None,
    line_noqa: bool = True,
    findings: bool = True,
) -> tuple[list[Diagnostic], Interface]:
    """`lint_source` for a module of a project: what the other modules tell it in `context`, and
    what it tells them (its interface) besides its findings. Without `findings`, the interface alone:
    the analysis runs, the rules do not (a module not named, analysed for what it tells the named ones)."""
    if not mentions_jax(source) and (context is None or not context.imported.traces):
        return [], Interface()
    target = parse_version(python_version) if python_version else NEWEST
    diagnostics, interface = _parse_and_check(source, filename, enabled, table, key_names, jax_version,
                                              line_name, context, target, findings)
    if not diagnostics:
        return [], interface
    lines = LINE_BREAK.split(source)
    file_level = file_suppressions(source)
    kept = [
        d for d in diagnostics
        if not is_suppressed(d.code, lines[d.noqa_row - 1] if line_noqa and d.noqa_row <= len(lines) else "",
                             file_level)
    ]
    return sorted(kept), interface


def _parse_and_check(
    source: str, filename: str, enabled: frozenset[str], table: TransformTable, key_names: tuple[str, ...],
    jax_version: str | None,
    line_name: Callable[[int], str],
    context: ModuleContext | None,
    target: tuple[int, int],
    findings: bool,
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
        module = parse(source, target)
        if collecting:
            gc.freeze()  # the tree, out of the collector's sight; the analysis's own garbage is collected
            gc.enable()
        return _check(module, source, filename, enabled, table, key_names, jax_version, line_name, context,
                      findings)
    except InputError as error:
        found = Diagnostic(filename, error.row, error.col, error.code, error.message, error.row, error.col)
        return [found] if error.code in enabled else [], Interface()
    except RecursionError:
        return [_too_deep(filename)] if "JAX003" in enabled else [], Interface()
    finally:
        sys.setrecursionlimit(limit)
        if collecting:
            gc.unfreeze()
            gc.enable()


# Each round may discover traced scopes (`jax.jit(f)` below `f`, helpers called with tracers);
# a helper of a helper needs one more. Real code settles in two or three (the deepest seen: six).
MAX_ROUNDS = 8


def _check(
    module: cst.Module, source: str, filename: str, enabled: frozenset[str], table: TransformTable,
    key_names: tuple[str, ...], jax_version: str | None, line_name: Callable[[int], str],
    context: ModuleContext | None, findings: bool = True,
) -> tuple[list[Diagnostic], Interface]:
    rule_classes = [rule for rule in ALL_RULES if rule.code in enabled and _has_hooks(rule)]
    if not rule_classes:
        return [], Interface()
    if not any(rule.needs_values(source) for rule in rule_classes):
        # Names alone (JAX801/802 on a file that reads no removed array attribute): one walk, no value
        # analysis, and so nothing to tell the project's other modules. (Those that do read one then
        # miss what this module's traced calls would tell them: a removed attribute of a value traced
        # only through a call from here is found by a run that selects a rule of the analysis too.)
        if not findings:
            return [], Interface()
        reports = []
        scopes = NameScopes(module, context.package if context is not None else None)
        names_only = Context(scopes, module, filename, jax_version)
        rules = [rule(names_only, lambda *report: reports.append(report)) for rule in rule_classes]
        Traversal((scopes, *rules), (*rules, scopes)).walk(module)
        return _diagnostics(module, source, filename, reports, line_name), Interface()
    if not findings:
        rule_classes = []  # the analysis alone, for the interface
    facts = ScopeFacts()
    donations = any(rule.needs_donations for rule in rule_classes)
    read_x64, read_literals = False, set()  # of other modules' facts, in any round
    for round in range(MAX_ROUNDS):
        # Only the last round's reports count: a round that learns something new will not be the last, and
        # its rules stop at that point. When it settles all the same, it runs again with them.
        may_mute = round < MAX_ROUNDS - 1
        while True:
            reports: list[tuple[str, cst.CSTNode, Message, FixPlan | None]] = []
            tracker = ValueTracker(module, facts, table, key_names, context, donations, jax_version)
            rule_context = Context(tracker, module, filename, jax_version)
            rules = [rule(rule_context, lambda *report: reports.append(report)) for rule in rule_classes]
            flow = tracker.flow  # the engine's visits come first and its leaves last, then its domains'
            traversal = Traversal((flow, *flow.domains, *rules), (*rules, *reversed(flow.domains), flow))
            if may_mute and rules:
                tracker.recorder.watch(facts, lambda: traversal.mute(rules))
            traversal.walk(module)
            tracker.recorder.watch(facts, None)  # the callback holds the traversal: no cycle left to the collector
            read_x64, read_literals = read_x64 or tracker.read_x64, read_literals | tracker.read_literals
            learned = tracker.recorder.facts()
            settled = learned.settled(facts, tracker.asked)
            if not (settled and traversal.muted):
                break
            may_mute = False
        facts = learned
        if settled:
            break
    if not reports:  # positions are a second full pass: a call's line is found in the text instead
        return [], _interface(module, source, filename, facts, tracker, context,
                              lambda node, caller: _line_in_text(source, node, caller), read_x64, read_literals)
    positions = _positions(module)
    interface = _interface(module, source, filename, facts, tracker, context,
                           lambda node, caller: positions[node].start.line, read_x64, read_literals)
    return _diagnostics(module, source, filename, reports, line_name, positions), interface


def _diagnostics(module: cst.Module, source: str, filename: str,
                 reports: list[tuple[str, cst.CSTNode, Message, FixPlan | None]], line_name: Callable[[int], str],
                 positions=None) -> list[Diagnostic]:
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
    for code, node, message, plan in reports:
        where = positions[node]
        text = message if isinstance(message, str) else message(line_of)
        fix = None if plan is None or _drops_comments(plan) else _fix(plan, module, source, positions, offsets,
                                                                     bound)
        diagnostics.append(Diagnostic(
            filename, where.start.line, where.start.column + 1, code, text,
            where.end.line, where.end.column + 1, fix,
        ))
    return diagnostics


def _positions(module: cst.Module) -> dict[cst.CSTNode, CodeRange]:
    """Where each node is (whitespace nodes left out: nothing reports them), from one rendering of the
    module. libcst's MetadataWrapper would also rebuild the whole tree once, in a visit for no provider
    (it visits for the batchable providers even when there are none): that doubled the cost."""
    provider = PositionProvider()
    collecting = gc.isenabled()
    gc.disable()  # a range per node, millions in a big file: nothing for the collector to find
    try:
        module._codegen(_PositionState(default_indent=module.default_indent,
                                       default_newline=module.default_newline, provider=provider))
    finally:
        if collecting:
            gc.enable()
    return provider._computed


_WHITESPACE = frozenset(
    cls for _, cls in inspect.getmembers(whitespace, inspect.isclass)
    if issubclass(cls, cst.CSTNode) and cls.__module__ == whitespace.__name__
)


class _PositionState(PositionProvidingCodegenState):
    def after_codegen(self, node: cst.CSTNode) -> None:
        if type(node) in _WHITESPACE:
            self._stack.pop()
        else:
            super().after_codegen(node)


def _line_in_text(source: str, call: cst.Call, caller: str) -> int:
    """The line of a call, found in the text (libcst renders a node as written): its first occurrence
    after `def caller` (when a caller is named), else its first occurrence; 0 when not found."""
    text = _EMPTY.code_for_node(call)
    definition = re.search(rf"\bdef\s+{re.escape(caller)}\b", source) if caller else None
    found = source.find(text, definition.end()) if definition else -1
    if found < 0:
        found = source.find(text)
    return source.count("\n", 0, found) + 1 if found >= 0 else 0


_EMPTY = cst.Module(body=[])


def _interface(module: cst.Module, source: str, filename: str, facts: ScopeFacts, tracker: ValueTracker,
               context: ModuleContext | None, line: Callable[[cst.CSTNode, str], int], read_x64: bool,
               read_literals: set[str]) -> Interface:
    """What this module tells the other modules of its project (nothing outside a project), and which of
    their optional facts it read."""
    if context is None:
        return Interface()
    returns, consumes = {}, {}
    for name, statement, bound, self_param in _module_functions(module, tracker):
        positional = Signature.of(statement.params).positional[bound:]
        if facts.consumes.get(statement):
            consumes[name] = Consumes(positional, tuple(sorted(facts.consumes[statement])))
        summary = facts.returns.get(statement)
        literal = _returned_literal(statement, facts, tracker, filename, line)
        if summary is not None and summary.params and summary.closure is None:
            value = summary.value.kind.value if summary.value is not None else None
            returns[name] = Exported(positional, summary.params, value, summary.container, literal, self_param)
        elif literal is not None:
            returns[name] = Exported(positional, (), None, False, literal, self_param)
    calls = tuple(
        Outgoing(target, caller, trace.name, trace.staged, f"{filename}:{line(node, caller)}", positional,
                 keywords, instance, made)
        for target, node, caller, trace, positional, keywords, instance, made in tracker.outgoing
    )
    applications = tuple(
        Applied(target, transform.name, transform.staged, f"{filename}:{line(transform.node, around)}",
                tuple((option, _EMPTY.code_for_node(value)) for option, value in transform.keywords.items()),
                transform.bound, tuple(sorted(transform.bound_names)), instance, made)
        for target, transform, around, instance, made in tracker.applications
    )
    reexports = {local: qualified for local, qualified in scope_imports(module.body, context.package).items()
                 if context.in_project(qualified)}
    return Interface(returns, calls, tuple(sorted(tracker.uses)), reexports, consumes, tracker.enables_x64,
                     WIDE_DTYPE_WORD.search(source) is not None, read_x64, tuple(sorted(read_literals)), applications,
                     _overrides(module, tracker, context),
                     tuple(sorted(tracker.recorder.self_calls | tracker.read_attributes)),
                     tuple(statement.name.value for statement in module.body if isinstance(statement, cst.ClassDef)),
                     _extends(module, tracker, context))


def _extends(module: cst.Module, tracker: ValueTracker, context: ModuleContext) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Its classes whose methods may be another module's: that class, and the names bound on the way
    (Interface.extends)."""
    bindings = module_bindings(module)
    found = {}
    for statement in module.body:
        if isinstance(statement, cst.ClassDef):
            extends = bindings.extends(statement, tracker.names, context.in_project)
            if extends is not None:
                found[statement.name.value] = extends
    return found


def _overrides(module: cst.Module, tracker: ValueTracker, context: ModuleContext) -> dict[str, tuple[str, ...]]:
    """The classes of other modules of the project that this module's classes derive from, with the names
    each subclass defines (Interface.overrides)."""
    found: dict[str, set[str]] = {}
    scopes = module_bindings(module).scopes
    for statement in module.body:
        if not isinstance(statement, cst.ClassDef):
            continue
        for base in statement.bases:
            qualified = tracker.names.qualified(base.value) if base.keyword is None else None
            if context.in_project(qualified):  # (`self.name = ...` hides a method and sets what `self.name` holds)
                found.setdefault(qualified, set()).update(scopes[id(statement)].names, scopes[id(statement)].attributes)
    return {base: tuple(sorted(names)) for base, names in found.items()}


def _module_functions(module: cst.Module, tracker: ValueTracker):
    """The module-level functions by name, and the methods of its module-level plain classes (callees.plain_class)
    by `Class.method`: each with the leading parameters every call fills (a classmethod's `cls`) and whether
    a call through an instance fills one more (`self`)."""
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            yield statement.name.value, statement, 0, False
        elif isinstance(statement, cst.ClassDef) and plain_class(statement, tracker.names):
            for method in statement.body.body:
                if isinstance(method, cst.FunctionDef) and not is_property(method):
                    bound = method_bound(method, False)
                    yield (f"{statement.name.value}.{method.name.value}", method, bound,
                           method_bound(method, True) > bound)
    in_project = tracker.context.in_project if tracker.context is not None else None
    for cls, name, method in inherited_methods(module, tracker.names, in_project):  # a base's, by the subclass too
        if not is_property(method):
            bound = method_bound(method, False)
            yield f"{cls.name.value}.{name}", method, bound, method_bound(method, True) > bound


def _returned_literal(statement: cst.CSTNode, facts: ScopeFacts, tracker: ValueTracker, filename: str,
                      line: Callable[[cst.CSTNode, str], int]) -> str | None:
    """How a module-level function that returns a tuple, list or dict literal on every path says so (JAX601);
    None for one with a decorator other than a jax transform (it may change what calling it gives)."""
    literal = facts.containers.get(statement) if isinstance(statement, cst.FunctionDef) else None
    if literal is None or any(decorator_transform(d, tracker.names, tracker.transforms) is None
                              for d in statement.decorators):
        return None
    shown = " ".join(_EMPTY.code_for_node(literal).split())
    kind = {cst.Tuple: "a tuple", cst.List: "a list", cst.ListComp: "a list"}.get(type(literal), "a dict")
    return f"{kind}{f' (`{shown}`)' if len(shown) <= 40 else ''} at {filename}:{line(literal, statement.name.value)}"


def _fix(plan: FixPlan, module: cst.Module, source: str, positions, offsets: Offsets,
         bound: Callable[[], dict[str, str]]) -> Fix:
    """Positioned edits for a rule's fix plan, in the file's own newline style (`bound`: the module's imports)."""
    newline = module.default_newline

    def original(first: cst.CSTNode, last: cst.CSTNode) -> str:
        start, end = positions[_outer(first, 0)].start, positions[_outer(last, -1)].end
        return source[offsets.of(start.line, start.column + 1):offsets.of(end.line, end.column + 1)]

    def styled(code: str) -> str:
        return code.replace("\r\n", "\n").replace("\n", newline)

    # Not recursive: a closure calling itself is a reference cycle holding the module's whole tree until the
    # collector runs.
    def text(piece) -> str:
        if isinstance(piece, str):
            return styled(piece)
        if isinstance(piece, tuple):
            return original(*piece)
        if piece not in positions:  # a node the rule built: its code, in the file's newline style
            return styled(module.code_for_node(piece))
        return original(piece, piece)

    edits = []
    for node, new in plan.replacements:
        where = positions[node]
        content = "".join(text(piece) for piece in new) if isinstance(new, tuple) else text(new)
        edits.append(Edit(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1, content))
    for name in plan.imports:
        if bound().get(name) != name:
            edits.append(_import_edit(name, module, positions, offsets, newline))
    return Fix(plan.applicability, plan.message, tuple(sorted(edits)))


def _drops_comments(plan: FixPlan) -> bool:
    """Whether the fix would delete a comment: one in a replaced node that no copied piece keeps."""
    for node, new in plan.replacements:
        kept = [piece for part in (new if isinstance(new, tuple) else (new,))
                for piece in (part if isinstance(part, tuple) else (part,)) if isinstance(piece, cst.CSTNode)]
        if len(_comments(node)) > sum(len(_comments(piece)) for piece in kept):
            return True
    return False


def _comments(node: cst.CSTNode) -> list[cst.Comment]:
    found: list[cst.Comment] = []

    class Collector(cst.CSTVisitor):
        def visit_Comment(self, comment: cst.Comment) -> None:
            found.append(comment)

    node.visit(Collector())
    return found


def _outer(node: cst.CSTNode, side: int) -> cst.CSTNode:
    """The node's outermost parenthesis on that side (positions leave parentheses out), or the node."""
    parens = getattr(node, "lpar" if side == 0 else "rpar", None)
    return parens[side] if parens else node


def _import_edit(name: str, module: cst.Module, positions, offsets: Offsets, newline: str) -> Edit:
    """`import name` on its own line after the imports that open the file, or, when jax is first
    imported further down (after setup code such as `os.environ[...] = ...`), after the imports that
    import of jax is one of; else before the first statement."""
    statements = list(module.body)
    first = 1 if statements and is_docstring(statements[0]) else 0
    opening = []
    for statement in statements[first:]:
        if not _imports(statement):
            break
        opening.append(statement)
    of_jax = next((i for i, s in enumerate(statements) if any(m.split(".")[0] == "jax" for m in _imports(s))),
                  None)
    if of_jax is not None and statements[of_jax] not in opening:
        while of_jax + 1 < len(statements) and _imports(statements[of_jax + 1]):
            of_jax += 1  # the end of the imports that jax's is one of
        anchor = statements[of_jax]
    else:
        anchor = opening[-1] if opening else None
    if anchor is not None:
        row = positions[anchor].end.line + 1  # the next line: the anchor's trailing comment stays with it
        if row > offsets.rows:
            return Edit(row, 1, row, 1, f"{newline}import {name}")
        return Edit(row, 1, row, 1, f"import {name}{newline}")
    if first < len(statements):
        start = positions[statements[first]].start
        return Edit(start.line, 1, start.line, 1, f"import {name}{newline}")
    end = positions[module].end
    return Edit(end.line, end.column + 1, end.line, end.column + 1, f"{newline}import {name}{newline}")


def _imports(statement: cst.CSTNode) -> list[str]:
    """The modules a top-level line of nothing but imports imports from; [] for any other statement."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return []
    modules = []
    for small in statement.body:
        if isinstance(small, cst.Import):
            modules.extend(dotted(alias.name) or "" for alias in small.names)
        elif isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
            modules.append(dotted(small.module) or "")
        else:
            return []
    return modules


@functools.cache  # (asked for every rule of every file)
def _has_hooks(rule: type[Rule]) -> bool:
    return any(name.startswith(("visit_", "leave_")) for name in dir(rule))
