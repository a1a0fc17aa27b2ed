"""Which exceptions are jax's verdict on the code, and which rule each one confirms. No jax import here:
the worker sends class names (the exception's MRO) and the first line of the message."""

from __future__ import annotations

import re

from jaxlint.model.confirmations import EXPECTED, OBSERVED

OBSERVED_DETAIL = {
    "print": "a tracer reached print here while tracing",
    "log": "a tracer reached logging here while tracing",
    "debug-print": "a tracer was formatted into jax.debug.print's format string here",
    "host-state": "{detail}: the value is frozen into the traced function",
}
# Confirmed by a warning recorded at the line.
WARNED = {"JAX802": ("DeprecationWarning", ""), "JAX701": ("UserWarning", "is not available")}
LEAK = "JAX308"
PRINTED = "JAX306"  # a tracer printed where no finding said so is a new finding of this code
PROBED = "JAX801"  # also confirmed when the installed jax lacks the name
# Confirmed by a function compiled again and again at one call (observe.py's `recompiled` events).
RECOMPILED = ("JAX501", "JAX502", "JAX510", "JAX511")
CONFIRMABLE = frozenset({*EXPECTED, *(c for codes in OBSERVED.values() for c in codes), *WARNED, LEAK, *RECOMPILED})

# Runtime-only findings: an error under jit, or recompiles, that no static rule predicted.
TRACE_ERROR, TRACER_LEAK, KEY_REUSE, RECOMPILE = "JAX010", "JAX011", "JAX012", "JAX013"
RUNTIME_CODES = (TRACE_ERROR, TRACER_LEAK, KEY_REUSE, RECOMPILE)
_TRACER_ERRORS = (
    "ConcretizationTypeError",
    "TracerArrayConversionError",
    "TracerIntegerConversionError",
    "NonConcreteBooleanIndexError",
)


def matches(code: str, classes: list[str], message: str) -> bool:
    return any(cls in classes and fragment in message for cls, fragment in EXPECTED.get(code, ()))


def is_leak(classes: list[str], message: str) -> bool:
    return "UnexpectedTracerError" in classes or message.startswith("Leaked trace")


def runtime_code(classes: list[str], message: str) -> str | None:
    """The JAX0xx code of an error that is jax rejecting the traced code, or None for anything else
    (an error that may come from the arguments jaxlint made up)."""
    if "KeyReuseError" in classes:
        return KEY_REUSE
    if is_leak(classes, message):
        return TRACER_LEAK
    if any(cls in classes for cls in _TRACER_ERRORS) or any(
        matches(code, classes, message) for code in ("JAX101", "JAX404")
    ):
        return TRACE_ERROR
    if matches("JAX401", classes, message) and "Tracer" in message:  # not a shape the arguments made float
        return TRACE_ERROR
    return None


def is_jax_error(classes: list[str], message: str) -> bool:
    return runtime_code(classes, message) is not None


_MISSING_MODULE = re.compile(r"""No module named ['"](?P<module>[\w.]+)['"]""")
_JAX_MODULE = re.compile(r"""No module named ['"](jax|jaxlib)(\.|['"])""")
# Errors that say nothing about the user's code: the environment it runs in, or a checker that failed.
# Never a finding: "could not verify" with the reason.
_ENVIRONMENT = (
    ("ModuleNotFoundError", "a module it imports is not installed"),
    ("FileNotFoundError", "a file it reads is not there"),
    ("NotADirectoryError", "a path it reads is wrong"),
    ("IsADirectoryError", "a path it reads is wrong"),
)


def unverifiable(error: dict) -> str:
    """Why an error is no verdict on the user's code ("" when it may be one): a checker of jax's (or
    jaxlint's) failed inside itself, or a module or file the code needs is missing. A missing jax
    module is a removed API (JAX801), a verdict."""
    if error.get("checker") and runtime_code(error["classes"], error["message"]) is None:
        return f"{error['checker']} failed inside itself"
    missing_jax = _JAX_MODULE.search(error["message"]) is not None
    for cls, reason in _ENVIRONMENT:
        if cls in error["classes"] and not (cls == "ModuleNotFoundError" and missing_jax):
            return reason
    return ""


def missing_module(error: dict) -> str:
    """The module an environment error says is not installed ("" for any other error)."""
    found = _MISSING_MODULE.search(error["message"])
    return found["module"] if found and "ModuleNotFoundError" in error["classes"] and unverifiable(error) else ""
