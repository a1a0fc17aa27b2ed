"""What several JAX6xx rules share: reading a gradient transform's options and reverse mode."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.traced import TracedFunction, AppliedTransform
from jaxlint.analysis.values import Kind, Value
from jaxlint.model.transforms import REVERSE_MODE


def returns_aux(transform: AppliedTransform) -> bool | None:
    """The `has_aux=` a gradient transform was given: True, False, or None when only run time knows."""
    given = transform.keywords.get("has_aux")
    if given is None:
        return False
    if isinstance(given, cst.Name) and given.value in ("True", "False"):
        return given.value == "True"
    return None


def reverse_mode(value: Value, scope: TracedFunction | None) -> str | None:
    """The reverse-mode transform that differentiates a value, if one does: its tracer's own, one applied
    with it (`jax.jit(jax.grad(f))`), or one applied to the traced function around; none in the body of a function
    with its own derivative rule."""
    if value.kind is not Kind.TRACED or value.tracer is None:
        return None
    own = value.tracer.transform
    names = (own.name, *value.tracer.differentiated_by) if own.differentiates else ()
    if scope is not None:
        names += tuple(t.name for t in scope.transforms if t.differentiates)
    return next((name for name in names if name in REVERSE_MODE), None)
