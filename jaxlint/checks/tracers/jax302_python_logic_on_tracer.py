"""JAX302 python-logic-on-tracer: `and`/`or`/`not`, `bool()`, builtin `min`/`max`/`any`/`all` on a traced value."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.values import Value
from jaxlint.checks.base import FixPlan, Rule, code
from jaxlint.checks.tracers._common import BRANCHES, only_traced, static_hint
from jaxlint.diagnostics import SAFE, UNSAFE
from jaxlint.model.functions import BOOL_CONVERSION_ERRORS, JAX_NUMPY


class PythonLogicOnTracer(Rule):
    code = "JAX302"
    trace_error = "TracerBoolConversionError"
    name = "python-logic-on-tracer"
    summary = "`and`/`or`/`not`, `bool()`, builtin `min`/`max`/`any`/`all` on a traced value"
    what_it_does = (
        "Flags Python's boolean operators and the builtins that compare or test truth values when they get "
        "a traced value inside a jitted (or vmapped, lax-body) function: `a and b`, `a or b`, `not a`, "
        "`bool(a)`, `min(a, b)`, `max(a, b)`, `any(a)`, `all(a)`, and `min`/`max`/`any`/`all` of a list, tuple "
        "or generator of tracers (`any(jnp.isnan(g).any() for g in leaves)`)."
    )
    why_bad = (
        "Each of these asks Python for a concrete `True` or `False` (or compares with `<`) and a tracer has "
        "no concrete value: JAX raises `TracerBoolConversionError`. The `jnp` functions work element-wise "
        "on tracers instead."
    )
    example = (
        "@jax.jit\n"
        "def clip_grad(g, limit):\n"
        "    too_big = g > limit\n"
        "    if too_big and not jnp.isnan(g):\n"
        "        g = limit\n"
        "    return max(g, -limit)\n"
    )
    use_instead = (
        "@jax.jit\n"
        "def clip_grad(g, limit):\n"
        "    too_big = (g > limit) & ~jnp.isnan(g)\n"
        "    g = jnp.where(too_big, limit, g)\n"
        "    return jnp.maximum(g, -limit)\n"
    )
    not_flagged = (
        "Operands that are static or unknown, bare arguments (possibly pytrees), `jnp.logical_and`, "
        "`jnp.minimum`, `jnp.any`, functions under `grad` alone, and code in a `try` whose handler catches "
        "`jax.errors.ConcretizationTypeError` (or `TracerBoolConversionError`)."
        " Nor code of a function whose every trace starts in a `try` that catches this error and does not "
        "raise again (a lesson's failing first attempt, `try: jax.jit(f)(x) except Exception as e: print(e)`)."
    )
    verify = "`--verify` traces the function and expects `TracerBoolConversionError` at this line."
    fixable = True
    fix_safety = (
        "For builtin `min`/`max` of exactly two operands: `jnp.minimum`/`jnp.maximum` compute the "
        "same value (spelled through the file's own `jax.numpy` alias, else `jax.numpy` with `import jax` "
        "added). Safe in a function decorated with a transform (or nested in one), whose code only ever runs "
        "traced, where the original raises. Unsafe in a helper that a traced caller passes tracers to, or a "
        "function wrapped by a call (`jax.jit(f)`): called directly with Python numbers, `max` returns a "
        "Python number and `jnp.maximum` a JAX array. Other forms have no automatic fix."
    )

    _REPLACEMENTS = {
        "min": "jnp.minimum",
        "max": "jnp.maximum",
        "any": "jnp.any",
        "all": "jnp.all",
        "bool": "a `jnp` boolean array",
    }

    def __init__(self, facts, reporter) -> None:
        super().__init__(facts, reporter)
        self._conditions: dict[cst.CSTNode, tuple[str, str]] = {}  # `and`/`or`/`not` a branch takes the truth of

    def visit_If(self, node: cst.If) -> None:
        self._condition(node.test, BRANCHES[cst.If])

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._condition(node.test, BRANCHES[cst.IfExp])

    def visit_While(self, node: cst.While) -> None:
        self._condition(node.test, BRANCHES[cst.While])

    def visit_Assert(self, node: cst.Assert) -> None:
        self._condition(node.test, BRANCHES[cst.Assert])

    def _condition(self, test: cst.BaseExpression, branch: tuple[str, str]) -> None:
        """Marks the `and`, `or` and `not` whose result is the branch's condition, nested ones included."""
        if isinstance(test, cst.BooleanOperation):
            self._conditions[test] = branch
            self._condition(test.left, branch)
            self._condition(test.right, branch)
        elif isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            self._conditions[test] = branch
            self._condition(test.expression, branch)

    def _then_branch(self, node: cst.CSTNode) -> str:
        """`, then ... for the `if``: how to branch on the result, for an operator in a branch's condition."""
        if node not in self._conditions:
            return ""
        keyword, remedy = self._conditions[node]
        return f", then {remedy} for the `{keyword}`"

    def _report(
        self,
        node: cst.CSTNode,
        what: str,
        operand: cst.BaseExpression,
        value: Value,
        remedy: str,
        fix: FixPlan | None = None,
        others: tuple[cst.BaseExpression, ...] = (),
    ) -> None:
        if self.facts.catches(BOOL_CONVERSION_ERRORS):
            return
        hint = static_hint(self, value, operand, *others)  # now: it reads the function around this point
        self.report(
            node,
            lambda line_of: (
                f"{what} on a traced value raises TracerBoolConversionError: `{code(operand)}` is traced "
                f"({value.describe(code(operand), line_of)}); use {remedy}{hint}"
            ),
            fix,
            because=value,
        )

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        # `a and b` asks for the truth of `a`; `b` is returned as it is.
        value = self.facts.value_of(node.left)
        if value.abstract:
            operator = "and" if isinstance(node.operator, cst.And) else "or"
            remedy = "`&`" if operator == "and" else "`|`"
            remedy = f"{remedy} (or `jnp.logical_{operator}`){self._then_branch(node)}"
            self._report(node, f"Python `{operator}`", node.left, value, remedy)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not):
            value = self.facts.value_of(node.expression)
            if value.abstract:
                remedy = f"`~` (or `jnp.logical_not`){self._then_branch(node)}"
                self._report(node, "Python `not`", node.expression, value, remedy)

    def visit_Call(self, node: cst.Call) -> None:
        builtin = self.builtin(node.func, set(self._REPLACEMENTS))
        if builtin is None:
            return
        for arg in node.args:
            if arg.keyword is not None:
                continue
            value = self.facts.value_of(arg.value)
            if value.abstract:
                self._report(
                    node,
                    f"builtin `{builtin}()`",
                    arg.value,
                    value,
                    f"`{self._REPLACEMENTS[builtin]}`",
                    self._elementwise(node, builtin),
                    tuple(other.value for other in node.args if other is not arg),
                )
                return
        if builtin != "bool" and len(node.args) == 1 and not node.args[0].star:
            # `any(jnp.isnan(g).any() for g in leaves)`, `max(losses)`: the truth or order of each tracer.
            operand = node.args[0].value
            element = self.facts.iterated(operand)
            if element.abstract:
                if isinstance(operand, (cst.GeneratorExp, cst.ListComp)):
                    operand = operand.elt
                self._report(node, f"builtin `{builtin}()`", operand, element, f"`jnp.{builtin}(jnp.stack([...]))`")

    def _elementwise(self, node: cst.Call, builtin: str) -> FixPlan | None:
        """`min(a, b)` -> `jnp.minimum(a, b)`: the same value for two operands, computed in JAX."""
        if builtin not in ("min", "max") or len(node.args) != 2 or any(a.keyword or a.star for a in node.args):
            return None
        return self.rename(node.func, f"{JAX_NUMPY}{builtin}imum", SAFE if only_traced(self) else UNSAFE)
