"""Which parameters of a function are `None` at a point, from the tests the paths to it passed.

After `if neighbors is None: return allocate(...)`, `neighbors` is not `None`; in the body of `if x is not
None:` it is not either. A function closing over such a parameter and traced from that point (`lax.cond(p,
step, ...)`) sees the same value when jax traces it, so its own `if neighbors is None:` branch never runs
traced (dead_branches.py). Only parameters nothing rebinds are followed (no assignment, no `nonlocal` in a
nested function): what holds of them at a point holds from there on. A test of a name that holds one of them
(`nbrs = neighbors`, bound otherwise only by plain assignments, which the flow follows) tests it too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, cast

import libcst as cst

from jaxlint.analysis.bindings import COMPOUND, blocks, rebound_names, statements, target_names
from jaxlint.analysis.dead_branches import is_none
from jaxlint.analysis.flow import Domain
from jaxlint.analysis.narrowing import returned
from jaxlint.analysis.scopes import every_assigned_value

Nones = dict[str, bool]  # a followed parameter: True when it is `None`, False when it is not
State = tuple[Nones, dict[str, str]]  # and the names that hold a followed parameter now: name -> parameter


@dataclass
class _Followed:
    params: set[str]  # the parameters nothing rebinds
    aliases: set[str]  # the names bound only by plain assignments, one of them to such a parameter


@dataclass
class _Frame:
    scope: cst.CSTNode  # a FunctionDef, Lambda, ClassDef or comprehension
    nones: Nones = field(default_factory=dict)
    holding: dict[str, str] = field(default_factory=dict)  # alias -> the parameter it holds here
    followed: _Followed | None = None  # found when first needed

    def names(self) -> _Followed:
        if self.followed is None:
            self.followed = _followed(self.scope) if type(self.scope) is cst.FunctionDef else _Followed(set(), set())
        return self.followed


class NoneFlow(Domain):
    """Per open function, what the `is None` tests on the paths to the current point say of its followed
    parameters. `definition` gives the def a name is bound to (`if _allocating(neighbors):` with `def
    _allocating(n): return n is None`)."""

    def __init__(self, definition: Callable[[cst.BaseExpression], cst.CSTNode | None]) -> None:
        self._definition = definition
        self._frames: list[_Frame] = []

    def here(self) -> tuple[cst.FunctionDef, Nones] | None:
        """The innermost def around the current point and what is known of its followed parameters there (what
        holds here holds from here on: in a lambda or a function defined here too)."""
        for frame in reversed(self._frames):
            if type(frame.scope) is cst.FunctionDef:
                return frame.scope, dict(frame.nones)
        return None

    def snapshot(self) -> State:
        return (dict(self._frames[-1].nones), dict(self._frames[-1].holding)) if self._frames else ({}, {})

    def restore(self, state: State) -> None:
        if self._frames:
            self._frames[-1].nones, self._frames[-1].holding = dict(state[0]), dict(state[1])

    def join(self, a: State, b: State) -> State:
        return _common(a[0], b[0]), _common(a[1], b[1])

    def enter_scope(self, node: cst.CSTNode) -> None:
        self._frames.append(_Frame(node))

    def exit_scope(self, node: cst.CSTNode) -> None:
        self._frames.pop()

    def assigned(self, node: cst.Assign) -> None:
        """A plain assignment: a followed alias holds the parameter it is given, or no longer one."""
        if not self._frames:
            return
        frame = self._frames[-1]
        for assigned in node.targets:
            for name in target_names(assigned.target):
                frame.holding.pop(name, None)
        target, value = node.targets[0].target, node.value
        if len(node.targets) == 1 and type(target) is cst.Name and type(value) is cst.Name:
            held = frame.holding.get(value.value, value.value)
            if target.value in frame.names().aliases and held in frame.names().params:
                frame.holding[target.value] = held

    def enter_branch(self, test: cst.BaseExpression, truth: bool) -> None:
        told = self.told(test, truth)
        if told:
            self._frames[-1].nones.update(told)

    def told(self, test: cst.BaseExpression, truth: bool) -> Nones:
        """What `test` being `truth` says here of the followed parameters of the current function (which holds
        from here on: `kernel = sample if blocks is None else sample_jit` says it of `kernel`'s calls)."""
        told = self._told(test, truth) if self._frames else {}
        if not told:
            return {}
        frame = self._frames[-1]
        params = frame.names().params
        found: Nones = {}
        for name, none in told.items():
            param = frame.holding.get(name, name)
            if param in params:
                found[param] = none
        return found

    def said(self, test: cst.BaseExpression, truth: bool) -> Nones:
        """What `test` being `truth` says of any name, followed or not (`rng is not None` false: `rng` is None)."""
        return self._told(test, truth)

    def _told(self, test: cst.BaseExpression, truth: bool) -> Nones:
        """What `test` being `truth` says: `x is None` (`is not`), `not t`, `a and b` true (both are), `a or b`
        false (neither is), `x` true (`None` is false), a one-line helper returning such a test of its parameter."""
        if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            return self._told(test.expression, not truth)
        if type(test) is cst.BooleanOperation:
            if isinstance(test.operator, cst.And) is truth:
                return {**self._told(test.left, truth), **self._told(test.right, truth)}
            return {}
        if isinstance(test, cst.Name):
            return {test.value: False} if truth else {}
        if isinstance(test, cst.Call) and _instance_test(test):
            return {cast(cst.Name, test.args[0].value).value: False} if truth else {}
        if isinstance(test, cst.Call):
            inlined = _inlined(test, self._definition(test.func))
            return self._told(inlined, truth) if inlined is not None else {}
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.left, cst.Name)):
            return {}
        comparison = test.comparisons[0]
        if not isinstance(comparison.operator, (cst.Is, cst.IsNot)) or not is_none(comparison.comparator):
            return {}
        return {test.left.value: isinstance(comparison.operator, cst.Is) is truth}


def _common(a: dict, b: dict) -> dict:
    return {name: held for name, held in a.items() if b.get(name) == held}


def _instance_test(call: cst.Call) -> bool:
    """`isinstance(x, T)` for a named class that `None` is no instance of: true only when `x` is not `None`."""
    if not (type(call.func) is cst.Name and call.func.value == "isinstance" and len(call.args) == 2):
        return False
    types = call.args[1].value
    classes = [element.value for element in types.elements] if isinstance(types, cst.Tuple) else [types]
    names = [
        cls.value if isinstance(cls, cst.Name) else cls.attr.value if isinstance(cls, cst.Attribute) else None
        for cls in classes
    ]
    return type(call.args[0].value) is cst.Name and all(name not in (None, "object", "NoneType") for name in names)


def _followed(function: cst.CSTNode) -> _Followed:
    """The parameters nothing rebinds, and the names bound only by plain assignments (`nbrs = neighbors`, `nbrs
    = replace(nbrs, ...)`), one of them to such a parameter."""
    function = cast(cst.FunctionDef, function)
    params = function.params
    rebound = rebound_names(function.body)
    nonlocals = _nonlocal_names(function.body)
    names = [param.name.value for param in (*params.posonly_params, *params.params, *params.kwonly_params)]
    followed = {name for name in names if name not in rebound | nonlocals}
    aliases = set()
    assigned = every_assigned_value(function.body)
    for name in rebound - nonlocals - set(names):
        values = assigned.get(name, [])
        if all(value is not None for value in values) and any(
            type(value) is cst.Name and value.value in followed for value in values
        ):
            aliases.add(name)
    return _Followed(followed, aliases)


def _nonlocal_names(body: cst.BaseSuite | list[cst.If]) -> set[str]:
    """The names a nested function declares `nonlocal` (it may rebind them)."""
    names: set[str] = set()
    for statement in statements(body):
        if type(statement) is cst.Nonlocal:
            names.update(item.name.value for item in statement.names)
        elif type(statement) in COMPOUND:
            for block in blocks(cast(cst.BaseCompoundStatement, statement)):
                names |= _nonlocal_names(block)
    return names


def _inlined(call: cst.Call, function: cst.CSTNode | None) -> cst.BaseExpression | None:
    """The test `def f(p): return <test of p>` returns, with the call's argument for `p`, when `p` is a name."""
    test = returned(function)
    if test is None or len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
        return None
    params = cast(cst.FunctionDef, function).params.params
    given = call.args[0].value
    if len(params) != 1 or type(given) is not cst.Name:
        return None
    return _renamed(test, params[0].name.value, given.value)


def _renamed(test: cst.BaseExpression, param: str, name: str) -> cst.BaseExpression | None:
    """`test` with the plain name `param` read as `name` (None when `test` is no `is None` test of it)."""
    if type(test) is cst.Comparison and type(test.left) is cst.Name and test.left.value == param:
        return test.with_changes(left=cst.Name(name))
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        inner = _renamed(test.expression, param, name)
        return None if inner is None else test.with_changes(expression=inner)
    return None
