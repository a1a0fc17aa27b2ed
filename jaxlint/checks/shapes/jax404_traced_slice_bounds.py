"""JAX404 traced-slice-bounds: A slice `x[i:j]` with a traced start, stop or step."""

from __future__ import annotations

import libcst as cst

from jaxlint.checks.base import Rule, code
from jaxlint.checks.shapes._common import indexed, maybe_array, static_hint


def _whole_axis(index: cst.BaseSlice) -> bool:
    """A bare `:`."""
    return isinstance(index, cst.Slice) and index.lower is None and index.upper is None and index.step is None


class TracedSliceBounds(Rule):
    code = "JAX404"
    trace_error = "IndexError"
    name = "traced-slice-bounds"
    summary = "A slice `x[i:j]` with a traced start, stop or step"
    what_it_does = (
        "Flags `x[i:j]`, `x[i:]`, `x[:j]`, `x[::s]` and `x.at[i:j]` where a bound is traced, inside a "
        "jitted (or vmapped, lax-body) function and the helpers it calls with traced arguments. `x` is a "
        "JAX array, or anything not known to be something else. `x[i:i + 3]` is flagged too: the size is "
        "static but the start is not."
    )
    why_bad = (
        "NumPy-style slices need static bounds: JAX raises `IndexError: Array slice indices must have "
        "static start/stop/step to be used with NumPy indexing syntax`. A window of static size at a "
        "traced position is `lax.dynamic_slice` (`lax.dynamic_update_slice` to write); a prefix of traced "
        "length has no fixed shape and needs a mask instead."
    )
    example = "@jax.jit\ndef window(x, start):\n    return x[start:start + 8]\n"
    use_instead = "@jax.jit\ndef window(x, start):\n    return lax.dynamic_slice_in_dim(x, start, 8)\n"
    not_flagged = (
        "A single traced index (`x[i]`, a dynamic index JAX supports), bounds computed from shapes "
        "(`x[: x.shape[0] // 2]`), static arguments, literals, slices of Python lists and tuples, NumPy "
        "arrays and shapes, code outside traced functions and functions under `grad` alone."
        " Nor code of a function whose every trace starts in a `try` that catches this error and does not "
        "raise again (a lesson's failing first attempt, `try: jax.jit(f)(x) except Exception as e: print(e)`)."
    )
    verify = "`--verify` traces the function and expects the `IndexError` at this line."

    def visit_Subscript(self, node: cst.Subscript) -> None:
        base, update = indexed(node)
        if not maybe_array(self, base):
            return
        for axis, element in enumerate(node.slice):
            bounds = element.slice
            if not isinstance(bounds, cst.Slice):
                continue
            for bound in (bounds.lower, bounds.upper, bounds.step):
                if bound is None:
                    continue
                value = self.facts.value_of(bound)
                if value.staged:
                    fix = self._fix(node, base, axis, bounds, update, static_hint(self, value, bound, False))
                    self.report(
                        node,
                        lambda line_of: (
                            f"slice bounds must be static, this raises IndexError: `{code(bound)}` is traced "
                            f"({value.describe(code(bound), line_of)}); {fix}"
                        ),
                        because=value,
                    )
                    return

    def _fix(
        self,
        node: cst.Subscript,
        base: cst.BaseExpression,
        axis: int,
        bounds: cst.Slice,
        update: bool,
        hint: str | None,
    ) -> str:
        otherwise = ", or keep the full shape and mask with `jnp.where`" + (f"; or {hint}" if hint else "")
        if update:
            return f"use `lax.dynamic_update_slice` for a window of static size at a traced start{otherwise}"
        start, stop = bounds.lower, bounds.upper
        alone = all(_whole_axis(e.slice) for i, e in enumerate(node.slice) if i != axis)
        if (
            alone
            and bounds.step is None
            and start is not None
            and isinstance(stop, cst.BinaryOperation)
            and isinstance(stop.operator, cst.Add)
            and stop.left.deep_equals(start)
        ):
            size = self.facts.value_of(stop.right)
            if not size.staged:
                where = f", axis={axis}" if axis else ""
                return f"use `lax.dynamic_slice_in_dim({code(base)}, {code(start)}, {code(stop.right)}{where})`"
        return f"use `lax.dynamic_slice_in_dim` for a window of static size at a traced start{otherwise}"
