"""Traced scopes: which functions run under a JAX transform, and which parameters are tracers.

This module reads decorators in every spelling (`@jax.jit`, `@jit`, `@jax.jit(static_argnames=...)`,
`@partial(jax.jit, static_argnums=...)`) and resolves static and differentiated arguments the way
jax does. When an argument spec is not a literal, nothing is claimed about the parameters.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from jaxlint.analysis.arrays import is_array_annotation
from jaxlint.analysis.names import Names

# Transform families, by how they decide which arguments are traced.
_JIT = {  # every argument is traced except static_argnums/static_argnames
    "jax.jit", "jax.pjit", "jax.experimental.pjit.pjit", "jax.checkpoint", "jax.remat",
    "jax.ad_checkpoint.checkpoint", "jax.make_jaxpr", "jax.shard_map",
    "jax.experimental.shard_map.shard_map", "jax.named_call",
}
_GRAD = {  # only the argnums positions are traced
    "jax.grad", "jax.value_and_grad", "jax.jacfwd", "jax.jacrev", "jax.hessian",
}
_MAP = {  # positions whose in_axes is not None are traced
    "jax.vmap", "jax.pmap",
}
_CUSTOM = {  # every argument except nondiff_argnums is traced
    "jax.custom_jvp", "jax.custom_vjp",
}
_FILTERED = {  # non-array arguments are static: only array-annotated parameters are known traced
    "equinox.filter_jit", "equinox.filter_vmap", "equinox.filter_pmap", "equinox.filter_grad",
    "equinox.filter_value_and_grad", "equinox.filter_checkpoint", "flax.nnx.jit", "flax.nnx.vmap",
    "flax.nnx.grad", "flax.nnx.value_and_grad", "flax.nnx.remat",
}
TRANSFORMS = _JIT | _GRAD | _MAP | _CUSTOM | _FILTERED

_PARTIAL = {"functools.partial"}


@dataclass(frozen=True)
class Transform:
    """One transform applied to a function, with the keyword arguments it was given."""

    name: str
    node: cst.CSTNode
    keywords: dict[str, cst.BaseExpression] = field(default_factory=dict)


def decorator_transform(decorator: cst.Decorator, names: Names) -> Transform | None:
    """The transform a decorator applies, or None when it is not one."""
    expr = decorator.decorator
    qualified = names.qualified(expr)
    if qualified in TRANSFORMS:
        return Transform(qualified, decorator)
    if not isinstance(expr, cst.Call):
        return None
    func = names.qualified(expr.func)
    positional = [arg for arg in expr.args if arg.keyword is None and not arg.star]
    keywords = {arg.keyword.value: arg.value for arg in expr.args if arg.keyword is not None}
    if func in _PARTIAL and positional:
        inner = names.qualified(positional[0].value)
        if inner in TRANSFORMS and len(positional) == 1:
            return Transform(inner, decorator, keywords)
    if func in TRANSFORMS and not positional:
        return Transform(func, decorator, keywords)
    return None


@dataclass(frozen=True)
class Signature:
    """The parameters of a function, as jax resolves argnums against them."""

    positional: tuple[str, ...]
    keyword_only: tuple[str, ...]
    annotations: dict[str, cst.BaseExpression]

    @classmethod
    def of(cls, params: cst.Parameters) -> "Signature":
        positional = tuple(p.name.value for p in (*params.posonly_params, *params.params))
        keyword_only = tuple(p.name.value for p in params.kwonly_params)
        annotations = {
            p.name.value: p.annotation.annotation
            for p in (*params.posonly_params, *params.params, *params.kwonly_params)
            if p.annotation is not None
        }
        return cls(positional, keyword_only, annotations)

    @property
    def all(self) -> tuple[str, ...]:
        return self.positional + self.keyword_only


class _NotLiteral(Exception):
    """An argument spec that only run time can resolve."""


def _int_or_ints(expr: cst.BaseExpression | None, default: tuple[int, ...] = ()) -> tuple[int, ...]:
    if expr is None:
        return default
    if isinstance(expr, cst.Integer):
        return (int(expr.value),)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return tuple(-n for n in _int_or_ints(expr.expression))
    if isinstance(expr, (cst.Tuple, cst.List)):
        return tuple(n for element in expr.elements for n in _int_or_ints(element.value))
    raise _NotLiteral


def _str_or_strs(expr: cst.BaseExpression | None) -> tuple[str, ...]:
    if expr is None:
        return ()
    if isinstance(expr, cst.SimpleString):
        return (expr.evaluated_value,)
    if isinstance(expr, (cst.Tuple, cst.List)):
        return tuple(s for element in expr.elements for s in _str_or_strs(element.value))
    raise _NotLiteral


def _positions(signature: Signature, argnums: tuple[int, ...]) -> set[str]:
    count = len(signature.positional)
    return {signature.positional[n] for n in argnums if -count <= n < count}


def _traced_and_static(
    transform: Transform, signature: Signature, names: Names
) -> tuple[set[str], set[str]]:
    """Parameters this transform makes tracers, and parameters it keeps static."""
    kw = transform.keywords
    everything = set(signature.all)
    if transform.name in _JIT:
        nums = _int_or_ints(kw.get("static_argnums"))
        static = _positions(signature, nums) | set(_str_or_strs(kw.get("static_argnames")))
        return everything - static, static & everything
    if transform.name in _GRAD:
        return _positions(signature, _int_or_ints(kw.get("argnums"), (0,))), set()
    if transform.name in _MAP:
        static = _positions(signature, _int_or_ints(kw.get("static_broadcasted_argnums")))
        return _mapped(kw.get("in_axes"), signature) - static, static
    if transform.name in _CUSTOM:
        static = _positions(signature, _int_or_ints(kw.get("nondiff_argnums")))
        return everything - static, static
    traced = {name for name, annotation in signature.annotations.items()
              if is_array_annotation(annotation, names)}
    return traced, set()


def _mapped(in_axes: cst.BaseExpression | None, signature: Signature) -> set[str]:
    if in_axes is None or isinstance(in_axes, cst.Integer):
        return set(signature.all)
    if isinstance(in_axes, (cst.Tuple, cst.List)):
        axes = [element.value for element in in_axes.elements]
        if len(axes) != len(signature.positional) or any(
            not isinstance(axis, (cst.Integer, cst.Name)) for axis in axes
        ):
            raise _NotLiteral
        return {
            name for name, axis in zip(signature.positional, axes)
            if not (isinstance(axis, cst.Name) and axis.value == "None")
        }
    raise _NotLiteral


@dataclass(frozen=True)
class TracedFunction:
    """A function whose body runs under `transforms`, with its traced and static parameters."""

    name: str
    transforms: tuple[Transform, ...]
    traced: frozenset[str]
    static: frozenset[str]


def traced_function(function: cst.FunctionDef, names: Names) -> TracedFunction | None:
    """The traced-scope facts of a decorated function, or None when no decorator is a transform."""
    transforms = tuple(t for d in function.decorators if (t := decorator_transform(d, names)))
    if not transforms:
        return None
    signature = Signature.of(function.params)
    traced: set[str] = set()
    static: set[str] = set()
    for transform in transforms:
        try:
            more_traced, more_static = _traced_and_static(transform, signature, names)
        except _NotLiteral:
            continue
        traced |= more_traced
        static |= more_static
    return TracedFunction(function.name.value, transforms, frozenset(traced), frozenset(static - traced))
