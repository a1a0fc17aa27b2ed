"""Which exceptions are jax's verdict on the code, and which rule each one confirms. No jax import here:
the worker sends class names (the exception's MRO) and the first line of the message."""

from __future__ import annotations

# code -> the (class name, message fragment) pairs that confirm it; "" matches any message.
EXPECTED: dict[str, tuple[tuple[str, str], ...]] = {
    "JAX101": (("TypeError", "immutable"),),
    "JAX201": (("KeyReuseError", ""),),
    "JAX202": (("KeyReuseError", ""),),
    "JAX301": (("TracerBoolConversionError", ""),),
    "JAX302": (("TracerBoolConversionError", ""),),
    "JAX303": (("ConcretizationTypeError", ""),),
    "JAX304": (("TracerIntegerConversionError", ""), ("TracerArrayConversionError", ""),
               ("ConcretizationTypeError", "")),
    "JAX305": (("TracerArrayConversionError", ""), ("ConcretizationTypeError", "")),
    "JAX401": (("TypeError", "Shapes must be"), ("ConcretizationTypeError", ""),
               ("TracerIntegerConversionError", "")),
    "JAX402": (("NonConcreteBooleanIndexError", ""),),
    "JAX403": (("ConcretizationTypeError", ""),),
    "JAX404": (("IndexError", "Slice entries must be static"),),
    "JAX701": (("UserWarning", "is not available"),),
}
# Confirmed by what tracing observed rather than by an exception.
OBSERVED = {"JAX306": "print", "JAX307": "debug-print"}
LEAK = "JAX308"
CONFIRMABLE = frozenset({*EXPECTED, *OBSERVED, LEAK})

# Runtime-only findings: an error under jit that no static rule predicted.
TRACE_ERROR, TRACER_LEAK, KEY_REUSE = "JAX010", "JAX011", "JAX012"
RUNTIME_CODES = (TRACE_ERROR, TRACER_LEAK, KEY_REUSE)
_TRACER_ERRORS = ("ConcretizationTypeError", "TracerArrayConversionError", "TracerIntegerConversionError",
                  "NonConcreteBooleanIndexError")


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
            matches(code, classes, message) for code in ("JAX101", "JAX401", "JAX404")):
        return TRACE_ERROR
    return None


def is_jax_error(classes: list[str], message: str) -> bool:
    return runtime_code(classes, message) is not None
