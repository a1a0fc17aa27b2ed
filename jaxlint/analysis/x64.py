"""64-bit dtypes, and whether a module turns on `jax_enable_x64` (a fact the whole project shares).

Without `jax_enable_x64`, jax truncates every requested 64-bit dtype to its 32-bit sibling (with a
`UserWarning`). A module that sets the flag, reads it or uses the `jax.enable_x64` context is aware of
it, and so is every module of its project (interface.py carries the fact).
"""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.names import Names

# Dtypes jax truncates without x64 (by their names and strings), and what they become.
NARROWED = {
    "float64": "float32", "double": "float32", "f8": "float32",
    "int64": "int32", "longlong": "int32", "i8": "int32",
    "uint64": "uint32", "ulonglong": "uint32", "u8": "uint32",
    "complex128": "complex64", "cdouble": "complex64", "c16": "complex64",
}
_TYPES = ("float64", "double", "int64", "longlong", "uint64", "ulonglong", "complex128", "cdouble")
WIDE_DTYPES = frozenset(f"{module}.{name}" for module in ("jax.numpy", "numpy") for name in _TYPES)
WIDE_STRINGS = frozenset(NARROWED)

# Functions of jax that take a dtype only to describe it, never to make an array of it.
DTYPE_QUERIES = frozenset(
    f"jax.numpy.{name}" for name in (
        "dtype", "finfo", "iinfo", "issubdtype", "isdtype", "promote_types", "result_type", "can_cast",
    )
)

# The dtype argument by position, for the array constructors that take one positionally.
DTYPE_POSITION = {
    **{f"jax.numpy.{name}": 1 for name in (
        "zeros", "ones", "empty", "array", "asarray", "zeros_like", "ones_like", "empty_like",
    )},
    "jax.numpy.full": 2, "jax.numpy.full_like": 2, "jax.numpy.arange": 3,
    "jax.lax.convert_element_type": 1, "jax.lax.full": 2, "jax.lax.full_like": 2,
}
# Modules whose functions make jax arrays of the dtype they are given.
ARRAY_MODULES = ("jax.numpy.", "jax.lax.", "jax.random.", "jax.nn.")

_FLAGS = ("jax_enable_x64", "JAX_ENABLE_X64")
_CONTEXTS = frozenset({"jax.enable_x64", "jax.experimental.enable_x64", "jax.experimental.disable_x64"})
_ATTRIBUTES = frozenset({"jax_enable_x64", "x64_enabled", "enable_x64"})


def is_wide_dtype(expr: cst.BaseExpression, names: Names) -> str | None:
    """The 64-bit dtype `expr` names (`jnp.float64`, `np.int64`, `"complex128"`), else None."""
    if isinstance(expr, cst.SimpleString):
        text = expr.evaluated_value
        return text if isinstance(text, str) and text in WIDE_STRINGS else None
    qualified = names.qualified(expr)
    return qualified.rpartition(".")[2] if qualified in WIDE_DTYPES else None


def _flag_named(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.SimpleString) and expr.evaluated_value in _FLAGS


def x64_call(call: cst.Call, names: Names) -> bool:
    """A call that sets or reads the flag: `jax.config.update("jax_enable_x64", True)` (not `False`),
    `os.environ.setdefault("JAX_ENABLE_X64", "1")`, `jax.config.read(...)`, `with jax.enable_x64():`."""
    if names.qualified(call.func) in _CONTEXTS:
        return True
    if not call.args or not _flag_named(call.args[0].value):
        return False
    second = call.args[1].value if len(call.args) > 1 else None
    return not (isinstance(second, cst.Name) and second.value == "False")


def x64_subscript(node: cst.Subscript) -> bool:
    """`os.environ["JAX_ENABLE_X64"]` (set or read)."""
    return any(isinstance(element.slice, cst.Index) and _flag_named(element.slice.value)
               for element in node.slice)


def x64_attribute(node: cst.Attribute) -> bool:
    """`jax.config.jax_enable_x64`, `jax.config.x64_enabled`, `jax.experimental.enable_x64`."""
    return node.attr.value in _ATTRIBUTES
