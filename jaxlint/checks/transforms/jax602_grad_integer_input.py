"""JAX602 grad-integer-input: An integer or boolean value passed where `jax.grad` (or `value_and_grad`, `jacrev`...)
differentiates."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.bindings import parameter_names, rebound_names, target_names
from jaxlint.analysis.calls import arguments
from jaxlint.analysis.values import Kind
from jaxlint.checks.base import FixPlan, Rule, code
from jaxlint.model.transforms import INTEGER_INPUT_ERRORS, JAX_JIT


# Context managers under which code is expected to raise: tests of the error itself.
_EXPECTS_ERROR = frozenset({"assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "raises"})


def _int_literal(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        expr = expr.expression
    return isinstance(expr, cst.Integer) or (isinstance(expr, cst.Name) and expr.value in ("True", "False"))


class GradIntegerInput(Rule):
    code = "JAX602"
    name = "grad-integer-input"
    summary = "An integer or boolean value passed where `jax.grad` (or `value_and_grad`, `jacrev`...) differentiates"
    what_it_does = (
        "Flags an integer literal (`3`, `-1`), `True`/`False`, or a name or expression holding a Python int "
        "(`n = 3`, a module constant, `len(xs)`, `n - 1`), or an array whose dtype the code shows is integer or "
        "boolean (`jnp.arange(3)`, `x.argmax()`, `(x > 0).sum()`, `m > 0`, a traced argument, a leaf of one or a lax "
        "carry that the calls give an integer array or a Python int) passed in a differentiated position "
        "(`argnums`, 0 by default) of a function made by `jax.grad`, `jax.value_and_grad`, `jax.jacrev`, "
        "`jax.jacfwd` or `jax.hessian`: called right away (`jax.grad(f)(3)`), through a name bound to it "
        "(`df = jax.grad(f)` then `df(2)`), or through a plain `jax.jit` around it."
    )
    why_bad = (
        "Gradients are defined for floating-point (or complex) inputs only. A Python `3` becomes an `int32` "
        "array, and the call raises `TypeError: grad requires real- or complex-valued inputs (input dtype that "
        "is a sub-dtype of np.inexact), but got int32` (jax 0.10.2; `bool` for `True`; the same error from "
        "`value_and_grad` and `jacrev`, while `jacfwd` and `hessian` say `jacfwd requires real-valued inputs`). The "
        "[`jax.grad`](https://docs.jax.dev/en/latest/_autosummary/jax.grad.html) documentation says the "
        "arguments at `argnums` must be of inexact type. Write `3.0`."
    )
    example = "def f(x):\n    return x**3 + 2 * x\n\n\nslope = jax.grad(f)(3)\n"
    use_instead = "def f(x):\n    return x**3 + 2 * x\n\n\nslope = jax.grad(f)(3.0)\n"
    not_flagged = (
        "Integers in positions that are not differentiated (`jax.grad(f)(x, 3)` with the default "
        "`argnums=0`, and keyword arguments, which are never differentiated); `allow_int=True`; "
        "`argnums` that are not literals; variables whose value is not known to be a Python int, and arrays "
        "whose dtype the code does not show; "
        "calls inside `with pytest.raises(...)` or `self.assertRaises(...)` blocks, which test this error."
    )
    fixable = True
    fix_safety = (
        "Safe for a decimal integer literal: `3` becomes `3.0`, `-2` becomes `-2.0` (the call raised before, "
        "and now differentiates "
        "at that point). `True`/`False` and hexadecimal, octal or binary literals are not fixed."
    )
    verify = "Not confirmed by `--verify` yet: the call raises the `TypeError` quoted above."

    def __init__(self, facts, reporter) -> None:
        super().__init__(facts, reporter)
        self._named: dict[tuple[int, str], cst.Call] = {}  # `df = jax.grad(f)`, by scope and name
        self._raising: list[cst.With] = []  # `with pytest.raises(...)` blocks around this point
        self._locals: dict[int, tuple[cst.CSTNode, set[str]]] = {}  # each function's parameters and locals

    def _gradient(self, expr: cst.BaseExpression) -> cst.Call | None:
        """The `jax.grad(...)`-like call an expression gives the function of: itself, a name bound to it,
        or `jax.jit` of it."""
        if type(expr) is cst.Name:
            for scope in reversed(self.facts.chain):
                found = self._named.get((id(scope), expr.value))
                if found is not None:
                    return found
                if (type(scope) is cst.FunctionDef or type(scope) is cst.Lambda) and expr.value in self._bound(scope):
                    return None  # a parameter or local of that name hides the one further out
            return None
        if type(expr) is not cst.Call:
            return None
        qualified = self.names.qualified(expr.func)
        if qualified in INTEGER_INPUT_ERRORS:
            return expr
        if qualified == JAX_JIT and len(expr.args) == 1 and expr.args[0].keyword is None:
            return self._gradient(expr.args[0].value)
        return None

    def _bound(self, function: cst.FunctionDef | cst.Lambda) -> set[str]:
        """The function's parameters and locals, found once per function (every name asks)."""
        known = self._locals.get(id(function))
        if known is None:
            names = set(parameter_names(function.params))
            if isinstance(function, cst.FunctionDef):
                names.update(rebound_names(function.body))
            known = self._locals[id(function)] = (function, names)
        return known[1]

    def _differentiated(self, gradient: cst.Call) -> tuple[str, tuple[int, ...]] | None:
        """The transform and its literal argnums, unless `allow_int`/`holomorphic` or a spec only run time knows."""
        given = arguments(gradient)
        if not given.complete or not given.positional or len(given.positional) > 2:
            return None
        if any(word in given.keywords for word in ("allow_int", "holomorphic")):
            return None
        spec = given.keywords.get("argnums", given.positional[1] if len(given.positional) == 2 else None)
        transform = self.names.qualified(gradient.func)
        if transform is None:
            return None  # not reached: the caller found a transform by this name
        if spec is None:
            return transform, (0,)
        if isinstance(spec, cst.Integer):
            return transform, (int(spec.value, 0),)
        if isinstance(spec, (cst.Tuple, cst.List)):
            integers = [e.value for e in spec.elements if isinstance(e.value, cst.Integer)]
            if len(integers) == len(spec.elements):
                return transform, tuple(int(integer.value, 0) for integer in integers)
        return None

    def visit_Assign(self, node: cst.Assign) -> None:
        scope = id(self.facts.chain[-1])
        for target in node.targets:
            for name in target_names(target.target):
                self._named.pop((scope, name), None)
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            gradient = self._gradient(node.value)
            if gradient is not None:
                self._named[(scope, node.targets[0].target.value)] = gradient

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            func = item.item.func if isinstance(item.item, cst.Call) else None
            name = func.attr if isinstance(func, cst.Attribute) else func
            if isinstance(name, cst.Name) and name.value in _EXPECTS_ERROR:
                self._raising.append(node)
                return

    def leave_With(self, node: cst.With) -> None:
        if self._raising and self._raising[-1] is node:
            self._raising.pop()

    def visit_Call(self, node: cst.Call) -> None:
        if self._raising:
            return
        gradient = self._gradient(node.func)
        if gradient is None:
            return
        differentiated = self._differentiated(gradient)
        if differentiated is None:
            return
        transform, argnums = differentiated
        given = arguments(node)
        for position in argnums:
            if position < 0 or position >= len(given.positional):
                continue
            arg = given.positional[position]
            value = self.facts.value_of(arg)
            number = "bool" if isinstance(arg, cst.Name) and _int_literal(arg) else value.dtype_kind
            if number not in ("int", "bool"):
                continue
            digits = arg.expression if isinstance(arg, cst.UnaryOperation) else arg
            fix = None
            if isinstance(digits, cst.Integer) and digits.value.replace("_", "").isdigit():
                fix = FixPlan(f"use `{code(arg)}.0`", ((digits, f"{digits.value}.0"),))
            what = "a boolean" if number == "bool" else "an integer" if _int_literal(arg) else "a Python int"
            if value.is_array:
                what = "an array of booleans" if number == "bool" else "an integer array"
            self.report(
                arg,
                lambda line_of, arg=arg, fix=fix, position=position, what=what, value=value: (  # type: ignore[misc]  # mypy cannot infer a lambda whose extra parameters have defaults
                    f"`{code(arg)}` is {what}"
                    + (f" ({value.describe(code(arg), line_of)})" if value.kind is Kind.TRACED else "")
                    + ", passed where "
                    f"`{transform}` differentiates (argument {position}): "
                    f'the call raises TypeError ("{INTEGER_INPUT_ERRORS[transform]}"); pass a float'
                    + (f" (`{code(arg)}.0`)" if fix is not None else "")
                ),
                fix,
                because=value,
            )
