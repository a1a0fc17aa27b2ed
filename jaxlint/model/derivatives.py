"""What JAX's derivative rules give for the functions the gradient rules reason about (checked on jax 0.10.2).

`UNBOUNDED` functions have an infinite or undefined derivative on part of their domain: in reverse mode,
a zero cotangent times that derivative is NaN, which is why `jnp.where` does not protect them.
`ZERO_DERIVATIVE` functions are piecewise constant: JAX defines their derivative as zero everywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


_INF = float("inf")
_POSITIVE = ((0.0, _INF),)
_NONZERO = ((-_INF, 0.0), (0.0, _INF))


@dataclass(frozen=True)
class Unbounded:
    """Where a function's derivative blows up, and a value of its operand that is safe to put there instead."""

    where: str  # for a message: `at 0`
    safe: str  # a literal inside the domain: the double-where idiom's filler
    finite_on: tuple[tuple[float, float], ...] = _POSITIVE  # open intervals where the derivative is finite


_LOG = Unbounded("at 0 (and undefined below)", "1.0")
UNBOUNDED: dict[str, Unbounded] = {
    "jax.numpy.log": _LOG,
    "jax.numpy.log2": _LOG,
    "jax.numpy.log10": _LOG,
    "jax.lax.log": _LOG,
    "jax.numpy.log1p": Unbounded("at -1 (and undefined below)", "0.0", ((-1.0, _INF),)),
    "jax.lax.log1p": Unbounded("at -1 (and undefined below)", "0.0", ((-1.0, _INF),)),
    "jax.numpy.sqrt": Unbounded("at 0 (and undefined below)", "1.0"),
    "jax.lax.sqrt": Unbounded("at 0 (and undefined below)", "1.0"),
    "jax.lax.rsqrt": Unbounded("at 0 (and undefined below)", "1.0"),
    "jax.numpy.cbrt": Unbounded("at 0", "1.0", _NONZERO),
    "jax.numpy.reciprocal": Unbounded("at 0", "1.0", _NONZERO),
    "jax.numpy.arcsin": Unbounded("at -1 and 1 (and undefined beyond)", "0.0", ((-1.0, 1.0),)),
    "jax.numpy.arccos": Unbounded("at -1 and 1 (and undefined beyond)", "0.0", ((-1.0, 1.0),)),
    "jax.numpy.arctanh": Unbounded("at -1 and 1 (and undefined beyond)", "0.0", ((-1.0, 1.0),)),
    "jax.numpy.arccosh": Unbounded("at 1 (and undefined below)", "2.0", ((1.0, _INF),)),
}
# `a / b` and the functions spelling it: the derivative blows up where the divisor is 0.
DIVISIONS = frozenset({"jax.numpy.divide", "jax.numpy.true_divide", "jax.lax.div"})
DIVISION = Unbounded("where the divisor is 0", "1.0", _NONZERO)
# `1 / y` spelt as a function: like a nonzero number over `y`, it is 0 only where `y` is infinite, so a division by
# it has no bad point that a `where` could hide.
RECIPROCALS = frozenset({"jax.numpy.reciprocal", "jax.lax.reciprocal"})
# `x ** p` with a literal `p` that is fractional (infinite at 0 when below 1, undefined below 0) or negative.
POWERS = frozenset({"jax.numpy.power", "jax.numpy.float_power", "jax.lax.pow"})
POWER = Unbounded("at 0 or below 0 for this exponent", "1.0")
# Functions that never decrease, by what they compute on Python floats: an operand known to lie in [lo, hi]
# gives a result in [f(lo), f(hi)] (to tell that a `where` branch never meets its bad point).
INCREASING = {
    "jax.numpy.exp": math.exp,
    "jax.numpy.expm1": math.expm1,
    "jax.numpy.log": math.log,
    "jax.numpy.log1p": math.log1p,
    "jax.numpy.sqrt": math.sqrt,
    "jax.numpy.tanh": math.tanh,
    "jax.numpy.arctan": math.atan,
    "jax.numpy.sinh": math.sinh,
}
# `jnp.where(c, a, b)` and `lax.select(c, a, b)`: both branches are computed, and both differentiated.
SELECTS = frozenset({"jax.numpy.where", "jax.lax.select"})
# Calls whose result is safe to give those functions whatever their operand: the double-where idiom's inner
# `where`, a clip into the domain, or no gradient at all.
SANITIZERS = frozenset(
    {
        "jax.numpy.where",
        "jax.lax.select",
        "jax.numpy.maximum",
        "jax.numpy.minimum",
        "jax.numpy.clip",
        "jax.numpy.fmax",
        "jax.numpy.fmin",
        "jax.lax.max",
        "jax.lax.min",
        "jax.lax.clamp",
        "jax.lax.stop_gradient",
        "jax.numpy.nan_to_num",
    }
)

# Piecewise-constant functions: their derivative is 0 everywhere (jax 0.10.2).
ZERO_DERIVATIVE = frozenset(
    "jax.numpy." + name
    for name in """
    round around rint floor ceil trunc fix sign argmax argmin argsort nanargmax nanargmin floor_divide
    isnan isinf isfinite isneginf isposinf isclose signbit equal not_equal greater greater_equal less
    less_equal logical_and logical_or logical_not logical_xor searchsorted digitize count_nonzero
    """.split()
) | frozenset({"jax.lax.round", "jax.lax.floor", "jax.lax.ceil", "jax.lax.sign", "jax.lax.argmax", "jax.lax.argmin"})
# Dtypes that cut the derivative when a value is cast to them: `x.astype(jnp.int32)`.
INTEGER_DTYPES = frozenset(
    {"int", "bool"}
    | {"jax.numpy." + name for name in "int8 int16 int32 int64 uint8 uint16 uint32 uint64 bool_ bool integer".split()}
    | {"numpy." + name for name in "int8 int16 int32 int64 uint8 uint16 uint32 uint64 bool_ integer".split()}
)
