"""JAX403 data-dependent-size: A function whose output size depends on traced data, called without `size=`."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.values import Value
from jaxlint.checks.base import Rule, code
from jaxlint.checks.shapes._common import call_arguments, is_call_to, repeats_of
from jaxlint.model.shapes import DATA_DEPENDENT, WHERE


_SIZE_HINTS = {
    "size": "pass `size=` with an upper bound (`fill_value=` pads the rest)",
    "length": "pass `length=` (the number of bins)",
    "num_segments": "pass `num_segments=` (the number of segments)",
}


class DataDependentSize(Rule):
    code = "JAX403"
    trace_error = "ConcretizationTypeError"
    name = "data-dependent-size"
    summary = "A function whose output size depends on traced data, called without `size=`"
    what_it_does = (
        "Flags, inside a jitted (or vmapped, lax-body) function, calls whose output size depends on the "
        "values of a traced argument: one-argument `jnp.where(c)`, `jnp.nonzero`, `x.nonzero()`, "
        "`jnp.argwhere`, `jnp.flatnonzero`, `jnp.unique` (and `unique_values`, `unique_counts`, "
        "`unique_inverse`, `unique_all`), `jnp.union1d`, `intersect1d`, `setdiff1d`, `setxor1d`, "
        "`jnp.extract` and `jnp.compress` (traced condition), `jnp.bincount` without `length=`, "
        "`jax.ops.segment_sum` (`segment_max`, `segment_min`, `segment_prod`) of traced segment ids without "
        "`num_segments=`, and "
        "`jnp.repeat` (or `x.repeat`) with `repeats` computed from traced data and no "
        "`total_repeat_length=`."
        " Also a call of `jax.jit` applied to one of these functions itself (`jax.jit(jax.ops.segment_sum)(data, "
        "ids)`): jit traces every argument it does not keep static."
    )
    why_bad = (
        "XLA needs every output shape at compile time, and these outputs have as many elements as the "
        "data dictates. JAX raises `ConcretizationTypeError` and points at the `size=` argument (or "
        "`length=`, `total_repeat_length=`) that fixes the output size, padding with `fill_value`."
    )
    example = "@jax.jit\ndef positive_indices(x):\n    return jnp.nonzero(x > 0)[0]\n"
    use_instead = (
        "@jax.jit\n"
        "def positive_indices(x):\n"
        "    # at most x.shape[0] indices; the rest filled with -1\n"
        "    return jnp.nonzero(x > 0, size=x.shape[0], fill_value=-1)[0]\n"
    )
    not_flagged = (
        "Calls that give `size=` (`length=` for `bincount`, `num_segments=` for the segment reductions, "
        "`total_repeat_length=` for `repeat`), "
        "three-argument `jnp.where(c, a, b)`, data that is static or unknown, `jnp.compress`/`extract` "
        "whose condition is static, a traced argument used as the count of `jnp.repeat` (JAX401), code "
        "outside traced functions, and functions under `grad` alone."
        " Nor code of a function whose every trace starts in a `try` that catches this error and does not "
        "raise again (a lesson's failing first attempt, `try: jax.jit(f)(x) except Exception as e: print(e)`)."
    )
    verify = "`--verify` traces the function and expects `ConcretizationTypeError` at this line."

    def visit_Call(self, node: cst.Call) -> None:
        arguments = call_arguments(node)
        if arguments is None:
            return
        positional, keywords = arguments
        qualified = self.names.qualified(node.func)
        data: list[cst.BaseExpression] = []
        if qualified in DATA_DEPENDENT:
            positions, size, size_position = DATA_DEPENDENT[qualified]
            one_arg_where = len(positional) == 1 and not keywords.keys() & {"x", "y"}
            sized = size in keywords or size_position is not None and size_position < len(positional)
            if not sized and (qualified != WHERE or one_arg_where):
                data = [positional[i] for i in positions if isinstance(i, int) and i < len(positional)]
                data += [keywords[k] for k in positions if isinstance(k, str) and k in keywords]
        elif is_call_to(self, node, "nonzero") and "size" not in keywords and isinstance(node.func, cst.Attribute):
            size, data = "size", [node.func.value]
        for operand in data:
            value = self.facts.value_of(operand)
            if value.staged:
                fix = _SIZE_HINTS[size]
                if qualified == WHERE:
                    fix += ", or use the three-argument `jnp.where(cond, x, y)`"
                self._report(node, fix, operand, value)
                return
        if not data:
            self._jitted_library(node)
        repeats = repeats_of(self, node)
        if repeats is not None and not repeats[1].container:
            self._report(node, "pass `total_repeat_length=` with the total output length", *repeats)

    def _jitted_library(self, node: cst.Call) -> None:
        """`jax.jit(jax.ops.segment_sum)(data, ids)`: jit traces every argument it does not keep static, so the
        library function runs on tracers."""
        callee = self.facts.jitted(node)
        if callee is None or callee.function is not None or callee.bound or not isinstance(callee.where, cst.Call):
            return
        jit = callee.where
        if not jit.args or jit.args[0].keyword is not None:
            return
        function = jit.args[0].value
        wrapped = self.names.qualified(function)
        if wrapped not in DATA_DEPENDENT or wrapped == WHERE:
            return
        positions, size, size_position = DATA_DEPENDENT[wrapped]
        given = callee.arguments(node, self.facts.target_version)
        if any(a.keyword == size or a.keyword is None and index == size_position for index, a in enumerate(given)):
            return  # (given traced, the size raises too; given static, it fixes it)
        for index, argument in enumerate(given):
            if argument.static is False and (
                index in positions if argument.keyword is None else argument.keyword in positions
            ):
                operand = code(argument.expr)
                self.report(
                    node,
                    lambda line_of: (
                        f"`{code(node.func)}` runs `{code(function)}` under `jax.jit` (applied at line "
                        f"{line_of(jit)}), which traces `{operand}`: its output size depends on traced data, "
                        f"which raises ConcretizationTypeError; {_SIZE_HINTS[size]}"
                    ),
                )
                return

    def _report(self, node: cst.Call, fix: str, operand: cst.BaseExpression, value: Value) -> None:
        self.report(
            node,
            lambda line_of: (
                f"the output size of `{code(node.func)}` depends on traced data, which raises "
                f"ConcretizationTypeError: `{code(operand)}` is traced ({value.describe(code(operand), line_of)}); "
                f"{fix}"
            ),
            because=value,
        )
