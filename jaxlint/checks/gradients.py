"""JAX6xx: gradient transforms given functions or inputs they cannot differentiate."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.bindings import parameter_names, rebound_names, target_names
from jaxlint.analysis.calls import argument, arguments
from jaxlint.analysis.traced import Transform
from jaxlint.analysis.values import Kind, Value
from jaxlint.model.transforms import INTEGER_INPUT_ERRORS, REVERSE_MODE, SCALAR_OUTPUT
from jaxlint.checks.base import FixPlan, Rule, code

# Transforms that need a scalar output: the function's value is what they differentiate.
_KINDS = {cst.Tuple: "a tuple", cst.List: "a list", cst.ListComp: "a list", cst.Dict: "a dict",
          cst.DictComp: "a dict"}


def _has_aux(transform: Transform) -> bool | None:
    """The `has_aux=` a gradient transform was given: True, False, or None when only run time knows."""
    given = transform.keywords.get("has_aux")
    if given is None:
        return False
    if isinstance(given, cst.Name) and given.value in ("True", "False"):
        return given.value == "True"
    return None


class GradNonScalar(Rule):
    code = "JAX601"
    name = "grad-non-scalar"
    summary = "`jax.grad`/`value_and_grad` of a function that returns a tuple, list or dict, without `has_aux=True`"
    what_it_does = (
        "Flags `jax.grad(f)` and `jax.value_and_grad(f)` (as a decorator, a wrapping call, through a name or "
        "`functools.partial`) when `f` returns a tuple, list or dict on every path: a literal such as "
        "`return loss, aux`, a local name only ever bound to one, or a call of a function of the same module "
        "that does. `has_aux=` is missing or `False`."
    )
    why_bad = (
        "`grad` differentiates the function's output, which must be a scalar. A function that returns "
        "`(loss, metrics)` makes the gradient call raise `TypeError: Gradient only defined for scalar-output "
        "functions. Output was (...)` (jax 0.10.2, for tuples, lists and dicts alike, one-element tuples "
        "included). To return extra values next to the loss, return a pair `(loss, aux)` and pass "
        "`has_aux=True`: jax differentiates the first element and hands the second back unchanged. The "
        "[`jax.grad`](https://docs.jax.dev/en/latest/_autosummary/jax.grad.html) and "
        "[`jax.value_and_grad`](https://docs.jax.dev/en/latest/_autosummary/jax.value_and_grad.html) "
        "documentation says `fun` \"should return a scalar\" and "
        "describes `has_aux`."
    )
    example = (
        "def loss_fn(params, x, y):\n"
        "    pred = x @ params\n"
        "    loss = jnp.mean((pred - y) ** 2)\n"
        "    return loss, pred\n\n\n"
        "grads = jax.grad(loss_fn)(params, x, y)\n"
    )
    use_instead = (
        "def loss_fn(params, x, y):\n"
        "    pred = x @ params\n"
        "    loss = jnp.mean((pred - y) ** 2)\n"
        "    return loss, pred\n\n\n"
        "grads, pred = jax.grad(loss_fn, has_aux=True)(params, x, y)\n"
    )
    not_flagged = (
        "`has_aux=True`, or a `has_aux=` that is not a literal; functions that return a container on some "
        "paths only (`return loss, aux` under `if return_aux:`, with `partial(loss_fn, return_aux=False)` "
        "given to `grad`); functions whose output is a non-scalar array (their shapes are not known "
        "statically); functions with a decorator other than a jax transform (it may change what they "
        "return); `jax.jacfwd`/`jacrev`/`hessian`, which accept any output; functions of other modules."
    )
    verify = "Not confirmed by `--verify` yet: calling the gradient raises the `TypeError` quoted above."

    def _check(self, function: cst.CSTNode, name: str, decorators: list[Transform]) -> None:
        applied = [*decorators, *self.facts.applied(function)]
        transforms = [t for t in applied if t.name in SCALAR_OUTPUT and _has_aux(t) is False]
        if not transforms:
            return
        returned = self.facts.returned_container(function)
        if returned is None:
            return
        shown = code(returned)
        what = _KINDS[type(returned)] + (f" (`{shown}`)" if shown != "..." else "")
        pair = isinstance(returned, cst.Tuple) and len(returned.elements) == 2
        remedy = ("pass `has_aux=True` to differentiate the first element and get the second back"
                  if pair else "return `(loss, aux)` and pass `has_aux=True`")
        for transform in transforms:
            self.report(transform.node, lambda line_of, transform=transform: (
                f"`{transform.name}` needs {name} to return a scalar, but it returns {what} at line "
                f"{line_of(returned)}: calling the gradient raises TypeError (\"Gradient only defined for "
                f"scalar-output functions\"); {remedy}"
            ))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        decorators = []
        for decorator in node.decorators:
            transform = self.facts.decorator_transform(decorator)
            if transform is not None:
                decorators.append(transform)
            elif not (isinstance(decorator.decorator, cst.Name)
                      and decorator.decorator.value in ("staticmethod", "classmethod")):
                return  # another decorator may change what calling the function gives
        self._check(node, f"`{node.name.value}`", decorators)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._check(node, "the lambda", [])




class ReverseModeWhileLoop(Rule):
    code = "JAX604"
    name = "reverse-mode-while-loop"
    summary = "`lax.while_loop` (or `fori_loop` with traced bounds) on a value differentiated by `grad`/`jacrev`"
    what_it_does = (
        "Flags `lax.while_loop(cond, body, init)` whose carried `init` is a value that `jax.grad`, "
        "`value_and_grad`, `jacrev` or `hessian` differentiates: in the differentiated function itself or in "
        "a helper of the same module (or another module of the project) it passes that value to, at any "
        "depth. Also `lax.fori_loop(lower, upper, body, init)` when a bound is traced under `jit` (a "
        "`fori_loop` with a traced trip count is a `while_loop`)."
    )
    why_bad = (
        "Reverse-mode differentiation has to store every iteration for the backward pass, and a "
        "`while_loop` has no bound on its number of iterations, so jax refuses it: calling the gradient "
        "raises `ValueError: Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop "
        "with dynamic start/stop values` (jax 0.10.2: for `grad`, `value_and_grad`, `jacrev`, `hessian` and "
        "`vjp`; `jacfwd` and `jvp` work). The "
        "[`jax.lax.while_loop`](https://docs.jax.dev/en/latest/_autosummary/jax.lax.while_loop.html) "
        "documentation says it is not reverse-mode differentiable; the "
        "[`jax.lax.fori_loop`](https://docs.jax.dev/en/latest/_autosummary/jax.lax.fori_loop.html) "
        "documentation says a `fori_loop` is a `scan` "
        "(differentiable) only when its trip count is static."
    )
    example = (
        "def newton_sqrt(a):\n"
        "    def body(state):\n"
        "        x, i = state\n"
        "        return 0.5 * (x + a / x), i + 1\n\n"
        "    x, _ = lax.while_loop(lambda s: s[1] < 20, body, (a, 0))\n"
        "    return x\n\n\n"
        "def loss(a):\n"
        "    return newton_sqrt(a) ** 2\n\n\n"
        "da = jax.grad(loss)(2.0)\n"
    )
    use_instead = (
        "def newton_sqrt(a):\n"
        "    def body(x, _):\n"
        "        return 0.5 * (x + a / x), None\n\n"
        "    x, _ = lax.scan(body, a, None, length=20)\n"
        "    return x\n\n\n"
        "def loss(a):\n"
        "    return newton_sqrt(a) ** 2\n\n\n"
        "da = jax.grad(loss)(2.0)\n"
    )
    not_flagged = (
        "Loops whose carried value is not differentiated (a constant, a non-differentiated argument such as "
        "a static iteration count, `lax.stop_gradient(x)`): jax differentiates nothing through them, which "
        "works. `fori_loop` with "
        "static bounds (a `scan`); forward mode (`jacfwd`, `jvp`); loops inside `custom_vjp`/`custom_jvp` "
        "functions, whose own rule is used. Not found yet: a loop that only reads a differentiated value from "
        "its closure (`body` uses `x`, `init` is a constant), `jax.vjp(f, x)` (not followed as a transform), "
        "and loops reached only through `jax.jit(jax.grad(f))` in a helper of `f`."
    )
    verify = ("Not confirmed by `--verify` yet: calling the gradient raises the `ValueError` quoted above.")

    def _reverse(self, value: Value | None) -> str | None:
        """The reverse-mode transform that differentiates a value, if one does."""
        if value is None or value.kind is not Kind.TRACED or value.tracer is None:
            return None
        if value.tracer.transform.name in REVERSE_MODE:
            return value.tracer.transform.name
        scope = self.facts.traced_scope
        if scope is not None:
            return next((t.name for t in scope.transforms if t.name in REVERSE_MODE), None)
        return None

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.names.qualified(node.func)
        if qualified == "jax.lax.while_loop":
            init = argument(node, 2, "init_val")
            loop = "`lax.while_loop`"
        elif qualified == "jax.lax.fori_loop":
            bounds = [argument(node, 0, "lower"), argument(node, 1, "upper")]
            if not any(bound is not None and (value := self.facts.value_of(bound)) is not None and value.staged
                       for bound in bounds):
                return
            init = argument(node, 3, "init_val")
            loop = "`lax.fori_loop` with a traced trip count (a `while_loop`)"
        else:
            return
        if init is None or (isinstance(init, cst.Call) and self.names.qualified(init.func) == "jax.lax.stop_gradient"):
            return  # nothing to differentiate through the loop
        value = self.facts.value_of(init)
        transform = self._reverse(value)
        if transform is None:
            return
        self.report(node, lambda line_of: (
            f"{loop} carries `{code(init)}`, which `{transform}` differentiates in reverse mode "
            f"({value.describe(code(init), line_of)}): calling the gradient raises ValueError (\"Reverse-mode "
            f"differentiation does not work for lax.while_loop\"); use `lax.scan` with a fixed number of steps, "
            f"`fori_loop` with static bounds, or forward mode (`jax.jacfwd`, `jax.jvp`)"
        ))


# Context managers under which code is expected to raise: tests of the error itself.
_EXPECTS_ERROR = frozenset({"assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "raises"})


def _int_literal(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        expr = expr.expression
    return isinstance(expr, cst.Integer) or (isinstance(expr, cst.Name) and expr.value in ("True", "False"))


class GradIntegerInput(Rule):
    code = "JAX602"
    name = "grad-integer-input"
    summary = "An integer or boolean literal passed where `jax.grad` (or `value_and_grad`, `jacrev`...) differentiates"
    what_it_does = (
        "Flags an integer literal (`3`, `-1`) or `True`/`False` passed in a differentiated position "
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
    example = (
        "def f(x):\n"
        "    return x**3 + 2 * x\n\n\n"
        "slope = jax.grad(f)(3)\n"
    )
    use_instead = (
        "def f(x):\n"
        "    return x**3 + 2 * x\n\n\n"
        "slope = jax.grad(f)(3.0)\n"
    )
    not_flagged = (
        "Integers in positions that are not differentiated (`jax.grad(f)(x, 3)` with the default "
        "`argnums=0`, and keyword arguments, which are never differentiated); `allow_int=True`; "
        "`argnums` that are not literals; integer variables and arrays (their dtype is not known statically); "
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

    def _gradient(self, expr: cst.BaseExpression) -> cst.Call | None:
        """The `jax.grad(...)`-like call an expression gives the function of: itself, a name bound to it,
        or `jax.jit` of it."""
        if isinstance(expr, cst.Name):
            for scope in reversed(self.facts.chain):
                found = self._named.get((id(scope), expr.value))
                if found is not None:
                    return found
                if isinstance(scope, (cst.FunctionDef, cst.Lambda)) and self._binds(scope, expr.value):
                    return None  # a parameter or local of that name hides the one further out
            return None
        if not isinstance(expr, cst.Call):
            return None
        qualified = self.names.qualified(expr.func)
        if qualified in INTEGER_INPUT_ERRORS:
            return expr
        if qualified == "jax.jit" and len(expr.args) == 1 and expr.args[0].keyword is None:
            return self._gradient(expr.args[0].value)
        return None

    @staticmethod
    def _binds(function: cst.FunctionDef | cst.Lambda, name: str) -> bool:
        return name in parameter_names(function.params) or (
            isinstance(function, cst.FunctionDef) and name in rebound_names(function.body))

    def _differentiated(self, gradient: cst.Call) -> tuple[str, tuple[int, ...]] | None:
        """The transform and its literal argnums, unless `allow_int`/`holomorphic` or a spec only run time knows."""
        given = arguments(gradient)
        if not given.complete or not given.positional or len(given.positional) > 2:
            return None
        if any(word in given.keywords for word in ("allow_int", "holomorphic")):
            return None
        spec = given.keywords.get("argnums", given.positional[1] if len(given.positional) == 2 else None)
        if spec is None:
            return self.names.qualified(gradient.func), (0,)
        if isinstance(spec, cst.Integer):
            return self.names.qualified(gradient.func), (int(spec.value, 0),)
        if isinstance(spec, (cst.Tuple, cst.List)) and all(isinstance(e.value, cst.Integer) for e in spec.elements):
            return self.names.qualified(gradient.func), tuple(int(e.value.value, 0) for e in spec.elements)
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
            if not _int_literal(arg):
                continue
            digits = arg.expression if isinstance(arg, cst.UnaryOperation) else arg
            fix = None
            if isinstance(digits, cst.Integer) and digits.value.replace("_", "").isdigit():
                fix = FixPlan(f"use `{code(arg)}.0`", ((digits, f"{digits.value}.0"),))
            self.report(arg, lambda line_of, arg=arg, fix=fix, position=position: (
                f"`{code(arg)}` is {'a boolean' if isinstance(arg, cst.Name) else 'an integer'}, passed where "
                f"`{transform}` differentiates (argument {position}): "
                f"the call raises TypeError (\"{INTEGER_INPUT_ERRORS[transform]}\"); pass a float"
                + (f" (`{code(arg)}.0`)" if fix is not None else "")
            ), fix)
