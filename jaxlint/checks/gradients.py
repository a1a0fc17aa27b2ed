"""JAX6xx: gradient transforms given functions or inputs they cannot differentiate."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from jaxlint.model import derivatives
from jaxlint.model.functions import STATIC_ATTRIBUTES
from jaxlint.analysis.bindings import parameter_names, rebound_names, statements, target_names
from jaxlint.analysis.calls import argument, arguments
from jaxlint.analysis.names import dotted
from jaxlint.analysis.scopes import assigned_values
from jaxlint.analysis.traced import TracedFunction, Transform
from jaxlint.analysis.values import UNKNOWN, Kind, Value
from jaxlint.model.transforms import GRADIENTS, INTEGER_INPUT_ERRORS, REVERSE_MODE, SCALAR_OUTPUT
from jaxlint.checks.base import FixPlan, Rule, code
from jaxlint.traversal import children

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
        "that does; `f` may be defined in another module of the project (`jax.grad(losses.loss_fn)`). "
        "`has_aux=` is missing or `False`."
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
        "return); `jax.jacfwd`/`jacrev`/`hessian`, which accept any output; functions of other modules that "
        "return a container through a call of a third module, and modules outside the project (installed "
        "packages)."
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
        decorators = self.facts.decorating_transforms(node)
        if decorators is not None:  # else another decorator may change what calling the function gives
            self._check(node, f"`{node.name.value}`", decorators)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._check(node, "the lambda", [])

    def visit_Call(self, node: cst.Call) -> None:
        """`jax.grad(loss_fn)` of a function another module of the project defines."""
        for target, transform in self.facts.transformed_by(node):
            if transform.name not in SCALAR_OUTPUT or _has_aux(transform) is not False:
                continue
            literal = self.facts.imported_literal(target)
            if literal is None:
                continue
            pair = literal.startswith("a tuple (`") and literal.count(",") == 1
            remedy = ("pass `has_aux=True` to differentiate the first element and get the second back"
                      if pair else "return `(loss, aux)` and pass `has_aux=True`")
            self.report(node, (
                f"`{transform.name}` needs `{code(target)}` to return a scalar, but it returns {literal}: calling "
                f"the gradient raises TypeError (\"Gradient only defined for scalar-output functions\"); {remedy}"
            ))


# What raises, for the reverse-mode transforms that do not give a gradient function.
_CALLING = {"jax.vjp": "calling the pullback (the function `jax.vjp` gives)",
            "jax.linear_transpose": "calling the transposed function"}


def reverse_mode(value: Value, scope: TracedFunction | None) -> str | None:
    """The reverse-mode transform that differentiates a value, if one does: its tracer's own, one applied
    with it (`jax.jit(jax.grad(f))`), or one applied to the traced function around."""
    if value.kind is not Kind.TRACED or value.tracer is None:
        return None
    names = (value.tracer.transform.name, *value.tracer.differentiated_by)
    if scope is not None:
        names += tuple(t.name for t in scope.transforms)
    return next((name for name in names if name in REVERSE_MODE), None)


class ReverseModeWhileLoop(Rule):
    code = "JAX604"
    name = "reverse-mode-while-loop"
    summary = "`lax.while_loop` (or `fori_loop` with traced bounds) on a value differentiated by `grad`/`jacrev`"
    what_it_does = (
        "Flags `lax.while_loop(cond, body, init)` whose carried `init` is a value that `jax.grad`, "
        "`value_and_grad`, `jacrev`, `hessian`, `jax.vjp` or `jax.linear_transpose` differentiates (under "
        "`jax.jit` too: `jax.jit(jax.grad(f))`), or whose body (a lambda or a def) reads such a value from its "
        "closure: in the differentiated function itself or in "
        "a helper of the same module (or another module of the project) it passes that value to, at any "
        "depth. Also `lax.fori_loop(lower, upper, body, init)` when a bound is traced under `jit` (a "
        "`fori_loop` with a traced trip count is a `while_loop`)."
    )
    why_bad = (
        "Reverse-mode differentiation has to store every iteration for the backward pass, and a "
        "`while_loop` has no bound on its number of iterations, so jax refuses it: calling the gradient "
        "raises `ValueError: Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop "
        "with dynamic start/stop values` (jax 0.10.2: for `grad`, `value_and_grad`, `jacrev`, `hessian` and "
        "`vjp`, when the pullback is called, and `linear_transpose`, when the transposed function is called; "
        "`jacfwd`, `jvp` and `linearize` work). The "
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
        "static bounds (a `scan`); forward mode (`jacfwd`, `jvp`, `linearize`); loops inside `custom_vjp`/`custom_jvp` "
        "functions, whose own rule is used; a `cond_fun` that reads a differentiated value (only the body "
        "is differentiated)."
    )
    verify = ("Not confirmed by `--verify` yet: calling the gradient (or the pullback, or the transposed "
              "function) raises the `ValueError` quoted above.")

    def _reverse(self, value: Value) -> str | None:
        return reverse_mode(value, self.facts.traced_scope)

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.names.qualified(node.func)
        if qualified == "jax.lax.while_loop":
            init, body = argument(node, 2, "init_val"), argument(node, 1, "body_fun")
            loop = "`lax.while_loop`"
        elif qualified == "jax.lax.fori_loop":
            bounds = [argument(node, 0, "lower"), argument(node, 1, "upper")]
            if not any(bound is not None and self.facts.value_of(bound).staged for bound in bounds):
                return
            init, body = argument(node, 3, "init_val"), argument(node, 2, "body_fun")
            loop = "`lax.fori_loop` with a traced trip count (a `while_loop`)"
        else:
            return
        if init is None or (isinstance(init, cst.Call) and self.names.qualified(init.func) == "jax.lax.stop_gradient"):
            what, subject = None, None  # nothing to differentiate through the carry
        else:
            what, subject = f"carries `{code(init)}`", init
        value = self.facts.value_of(subject) if subject is not None else UNKNOWN
        transform = self._reverse(value)
        if transform is None and body is not None:
            # The body may read a differentiated value from its closure (`lambda c: c * x`): the same error.
            for name in self._closure_reads(body):
                subject = cst.Name(name)
                value = self.facts.value_of(subject)
                transform = self._reverse(value)
                if transform is not None:
                    what = f"has a body that reads `{name}` from its closure"
                    break
        if transform is None:
            return
        self.report(node, lambda line_of: (
            f"{loop} {what}, which `{transform}` differentiates in reverse mode "
            f"({value.describe(code(subject), line_of)}): {_CALLING.get(transform, 'calling the gradient')} raises "
            f"ValueError (\"Reverse-mode "
            f"differentiation does not work for lax.while_loop\"); use `lax.scan` with a fixed number of steps, "
            f"`fori_loop` with static bounds, or forward mode (`jax.jacfwd`, `jax.jvp`)"
        ))

    def _closure_reads(self, body: cst.BaseExpression) -> list[str]:
        """The names a loop body given as a lambda or a def reads from around it, in order."""
        if isinstance(body, cst.Name):
            found = self.facts.binding(body, want_def=True)
            body = found[0] if found is not None else None
        if not isinstance(body, (cst.Lambda, cst.FunctionDef)):
            return []
        own = set(parameter_names(body.params))
        if isinstance(body, cst.FunctionDef):
            own |= rebound_names(body.body)
        reads = _NameReads()
        body.body.visit(reads)
        return [name for name in dict.fromkeys(reads.names) if name not in own]


class _NameReads(cst.CSTVisitor):
    """The names an expression or block reads, outside nested functions (which run only if called)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def visit_Name(self, node: cst.Name) -> None:
        self.names.append(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # `a.b` reads `a`, not `b`
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)  # `f(k=v)` reads `v`, not `k`
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False


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
        self._locals: dict[int, tuple[cst.CSTNode, set[str]]] = {}  # each function's parameters and locals

    def _gradient(self, expr: cst.BaseExpression) -> cst.Call | None:
        """The `jax.grad(...)`-like call an expression gives the function of: itself, a name bound to it,
        or `jax.jit` of it."""
        if isinstance(expr, cst.Name):
            for scope in reversed(self.facts.chain):
                found = self._named.get((id(scope), expr.value))
                if found is not None:
                    return found
                if isinstance(scope, (cst.FunctionDef, cst.Lambda)) and expr.value in self._bound(scope):
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


def _small_constant(expr: cst.BaseExpression) -> bool:
    """An epsilon added to keep an operand off the bad point: `1e-8`, `eps`, `self.eps`, `jnp.finfo(...).tiny`."""
    if isinstance(expr, cst.Float):
        try:
            return 0 < float(expr.value.replace("_", "")) < 1e-2
        except ValueError:
            return False
    text = code(expr, 80).lower()
    return any(word in text for word in ("eps", "tiny", "finfo"))


class WhereNanGradient(Rule):
    code = "JAX605"
    name = "where-nan-gradient"
    summary = "`jnp.where(c, f(x), y)` guarding a `log`/`sqrt`/division from bad inputs, under a reverse-mode gradient"
    what_it_does = (
        "Flags a `log`, `log1p`, `sqrt`, `rsqrt`, `cbrt`, `reciprocal`, `arcsin`, `arccos`, `arctanh`, "
        "`arccosh`, a division or a fractional or negative power inside a branch of `jnp.where(c, a, b)` (or "
        "`lax.select`) when the condition `c` tests the very operand the function is undefined or infinitely "
        "steep for (`jnp.where(x > 0, jnp.log(x), 0.0)`, `jnp.where(n > 0, total / n, 0.0)`), and the value is "
        "differentiated in reverse mode: the function (or a helper it calls, at any depth) is given to "
        "`jax.grad`, `value_and_grad`, `jacrev`, `hessian` or `jax.vjp`."
    )
    why_bad = (
        "`jnp.where` computes both branches and selects afterwards. Its derivative sends a zero cotangent to "
        "the branch it did not select, and the chain rule multiplies that zero by the unselected function's "
        "derivative: at `x = 0`, `log`'s derivative `1/x` is infinite and `0 * inf` is NaN. The gradient is NaN "
        "exactly at the inputs the `where` was written to protect, silently: "
        "`jax.grad(lambda x: jnp.where(x > 0, jnp.log(x), 0.0).sum())(jnp.array([0.0, 1.0]))` gives "
        "`[nan, 1.]` (jax 0.10.2; likewise for `sqrt` at 0, a division by 0, `arcsin` at 1, `x ** 0.5` at 0, "
        "through `value_and_grad`, `jacrev`, `hessian`, `vjp` and under `jit`; forward mode, `jacfwd` and "
        "`jvp`, gives finite values). Make the operand safe before the function sees it, so that neither "
        "branch is ever evaluated at a bad point: the double-`where` idiom in the JAX FAQ, "
        "[\"Gradients contain NaN where using `where`\"]"
        "(https://docs.jax.dev/en/latest/faq.html#gradients-contain-nan-where-using-where)."
    )
    example = (
        "def entropy(p):\n"
        "    return -jnp.sum(jnp.where(p > 0, p * jnp.log(p), 0.0))\n\n\n"
        "def loss(logits):\n"
        "    return entropy(jax.nn.softmax(logits) * (logits > -10))\n\n\n"
        "grads = jax.grad(loss)(jnp.array([0.0, 2.0, -30.0]))\n"
    )
    use_instead = (
        "def entropy(p):\n"
        "    safe_p = jnp.where(p > 0, p, 1.0)\n"
        "    return -jnp.sum(jnp.where(p > 0, p * jnp.log(safe_p), 0.0))\n\n\n"
        "def loss(logits):\n"
        "    return entropy(jax.nn.softmax(logits) * (logits > -10))\n\n\n"
        "grads = jax.grad(loss)(jnp.array([0.0, 2.0, -30.0]))\n"
    )
    not_flagged = (
        "The double-`where` idiom (`safe = jnp.where(c, x, 1.0)` then `jnp.where(c, jnp.log(safe), 0.0)`) and "
        "operands clipped into the domain (`jnp.maximum(x, 1e-6)`, `jnp.clip`, `lax.stop_gradient`) or pushed "
        "off the bad point by an epsilon (`x + 1e-8`, `x + eps`); conditions that do not test the operand "
        "(`jnp.where(mask, jnp.log(probs), 0.0)` with positive `probs` differentiates fine); operands that "
        "provably stay away from the bad point on the side where their branch is not selected, for a condition "
        "comparing a variable with a number and an operand computed from it with numbers, `+`, `-` and "
        "increasing functions (`jnp.where(x > -0.69, jnp.log(-jnp.expm1(x)), ...)`: `-expm1(x)` is at least 0.5 "
        "where `x <= -0.69`); code that is not "
        "differentiated, or only in forward mode (`jacfwd`, `jvp`); integer powers (`x ** 2`, `x ** 3`, "
        "whose derivatives are finite); test files (`test_*.py`, `*_test.py`, `conftest.py`, files under "
        "`tests/`), which compute gradients to check them: a NaN there fails the test, or is what the test "
        "checks (a naive version written next to a stable one)."
    )
    verify = "Not confirmed by `--verify` yet: the gradient holds NaN where the condition is false."

    def visit_Call(self, node: cst.Call) -> None:
        # A test computes the gradient to check it: a NaN there fails the test or is what it tests (a naive
        # version written next to a stable one), never a silent NaN in training.
        if self.names.qualified(node.func) not in derivatives.SELECTS or self.facts.in_test_file:
            return
        given = arguments(node)
        parts = [*given.positional, *(given.keywords[k] for k in ("condition", "x", "y", "pred", "on_true",
                                                                   "on_false") if k in given.keywords)]
        if len(parts) != 3 or given.starred or given.double_starred:
            return
        condition, *branches = parts
        tested = self._references(condition, opaque=False)
        for branch in branches:
            for risky, operand, unbounded in self._unbounded(branch):
                value = self.facts.value_of(risky)
                transform = reverse_mode(value, self.facts.traced_scope)
                if transform is None or not self._references(operand, opaque=True) & tested:
                    continue
                side = "false" if branch is branches[0] else "true"
                if self._never_bad(operand, unbounded, condition, side == "true"):
                    continue  # `jnp.where(x > -0.69, jnp.log(-jnp.expm1(x)), ...)`: -expm1(x) >= 0.5 there
                kept, filler = code(operand), unbounded.safe
                safe = f"{kept}, {filler}" if side == "false" else f"{filler}, {kept}"
                self.report(risky, lambda line_of, risky=risky, operand=operand, unbounded=unbounded,
                            transform=transform, side=side, safe=safe, value=value: (
                    f"`{code(risky)}` in a branch of `{code(node.func)}` guarded by `{code(condition)}` is still "
                    f"differentiated by `{transform}` ({value.describe(code(risky), line_of)}) where the "
                    f"condition is {side}: its derivative is infinite or "
                    f"undefined {unbounded.where}, and 0 * inf is NaN, so the gradient is NaN there; make the "
                    f"operand safe first, `jnp.where({code(condition)}, {safe})` in "
                    f"place of `{code(operand)}` (the double `where`)"
                ))
                return  # one finding per `where`

    def _never_bad(self, operand: cst.BaseExpression, unbounded, condition: cst.BaseExpression, holds: bool) -> bool:
        """Whether, where `condition` is `holds` (the side the branch is computed for nothing), the operand
        provably stays where the function's derivative is finite: for a condition comparing one variable
        with a number, followed through arithmetic with numbers and increasing functions."""
        bounded = _bounds_where(condition, holds)
        if bounded is None:
            return False
        span = self._interval(operand, *bounded)
        return span is not None and any(low < span[0] and span[1] < high for low, high in unbounded.finite_on)

    def _interval(self, expr: cst.BaseExpression, name: str, bounds: tuple[float, float]) -> tuple[float, float] | None:
        """An interval holding `expr`'s values when `name` lies in `bounds`; None when unknown."""
        if isinstance(expr, cst.Name) and expr.value == name:
            return bounds
        number = _number(expr)
        if number is not None:
            return number, number
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
            inner = self._interval(expr.expression, name, bounds)
            return None if inner is None else (-inner[1], -inner[0])
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract)):
            left, right = self._interval(expr.left, name, bounds), self._interval(expr.right, name, bounds)
            if left is None or right is None:
                return None
            if isinstance(expr.operator, cst.Add):
                return left[0] + right[0], left[1] + right[1]
            return left[0] - right[1], left[1] - right[0]
        if isinstance(expr, cst.Call) and len(expr.args) == 1 and expr.args[0].keyword is None:
            function = derivatives.INCREASING.get(self.names.qualified(expr.func))
            inner = self._interval(expr.args[0].value, name, bounds) if function is not None else None
            try:
                return None if inner is None else (function(inner[0]), function(inner[1]))  # math takes inf too
            except (ValueError, OverflowError):
                return None
        return None

    def _unbounded(self, expr: cst.BaseExpression, depth: int = 0):
        """The sub-expressions of a branch whose derivative blows up somewhere: (expression, its operand at risk,
        where it blows up). Nested functions and sanitized operands are not looked into."""
        if isinstance(expr, (cst.Lambda, cst.BaseComp)):
            return
        if isinstance(expr, cst.Name):
            bound = self._single_binding(expr.value) if depth < 3 else None
            if bound is not None:
                yield from self._unbounded(bound, depth + 1)  # `logp = jnp.log(p)` above the `where`
            return
        if isinstance(expr, cst.Call):
            qualified = self.names.qualified(expr.func)
            if qualified in derivatives.SANITIZERS:
                return
            given = arguments(expr)
            if qualified in derivatives.UNBOUNDED and given.positional:
                yield expr, given.positional[0], derivatives.UNBOUNDED[qualified]
            elif qualified in derivatives.DIVISIONS and len(given.positional) == 2:
                yield expr, given.positional[1], derivatives.DIVISION
            elif qualified in derivatives.POWERS and len(given.positional) == 2 and _bad_exponent(given.positional[1]):
                yield expr, given.positional[0], derivatives.POWER
        elif isinstance(expr, cst.BinaryOperation):
            if isinstance(expr.operator, cst.Divide):
                yield expr, expr.right, derivatives.DIVISION
            elif isinstance(expr.operator, cst.Power) and _bad_exponent(expr.right):
                yield expr, expr.left, derivatives.POWER
        for child in _operands(expr):
            yield from self._unbounded(child, depth)

    def _single_binding(self, name: str) -> cst.BaseExpression | None:
        """What the enclosing function binds `name` to, when it binds it once, with a plain assignment."""
        function = next((scope for scope in reversed(self.facts.chain) if isinstance(scope, cst.FunctionDef)), None)
        if function is None or name in parameter_names(function.params):
            return None
        bound = assigned_values(function.body, name)
        return bound[0] if len(bound) == 1 else None

    def _references(self, expr: cst.BaseExpression, *, opaque: bool, depth: int = 0) -> set[str]:
        """The variables an expression reads (`x`, `self.scale`; a subscript reads its base), through the
        enclosing function's single assignments. With `opaque` (an operand), what a sanitizing call or an
        epsilon addition protects is left out: it cannot reach the bad point. Without (a condition), only
        the bindings of masks are followed (`mask = x > 0`): a condition on `z = r / s` tests `z`, not `s`."""
        found: set[str] = set()
        if isinstance(expr, (cst.Name, cst.Attribute)) and (text := dotted(expr)) is not None:
            if text in ("self", "cls") or self.names.qualified(expr) is not None:
                return found
            found.add(text)
            bound = self._single_binding(text) if isinstance(expr, cst.Name) and depth < 3 else None
            if bound is not None and (opaque or _is_mask(bound)):
                found |= self._references(bound, opaque=opaque, depth=depth + 1)
            return found
        if isinstance(expr, (cst.Lambda, cst.BaseComp)):
            return found
        if opaque and isinstance(expr, cst.Call) and self.names.qualified(expr.func) in derivatives.SANITIZERS:
            return found
        if (opaque and isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract))
                and (_small_constant(expr.left) or _small_constant(expr.right))):
            return found
        for child in _operands(expr):
            found |= self._references(child, opaque=opaque, depth=depth)
        return found


def _bounds_where(condition: cst.BaseExpression, holds: bool) -> tuple[str, tuple[float, float]] | None:
    """For `x > c` (or `>=`, `<`, `<=`, either way round) with a number `c`: `x` and a closed interval
    holding it where the condition is `holds`."""
    if not (isinstance(condition, cst.Comparison) and len(condition.comparisons) == 1):
        return None
    left, (target,) = condition.left, condition.comparisons
    right, operator = target.comparator, target.operator
    if isinstance(right, cst.Name) and _number(left) is not None:
        left, right = right, left
        operator = _FLIPPED.get(type(operator))
    number = _number(right)
    if not isinstance(left, cst.Name) or number is None or not isinstance(operator, (cst.GreaterThan,
            cst.GreaterThanEqual, cst.LessThan, cst.LessThanEqual)):
        return None
    above = isinstance(operator, (cst.GreaterThan, cst.GreaterThanEqual)) is holds
    inf = float("inf")
    return left.value, ((number, inf) if above else (-inf, number))


_FLIPPED = {cst.GreaterThan: cst.LessThan(), cst.GreaterThanEqual: cst.LessThanEqual(),
            cst.LessThan: cst.GreaterThan(), cst.LessThanEqual: cst.GreaterThanEqual()}


def _number(expr: cst.BaseExpression) -> float | None:
    """The value of a number written in the source (`2`, `-0.69`, `1e-3`), else None."""
    negative = isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus)
    literal = expr.expression if negative else expr
    if not isinstance(literal, (cst.Integer, cst.Float)):
        return None
    try:
        value = float(literal.value.replace("_", ""))
    except ValueError:
        return None
    return -value if negative else value


def _is_mask(expr: cst.BaseExpression) -> bool:
    """A boolean array as written: a comparison, or a logical combination of them."""
    if isinstance(expr, cst.Comparison):
        return True
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.BitInvert, cst.Not)):
        return _is_mask(expr.expression)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return _is_mask(expr.left) or _is_mask(expr.right)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        return expr.func.attr.value in ("isnan", "isinf", "isfinite", "logical_and", "logical_or", "logical_not")
    return False


def _operands(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The expressions an expression computes from: a call's arguments and a method's receiver (`x` of
    `x.sum()`), a subscript's or attribute's base, both sides of operators and comparisons."""
    if isinstance(expr, cst.Call):
        receiver = [expr.func.value] if isinstance(expr.func, cst.Attribute) else []
        return [*receiver, *(arg.value for arg in expr.args)]
    if isinstance(expr, (cst.Subscript, cst.Attribute)):
        return [expr.value]
    if isinstance(expr, (cst.BinaryOperation, cst.BooleanOperation)):
        return [expr.left, expr.right]
    if isinstance(expr, cst.UnaryOperation):
        return [expr.expression]
    if isinstance(expr, cst.Comparison):
        return [expr.left, *(target.comparator for target in expr.comparisons)]
    if isinstance(expr, cst.IfExp):
        return [expr.test, expr.body, expr.orelse]
    if isinstance(expr, (cst.Tuple, cst.List)):
        return [element.value for element in expr.elements]
    return []


def _bad_exponent(expr: cst.BaseExpression) -> bool:
    """A literal exponent whose power has an unbounded derivative: fractional (`0.5`, `1.5`) or negative."""
    value = _number(expr)
    return value is not None and (value < 0 or value != int(value))


@dataclass(frozen=True)
class _Dependence:
    """How a value depends on the differentiated parameters: through differentiable operations (`smooth`),
    or only through operations whose derivative is zero (`cut`: each parameter with the first such operation)."""

    smooth: frozenset[str] = frozenset()
    cut: tuple[tuple[str, cst.CSTNode], ...] = ()

    def __or__(self, other: "_Dependence") -> "_Dependence":
        known = {param for param, _ in self.cut}
        return _Dependence(self.smooth | other.smooth,
                           self.cut + tuple(item for item in other.cut if item[0] not in known))

    def through(self, operation: cst.CSTNode) -> "_Dependence":
        """The dependence of a value computed from this one by a zero-derivative operation."""
        return _Dependence(frozenset(), self.cut) | _Dependence(
            frozenset(), tuple((param, operation) for param in sorted(self.smooth)))


_NOTHING = _Dependence()
_ZERO_METHODS = frozenset({"argmax", "argmin", "argsort", "round", "nonzero", "searchsorted"})
_ZERO_BUILTINS = frozenset({"int", "bool", "round"})


class _Unknown(Exception):
    """A construct the dependence walk does not model: no claim is made about the function."""


class _DependenceWalk:
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
        elif isinstance(statement, (cst.Pass, cst.Assert, cst.Raise, cst.Del, cst.Import, cst.ImportFrom,
                                    cst.Break, cst.Continue)):
            pass
        else:
            raise _Unknown  # nested defs, try, match, global...: not modelled

    def of(self, expr: cst.BaseExpression) -> _Dependence:
        """The dependence of an expression's value."""
        if isinstance(expr, cst.Name):
            if expr.value in self.env:
                return self.env[expr.value]
            return _Dependence(frozenset({expr.value})) if expr.value in self.params else _NOTHING
        if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
                             cst.FormattedString, cst.Ellipsis)):
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
            elif isinstance(child, (cst.BaseExpression, cst.BaseElement, cst.Arg, cst.BaseDictElement,
                                    cst.ComparisonTarget, cst.BaseSlice, cst.SubscriptElement, cst.CompFor,
                                    cst.CompIf, cst.FormattedStringExpression)):
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
        if qualified == "jax.lax.stop_gradient":
            return _NOTHING  # cut on purpose
        if qualified in derivatives.ZERO_DERIVATIVE or qualified in derivatives.INTEGER_DTYPES or (
                isinstance(func, cst.Name) and func.value in _ZERO_BUILTINS and qualified is None):
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
        if (not isinstance(callee, cst.FunctionDef) or callee.decorators
                or isinstance(callee.params.star_arg, cst.Param)):
            return None
        positional = [param.name.value for param in (*callee.params.posonly_params, *callee.params.params)]
        every = frozenset(parameter_names(callee.params))
        output = _DependenceWalk(self.names, every, self.resolve, self.depth + 1).output(callee, False)
        if output is None:
            return None
        cut = dict(reversed(output.cut))  # each parameter's first zero-derivative operation
        result = _NOTHING
        for index, arg in enumerate(call.args):
            param = arg.keyword.value if arg.keyword is not None else (
                positional[index] if index < len(positional) and not arg.star else None)
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
            return expr.evaluated_value.startswith(("int", "uint", "bool"))
        return self.names.qualified(expr) in derivatives.INTEGER_DTYPES


class ZeroGradient(Rule):
    code = "JAX606"
    name = "zero-gradient"
    summary = "A differentiated function whose output depends on its input only through comparisons, rounding or casts"
    what_it_does = (
        "Flags `jax.grad(f)` (and `value_and_grad`, `jacrev`, `jacfwd`, `hessian`, `jax.vjp`) when every way "
        "`f`'s output depends on its differentiated arguments, as its body shows, goes through an operation "
        "whose derivative is zero: a comparison (`x > 0`), `jnp.round`/`floor`/`ceil`/`sign`/`argmax`/"
        "`argmin`/`argsort`, `//`, a cast to an integer or boolean dtype (`x.astype(jnp.int32)`, `int(x)`), "
        "the condition of a `jnp.where`, or an index (`table[jnp.argmax(x)]`). Helpers of the same module "
        "it calls are followed, two calls deep (`1.0 - accuracy(predict(params, x), labels)`)."
    )
    why_bad = (
        "These operations are piecewise constant, and JAX defines their derivative as zero everywhere. When "
        "the output reaches the input only through them, the gradient is all zeros, silently: training "
        "does not move, and nothing says why. `jax.grad(lambda w: jnp.mean(((x * w) > 0.5).astype(jnp.float32)))"
        "(1.0)` is `0.0`, and so are the gradients of `jnp.round(x).sum()`, `jnp.sign(x).sum()` and "
        "`jnp.where(x > 0, 1.0, 0.0).sum()` (jax 0.10.2; when the output stays an integer or boolean array, "
        "as in `(x > 0).sum()`, `grad` raises `TypeError: grad requires real-valued outputs` instead). "
        "Differentiate a smooth surrogate (`jax.nn.sigmoid` for a step, `jax.nn.softmax` for an `argmax`, "
        "`jax.nn.soft_sign` for `sign`, a cross-entropy for an accuracy), or pass the gradient straight "
        "through: `x + lax.stop_gradient(jnp.round(x) - x)`. The JAX FAQ explains it: [\"Why are gradients "
        "zero for functions based on sort order?\"]"
        "(https://docs.jax.dev/en/latest/faq.html#why-are-gradients-zero-for-functions-based-on-sort-order)."
    )
    example = (
        "def accuracy_loss(w, x, labels):\n"
        "    predictions = (x @ w > 0.0).astype(jnp.float32)\n"
        "    return -jnp.mean(predictions == labels)\n\n\n"
        "grads = jax.grad(accuracy_loss)(w, x, labels)\n"
    )
    use_instead = (
        "def logistic_loss(w, x, labels):\n"
        "    logits = x @ w\n"
        "    return jnp.mean(jax.nn.softplus(logits) - labels * logits)\n\n\n"
        "grads = jax.grad(logistic_loss)(w, x, labels)\n"
    )
    not_flagged = (
        "Outputs with any differentiable path to a differentiated argument, however small "
        "(`x * (x > 0)` is a ReLU); straight-through estimators and anything under `lax.stop_gradient` (a "
        "deliberate cut); outputs that do not depend on the arguments at all; functions whose body the "
        "analysis does not model (nested functions, `try`, `match`, `global`); calls of other modules' "
        "functions, of methods and of decorated helpers, which are taken as differentiable; functions with "
        "a decorator other than a jax transform."
    )
    verify = "Not confirmed by `--verify` yet: the gradient is all zeros."

    def _check(self, function: cst.FunctionDef | cst.Lambda, name: str, decorators: list[Transform]) -> None:
        applied = [*decorators, *self.facts.applied(function)]
        for transform in applied:
            if transform.name not in GRADIENTS:
                continue
            params = self.facts.traced_params(function, transform)
            if not params:
                continue
            walk = _DependenceWalk(self.names, params, self._def_of)
            output = walk.output(function, _has_aux(transform) is not False)
            if output is None or output.smooth or not output.cut:
                continue
            param, operation = output.cut[0]
            self.report(transform.node, lambda line_of, transform=transform, param=param, operation=operation: (
                f"`{transform.name}` differentiates {name} with respect to `{param}`, but its output depends on "
                f"`{param}` only through `{code(operation)}` (line {line_of(operation)}) and operations like it, "
                f"whose derivative is zero: the gradient is zero everywhere, silently; differentiate a smooth "
                f"surrogate (a sigmoid for a step, a cross-entropy for an accuracy), or pass the gradient "
                f"straight through (`x + lax.stop_gradient(jnp.round(x) - x)`)"
            ))

    def _def_of(self, name: cst.Name) -> cst.CSTNode | None:
        found = self.facts.binding(name, want_def=True)
        return found[0] if found is not None and not found[2] else None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        decorators = self.facts.decorating_transforms(node)
        if decorators is not None:  # else another decorator may change what the function computes
            self._check(node, f"`{node.name.value}`", decorators)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._check(node, "the lambda", [])


