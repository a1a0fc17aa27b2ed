"""What one module tells the other modules of its project (analysis/interface.py), read off its analysis."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
import re
from typing import Callable

import libcst as cst

from jaxlint.analysis.callees import inherited_methods, module_bindings, plain_class
from jaxlint.analysis.dead_branches import fixed_arguments
from jaxlint.analysis.factories import product
from jaxlint.analysis.interface import (
    Applied,
    Consumes,
    Exported,
    Interface,
    Looped,
    ModuleContext,
    Outgoing,
    made_name,
)
from jaxlint.analysis.loop_calls import looped_calls
from jaxlint.analysis.names import scope_imports
from jaxlint.analysis.narrowing import returned_test
from jaxlint.analysis.bindings import is_property
from jaxlint.analysis.scopes import Returned, RoundFacts, every_assigned_value, method_bound
from jaxlint.analysis.stable_fields import stable_fields
from jaxlint.analysis.traced import Signature, decorator_transform
from jaxlint.analysis.tracker import ValueTracker
from jaxlint.model.dtypes import WIDE_DTYPE_WORD


def _line_in_text(source: str, node: cst.CSTNode, caller: str) -> int:
    """The line of a call (or literal), found in the text (libcst renders a node as written, but the lines after
    the first of a node over several lines lose the indentation of the block around it: any run of whitespace
    matches): its first occurrence after `def caller` (when a caller is named), else its first occurrence; 0 when
    not found."""
    text = _EMPTY.code_for_node(node)
    if "\n" in text:
        text = text[:_SOUGHT_LENGTH].rsplit(None, 1)[0] if len(text) > _SOUGHT_LENGTH else text
        sought = re.compile(r"\s*".join(re.escape(part) for part in text.split()))
    else:
        sought = re.compile(re.escape(text))
    definition = re.search(rf"\bdef\s+{re.escape(caller)}\b", source) if caller else None
    found = sought.search(source, definition.end()) if definition else None
    if found is None:
        found = sought.search(source)
    return source.count("\n", 0, found.start()) + 1 if found is not None else 0


_SOUGHT_LENGTH = 400  # of a node over several lines: enough to tell it apart, short enough to seek fast
_EMPTY = cst.Module(body=[])


@dataclass
class Reads:
    """Which optional facts of the other modules of its project a module's analysis read, in any round: the
    project's x64, the literals and the summaries their functions return (qualified), the containers their eager
    calls give its parameters (Interface.read_handed) and the container attributes of their classes' instances."""

    x64: bool = False
    item_setters: bool = False
    literals: set[str] = field(default_factory=set)
    returns: set[str] = field(default_factory=set)
    handed: set[tuple[str, int | str, bool]] = field(default_factory=set)
    containers: set[str] = field(default_factory=set)
    reached: set[str] = field(default_factory=set)
    jitted: set[str] = field(default_factory=set)

    def add(self, tracker: ValueTracker) -> None:
        """What one round's analysis read."""
        self.x64 = self.x64 or tracker.read_x64
        self.item_setters = self.item_setters or tracker.read_item_setters
        self.literals |= tracker.read_literals
        self.returns |= tracker.read_returns
        self.handed |= tracker.read_handed
        self.containers |= tracker.read_containers
        self.reached |= tracker.read_reached
        self.jitted |= tracker.read_jitted


def module_interface(
    module: cst.Module,
    source: str,
    filename: str,
    tracker: ValueTracker,
    facts: RoundFacts,
    reads: Reads,
    positions: dict | None = None,
    place: Callable[[int], str] = str,
) -> Interface:
    """What this module tells the other modules of its project (nothing outside a project), and which of
    their optional facts it read. A call's line is found in `positions` when the findings needed them,
    else in the text (positions are a second full pass)."""
    context = tracker.context
    if context is None:  # (a notebook: whether it turns on x64 for the packages it imports, runner._link asks)
        return Interface(x64=tracker.enables_x64)
    if positions is None:

        def line(node: cst.CSTNode, caller: str) -> int:
            return _line_in_text(source, node, caller)
    else:

        def line(node: cst.CSTNode, caller: str) -> int:
            return positions[node].start.line

    returns, consumes = {}, {}
    for name, statement, bound, self_param in _module_functions(module, tracker):
        positional = Signature.of(statement.params).positional[bound:]
        if facts.consumes.get(statement):
            consumes[name] = Consumes(
                positional=positional,
                params=tuple(sorted(facts.consumes[statement])),
                self_param=self_param,
                defaults=_drawn_defaults(statement, tracker, facts),
                **_guarded_draws(statement, facts),
            )
        made = _made_consumes(statement, tracker, facts) if not bound and not self_param else None
        if made is not None:
            consumes[made_name(name)] = made
        summary = facts.returns.get(statement)
        literal = _returned_literal(statement, facts, tracker, filename, line)
        if summary is not None and summary.params and summary.closure is None:
            returns[name] = Exported(
                positional=positional,
                params=summary.params,
                value=summary.value.kind.value if summary.value is not None else None,
                container=summary.container,
                literal=literal,
                self_param=self_param,
                items=_items(summary),
            )
        elif literal is not None:
            returns[name] = Exported(
                positional=positional, params=(), value=None, container=False, literal=literal, self_param=self_param
            )
        tests = returned_test(statement, tracker.names) if not bound and not self_param else None
        if tests is not None:
            kept = returns.get(name) or Exported(positional=positional, params=(), value=None, container=False)
            returns[name] = replace(kept, tests=tests)
    calls = tuple(
        Outgoing(
            target=call.target,
            caller=call.caller,
            transform=call.trace.name,
            staged=call.trace.staged,
            where=f"{filename}:{place(line(call.node, call.caller))}",
            positional=call.positional,
            keywords=call.keywords,
            instance=call.instance,
            made=call.made,
            differentiates=call.trace.differentiates,
            kinds=call.kinds,
            shapes=call.shapes,
            fixed=fixed,
            given=given,
        )
        for call in tracker.outgoing
        for fixed, given in (fixed_arguments(call.node),)
    )
    applications = tuple(
        Applied(
            target=applied.target,
            transform=applied.transform.name,
            staged=applied.transform.staged,
            where=f"{filename}:{place(line(applied.transform.node, applied.around))}",
            options=tuple(
                (option, _EMPTY.code_for_node(value)) for option, value in applied.transform.keywords.items()
            ),
            bound=applied.transform.bound,
            bound_names=tuple(sorted(applied.transform.bound_names)),
            instance=applied.instance,
            made=applied.made,
            literals=tuple(
                sorted(facts.literal_arguments.get(applied.transform.node, ()), key=lambda p: (type(p) is str, p))
            ),
            at_once=applied.called is not None,
            fixed=fixed,
            given=given,
        )
        for applied in tracker.applications
        for fixed, given in (fixed_arguments(applied.called) if applied.called is not None else ((), None),)
    )
    return Interface(
        returns=returns,
        calls=calls,
        uses=tuple(sorted(tracker.uses)),
        reexports={
            local: qualified
            for local, qualified in scope_imports(module.body, context.package).items()
            if context.in_project(qualified)
        },
        consumes=consumes,
        x64=tracker.enables_x64,
        wide_dtypes=WIDE_DTYPE_WORD.search(source) is not None,
        read_x64=reads.x64,
        read_item_setters=reads.item_setters,
        read_literals=tuple(sorted(reads.literals)),
        read_returns=tuple(sorted(reads.returns)),
        read_looped=tuple(sorted(tracker.read_looped)),
        read_handed=tuple(sorted(reads.handed, key=str)),
        read_containers=tuple(sorted(reads.containers)),
        applications=applications,
        overrides=_overrides(module, tracker, context),
        read_self_calls=tuple(sorted(tracker.recorder.self_calls | tracker.read_attributes)),
        classes=tuple(statement.name.value for statement in module.body if isinstance(statement, cst.ClassDef)),
        extends=_extends(module, tracker, context),
        looped=tuple(
            Looped(target, caller, f"{filename}:{line(call, caller)}")
            for call, target, caller in looped_calls(module, tracker.names, context.in_project, _traced(tracker, facts))
        )
        if tracker.uses  # (no call of the project's functions: none in a loop either)
        else (),
        handed=tuple(dict.fromkeys(tracker.handed)),  # (a loop's body is walked again: the same call, once)
        containers=_containers(module, facts),
        computed=_computed(module),
        read_reached=tuple(sorted(reads.reached)),
        item_setters=tracker.defines_item_setters,
        jitted=_jitted(module, tracker),
        read_jitted=tuple(sorted(reads.jitted)),
    )


def _items(summary: Returned) -> tuple[tuple[tuple[str, ...], str | None, bool] | None, ...] | None:
    """Exported.items of a function's summary: each position's parameters, kind and container (None: a position
    whose value depends on more than that, a closure's tracer or the trace's own)."""
    if summary.items is None:
        return None
    return tuple(
        None
        if item is None or item.closure is not None or item.computed is not None or item.items is not None
        else (item.params, item.value.kind.value if item.value is not None else None, item.container)
        for item in summary.items
    )


def _drawn_defaults(function: cst.FunctionDef, tracker: ValueTracker, facts: RoundFacts) -> tuple[str, ...]:
    """The key parameters with a key default that the function draws from itself whatever it is given: a draw with no
    test of its parameters around it (what another module's call gives is not followed here)."""
    sites = facts.drawn_sites.get(function, {})
    return tuple(
        sorted(
            param for param in tracker.keys.key_defaults(function) if any(not guards for guards in sites.get(param, ()))
        )
    )


def _jitted(module: cst.Module, tracker: ValueTracker) -> tuple[str, ...]:
    """Its module-level names that hold a jitted function: a def whose outermost decorator jits it, or a name bound
    once, to a jit of something (`train_step = jax.jit(_train_step)`); and, by `made_name`, the defs whose calls
    give one (`make_step()`, a factory that returns a jitted callable on every path)."""
    callees, found = tracker.callees, []
    for statement in module.body:
        if type(statement) is cst.FunctionDef and callees.decorated(statement) is not None:
            found.append(statement.name.value)
        elif type(statement) is cst.FunctionDef and callees.made_by(statement, (module,)) is not None:
            found.append(made_name(statement.name.value))
        elif type(statement) is cst.SimpleStatementLine:
            for small in statement.body:
                if (
                    type(small) is cst.Assign
                    and len(small.targets) == 1
                    and type(small.targets[0].target) is cst.Name
                    and type(small.value) is cst.Call
                    and callees.application(small.value, (module,)) is not None
                ):
                    found.append(small.targets[0].target.value)
    bound = {name: len(values) for name, values in every_assigned_value(list(module.body)).items()}
    return tuple(sorted(name for name in dict.fromkeys(found) if bound.get(name.removesuffix("()"), 0) <= 1))


def _computed(module: cst.Module) -> dict[str, tuple[str, ...]]:
    """By module-level class: the properties of its family that compute what they give (Interface.computed), as the
    module's stable_fields found them (kept for the module: its key analysis asks them too)."""
    getters = stable_fields(module).getters
    found = {}
    for statement in module.body:
        if type(statement) is cst.ClassDef:
            names = sorted(name for name, given in getters.get(statement, {}).items() if given is None)
            if names:
                found[statement.name.value] = tuple(names)
    return found


def _containers(module: cst.Module, facts: RoundFacts) -> dict[str, tuple[tuple[str, str], ...]]:
    """Its classes' attributes that `__init__` alone sets to a Python list, tuple or dict whatever it is given
    (Interface.containers): `self.opt_states = [adam_state, sgd_state]`."""
    found = {}
    for statement in module.body:
        if isinstance(statement, cst.ClassDef):
            held = tuple(
                (attr, value.contents.kind)
                for attr, summary in sorted(facts.attributes.get(statement, {}).items())
                if not summary.params and (value := summary.result({})) is not None and value.contents is not None
            )
            if held:
                found[statement.name.value] = held
    return found


def _traced(tracker: ValueTracker, facts: RoundFacts) -> Callable[[cst.CSTNode], bool]:
    """Whether a def or lambda is traced: decorated with a transform, transformed by a call, or called from a
    traced function."""

    def traced(node: cst.CSTNode) -> bool:
        decorators = node.decorators if isinstance(node, cst.FunctionDef) else ()
        return bool(facts.applied.get(node) or facts.entries.get(node) or facts.passed.get(node)) or any(
            decorator_transform(d, tracker.names, tracker.transforms) is not None for d in decorators
        )

    return traced


def _extends(
    module: cst.Module, tracker: ValueTracker, context: ModuleContext
) -> dict[str, tuple[str, tuple[str, ...]]]:
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
            # (`self.name = ...` hides a method and sets what `self.name` holds)
            if qualified is not None and context.in_project(qualified):
                found.setdefault(qualified, set()).update(scopes[id(statement)].names, scopes[id(statement)].attributes)
    return {base: tuple(sorted(names)) for base, names in found.items()}


def _guarded_draws(function: cst.FunctionDef, facts: RoundFacts) -> dict:
    """Consumes.guarded and Consumes.header of a function: the key parameters it draws from only under tests of
    its parameters, with those tests as text (another module's call decides them, as key_hops.live does here)."""
    text = cst.Module([]).code_for_node
    guarded = tuple(
        (param, tuple(tuple((text(test), truth) for test, truth in guards) for guards in sites))
        for param, sites in sorted(facts.drawn_sites.get(function, {}).items())
        if param in facts.consumes.get(function, ()) and sites and all(sites)
    )
    return {"guarded": guarded, "header": text(function.params)} if guarded else {}


def _made_consumes(function: cst.FunctionDef, tracker: ValueTracker, facts: RoundFacts) -> Consumes | None:
    """The key parameters that what a factory makes draws from (`make_kernel(0.1)(state, key)`, factories.py), when
    the factory makes one function of its own and fills none of its parameters."""
    made = product(function, tracker.callees.bindings, tracker.names, tracker.transforms)
    if made is None or made.bound or made.bound_names or not facts.consumes.get(made.function):
        return None
    positional = Signature.of(made.function.params).positional
    return Consumes(positional=positional, params=tuple(sorted(facts.consumes[made.function])))


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
                    yield (
                        f"{statement.name.value}.{method.name.value}",
                        method,
                        bound,
                        method_bound(method, True) > bound,
                    )
    in_project = tracker.context.in_project if tracker.context is not None else None
    for cls, name, method in inherited_methods(module, tracker.names, in_project):  # a base's, by the subclass too
        if not is_property(method):
            bound = method_bound(method, False)
            yield f"{cls.name.value}.{name}", method, bound, method_bound(method, True) > bound


def _returned_literal(
    statement: cst.CSTNode,
    facts: RoundFacts,
    tracker: ValueTracker,
    filename: str,
    line: Callable[[cst.CSTNode, str], int],
) -> str | None:
    """How a module-level function that returns a tuple, list or dict literal on every path says so (JAX601);
    None for one with a decorator other than a jax transform (it may change what calling it gives)."""
    if not isinstance(statement, cst.FunctionDef):
        return None
    literal = facts.containers.get(statement)
    if literal is None or any(
        decorator_transform(d, tracker.names, tracker.transforms) is None for d in statement.decorators
    ):
        return None
    shown = " ".join(_EMPTY.code_for_node(literal).split())
    kind = {cst.Tuple: "a tuple", cst.List: "a list", cst.ListComp: "a list"}.get(type(literal), "a dict")
    return f"{kind}{f' (`{shown}`)' if len(shown) <= 40 else ''} at {filename}:{line(literal, statement.name.value)}"
