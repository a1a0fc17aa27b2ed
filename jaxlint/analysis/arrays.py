"""Which expressions are known to produce a JAX array.

Precision first: a call counts only when every way of calling it returns one array.
Functions that may return a tuple, a list, a function, a dtype or a Python value are left out.
"""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.calls import argument, arguments
from jaxlint.analysis.names import Names
from jaxlint.model.functions import (
    ARRAY_NAMESPACES,
    ARRAY_TYPES,
    FUNCTIONAL_UPDATE_METHODS,
    LIBRARY_ARRAY_FUNCTIONS,
    NOT_ONE_ARRAY,
    NOT_ONE_ARRAY_PREFIXES,
    NUMPY_ARRAY_FACTORIES,
    STATIC_RESULTS,
)
from jaxlint.model.shapes import WHERE


def produces_array(call: cst.Call, names: Names) -> bool:
    """True when `call` is a jax function (or a library's, model/libraries/) that always returns one array."""
    qualified = names.qualified(call.func)
    if qualified in LIBRARY_ARRAY_FUNCTIONS:
        # `numpyro.sample("w", d)`, not `numpyro.sample("y", d, obs=y)`
        return arguments(call).complete and argument(call, *LIBRARY_ARRAY_FUNCTIONS[qualified]) is None
    if qualified is None or not qualified.startswith(ARRAY_NAMESPACES):
        return False
    if qualified in NOT_ONE_ARRAY or qualified.startswith(NOT_ONE_ARRAY_PREFIXES):
        return False
    if qualified == WHERE and len(call.args) < 3:
        return False  # one-argument `where` is `nonzero`: a tuple
    return True


def produces_pytree(call: cst.Call, names: Names) -> bool:
    """True when `call` is a jax function whose result is a pytree of arrays (or one array in some calls):
    neither always one array nor a Python value (`lax.scan`, `jnp.split`, `lax.cond`)."""
    qualified = names.qualified(call.func)
    if qualified is None or not qualified.startswith(ARRAY_NAMESPACES) or qualified in STATIC_RESULTS:
        return False
    return not produces_array(call, names) and not qualified.startswith(NOT_ONE_ARRAY_PREFIXES)


def produces_host_array(call: cst.Call, names: Names) -> bool:
    """A NumPy array built on the host: `np.array([...])`, `np.zeros(3)`."""
    return names.qualified(call.func) in NUMPY_ARRAY_FACTORIES


def functional_update_receiver(call: cst.Call) -> cst.BaseExpression | None:
    """`x` for a call spelled `x.at[...].set(...)` (or another update method), else None."""
    func = call.func
    if type(func) is not cst.Attribute or func.attr.value not in FUNCTIONAL_UPDATE_METHODS:
        return None
    indexed = func.value
    if not isinstance(indexed, cst.Subscript):
        return None
    at = indexed.value
    if isinstance(at, cst.Attribute) and at.attr.value == "at":
        return at.value
    return None


def is_array_annotation(annotation: cst.BaseExpression, names: Names) -> bool:
    """`jax.Array`, `jnp.ndarray`, or a jaxtyping annotation such as `Float[Array, "n"]`."""
    if names.qualified(annotation) in ARRAY_TYPES:
        return True
    if isinstance(annotation, cst.Subscript):
        outer = names.qualified(annotation.value) or ""
        if outer.startswith("jaxtyping.") and annotation.slice:
            first = annotation.slice[0].slice
            if isinstance(first, cst.Index):
                return names.qualified(first.value) in ARRAY_TYPES
    return False
