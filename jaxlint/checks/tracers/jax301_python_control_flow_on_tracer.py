"""JAX301 python-control-flow-on-tracer: Python `if`, `while`, `assert` or a conditional expression on a
traced value."""

from __future__ import annotations

import libcst as cst

from jaxlint.checks.base import Rule, code
from jaxlint.checks.tracers._common import BRANCHES, static_hint
from jaxlint.model.functions import BOOL_CONVERSION_ERRORS


class PythonControlFlowOnTracer(Rule):
    code = "JAX301"
    trace_error = "TracerBoolConversionError"
    name = "python-control-flow-on-tracer"
    summary = "Python `if`, `while`, `assert` or a conditional expression on a traced value"
    what_it_does = (
        "Flags `if`, `elif`, `while`, `assert`, `a if cond else b` and comprehension `if` clauses whose "
        "condition is a traced value inside a jitted (or vmapped, pmapped, lax-body) function: a comparison "
        "or arithmetic on a traced argument, a `jnp` result computed from one, and the same in helper "
        "functions called with traced arguments. A flag (a parameter defaulting to `True` or `False`) counts as "
        "traced when a call in the module passes it through `jax.jit` (or `jax.checkpoint`), by position or by "
        "keyword, and the transform's options do not make it static: a call of the function it decorates, of "
        "the wrapper itself (`jax.jit(f)(x, True)`), or of a name bound only to the wrapper "
        "(`g = jax.jit(f)`, then `g(x, True)`), in the function's module or another one "
        "(`jax.jit(ops.f)(x, True)`). The transform traces every argument it is given."
    )
    why_bad = (
        "Under `jit`, arguments are abstract tracers: their values are unknown while Python runs the function "
        "once to trace it, so Python cannot decide which branch to take. JAX raises "
        "`TracerBoolConversionError` (a `ConcretizationTypeError`), usually far from the jit call."
    )
    example = "@jax.jit\ndef relu(x):\n    if x > 0:\n        return x\n    return 0.0\n"
    use_instead = (
        "@jax.jit\n"
        "def relu(x):\n"
        "    return jnp.where(x > 0, x, 0.0)\n\n\n"
        "# or, when the condition is a configuration value, make it static:\n"
        "@partial(jax.jit, static_argnames=('training',))\n"
        "def step(x, training):\n"
        "    if training:\n"
        "        x = dropout(x)\n"
        "    return x\n"
    )
    not_flagged = (
        "Conditions on static values: shapes (`x.shape[0] > 2`, `x.ndim`), `len(x)`, `x is None`, "
        "`isinstance(...)`, static arguments, literals and module constants. The truth value of a bare "
        "argument (`if params:`), which may be a pytree of tracers whose truth value is fine. Flags that "
        "no call passes (they keep their Python default), flags passed in a call of the plain name of a "
        "function wrapped by a call (`f(x, True)` next to `g = jax.jit(f)`: no transform runs), and flags "
        "passed to a transform that hands a Python value over as it is (`jax.vmap` with `in_axes=None`, "
        "`jax.grad` past its `argnums`). Functions "
        "under `grad` alone, whose tracers carry concrete values and support Python control flow. "
        "Code outside traced functions, and code in a `try` whose handler catches "
        "`jax.errors.ConcretizationTypeError` (or `TracerBoolConversionError`, or names `TypeError` and does not "
        "raise again; not a catch-all `except Exception:`): it expects the error."
        " Nor code of a function whose every trace starts in a `try` that catches this error and does not "
        "raise again (a lesson's failing first attempt, `try: jax.jit(f)(x) except Exception as e: print(e)`)."
    )
    verify = "`--verify` traces the function and expects `TracerBoolConversionError` at this line."

    def _check(self, test: cst.BaseExpression, keyword: str, remedy: str) -> None:
        if self.facts.catches(BOOL_CONVERSION_ERRORS):
            return
        if isinstance(test, cst.BooleanOperation):
            # `if a and b` asks for the truth of `b` too; JAX302 reports a traced `a`.
            left = self.facts.value_of(test.left)
            if left.abstract:
                return
            value = self.facts.right_operand(test)
            test = test.right
        else:
            value = self.facts.value_of(test)
        if not value.abstract:
            return
        hint = static_hint(self, value, test)  # now: it reads the function around this point
        self.report(
            test,
            lambda line_of: (
                f"Python `{keyword}` on a traced value raises TracerBoolConversionError: `{code(test)}` is "
                f"traced ({value.describe(code(test), line_of)}); use {remedy}{hint}"
            ),
            because=value,
        )

    def visit_If(self, node: cst.If) -> None:
        self._check(node.test, *BRANCHES[cst.If])

    def visit_While(self, node: cst.While) -> None:
        self._check(node.test, *BRANCHES[cst.While])

    def visit_Assert(self, node: cst.Assert) -> None:
        self._check(node.test, *BRANCHES[cst.Assert])

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._check(node.test, *BRANCHES[cst.IfExp])

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self._check(node.test, "if", "`jnp.where` with a mask")
