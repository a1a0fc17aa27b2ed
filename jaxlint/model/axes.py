"""Where `jax.numpy` functions and array methods take an axis, and what a traced axis raises.

Each entry was checked under `jax.jit` with jax 0.10.2: an axis must be a Python int while tracing.
"""

from __future__ import annotations

_CONCRETIZATION = "ConcretizationTypeError"
_INDEX = "TracerIntegerConversionError"
_UNHASHABLE = "ValueError (non-hashable static argument)"


def _entries(position: int, error: str, names: str, prefix: str = "") -> dict[str, tuple[int, str]]:
    return {prefix + name: (position, error) for name in names.split()}


# `jnp.<function>(x, axis)`: qualified name -> (the axis's position, the error a traced one raises).
FUNCTION_AXES: dict[str, tuple[int, str]] = {
    **_entries(
        1,
        _CONCRETIZATION,
        "sum prod mean max min amax amin all any std var ptp squeeze expand_dims flip average",
        "jax.numpy.",
    ),
    **_entries(1, _INDEX, "argmax argmin nanargmax nanargmin concatenate stack", "jax.numpy."),
    **_entries(
        1,
        _UNHASHABLE,
        "cumsum cumprod nansum nanprod nanmean nanmax nanmin nanstd nanvar median nanmedian count_nonzero argsort sort",
        "jax.numpy.",
    ),
    **_entries(2, _CONCRETIZATION, "roll", "jax.numpy."),
    **_entries(2, _INDEX, "take", "jax.numpy."),
    **_entries(2, _UNHASHABLE, "diff quantile percentile", "jax.numpy."),
}
# `x.<method>(axis)` on a JAX array: method name -> (the axis's position, the error).
METHOD_AXES: dict[str, tuple[int, str]] = {
    **_entries(0, _CONCRETIZATION, "sum prod mean max min all any std var squeeze ptp"),
    **_entries(0, _INDEX, "argmax argmin"),
    **_entries(0, _UNHASHABLE, "cumsum cumprod sort argsort"),
    **_entries(1, _CONCRETIZATION, "repeat"),
    **_entries(1, _INDEX, "take"),
}


def traced_axis_error(function: str | None, method: str | None) -> str:
    """What a traced `axis=` raises in this function or method (ConcretizationTypeError when unlisted)."""
    entry = FUNCTION_AXES.get(function or "") or METHOD_AXES.get(method or "")
    return entry[1] if entry else _CONCRETIZATION
