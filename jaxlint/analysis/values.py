"""What each name holds at the point being visited: a JAX array, a tracer, a static value, or unknown.

The tracker rides along the single lint traversal. Its visit hooks run before the checks' and its
leave hooks after, so a check always sees the state just before the statement it is looking at.
Control flow is followed in the structured way Python allows: branches are joined, a loop body
sees the facts of its first iteration and the loop's exit joins every iteration count, names
rebound in a `try` are unknown where more than one binding can reach. Only known facts are stored;
a missing name is unknown, and checks stay silent on unknown.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Iterable, Iterator

import libcst as cst

from jaxlint.analysis import arrays
from jaxlint.analysis.names import Names, scope_imports
from jaxlint.analysis.traced import TracedFunction, traced_function


class Kind(enum.Enum):
    STATIC = "static"
    ARRAY = "array"  # a JAX array, concrete or traced
    TRACED = "traced"  # a tracer: a JAX array inside a traced scope


@dataclass(frozen=True)
class Value:
    kind: Kind
    # For a tracer: the parameter it comes from and the traced function that receives it.
    origin: tuple[str, TracedFunction] | None = None

    @property
    def is_array(self) -> bool:
        return self.kind in (Kind.ARRAY, Kind.TRACED)


ARRAY = Value(Kind.ARRAY)
STATIC = Value(Kind.STATIC)

Env = dict[str, Value]


def join(a: Value | None, b: Value | None) -> Value | None:
    """The fact that holds whichever of two bindings reached here."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    if a.is_array and b.is_array:
        return a if a.kind is Kind.TRACED else b if b.kind is Kind.TRACED else ARRAY
    return None


def _join_envs(a: Env, b: Env) -> Env:
    joined = {}
    for name in a.keys() & b.keys():
        value = join(a[name], b[name])
        if value is not None:
            joined[name] = value
    return joined


def _target_names(target: cst.BaseExpression) -> Iterator[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _target_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _target_names(target.value)


def _statements(body: cst.BaseSuite | Iterable[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    if isinstance(body, (cst.IndentedBlock, cst.SimpleStatementSuite)):
        body = body.body
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
        else:
            yield statement


def rebound_names(body: cst.BaseSuite | Iterable[cst.CSTNode]) -> set[str]:
    """Names a block may rebind, not counting nested function and class bodies."""
    names: set[str] = set()
    for statement in _statements(body):
        if isinstance(statement, cst.Assign):
            for target in statement.targets:
                names.update(_target_names(target.target))
        elif isinstance(statement, (cst.AugAssign, cst.AnnAssign)):
            names.update(_target_names(statement.target))
        elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            names.add(statement.name.value)
        elif isinstance(statement, (cst.Import, cst.ImportFrom)):
            names.update(scope_imports([statement]))
        elif isinstance(statement, cst.Del):
            names.update(_target_names(statement.target))
        elif isinstance(statement, (cst.For, cst.While, cst.If, cst.With, cst.Try, cst.TryStar)):
            if isinstance(statement, cst.For):
                names.update(_target_names(statement.target))
            if isinstance(statement, cst.With):
                for item in statement.items:
                    if item.asname is not None:
                        names.update(_target_names(item.asname.name))
            names |= rebound_names(statement.body)
            for handler in getattr(statement, "handlers", ()):
                if handler.name is not None:
                    names.update(_target_names(handler.name.name))
                names |= rebound_names(handler.body)
            for part in ("orelse", "finalbody"):
                block = getattr(statement, part, None)
                if isinstance(block, cst.If):
                    names |= rebound_names([block])
                elif block is not None:
                    names |= rebound_names(block.body)
    return names


def _terminates(body: cst.BaseSuite) -> bool:
    """True when a block always leaves by `return`, `raise`, `break` or `continue`."""
    last = list(_statements(body))[-1:]
    return bool(last) and isinstance(last[0], (cst.Return, cst.Raise, cst.Break, cst.Continue))


@dataclass
class _Scope:
    env: Env
    function: TracedFunction | None
    untracked: set[str]


class ValueTracker:
    """Follows name bindings through the traversal; `value_of` answers for any expression."""

    def __init__(self, module: cst.Module) -> None:
        self.names = Names(module)
        self._scopes = [_Scope({}, None, set())]
        self._branch_states: list[list[Env | None]] = []
        self._loop_states: list[tuple[Env, set[str]]] = []
        self._try_rebound: list[set[str]] = []
        self._pending_function: list[TracedFunction | None] = []

    # ------------------------------------------------------------------ queries

    @property
    def env(self) -> Env:
        return self._scopes[-1].env

    @property
    def function(self) -> TracedFunction | None:
        """The traced function whose body is being visited, if any."""
        return self._scopes[-1].function

    def value_of(self, expr: cst.BaseExpression) -> Value | None:
        """The known fact about `expr`, or None when unknown."""
        if isinstance(expr, cst.Name):
            if expr.value in self._scopes[-1].untracked:
                return None
            return self.env.get(expr.value)
        if isinstance(expr, cst.Call):
            return self._call_value(expr)
        if isinstance(expr, cst.Subscript):
            base = self.value_of(expr.value)
            return base if base is not None and base.is_array else None
        if isinstance(expr, cst.Attribute):
            base = self.value_of(expr.value)
            if base is not None and base.is_array and expr.attr.value in arrays.ARRAY_PROPERTIES:
                return base
            return None
        if isinstance(expr, cst.BinaryOperation):
            if isinstance(expr.left, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
                return None
            return _arithmetic(self.value_of(expr.left), self.value_of(expr.right))
        if isinstance(expr, cst.UnaryOperation):
            if isinstance(expr.operator, cst.Not):
                return None
            operand = self.value_of(expr.expression)
            return operand if operand is not None and operand.is_array else None
        if isinstance(expr, cst.IfExp):
            return join(self.value_of(expr.body), self.value_of(expr.orelse))
        if isinstance(expr, cst.NamedExpr):
            return self.value_of(expr.value)
        if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)):
            return STATIC
        return None

    def _call_value(self, call: cst.Call) -> Value | None:
        arguments = [self.value_of(arg.value) for arg in call.args]
        traced = next((v for v in arguments if v is not None and v.kind is Kind.TRACED), None)
        if arrays.produces_array(call, self.names):
            return traced or ARRAY
        receiver = arrays.functional_update_receiver(call)
        if receiver is not None:
            value = self.value_of(receiver)
            return value if value is not None and value.is_array else ARRAY
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in arrays.ARRAY_METHODS:
            value = self.value_of(func.value)
            if value is not None and value.is_array:
                return value
        return None

    # ------------------------------------------------------------------ bindings

    def _bind(self, target: cst.BaseExpression, value: Value | None) -> None:
        if isinstance(target, cst.Name):
            name = target.value
            if name in self._scopes[-1].untracked or value is None:
                self.env.pop(name, None)
            else:
                self.env[name] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            for name in _target_names(target):
                self.env.pop(name, None)

    def _forget(self, names: Iterable[str]) -> None:
        for name in names:
            self.env.pop(name, None)

    def leave_Assign(self, node: cst.Assign) -> None:
        value = self.value_of(node.value)
        for target in node.targets:
            if isinstance(target.target, (cst.Tuple, cst.List)) and isinstance(node.value, (cst.Tuple, cst.List)):
                pairs = zip(target.target.elements, node.value.elements)
                if len(target.target.elements) == len(node.value.elements):
                    for element, item in pairs:
                        self._bind(element.value, self.value_of(item.value))
                    continue
            self._bind(target.target, value)

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        if arrays.is_array_annotation(node.annotation.annotation, self.names):
            self._bind(node.target, ARRAY)
        elif node.value is not None:
            self._bind(node.target, self.value_of(node.value))

    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target, _arithmetic(self.value_of(node.target), self.value_of(node.value)))

    def leave_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target, self.value_of(node.value))

    def leave_Del(self, node: cst.Del) -> None:
        self._forget(_target_names(node.target))

    def leave_Import(self, node: cst.Import) -> None:
        self._forget(scope_imports([node]))

    def leave_ImportFrom(self, node: cst.ImportFrom) -> None:
        self._forget(scope_imports([node]))

    def visit_Global(self, node: cst.Global) -> None:
        names = [item.name.value for item in node.names]
        self._scopes[-1].untracked.update(names)
        self._forget(names)

    visit_Nonlocal = visit_Global

    # ------------------------------------------------------------------ scopes

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._pending_function.append(traced_function(node, self.names))

    def visit_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        function = self._pending_function.pop()
        params = node.params
        env = dict(self.env)
        self._forget_in(env, _parameter_names(params))
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            name = param.name.value
            annotation = param.annotation
            if function is not None and name in function.traced:
                env[name] = Value(Kind.TRACED, (name, function))
            elif function is not None and name in function.static:
                env[name] = STATIC
            elif annotation is not None and arrays.is_array_annotation(annotation.annotation, self.names):
                env[name] = ARRAY
        self.names.enter_function(node.body.body, _parameter_names(params))
        self._scopes.append(_Scope(env, function, set()))

    def leave_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        self._scopes.pop()
        self.names.leave_function()

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._forget([node.name.value])

    def visit_Lambda_body(self, node: cst.Lambda) -> None:
        env = dict(self.env)
        self._forget_in(env, _parameter_names(node.params))
        self._scopes.append(_Scope(env, None, set()))

    def leave_Lambda_body(self, node: cst.Lambda) -> None:
        self._scopes.pop()

    def visit_ClassDef_body(self, node: cst.ClassDef) -> None:
        self._scopes.append(_Scope(dict(self.env), None, set()))

    def leave_ClassDef_body(self, node: cst.ClassDef) -> None:
        self._scopes.pop()

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._forget([node.name.value])

    def _enter_comprehension(self, node: cst.BaseComp) -> None:
        env = dict(self.env)
        clause = node.for_in
        while clause is not None:
            self._forget_in(env, _target_names(clause.target))
            clause = clause.inner_for_in
        self._scopes.append(_Scope(env, self._scopes[-1].function, set(self._scopes[-1].untracked)))

    def _leave_comprehension(self, node: cst.BaseComp) -> None:
        self._scopes.pop()

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _enter_comprehension
    leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = _leave_comprehension

    @staticmethod
    def _forget_in(env: Env, names: Iterable[str]) -> None:
        for name in names:
            env.pop(name, None)

    # ------------------------------------------------------------------ control flow

    def visit_If_body(self, node: cst.If) -> None:
        self._branch_states.append([dict(self.env)])

    def leave_If_body(self, node: cst.If) -> None:
        states = self._branch_states[-1]
        before = states[0]
        states.append(None if _terminates(node.body) else dict(self.env))
        self.env.clear()
        self.env.update(before)

    def leave_If(self, node: cst.If) -> None:
        _, after_body = self._branch_states.pop()
        orelse = node.orelse
        if isinstance(orelse, cst.Else) and _terminates(orelse.body):
            after_else = None
        else:
            after_else = dict(self.env)
        if after_body is None and after_else is None:
            return
        if after_body is None or after_else is None:
            result = after_body if after_else is None else after_else
        else:
            result = _join_envs(after_body, after_else)
        self.env.clear()
        self.env.update(result)

    def _enter_loop_body(self, rebound: set[str]) -> None:
        # The body starts with the facts of the first iteration: a finding that holds there
        # is real even if later iterations differ. At the exit, every iteration count joins.
        self._loop_states.append((dict(self.env), rebound))

    def _leave_loop_body(self) -> None:
        before, rebound = self._loop_states.pop()
        for name in rebound:
            value = join(before.get(name), self.env.get(name))
            if value is None:
                self.env.pop(name, None)
            else:
                self.env[name] = value

    def visit_For_body(self, node: cst.For) -> None:
        targets = set(_target_names(node.target))
        self._enter_loop_body(rebound_names(node.body) | targets)
        self._forget(targets)

    def leave_For_body(self, node: cst.For) -> None:
        self._leave_loop_body()

    def visit_While(self, node: cst.While) -> None:
        self._enter_loop_body(rebound_names(node.body))

    def leave_While_body(self, node: cst.While) -> None:
        self._leave_loop_body()

    def visit_Try(self, node: cst.Try | cst.TryStar) -> None:
        rebound = rebound_names(node.body)
        for part in (*node.handlers, node.orelse):
            if part is not None:
                rebound |= rebound_names(part.body)
                if getattr(part, "name", None) is not None:
                    rebound.update(_target_names(part.name.name))
        self._try_rebound.append(rebound)
        self._forget(rebound)

    def visit_Try_finalbody(self, node: cst.Try | cst.TryStar) -> None:
        self._forget(self._try_rebound.pop())

    visit_TryStar = visit_Try
    visit_TryStar_finalbody = visit_Try_finalbody

    def visit_ExceptHandler_body(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._forget(_target_names(node.name.name))

    def visit_ExceptStarHandler_body(self, node: cst.ExceptStarHandler) -> None:
        if node.name is not None:
            self._forget(_target_names(node.name.name))

    def visit_With_body(self, node: cst.With) -> None:
        for item in node.items:
            if item.asname is not None:
                self._forget(_target_names(item.asname.name))

    def visit_Match(self, node: cst.Match) -> None:
        self.env.clear()

    def leave_Match(self, node: cst.Match) -> None:
        self.env.clear()


def _parameter_names(params: cst.Parameters) -> list[str]:
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    stars = [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return [p.name.value for p in every + stars]


def _arithmetic(a: Value | None, b: Value | None) -> Value | None:
    """The result of an arithmetic operation: an array when either operand is one."""
    for operand in (a, b):
        if operand is not None and operand.kind is Kind.TRACED:
            return operand
    if (a is not None and a.is_array) or (b is not None and b.is_array):
        return ARRAY
    return None
