"""JAX605 where-nan-gradient: `jnp.where(c, f(x), y)` guarding a `log`/`sqrt`/division from bad inputs, under a
reverse-mode gradient."""

from __future__ import annotations

from typing import cast

import libcst as cst

from jaxlint.analysis.values import Kind

from jaxlint.analysis.bindings import mentioned_names, parameter_names
from jaxlint.analysis.calls import arguments
from jaxlint.analysis.names import dotted
from jaxlint.analysis.scopes import assigned_values
from jaxlint.checks.base import Rule, code
from jaxlint.checks.transforms._common import returns_aux, reverse_mode
from jaxlint.model import derivatives
from jaxlint.model.transforms import REVERSE_MODE
from jaxlint.traversal import in_order


def _small_constant(expr: cst.BaseExpression) -> bool:
    """An epsilon added to keep an operand off the bad point: `1e-8`, `eps`, `self.eps`, `jnp.finfo(...).tiny`."""
    if isinstance(expr, cst.Float):
        try:
            return 0 < float(expr.value.replace("_", "")) < 1e-2
        except ValueError:
            return False
    text = code(expr, 80).lower()
    return any(word in text for word in ("eps", "tiny", "finfo"))


def _bound_names(statement: cst.CSTNode) -> set[str]:
    """The names an assignment binds (its targets' names; `a.x` and `a[i]` bind `a` again)."""
    if type(statement) is cst.Assign:
        targets = [t.target for t in statement.targets]
    else:
        targets = [cast("cst.AugAssign | cst.AnnAssign", statement).target]
    return set().union(*(mentioned_names(target) for target in targets))


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
        '["Gradients contain NaN where using `where`"]'
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
        "off the bad point by an epsilon (`x + 1e-8`, `x + eps`); an equality test that masks another point "
        "than the bad one (`lax.select(k == 0, ..., b / (n - k))`: at `k == 0` the divisor is `n`); conditions that "
        "do not test the operand "
        "(`jnp.where(mask, jnp.log(probs), 0.0)` with positive `probs` differentiates fine); operands that "
        "provably stay away from the bad point on the side where their branch is not selected, for a condition "
        "comparing a variable with a number and an operand computed from it with numbers, `+`, `-` and "
        "increasing functions (`jnp.where(x > -0.69, jnp.log(-jnp.expm1(x)), ...)`: `-expm1(x)` is at least 0.5 "
        "where `x <= -0.69`); a branch that the `where` selects at the operand's bad point for any positive threshold "
        "(`jnp.where(r2 < lb**2, jnp.sqrt(r2), r2)`: the `sqrt` is taken at `r2 = 0`, and where it is not, `r2` is "
        "off 0); divisions by a reciprocal (`s = 1. / w.dot(l)`, `jnp.reciprocal(d)`), which is 0 "
        "only where what it inverts is infinite; code that is not "
        "differentiated, or only in forward mode (`jacfwd`, `jvp`); a `where` that only the auxiliary output of a "
        "function differentiated with `has_aux=True` is computed from (`return loss, jnp.where(n > 0, s / n, 0.0)`): "
        "jax differentiates the first output alone; integer powers (`x ** 2`, `x ** 3`, "
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
        parts = [
            *given.positional,
            *(given.keywords[k] for k in ("condition", "x", "y", "pred", "on_true", "on_false") if k in given.keywords),
        ]
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
                if self.facts.value_of(operand).kind is Kind.STATIC:
                    continue  # a Python number, the same in every element and never differentiated: `x / sigma`
                if self._aux_only(node, value):
                    continue  # `return loss, jnp.where(n > 0, s / n, 0.0)` under `grad(..., has_aux=True)`
                side = "false" if branch is branches[0] else "true"
                if self._never_bad(operand, unbounded, condition, side == "true"):
                    continue  # `jnp.where(x > -0.69, jnp.log(-jnp.expm1(x)), ...)`: -expm1(x) >= 0.5 there
                if _selected_at_zero(operand, unbounded, condition, side == "true"):
                    continue  # `jnp.where(r2 < lb**2, jnp.sqrt(r2), ...)`: the branch taken at r2 = 0
                if _guards_another_point(operand, unbounded, condition, side == "true"):
                    continue  # `select(k == 0, ..., b / (n - k))`: at k == 0 the divisor is n, not 0
                kept, filler = code(operand), unbounded.safe
                safe = f"{kept}, {filler}" if side == "false" else f"{filler}, {kept}"
                self.report(
                    risky,
                    lambda line_of,
                    risky=risky,
                    operand=operand,
                    unbounded=unbounded,  # type: ignore[misc]  # mypy cannot infer a lambda whose extra parameters have defaults
                    transform=transform,
                    side=side,
                    safe=safe,
                    value=value: (
                        f"`{code(risky)}` in a branch of `{code(node.func)}` guarded by `{code(condition)}` is still "
                        f"differentiated by `{transform}` ({value.describe(code(risky), line_of)}) where the "
                        f"condition is {side}: its derivative is infinite or "
                        f"undefined {unbounded.where}, and 0 * inf is NaN, so the gradient is NaN there; make the "
                        f"operand safe first, `jnp.where({code(condition)}, {safe})` in "
                        f"place of `{code(operand)}` (the double `where`)"
                    ),
                    because=value,
                )
                return  # one finding per `where`

    def _aux_only(self, where: cst.Call, value) -> bool:
        """Whether the `where` feeds only the auxiliary output of the function it is in, every reverse-mode
        transform of which has `has_aux=True`: jax differentiates the first output alone, the aux is returned as
        computed (`return total, role_loss`, with `role_loss` the `where`'s result and `total` computed without it)."""
        scope = self.facts.traced_scope
        function = next((n for n in reversed(self.facts.chain) if isinstance(n, cst.FunctionDef)), None)
        if scope is None or function is None:
            return False
        transforms = [
            t for t in (*scope.transforms, value.tracer.transform) if t.name in REVERSE_MODE and t.differentiates
        ]
        if not transforms or not all(returns_aux(t) is True for t in transforms):
            return False
        order = list(in_order(function.body))
        outputs = [
            n.value.elements[0].value
            for n, ancestors in order
            if type(n) is cst.Return and not any(isinstance(a, (cst.FunctionDef, cst.Lambda)) for a in ancestors)
            if type(n.value) is cst.Tuple and n.value.elements
        ]
        returns = sum(1 for n, _ in order if type(n) is cst.Return)
        if not outputs or len(outputs) != returns:
            return False  # a return not written as a tuple: which part is the output is not known
        needed = set().union(*(mentioned_names(output) for output in outputs))
        assigned = [
            (n, ancestors)
            for n, ancestors in order
            if type(n) in (cst.Assign, cst.AugAssign) or type(n) is cst.AnnAssign and n.value is not None
        ]
        changed = True
        while changed:  # the names the differentiated output is computed from, through the body's assignments
            changed = False
            for statement, _ in assigned:
                if _bound_names(statement) & needed and not mentioned_names(statement.value) <= needed:
                    needed |= mentioned_names(statement.value)
                    changed = True
        around = next((ancestors for n, ancestors in order if n is where), None)
        statement = next(
            (a for a in reversed(around or ()) if type(a) in (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Return)),
            None,
        )
        if type(statement) is cst.Return:
            return not any(output is a or output is where for output in outputs for a in around or ())
        return statement is not None and not _bound_names(statement) & needed

    def _never_bad(self, operand: cst.BaseExpression, unbounded, condition: cst.BaseExpression, holds: bool) -> bool:
        """Whether, where `condition` is `holds` (the side the branch is computed for nothing), the operand
        provably stays where the function's derivative is finite: for a condition comparing one variable
        with a number, followed through arithmetic with numbers and increasing functions."""
        bounded = _bounds_where(condition, holds)
        if bounded is None:
            return False
        span = self._interval(operand, *bounded)
        return span is not None and any(_inside(span, low, high) for low, high in unbounded.finite_on)

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
            qualified = self.names.qualified(expr.func)
            function = derivatives.INCREASING.get(qualified) if qualified is not None else None
            inner = self._interval(expr.args[0].value, name, bounds) if function is not None else None
            try:
                return (
                    None if inner is None or function is None else (function(inner[0]), function(inner[1]))
                )  # math takes inf too
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
                if not self._reciprocal(given.positional[1]):
                    yield expr, given.positional[1], derivatives.DIVISION
            elif qualified in derivatives.POWERS and len(given.positional) == 2 and _bad_exponent(given.positional[1]):
                yield expr, given.positional[0], derivatives.POWER
        elif isinstance(expr, cst.BinaryOperation):
            if isinstance(expr.operator, cst.Divide):
                if not self._reciprocal(expr.right):
                    yield expr, expr.right, derivatives.DIVISION
            elif isinstance(expr.operator, cst.Power) and _bad_exponent(expr.right):
                yield expr, expr.left, derivatives.POWER
        for child in _operands(expr):
            yield from self._unbounded(child, depth)

    def _reciprocal(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """Whether a divisor is the reciprocal of something (`1. / y`, a nonzero number over anything, or
        `jnp.reciprocal(y)`), directly or through the enclosing function's single assignment: it is 0 only where
        `y` is infinite, where the selected branch is not finite either, so dividing by it has no bad point."""
        if isinstance(expr, cst.Name):
            bound = self._single_binding(expr.value) if depth < 3 else None
            return bound is not None and self._reciprocal(bound, depth + 1)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Divide):
            return _number(expr.left) not in (None, 0)
        if isinstance(expr, cst.Call):
            qualified = self.names.qualified(expr.func)
            given = arguments(expr)
            if qualified in derivatives.DIVISIONS and len(given.positional) == 2:
                return _number(given.positional[0]) not in (None, 0)
            return qualified in derivatives.RECIPROCALS
        return False

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
        if (
            opaque
            and isinstance(expr, cst.BinaryOperation)
            and isinstance(expr.operator, (cst.Add, cst.Subtract))
            and (_small_constant(expr.left) or _small_constant(expr.right))
        ):
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
    right, compared = target.comparator, target.operator
    operator: cst.BaseCompOp | None = compared
    if isinstance(right, cst.Name) and _number(left) is not None:
        left, right = right, left
        operator = _FLIPPED.get(type(compared))
    number = _number(right)
    if (
        not isinstance(left, cst.Name)
        or number is None
        or not isinstance(operator, (cst.GreaterThan, cst.GreaterThanEqual, cst.LessThan, cst.LessThanEqual))
    ):
        return None
    above = isinstance(operator, (cst.GreaterThan, cst.GreaterThanEqual)) is holds
    inf = float("inf")
    return left.value, ((number, inf) if above else (-inf, number))


def _inside(span: tuple[float, float], low: float, high: float) -> bool:
    """Whether a closed interval lies in the open interval (low, high); an infinite end of both counts (it is
    no value the operand takes)."""
    inf = float("inf")
    return (low < span[0] or low == span[0] == -inf) and (span[1] < high or span[1] == high == inf)


def _selected_at_zero(operand: cst.BaseExpression, unbounded, condition: cst.BaseExpression, holds: bool) -> bool:
    """For a function whose bad point is 0 of an operand that a condition compares with a threshold the code does
    not write as a number (`jnp.where(r2 < lb**2, jnp.sqrt(r2), ...)`): whether the branch is the one selected at
    0 for every positive threshold (`holds`: the condition where the branch is not selected). There the `where`
    does not keep the function from its bad point, it picks the function, and where it does not pick it the
    operand is off 0: no 0 * inf in the gradient."""
    if not (
        isinstance(operand, cst.Name)
        and isinstance(condition, cst.Comparison)
        and len(condition.comparisons) == 1
        and not any(low < 0 < high for low, high in unbounded.finite_on)
    ):
        return False
    target = condition.comparisons[0]
    below = isinstance(target.operator, (cst.LessThan, cst.LessThanEqual))
    if not (below or isinstance(target.operator, (cst.GreaterThan, cst.GreaterThanEqual))):
        return False
    if isinstance(condition.left, cst.Name) and condition.left.value == operand.value:
        threshold, true_at_zero = target.comparator, below  # `x < t` holds at x = 0 for t > 0
    elif isinstance(target.comparator, cst.Name) and target.comparator.value == operand.value:
        threshold, true_at_zero = condition.left, not below  # `t > x` holds at x = 0 for t > 0
    else:
        return False
    return _number(threshold) is None and true_at_zero is not holds


def _guards_another_point(operand: cst.BaseExpression, unbounded, condition: cst.BaseExpression, holds: bool) -> bool:
    """For a function whose bad point is 0 of its operand, and an equality test of a name (`k == 0`, `k != n`)
    that leaves the branch unselected at one point: whether the operand there is visibly not 0 (`n - k` at
    `k == 0` is `n`; `k` at `k == 1` is 1). The `where` then masks another point than the bad one, so it keeps no
    0 * inf out of the gradient: where the operand is 0, the branch is the one selected."""
    if any(low < 0 < high for low, high in unbounded.finite_on):
        return False
    if not (isinstance(condition, cst.Comparison) and len(condition.comparisons) == 1):
        return False
    target = condition.comparisons[0]
    equal = isinstance(target.operator, cst.Equal)
    if not (equal or isinstance(target.operator, cst.NotEqual)) or equal is not holds:
        return False  # the branch is unselected where the name equals the value
    for name, value in ((condition.left, target.comparator), (target.comparator, condition.left)):
        if isinstance(name, cst.Name) and (isinstance(value, cst.Name) or _number(value) is not None):
            return _not_zero_at(operand, name.value, value)
    return False


def _not_zero_at(operand: cst.BaseExpression, name: str, value: cst.BaseExpression) -> bool:
    """Whether `operand`, with `name` at `value`, is visibly not 0: `name` itself at a nonzero number, or
    `a - name` / `name - a` at a value that is not `a` (a number other than `a`'s, or another name)."""
    if isinstance(operand, cst.Name) and operand.value == name:
        number = _number(value)
        return number is not None and number != 0
    if not (isinstance(operand, cst.BinaryOperation) and isinstance(operand.operator, cst.Subtract)):
        return False
    left, right = operand.left, operand.right
    other = right if isinstance(left, cst.Name) and left.value == name else left
    if other is left and not (isinstance(right, cst.Name) and right.value == name):
        return False
    if isinstance(other, cst.Name) and isinstance(value, cst.Name):
        return other.value != value.value
    a, b = _number(other), _number(value)
    if a is not None and b is not None:
        return a != b
    return isinstance(other, cst.Name) and b == 0  # `n - k` at `k == 0`: `n`, a name, not the literal 0


_FLIPPED = {
    cst.GreaterThan: cst.LessThan(),
    cst.GreaterThanEqual: cst.LessThanEqual(),
    cst.LessThan: cst.GreaterThan(),
    cst.LessThanEqual: cst.GreaterThanEqual(),
}


def _number(expr: cst.BaseExpression) -> float | None:
    """The value of a number written in the source (`2`, `-0.69`, `1e-3`), else None."""
    negative = isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus)
    literal = expr.expression if isinstance(expr, cst.UnaryOperation) and negative else expr
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
