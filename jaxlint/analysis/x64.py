"""64-bit dtypes, and whether a module turns on `jax_enable_x64` (a fact the whole project shares).

Without `jax_enable_x64`, jax truncates every requested 64-bit dtype to its 32-bit sibling (with a
`UserWarning`). A module that sets the flag, reads it or uses the `jax.enable_x64` context is aware of
it, and so is every module of its project (interface.py carries the fact).
"""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.names import Names
from jaxlint.model.dtypes import WIDE_DTYPES, WIDE_STRINGS

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
