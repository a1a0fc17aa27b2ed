"""Dtypes, as data: which ones jax truncates without `jax_enable_x64`, and where jax functions take one."""

import re

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
# Text that every request of a 64-bit dtype contains: a module without it asks for none.
WIDE_DTYPE_WORD = re.compile(r"\b(?:" + "|".join(sorted(NARROWED)) + r")\b")

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
