"""64-bit dtypes, and whether a module turns on `jax_enable_x64` (a fact the whole project shares).

Without `jax_enable_x64`, jax truncates every requested 64-bit dtype to its 32-bit sibling (with a
`UserWarning`). A module that sets the flag, reads it or uses the `jax.enable_x64` context is aware of
it, and so is every module of its project (interface.py carries the fact).
"""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.names import Names
from jaxlint.model.dtypes import SUBDTYPE_TESTS, WIDE_DTYPES, WIDE_STRINGS, X64_CONTEXTS

_FLAGS = ("jax_enable_x64", "JAX_ENABLE_X64")
_ATTRIBUTES = frozenset({"jax_enable_x64", "x64_enabled", "enable_x64"})


def is_wide_dtype(expr: cst.BaseExpression, names: Names) -> str | None:
    """The 64-bit dtype `expr` names (`jnp.float64`, `np.int64`, `"complex128"`), else None."""
    if isinstance(expr, cst.SimpleString):
        text = expr.evaluated_value
        return text if isinstance(text, str) and text in WIDE_STRINGS else None
    qualified = names.qualified(expr)
    return qualified.rpartition(".")[2] if qualified in WIDE_DTYPES else None


def _flag_named(expr: cst.BaseExpression) -> bool:
    return type(expr) is cst.SimpleString and expr.evaluated_value in _FLAGS


def x64_call(call: cst.Call, names: Names) -> bool:
    """A call that sets or reads the flag: `jax.config.update("jax_enable_x64", True)` (not `False`),
    `os.environ.setdefault("JAX_ENABLE_X64", "1")`, `jax.config.read(...)`, `with jax.enable_x64():`."""
    if names.qualified(call.func) in X64_CONTEXTS:
        return True
    if not call.args or not _flag_named(call.args[0].value):
        return False
    second = call.args[1].value if len(call.args) > 1 else None
    return not (isinstance(second, cst.Name) and second.value == "False")


def x64_subscript(node: cst.Subscript) -> bool:
    """`os.environ["JAX_ENABLE_X64"]` (set or read)."""
    return any(isinstance(element.slice, cst.Index) and _flag_named(element.slice.value) for element in node.slice)


def x64_attribute(node: cst.Attribute) -> bool:
    """`jax.config.jax_enable_x64`, `jax.config.x64_enabled`, `jax.experimental.enable_x64`."""
    return node.attr.value in _ATTRIBUTES


def _array_dtype(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """`x` of `x.dtype`, `x.dtype.type`: the array whose dtype a test reads."""
    if type(expr) is cst.Attribute and expr.attr.value == "type":
        expr = expr.value
    if type(expr) is cst.Attribute and expr.attr.value == "dtype":
        return expr.value
    return None


def _all_wide(expr: cst.BaseExpression, names: Names) -> bool:
    if isinstance(expr, (cst.Tuple, cst.List, cst.Set)) and expr.elements:
        return all(is_wide_dtype(element.value, names) is not None for element in expr.elements)
    return is_wide_dtype(expr, names) is not None


def wide_dtype_test(test: cst.BaseExpression, names: Names) -> tuple[cst.BaseExpression, bool] | None:
    """A test of an array's dtype against 64-bit dtypes: (the array, True) when the test holds only for a
    64-bit array (`x.dtype == jnp.float64`, `jnp.float64 == x.dtype`, `x.dtype in (jnp.float64,
    jnp.complex128)`, `jnp.issubdtype(x.dtype, jnp.float64)`, `... and` one of them), (the array, False) when
    it fails only for one (`!=`, `not in`, `not (...)`). Without `jax_enable_x64` jax makes no 64-bit array,
    so for a JAX array the branch that needs one runs only with the flag on."""
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        found = wide_dtype_test(test.expression, names)
        return None if found is None else (found[0], not found[1])
    if type(test) is cst.BooleanOperation:
        want = isinstance(test.operator, cst.And)  # `a and b` holds only when both do; `a or b` fails only then
        for side in (test.left, test.right):
            found = wide_dtype_test(side, names)
            if found is not None and found[1] is want:
                return found
        return None
    if type(test) is cst.Call and names.qualified(test.func) in SUBDTYPE_TESTS and len(test.args) == 2:
        subject = _array_dtype(test.args[0].value)
        if subject is not None and _all_wide(test.args[1].value, names):
            return subject, True
        return None
    if not (type(test) is cst.Comparison and len(test.comparisons) == 1):
        return None
    target = test.comparisons[0]
    operator = type(target.operator)
    left, right = test.left, target.comparator
    if operator in (cst.In, cst.NotIn):
        subject = _array_dtype(left)
        if subject is not None and isinstance(right, (cst.Tuple, cst.List, cst.Set)) and _all_wide(right, names):
            return subject, operator is cst.In
        return None
    if operator not in (cst.Equal, cst.NotEqual, cst.Is, cst.IsNot):
        return None
    for array_side, dtype_side in ((left, right), (right, left)):
        subject = _array_dtype(array_side)
        if subject is not None and is_wide_dtype(dtype_side, names) is not None:
            return subject, operator in (cst.Equal, cst.Is)
    return None
