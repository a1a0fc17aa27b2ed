"""JAX401 traced-shape: A traced value used as a shape, size or count."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.values import Value
from jaxlint.checks.base import Rule, code
from jaxlint.checks.shapes._common import call_arguments, is_call_to, repeats_of, static_hint
from jaxlint.model.functions import JAX_RANDOM
from jaxlint.model.shapes import RANDOM_SHAPE_POSITION, SHAPE_ARGUMENTS


class TracedShape(Rule):
    code = "JAX401"
    trace_error = "TypeError"
    name = "traced-shape"
    summary = "A traced value used as a shape, size or count"
    what_it_does = (
        "Flags a traced value passed where JAX needs a concrete shape, size or count, inside a jitted "
        "(or vmapped, lax-body) function and the helpers it calls with traced arguments: the shape of "
        "`jnp.zeros/ones/empty/full` (and `shape=` of the `*_like` functions), `N`/`M` of `jnp.eye`/`jnp.tri`, "
        "`jnp.identity`, any bound of `jnp.arange`, `num` of `jnp.linspace/logspace/geomspace`, "
        "`num_classes` of `jax.nn.one_hot`, the sections of `jnp.split` (and `array_split`, `hsplit`...), "
        "the shape of `jnp.reshape`, `x.reshape(...)`, `jnp.resize` and `jnp.broadcast_to`, `reps` of "
        "`jnp.tile`, `pad_width` of `jnp.pad`, `minlength`/`length` of `jnp.bincount`, a traced argument "
        "used as `repeats` of `jnp.repeat`, `size=` of `jnp.nonzero`/`unique` and the like, the shapes "
        "and slice sizes of `lax.full/iota/broadcast/broadcast_in_dim/reshape/dynamic_slice`, "
        "`shape` of the `jax.random` samplers and `num` of `jax.random.split`. A shape tuple counts "
        "when any of its elements is traced. A `jnp`/`lax` result computed inside a staged function counts "
        "too, even from static values (`jnp.array(x.shape).prod()`): under `jit` it is a tracer."
    )
    why_bad = (
        "XLA compiles for fixed shapes, so JAX must know every shape while it traces the function; a "
        "tracer only has a value when the compiled code runs. JAX raises `TypeError: Shapes must be 1D "
        "sequences of concrete values of integer type` or a `ConcretizationTypeError`."
    )
    example = (
        "@jax.jit\n"
        "def positional_encoding(x, max_len):\n"
        "    pos = jnp.arange(max_len)\n"
        "    return x + jnp.sin(pos / 10000.0)[:, None]\n"
    )
    use_instead = (
        "@partial(jax.jit, static_argnames=('max_len',))\n"
        "def positional_encoding(x, max_len):\n"
        "    pos = jnp.arange(max_len)\n"
        "    return x + jnp.sin(pos / 10000.0)[:, None]\n\n\n"
        "# or derive the size from a shape, which is static:\n"
        "@jax.jit\n"
        "def positional_encoding(x):\n"
        "    pos = jnp.arange(x.shape[0])\n"
        "    return x + jnp.sin(pos / 10000.0)[:, None]\n"
    )
    not_flagged = (
        "Sizes computed from shapes in Python or NumPy (`x.shape[0] // 2`, `np.prod(x.shape)`, "
        "`math.prod(x.shape)`, `x.ndim`, `x.size`, `len(x)`), static arguments "
        "(`static_argnums`/`static_argnames`, by position or by keyword), literals, module constants and "
        "parameters with defaults; traced values where JAX accepts them (`jnp.full(shape, fill_value)` "
        "with a traced fill value, the start and stop of `jnp.linspace`); `repeats` computed from data "
        "inside the function, which JAX403 reports; functions under `grad` alone, whose tracers carry "
        "values; code outside traced functions."
        " Nor code of a function whose every trace starts in a `try` that catches this error and does not "
        "raise again (a lesson's failing first attempt, `try: jax.jit(f)(x) except Exception as e: print(e)`)."
    )
    verify = "`--verify` traces the function and expects the `TypeError` or `ConcretizationTypeError` at this line."

    def visit_Call(self, node: cst.Call) -> None:
        arguments = call_arguments(node)
        if arguments is None:
            return
        positional, keywords = arguments
        qualified = self.names.qualified(node.func) or ""
        if qualified in SHAPE_ARGUMENTS:
            what, positions, words = SHAPE_ARGUMENTS[qualified]
            candidates = [positional[i] for i in positions if i < len(positional)]
            candidates += [keywords[w] for w in words if w in keywords]
        elif qualified.startswith(JAX_RANDOM):
            what, position = "shape", RANDOM_SHAPE_POSITION.get(qualified[len(JAX_RANDOM) :])
            candidates = [keywords["shape"]] if "shape" in keywords else []
            if position is not None and position < len(positional):
                candidates.append(positional[position])
        elif is_call_to(self, node, "reshape"):
            what = "shape"  # `x.reshape(n, -1)`, `x.reshape((n, -1))`, `x.reshape(shape=...)`
            candidates = positional + ([keywords["shape"]] if "shape" in keywords else [])
        else:
            candidates = []
        for candidate in candidates:
            found = self._traced_part(candidate)
            if found is not None:
                self._report(node, what, *found)
                return
        repeats = repeats_of(self, node)
        if repeats is not None and repeats[1].container:
            # A traced argument used as a count; a repeats array computed from data is JAX403.
            self._report(node, "repeat count", *repeats)

    def _traced_part(self, expr: cst.BaseExpression) -> tuple[cst.BaseExpression, Value] | None:
        """The expression itself or an element of a shape tuple (`(n, 3)`, `(n,) + x.shape`), if traced."""
        if isinstance(expr, (cst.Tuple, cst.List)):
            parts = [element.value for element in expr.elements]
        elif (
            isinstance(expr, cst.BinaryOperation)
            and isinstance(expr.operator, cst.Add)
            and any(isinstance(side, (cst.Tuple, cst.List)) for side in (expr.left, expr.right))
        ):
            parts = [expr.left, expr.right]
        else:
            value = self.facts.value_of(expr)
            if value.staged_constant and self.facts.in_jaxpr_trace():
                return expr, value
            return (expr, value) if value.staged else None
        for part in parts:
            found = self._traced_part(part)
            if found is not None:
                return found
        return None

    def _report(self, node: cst.Call, what: str, operand: cst.BaseExpression, value: Value) -> None:
        hint = static_hint(self, value, operand)
        fix = (
            f"{hint}, or derive it from static shapes (`x.shape[0]`)"
            if hint
            else "use a static value instead (a Python int, a static argument, or one derived from `x.shape`)"
        )
        self.report(
            node,
            lambda line_of: (
                f"`{code(node.func)}` needs a concrete {what} while tracing, but `{code(operand)}` is traced "
                f"({value.describe(code(operand), line_of)}); {fix}"
            ),
            because=value,
        )
