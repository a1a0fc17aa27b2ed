"""Donated buffers: which names hold an array a jitted call was given in a donated position.

Once the donating call ran, jax may have deleted the array, and reading the name again fails. A
donation happens when the call has been evaluated (its arguments are read first: `y = step(x)` reads
`x`, then donates it); binding the name again forgets it. Paths join as "donated on some path".
Which calls donate which arguments comes from the module's callee facts (`tracker.callees`).

A loop that donates a name and does not bind it again before the next iteration reads it deletes what
that iteration reads: the engine's `next_iteration` states meet the reads of the body recorded with the
names each one saw bound since its iteration began (`fresh`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Sequence

import libcst as cst

from jaxlint.analysis.bindings import pattern_names, string_indexed, target_names
from jaxlint.analysis.callees import JittedCallee
from jaxlint.analysis.flow import Domain
from jaxlint.analysis.names import import_bound_names
from jaxlint.analysis.values import Kind, Value
from jaxlint.model.donation import (
    DATA_ATTRIBUTES,
    DEVICE_ITERATORS,
    DEVICE_TRANSFERS,
    ITERATING_BUILTINS,
    MAPPING_METHODS,
    METADATA,
    NON_READING_CALLS,
    NON_READING_METHODS,
    REBUILDING_CALLS,
    REBUILDING_METHODS,
    TREE_MAPS,
)
from jaxlint.traversal import children


@dataclass(frozen=True)
class Donation:
    """A name's array given to `call` in a donated position (`argument` is the name as passed)."""

    call: cst.Call
    argument: cst.Name
    callee: JittedCallee


@dataclass
class _State:
    donated: dict[str, Donation] = field(default_factory=dict)
    fresh: tuple[frozenset[str], ...] = ()  # per open loop of the scope: names bound in this iteration, every path
    # Names holding what a Python iterator yielded, on every path (`batch = next(it)`, `for batch in loader`): not
    # known to be on the device, unless the iterator puts it there...
    drawn: frozenset[str] = frozenset()
    # ...as the iterators these names hold do, on every path (`it = jax_utils.prefetch_to_device(loader, 2)`).
    feeding: frozenset[str] = frozenset()

    def copy(self) -> "_State":
        return _State(dict(self.donated), self.fresh, self.drawn, self.feeding)


@dataclass
class _Loop:
    node: cst.CSTNode
    units: list[tuple[cst.CSTNode, frozenset[str]]] = field(default_factory=list)  # what each saw fresh


def evaluated(node: cst.CSTNode) -> cst.CSTNode | list | None:
    """What a statement evaluates when it runs (a compound statement: its header), before its body."""
    if isinstance(node, (cst.If, cst.While)):
        return node.test
    if isinstance(node, cst.For):
        return node.iter
    if isinstance(node, cst.With):
        return [item.item for item in node.items]
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return list(node.decorators)
    if isinstance(node, cst.Match):
        return node.subject
    if isinstance(node, cst.MatchCase):
        return node.guard
    return node  # a small statement


Mappings = Sequence[cst.BaseExpression]  # paths a scope shows to be dicts: `mapping_paths`


def statement_reads(node: cst.CSTNode, mappings: Mappings) -> Iterator[cst.Name]:
    """The names a statement reads the arrays of when it runs (a compound statement: its header)."""
    if isinstance(node, cst.For) and _is_mapping(node.iter, mappings):
        return iter(())  # iterating a dict gives its keys
    return reads(evaluated(node), mappings)


def reads(node: cst.CSTNode | list | None, mappings: Mappings = ()) -> Iterator[cst.Name]:
    """The names an expression (or a statement: a `for` only its header) reads the arrays of now: not inside lambdas or nested
    defs, which run later; not the names comprehension targets bind; not what a deleted array still has
    (`x.shape`, `batch["x"].dtype`, `x.is_deleted()`, `len(x)`, `f.lower(x)`, `x is None`), nor what
    reads no data (`del batch["mask"]`, `batch["mask"] = m`, `"mask" in batch`, `state.replace(step=s)`,
    `FrozenDict(d)`, `jax.tree.map(lambda h: h.delete(), x)`): `jaxlint.model.donation` lists them. An item of
    one of `mappings` is reached by any key."""
    if node is None:
        return
    if isinstance(node, list):
        for item in node:
            yield from reads(item, mappings)
    elif isinstance(node, cst.Name):
        yield node
    elif isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
        return
    elif isinstance(node, cst.Attribute):
        if not (node.attr.value in METADATA and path_root(node.value, mappings) is not None):
            yield from reads(node.value, mappings)
    elif isinstance(node, cst.Call):
        yield from _call_reads(node, mappings)
    elif isinstance(node, cst.Comparison) and all(
        isinstance(target.operator, (cst.Is, cst.IsNot)) for target in node.comparisons
    ):
        for operand in (node.left, *(target.comparator for target in node.comparisons)):
            if path_root(operand, mappings) is None:  # `x is None` asks for the object, not its data
                yield from reads(operand, mappings)
    elif isinstance(node, cst.Comparison) and _key_lookup(node, mappings):
        return  # `"mask" in batch`: whether a dict has a key
    elif isinstance(node, (cst.Arg, cst.NamedExpr)):
        yield from reads(node.value, mappings)
    elif isinstance(node, cst.Decorator):
        yield from reads(node.decorator, mappings)
    elif isinstance(node, cst.BaseComp):
        bound: set[str] = set()
        clause: cst.CompFor | None = node.for_in
        while clause is not None:
            bound.update(target_names(clause.target))
            clause = clause.inner_for_in
        yield from (name for child in children(node) for name in reads(child, mappings) if name.value not in bound)
    elif isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor)):
        for target in _as_list(getattr(node, "targets", None) or getattr(node, "target", None)):
            target = target.target if isinstance(target, cst.AssignTarget) else target
            yield from _target_reads(target, mappings, augmented=isinstance(node, cst.AugAssign))
        if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
            yield node.target
        for name in ("value", "iter", "ifs"):
            for child in _as_list(getattr(node, name, None)):
                if not (name == "iter" and _is_mapping(child, mappings)):  # iterating a dict: its keys
                    yield from reads(child, mappings)
    elif isinstance(node, cst.Del):
        yield from _deleted_reads(node.target, mappings)
    elif isinstance(node, (cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal)):
        return
    else:
        for child in children(node):
            yield from reads(child, mappings)


def path_root(expr: cst.BaseExpression, mappings: Mappings = ()) -> cst.Name | None:
    """The name a path into a pytree starts at (`x`, `state.params`, `batch["x"]`, `batch[k]` of a batch in
    `mappings`): reaching a leaf through it reads no data. None for other expressions (`x[0]` and `x.T` read
    the array)."""
    while not isinstance(expr, cst.Name):
        if isinstance(expr, cst.Attribute) and expr.attr.value not in DATA_ATTRIBUTES:
            expr = expr.value
        elif isinstance(expr, cst.Subscript) and _dict_key(expr, mappings):
            expr = expr.value
        else:
            return None
    return expr


def _dict_key(subscript: cst.Subscript, mappings: Mappings) -> bool:
    """`d["x"]`, or `d[k]` of a `d` in `mappings`: an item of a dict (an array takes no string key)."""
    return string_indexed(subscript) or _is_mapping(subscript.value, mappings)


def _is_mapping(expr: cst.BaseExpression, mappings: Mappings) -> bool:
    return any(expr.deep_equals(mapping) for mapping in mappings)


def _key_lookup(comparison: cst.Comparison, mappings: Mappings) -> bool:
    """`"mask" in batch["inputs"]`: a string looked up in a path, which only a mapping answers."""
    return (
        len(comparison.comparisons) == 1
        and isinstance(comparison.comparisons[0].operator, (cst.In, cst.NotIn))
        and isinstance(comparison.left, (cst.SimpleString, cst.ConcatenatedString))
        and path_root(comparison.comparisons[0].comparator, mappings) is not None
    )


def mapping_paths(scope: cst.CSTNode) -> list[cst.BaseExpression]:
    """The paths a scope calls a mapping's method on (`batch["inputs"]` of `batch["inputs"].keys()`)."""
    found = []
    stack = [scope]
    while stack:
        node = stack.pop()
        if (
            type(node) is cst.Call
            and type(node.func) is cst.Attribute
            and node.func.attr.value in MAPPING_METHODS
            and path_root(node.func.value) is not None
        ):
            found.append(node.func.value)
        stack.extend(children(node))
    return found


def _call_reads(call: cst.Call, mappings: Mappings) -> Iterator[cst.Name]:
    func = call.func
    word = _callee_word(call)
    if word in NON_READING_CALLS:
        yield from reads(func, mappings)
        return
    if (
        isinstance(func, cst.Attribute)
        and func.attr.value in NON_READING_METHODS
        and path_root(func.value, mappings) is not None
    ):
        yield from reads(list(call.args), mappings)  # `x.delete()`: only the arguments
        return
    if _rebuilt_from(call, mappings) is not None:  # `state.replace(step=s)`, `FrozenDict(d)`: the new values only
        yield from reads([arg for arg in call.args if arg.keyword is not None], mappings)
        return
    if word in TREE_MAPS and call.args and _leaves_unread(call.args[0].value):
        yield from reads(func, mappings)
        yield from reads(call.args[0], mappings)
        yield from (
            name for arg in call.args[1:] if path_root(arg.value, mappings) is None for name in reads(arg, mappings)
        )
        return
    yield from reads(func, mappings)
    yield from reads(list(call.args), mappings)


def _rebuilt_from(call: cst.Call, mappings: Mappings = ()) -> cst.Name | None:
    """The root of the pytree a call builds a new one from (`state` of `state.replace(step=s)` or of
    `FrozenDict(state["params"])`), holding its leaves."""
    func, positional = call.func, [arg for arg in call.args if arg.keyword is None]
    if isinstance(func, cst.Attribute) and func.attr.value in REBUILDING_METHODS and not positional:
        return path_root(func.value, mappings)
    if _callee_word(call) in REBUILDING_CALLS and len(call.args) == 1 and positional and not positional[0].star:
        return path_root(positional[0].value, mappings)
    return None


def _leaves_unread(function: cst.BaseExpression) -> bool:
    """A lambda that reads only the metadata of its parameters (`lambda h: h.delete()`, `lambda x: x.shape`)."""
    if not isinstance(function, cst.Lambda):
        return False
    parameters = function.params
    names = {
        param.name.value
        for group in (parameters.params, parameters.posonly_params, parameters.kwonly_params)
        for param in group
    }
    return not any(name.value in names for name in reads(function.body))


def _deleted_reads(target: cst.BaseExpression, mappings: Mappings) -> Iterator[cst.Name]:
    """What `del` reads: nothing of `x` in `del x`, `del batch["mask"]` or `del state.cache` (a dict
    operation, no buffer read); the index of `del xs[i]`."""
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _deleted_reads(element.value, mappings)
    elif isinstance(target, cst.Subscript):
        if path_root(target.value, mappings) is None:
            yield from reads(target.value, mappings)
        yield from reads(list(target.slice), mappings)
    elif isinstance(target, cst.Attribute) and path_root(target.value, mappings) is None:
        yield from reads(target.value, mappings)


def _callee_word(call: cst.Call) -> str | None:
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else None


def _as_list(value) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _target_reads(target: cst.BaseExpression, mappings: Mappings, augmented: bool = False) -> Iterator[cst.Name]:
    """What an assignment target reads: `x` in `x[i] = v` and `x.a = v`; nothing in `x = v`; only the key
    in `batch["mask"] = m` (a store into a dict of the pytree: an array would raise whether donated or not)."""
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _target_reads(element.value, mappings)
    elif isinstance(target, cst.StarredElement):
        yield from _target_reads(target.value, mappings)
    elif isinstance(target, cst.Subscript) and not augmented and _dict_key(target, mappings):
        if path_root(target.value, mappings) is None:
            yield from reads(target.value, mappings)
        yield from reads(list(target.slice), mappings)
    elif isinstance(target, (cst.Subscript, cst.Attribute)):
        yield from reads(target, mappings)


def _on_host(value: Value | None) -> bool:
    """A NumPy array or a Python value, or a container the analysis saw built holding only those
    (`{"x": np.ones(n)}`): donating it copies it to the device and leaves it as it was."""
    if value is None:
        return False
    contents = value.contents
    if contents is not None:
        return contents.items is not None and all(_on_host(item) for item in contents.items)
    return value.kind in (Kind.HOST, Kind.STATIC)


Finding = tuple[cst.CSTNode, cst.Name, Donation]  # the statement, the read, the donation it sees


def _buffers_passed(expr: cst.BaseExpression) -> Iterator[cst.Name]:
    """The names whose arrays an argument passes as they are: the name itself, or an element of a tuple, list or dict
    display (a pytree's leaf); not an expression computed from one (`x * 2`, `x[0]`), a new array before the call."""
    if type(expr) is cst.Name:
        yield expr
    elif isinstance(expr, (cst.Tuple, cst.List)):
        for element in expr.elements:
            if isinstance(element, cst.Element):
                yield from _buffers_passed(element.value)
    elif isinstance(expr, cst.Dict):
        for item in expr.elements:
            if isinstance(item, cst.DictElement):
                yield from _buffers_passed(item.value)


class DonationFlow(Domain):
    """Follows donated names through the traversal, beside the value tracker. Its visit hooks run before
    the rules' and its leave hooks after: a rule looking at a statement sees the donations before it."""

    def __init__(self, tracker) -> None:
        self._tracker = tracker  # whose engine drives this domain
        self._states = [_State()]
        self._loops: list[list[_Loop]] = [[]]  # per scope: its open For and While loops
        self._again: dict[cst.CSTNode, list[Finding]] = {}  # per loop: reads that see the previous iteration's
        self._mapping_paths: dict[int, list[cst.BaseExpression]] = {}  # per scope node: `mapping_paths`
        # Names passed again in the call that donates them (`f(x, x)`, `f(x, (x, y))`), each with that donation.
        self.passed_twice: list[tuple[cst.Name, Donation]] = []

    @property
    def _state(self) -> _State:
        return self._states[-1]

    # ------------------------------------------------------------------ queries

    def reads(self, node: cst.CSTNode) -> list[tuple[cst.Name, Donation]]:
        """The reads of donated names that a statement (a compound statement's header) makes."""
        donated = self._state.donated
        if not donated or not self._tracker.flow.reaches(self):
            return []
        mappings = self._mappings()
        return [(name, donated[name.value]) for name in statement_reads(node, mappings) if name.value in donated]

    def _mappings(self) -> list[cst.BaseExpression]:
        """The paths the current function (or module) shows to be dicts, found once per scope."""
        scope = self._tracker.chain[-1]
        if id(scope) not in self._mapping_paths:
            self._mapping_paths[id(scope)] = mapping_paths(scope)
        return self._mapping_paths[id(scope)]

    def next_iteration(self, node: cst.For | cst.While, states: list[_State]) -> None:
        loop = self._loops[-1][-1]
        if not any(state.donated for state in states):
            return
        found: dict[int, Finding] = {}
        mappings = self._mappings()
        for state in states:
            for unit, fresh in loop.units:
                for name in statement_reads(unit, mappings):
                    donation = state.donated.get(name.value)
                    if donation is not None and name.value not in fresh:
                        found.setdefault(id(name), (unit, name, donation))
        self._again[node] = list(found.values())

    def read_again(self, loop: cst.CSTNode) -> list[Finding]:
        """The reads of a For or While body that its next iteration makes of what the previous one donated."""
        return self._again.pop(loop, [])

    # ------------------------------------------------------------------ statements and calls

    def _unit(self, node: cst.CSTNode) -> None:
        fresh = self._state.fresh
        for loop, bound in zip(self._loops[-1], fresh):
            loop.units.append((node, bound))

    visit_Assign = visit_AnnAssign = visit_AugAssign = visit_Expr = visit_Return = _unit
    visit_Raise = visit_Assert = visit_Del = visit_If = visit_While = visit_For = _unit
    visit_With = visit_FunctionDef = visit_ClassDef = visit_Match = _unit

    def leave_Call(self, node: cst.Call) -> None:
        if not any(type(arg.value) is cst.Name for arg in node.args):
            return  # (most calls pass no plain name)
        tracker = self._tracker
        callee = tracker.callees.donating(node, tracker.chain)
        if callee is None or tracker.in_jaxpr_trace():
            # (called while another function is traced to a jaxpr, a jitted function is staged into that trace: its
            # arguments are tracers, and no buffer is donated; only a dispatched call donates)
            return
        arguments = callee.arguments(node, tracker.target_version)
        for argument in arguments:
            if not argument.donated or not isinstance(argument.expr, cst.Name):
                continue
            value = tracker.value_of(argument.expr)
            if _on_host(value):  # jax copies NumPy and Python values
                continue
            if argument.expr.value in self._state.drawn and not (value is not None and value.is_array):
                continue  # a batch a data pipeline yielded: as often NumPy, copied too
            donation = self._state.donated[argument.expr.value] = Donation(node, argument.expr, callee)
            # The same buffer in another argument of this call: XLA gets it as a donated input and a live one.
            self.passed_twice += [
                (name, donation)
                for other in arguments
                if other is not argument
                for name in _buffers_passed(other.expr)
                if name.value == argument.expr.value
            ]

    def _bind(self, names) -> None:
        state = self._state
        names = set(names)
        for name in names:
            state.donated.pop(name, None)
        state.drawn -= names
        state.feeding -= names
        if state.fresh:
            state.fresh = tuple(bound | names for bound in state.fresh)

    def leave_Assign(self, node: cst.Assign) -> None:
        rebuilt = self._rebuilt(node.value)
        bound = [name for target in node.targets for name in target_names(target.target)]
        self._bind(bound)
        state = self._state
        if rebuilt is not None:  # `state = state.replace(step=s)` holds the deleted leaves it did not replace
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    state.donated[target.target.value] = rebuilt
        if self._draws(node.value):  # `images, labels = next(it)`: its parts too
            state.drawn |= frozenset(bound)
        elif self._feeds(node.value):
            state.feeding |= frozenset(
                target.target.value for target in node.targets if isinstance(target.target, cst.Name)
            )
        for target in node.targets:
            self._stored(target.target, node.value)

    def _stored(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """`batch["x"] = jnp.ones(3)`: a drawn batch that now holds a JAX array is no longer known to be on the host."""
        state = self._state
        if type(target) is cst.Subscript and state.drawn:
            root = path_root(target.value, self._mappings())
            held = self._tracker.value_of(value)
            if root is not None and held is not None and held.is_array:
                state.drawn -= {root.value}

    def _draws(self, value: cst.BaseExpression) -> bool:
        """`next(it)` of an iterator not known to put its items on the device."""
        return (
            type(value) is cst.Call
            and self._builtin(value.func) == "next"
            and bool(value.args)
            and not self._feeds(value.args[0].value)
        )

    def _feeds(self, iterable: cst.BaseExpression) -> bool:
        """An iterable whose items are on the device: a name bound to one, a library's prefetching iterator, `map`
        of a device transfer, and `iter`, `enumerate` or `zip` of one."""
        if type(iterable) is cst.Name and iterable.value in self._state.feeding:
            return True
        if type(iterable) is not cst.Call:
            return False
        if self._tracker.names.qualified(iterable.func) in DEVICE_ITERATORS:
            return True
        builtin = self._builtin(iterable.func)
        if builtin == "map":
            return bool(iterable.args) and self._tracker.names.qualified(iterable.args[0].value) in DEVICE_TRANSFERS
        if builtin == "iter" or builtin in ITERATING_BUILTINS:
            return any(self._feeds(arg.value) for arg in iterable.args)
        return False

    def _builtin(self, func: cst.BaseExpression) -> str | None:
        if type(func) is cst.Name and self._tracker.names.qualified(func) is None:
            return func.value
        return None

    def _rebuilt(self, value: cst.BaseExpression) -> Donation | None:
        """The donation a new pytree built from a donated one (`state.replace(...)`, `d.unfreeze()`) carries over."""
        if not (self._state.donated and isinstance(value, cst.Call)):
            return None
        root = _rebuilt_from(value, self._mappings())
        return None if root is None else self._state.donated.get(root.value)

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(target_names(node.target))

    leave_Del = leave_NamedExpr = leave_AnnAssign

    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(target_names(node.target))
        self._stored(node.target, node.value)

    def leave_Import(self, node: cst.Import | cst.ImportFrom) -> None:
        self._bind(import_bound_names(node))

    leave_ImportFrom = leave_Import

    def leave_FunctionDef(self, node: cst.FunctionDef | cst.ClassDef) -> None:
        self._bind([node.name.value])

    leave_ClassDef = leave_FunctionDef

    def visit_For_body(self, node: cst.For) -> None:
        names = list(target_names(node.target))
        self._bind(names)
        if not self._feeds(node.iter):
            self._state.drawn |= frozenset(names)

    def visit_With_body(self, node: cst.With) -> None:
        self._bind(name for item in node.items if item.asname is not None for name in target_names(item.asname.name))

    def visit_ExceptHandler_body(self, node: cst.ExceptHandler | cst.ExceptStarHandler) -> None:
        if node.name is not None:
            self._bind(target_names(node.name.name))

    visit_ExceptStarHandler_body = visit_ExceptHandler_body

    def visit_MatchCase(self, node: cst.MatchCase) -> None:
        self._bind(pattern_names(node.pattern))
        self._unit(node)  # its guard

    # ------------------------------------------------------------------ the flow engine's domain

    def snapshot(self) -> _State:
        return self._state.copy()

    def restore(self, state: _State) -> None:
        # A state from inside a loop (at a `break`) continues after it: only the loops still open count.
        self._states[-1] = _State(dict(state.donated), state.fresh[: len(self._loops[-1])], state.drawn, state.feeding)

    def join(self, a: _State, b: _State) -> _State:
        """Donated when donated on some path; fresh when bound on every path (the loops both paths are in)."""
        donated = dict(a.donated)
        for name, donation in b.donated.items():
            donated.setdefault(name, donation)
        fresh = tuple(x & y for x, y in zip(a.fresh, b.fresh))
        return _State(donated, fresh, a.drawn & b.drawn, a.feeding & b.feeding)

    def enter_scope(self, node: cst.CSTNode) -> None:
        """A function, lambda, class body or comprehension starts with nothing donated: what it donates
        stays in it (a comprehension's reads are the statement's around it)."""
        self._states.append(_State())
        self._loops.append([])

    def exit_scope(self, node: cst.CSTNode) -> None:
        self._states.pop()
        self._loops.pop()

    def enter_loop(self, node: cst.CSTNode, rebound: set[str]) -> None:
        if isinstance(node, (cst.For, cst.While)):
            self._loops[-1].append(_Loop(node))
            self._state.fresh = (*self._state.fresh, frozenset())

    def exit_loop(self, node: cst.CSTNode) -> None:
        if isinstance(node, (cst.For, cst.While)):
            self._loops[-1].pop()
            self._state.fresh = self._state.fresh[: len(self._loops[-1])]
