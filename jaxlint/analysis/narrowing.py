"""What an `isinstance` test says about a JAX array: a JAX array, concrete or a tracer, is never a NumPy
array or a Python number, and always a `jax.Array`. Code that dispatches on the type of its argument
(`if isinstance(x, np.ndarray): np.allclose(...)  elif isinstance(x, jax.Array): jnp.allclose(...)`)
never sends an array or a tracer down the other branches."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.names import Names
from jaxlint.model.functions import ARRAY_CLASSES, NOT_ARRAY_CLASSES


def not_an_array(test: cst.BaseExpression, names: Names) -> tuple[str, bool] | None:
    """For `isinstance(x, T)`: (`x`, True) when no JAX array passes the test (then `x` is no array in
    the body), (`x`, False) when every JAX array passes it (then `x` is no array in the `else`); the
    other way round for `not isinstance(x, T)`."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        found = not_an_array(test.expression, names)
        return None if found is None else (found[0], not found[1])
    if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance"
            and len(test.args) == 2 and isinstance(test.args[0].value, cst.Name)):
        return None
    types = test.args[1].value
    elements = [element.value for element in types.elements] if isinstance(types, cst.Tuple) else [types]
    classes = {names.qualified(element) or (element.value if isinstance(element, cst.Name) else None)
               for element in elements}
    subject = test.args[0].value.value
    if classes <= NOT_ARRAY_CLASSES:
        return subject, True
    if classes & ARRAY_CLASSES:
        return subject, False
    return None
