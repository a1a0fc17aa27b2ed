"""How a function's output depends on its inputs: smoothly, only through a gradient-zero operation, or not."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import libcst as cst

from jaxlint.analysis.bindings import parameter_names, statements
from jaxlint.analysis.calls import arguments
from jaxlint.model import derivatives
from jaxlint.model.functions import STATIC_ATTRIBUTES
from jaxlint.model.transforms import STOP_GRADIENT
from jaxlint.traversal import children


@dataclass(frozen=True)
class _Dependence:
    """How a value depends on the differentiated parameters: through differentiable operations (`smooth`),
    or only through operations whose derivative is zero (`cut`: each parameter with the first such operation)."""

    smooth: frozenset[str] = frozenset()
    cut: tuple[tuple[str, cst.CSTNode], ...] = ()

    def __or__(self, other: "_Dependence") -> "_Dependence":
        known = {param for param, _ in self.cut}
        return _Dependence(
            self.smooth | other.smooth, self.cut + tuple(item for item in other.cut if item[0] not in known)
        )

    def through(self, operation: cst.CSTNode) -> "_Dependence":
        """The dependence of a value computed from this one by a zero-derivative operation."""
        return _Dependence(frozenset(), self.cut) | _Dependence(
            frozenset(), tuple((param, operation) for param in sorted(self.smooth))
        )


_NOTHING = _Dependence()
_ZERO_METHODS = frozenset({"argmax", "argmin", "argsort", "round", "nonzero", "searchsorted"})
_ZERO_BUILTINS = frozenset({"int", "bool", "round"})


class _Unknown(Exception):
    """A construct the dependence walk does not model: no claim is made about the function."""


class DependenceWalk:
    """Follows, through one function body, how each local name depends on the differentiated parameters.

    Flow-insensitive on purpose: a name's dependence joins all its bindings (loops and branches included),
    which can only add differentiable paths, never hide one.
    """

    def __init__(self, names, params: frozenset[str], resolve, depth: int = 0) -> None:
        self.names = names
        self.params = params
        self.env: dict[str, _Dependence] = {}
        self.resolve = resolve  # the def of this module a called name binds, or None
        self.depth = depth  # how many helper calls deep this walk is

    def output(self, function: cst.FunctionDef | cst.Lambda, has_aux: bool) -> _Dependence | None:
        """The dependence of what the function returns (its first element with `has_aux`), None when unknown."""
        if isinstance(function, cst.Lambda):
            return self._returned(function.body, has_aux)
        returns: list[cst.BaseExpression] = []
        try:
            for _ in range(4):  # until the bindings settle: a loop may feed a name to itself
                before = dict(self.env)
                returns.clear()
                self._block(function.body, returns)
                if self.env == before:
                    break
            else:
                return None
            if not returns:
                return None
            result = _NOTHING
            for value in returns:
                result = result | self._returned(value, has_aux)
            return result
        except _Unknown:
            return None

    def _returned(self, value: cst.BaseExpression, has_aux: bool) -> _Dependence:
        if has_aux and isinstance(value, cst.Tuple) and value.elements:
            value = value.elements[0].value
        return self.of(value)

    def _bind(self, target: cst.BaseExpression, dependence: _Dependence) -> None:
        if isinstance(target, cst.Name):
            self.env[target.value] = self.env.get(target.value, _NOTHING) | dependence
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value, dependence)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, dependence)
        elif isinstance(target, (cst.Subscript, cst.Attribute)):
            self._bind(target.value, dependence)  # `out[i] = v`, `state.x = v`: the container holds it now
        else:
            raise _Unknown

    def _block(self, body, returns: list) -> None:
        for statement in statements(body):
            self._statement(statement, returns)

    def _statement(self, statement: cst.CSTNode, returns: list) -> None:
        if isinstance(statement, cst.Assign):
            dependence = self.of(statement.value)
            for target in statement.targets:
                self._bind(target.target, dependence)
        elif isinstance(statement, (cst.AugAssign, cst.AnnAssign)):
            if statement.value is not None:
                self._bind(statement.target, self.of(statement.value))
        elif isinstance(statement, cst.Return):
            if statement.value is not None:
                returns.append(statement.value)
        elif isinstance(statement, cst.Expr):
            value = statement.value
            dependence = self.of(value)
            if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
                self._bind(value.func.value, dependence)  # `parts.append(x)` puts `x` in `parts`
        elif isinstance(statement, cst.For):
            self._bind(statement.target, self.of(statement.iter))
            self._block(statement.body, returns)
            if statement.orelse is not None:
                self._block(statement.orelse.body, returns)
        elif isinstance(statement, cst.While):
            self.of(statement.test)
            self._block(statement.body, returns)
        elif isinstance(statement, cst.If):
            self.of(statement.test)
            self._block(statement.body, returns)
            if isinstance(statement.orelse, cst.If):
                self._statement(statement.orelse, returns)
            elif statement.orelse is not None:
                self._block(statement.orelse.body, returns)
        elif isinstance(statement, cst.With):
            for item in statement.items:
                if item.asname is not None:
                    self._bind(item.asname.name, self.of(item.item))
            self._block(statement.body, returns)
        elif isinstance(
            statement, (cst.Pass, cst.Assert, cst.Raise, cst.Del, cst.Import, cst.ImportFrom, cst.Break, cst.Continue)
        ):
            pass
        else:
            raise _Unknown  # nested defs, try, match, global...: not modelled

    def of(self, expr: cst.BaseExpression) -> _Dependence:
        """The dependence of an expression's value."""
        if isinstance(expr, cst.Name):
            if expr.value in self.env:
                return self.env[expr.value]
            return _Dependence(frozenset({expr.value})) if expr.value in self.params else _NOTHING
        if isinstance(
            expr,
            (
                cst.Integer,
                cst.Float,
                cst.Imaginary,
                cst.SimpleString,
                cst.ConcatenatedString,
                cst.FormattedString,
                cst.Ellipsis,
            ),
        ):
            return _NOTHING
        if isinstance(expr, cst.Attribute):
            return _NOTHING if expr.attr.value in STATIC_ATTRIBUTES else self.of(expr.value)
        if isinstance(expr, cst.Subscript):
            index = _NOTHING
            for element in expr.slice:
                index = index | self._any(element.slice)
            return self.of(expr.value) | index.through(expr)  # an integer index has no derivative
        if isinstance(expr, cst.Comparison):
            if any(isinstance(t.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for t in expr.comparisons):
                return _NOTHING
            return self._any(expr).through(expr)
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
            return self.of(expr.expression).through(expr)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.FloorDivide):
            return (self.of(expr.left) | self.of(expr.right)).through(expr)
        if isinstance(expr, cst.IfExp):
            return self.of(expr.test).through(expr.test) | self.of(expr.body) | self.of(expr.orelse)
        if isinstance(expr, cst.Call):
            return self._call(expr)
        if isinstance(expr, cst.Lambda):
            return self._lambda(expr)
        if isinstance(expr, cst.NamedExpr):
            dependence = self.of(expr.value)
            self._bind(expr.target, dependence)
            return dependence
        return self._any(expr)

    def _lambda(self, function: cst.Lambda) -> _Dependence:
        """What a lambda's body reads from around it: its own parameters hide the names outside."""
        own = set(parameter_names(function.params))
        params, env = self.params, self.env
        self.params, self.env = params - own, {name: dep for name, dep in env.items() if name not in own}
        try:
            return self.of(function.body)
        finally:
            self.params, self.env = params, env

    def _any(self, expr: cst.CSTNode) -> _Dependence:
        """Every name read inside, as differentiable: the safe side for what is not modelled."""
        result = _NOTHING
        for child in children(expr):
            if isinstance(child, cst.Name):
                result = result | self.of(child)
            elif isinstance(
                child,
                (
                    cst.BaseExpression,
                    cst.BaseElement,
                    cst.Arg,
                    cst.BaseDictElement,
                    cst.ComparisonTarget,
                    cst.BaseSlice,
                    cst.SubscriptElement,
                    cst.CompFor,
                    cst.CompIf,
                    cst.FormattedStringExpression,
                ),
            ):
                result = result | (self.of(child) if isinstance(child, cst.BaseExpression) else self._any(child))
        return result

    def _call(self, call: cst.Call) -> _Dependence:
        qualified = self.names.qualified(call.func)
        given = arguments(call)
        func = call.func
        receiver = self.of(func.value) if isinstance(func, cst.Attribute) and qualified is None else _NOTHING
        args = _NOTHING
        for arg in call.args:
            args = args | self.of(arg.value)
        if qualified == STOP_GRADIENT:
            return _NOTHING  # cut on purpose
        if (
            qualified in derivatives.ZERO_DERIVATIVE
            or qualified in derivatives.INTEGER_DTYPES
            or (isinstance(func, cst.Name) and func.value in _ZERO_BUILTINS and qualified is None)
        ):
            return args.through(call)
        if qualified in derivatives.SELECTS and len(given.positional) == 3 and not given.keywords:
            condition, *branches = given.positional
            return self.of(condition).through(condition) | self.of(branches[0]) | self.of(branches[1])
        dtype = given.keywords.get("dtype")
        if dtype is not None and self._integer_dtype(dtype):
            return args.through(call)  # `jnp.asarray(x, dtype=jnp.int32)`
        if isinstance(func, cst.Attribute) and qualified is None:
            if func.attr.value in _ZERO_METHODS:
                return (receiver | args).through(call)
            if func.attr.value == "astype" and given.positional and self._integer_dtype(given.positional[0]):
                return receiver.through(call)
        if isinstance(func, cst.Name) and qualified is None and self.depth < 2:
            helper = self._through_helper(call, self.resolve(func))
            if helper is not None:
                return helper
        return receiver | args

    def _through_helper(self, call: cst.Call, callee: cst.CSTNode | None) -> _Dependence | None:
        """A call of an undecorated def of this module: each argument reaches the result the way the
        callee's body says its parameter does. None when that is not known."""
        if (
            not isinstance(callee, cst.FunctionDef)
            or callee.decorators
            or isinstance(callee.params.star_arg, cst.Param)
        ):
            return None
        positional = [param.name.value for param in (*callee.params.posonly_params, *callee.params.params)]
        every = frozenset(parameter_names(callee.params))
        output = DependenceWalk(self.names, every, self.resolve, self.depth + 1).output(callee, False)
        if output is None:
            return None
        cut = dict(reversed(output.cut))  # each parameter's first zero-derivative operation
        result = _NOTHING
        for index, arg in enumerate(call.args):
            param = (
                arg.keyword.value
                if arg.keyword is not None
                else (positional[index] if index < len(positional) and not arg.star else None)
            )
            if param is None or param not in every:
                return None
            if param in output.smooth:
                result = result | self.of(arg.value)
            elif param in cut:
                result = result | self.of(arg.value).through(cut[param])
        return result

    def _integer_dtype(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Name) and expr.value in ("int", "bool") and self.names.qualified(expr) is None:
            return True
        if isinstance(expr, cst.SimpleString):
            # A bytes literal raises here, as it did before typing.
            return cast(str, expr.evaluated_value).startswith(("int", "uint", "bool"))
        return self.names.qualified(expr) in derivatives.INTEGER_DTYPES
