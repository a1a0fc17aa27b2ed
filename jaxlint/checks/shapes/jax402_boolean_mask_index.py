"""JAX402 boolean-mask-index: Indexing with a traced boolean mask (`x[mask]`, `x.at[mask]`)."""

from __future__ import annotations

import libcst as cst

from jaxlint.checks.base import FixPlan, Rule, code
from jaxlint.checks.shapes._common import indexed, maybe_array
from jaxlint.diagnostics import UNSAFE
from jaxlint.model.shapes import WHERE


class BooleanMaskIndex(Rule):
    code = "JAX402"
    trace_error = "NonConcreteBooleanIndexError"
    name = "boolean-mask-index"
    summary = "Indexing with a traced boolean mask (`x[mask]`, `x.at[mask]`)"
    what_it_does = (
        "Flags `x[mask]` and `x.at[mask]` where `mask` is a traced boolean array inside a jitted (or "
        "vmapped, lax-body) function or a helper it calls with traced arguments: a comparison (`x > 0`), "
        "`~m`, `m & n`, `m | n`, or a boolean `jnp` function such as `jnp.isnan(x)` or "
        "`jnp.logical_and(a, b)`. `x` is a JAX array, or anything not known to be something else."
    )
    why_bad = (
        "The result of `x[mask]` has as many elements as `mask` has `True` values, which is only known "
        "when the compiled code runs; XLA needs the size while JAX traces. JAX raises "
        "`NonConcreteBooleanIndexError: Array boolean indices must be concrete`. The same holds for "
        "`x.at[mask].set(v)`."
    )
    example = "@jax.jit\ndef clean(x):\n    x = x.at[jnp.isnan(x)].set(0.0)\n    return x[x > 0].sum()\n"
    use_instead = (
        "@jax.jit\n"
        "def clean(x):\n"
        "    x = jnp.where(jnp.isnan(x), 0.0, x)\n"
        "    return jnp.where(x > 0, x, 0.0).sum()  # or x.sum(where=x > 0)\n"
    )
    not_flagged = (
        "`jnp.where(mask, a, b)` and reductions with `where=`; integer indices and index arrays, traced or "
        "not (`x[i]`, `x[idx]`); static masks (NumPy arrays, static arguments); masks jaxlint cannot show "
        "to be traced booleans; subscripts of Python lists and tuples, NumPy arrays and shapes; code "
        "outside traced functions; functions under `grad` alone, whose tracers carry values."
        " Nor code of a function whose every trace starts in a `try` that catches this error and does not "
        "raise again (a lesson's failing first attempt, `try: jax.jit(f)(x) except Exception as e: print(e)`)."
    )
    verify = "`--verify` traces the function and expects `NonConcreteBooleanIndexError` at this line."
    fixable = True
    fix_safety = (
        "Unsafe: `x.at[mask].set(v)` becomes `jnp.where(mask, v, x)`. That is the same update when `mask` "
        "has the shape of `x` and `v` is a scalar or has that shape too; a mask over the leading axes only, "
        "or `v` holding just the selected values, broadcasts differently, so review each fix. Reads "
        "(`x[mask]`) have no automatic fix: the right replacement depends on what the code does next."
    )

    def __init__(self, facts, reporter) -> None:
        super().__init__(facts, reporter)
        self._set_calls: dict[int, cst.Call] = {}  # `x.at[m]` -> its `x.at[m].set(v)` call

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (
            type(func) is cst.Attribute
            and func.attr.value == "set"
            and isinstance(func.value, cst.Subscript)
            and len(node.args) == 1
            and node.args[0].keyword is None
            and not node.args[0].star
        ):
            self._set_calls[id(func.value)] = node

    def _where(self, node: cst.Subscript, mask: cst.BaseExpression, base: cst.BaseExpression) -> FixPlan | None:
        call = self._set_calls.get(id(node))
        spelled = self.spell(WHERE)
        if call is None or len(node.slice) != 1 or spelled is None:
            return None
        name, imports = spelled
        new = (f"{name}(", mask, ", ", call.args[0].value, ", ", base, ")")
        return FixPlan(f"use `{name}(mask, value, array)`", ((call, new),), UNSAFE, imports)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        base, update = indexed(node)
        if not maybe_array(self, base):
            return
        for element in node.slice:
            if not isinstance(element.slice, cst.Index):
                continue
            mask = element.slice.value
            value = self.facts.value_of(mask)
            if not (value.boolean and value.staged):
                continue
            if update:
                fix = f"`jnp.where({code(mask)}, new_values, {code(base)})` instead of `.at[...]`"
            else:
                fix = (
                    f"`jnp.where({code(mask)}, {code(base)}, 0)`, a reduction with "
                    f"`where={code(mask)}`, or `jnp.nonzero({code(mask)}, size=k)`"
                )
            self.report(
                node,
                lambda line_of: (
                    f"indexing with a traced boolean mask raises NonConcreteBooleanIndexError (the result size "
                    f"depends on the data): `{code(mask)}` is traced ({value.describe(code(mask), line_of)}); "
                    f"use {fix}"
                ),
                self._where(node, mask, base) if update else None,
                because=value,
            )
            return
