"""The fields of a pytree class of the module: which are children, traced when an argument holding an
instance is traced, and which are static aux data (model/pytrees.py says how each library marks them).

A class is known only when the module defines it, once, with a base or decorator of the model and no other
base or decorator that could change how it flattens; anything else is unknown, and rules stay silent on it.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from jaxlint.analysis.arrays import is_array_annotation
from jaxlint.analysis.names import Names
from jaxlint.model.pytrees import (
    CLASS_VARIABLE_ANNOTATIONS, METADATA_FIELD_CALLS, NAMEDTUPLE_BASES, PYTREE_BASES, PYTREE_DECORATORS,
    STATIC_FIELD_CALLS, STATIC_FIELD_SPECS,
)

_SCALARS = frozenset({"bool", "int", "float", "complex"})


@dataclass(frozen=True)
class Field:
    """One field of a pytree class: static aux data, or a child that is one array (`leaf`) or a subtree
    (of the pytree class `cls` when its annotation names one)."""

    static: bool
    leaf: bool = False
    cls: cst.ClassDef | None = None


def pytree_fields(cls: cst.ClassDef, names: Names, class_of) -> dict[str, Field] | None:
    """The fields of `cls` by name when it is a pytree class the model knows; None otherwise. `class_of`
    resolves an annotation to a class of the module (or None)."""
    bases = [names.qualified(base.value) for base in cls.bases if base.keyword is None]
    decorators = [names.qualified(_decorator_function(d.decorator)) for d in cls.decorators]
    if any(arg.keyword is not None for arg in cls.bases) or any(arg.star for arg in cls.bases):
        return None
    namedtuple = bool(bases) and all(base in NAMEDTUPLE_BASES for base in bases) and not decorators
    registered = (bases and all(base in PYTREE_BASES for base in bases) and not decorators) or (
        not bases and len(decorators) == 1 and decorators[0] in PYTREE_DECORATORS
        and _plain_registration(cls.decorators[0]))
    if not (namedtuple or registered):
        return None
    fields = {}
    for statement in cls.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.AnnAssign) or not isinstance(small.target, cst.Name):
                continue
            annotation = small.annotation.annotation
            outer = annotation.value if isinstance(annotation, cst.Subscript) else annotation
            if names.qualified(outer) in CLASS_VARIABLE_ANNOTATIONS:
                continue
            if not namedtuple and _static_default(small.value, names):
                fields[small.target.value] = Field(static=True)
                continue
            scalar = isinstance(annotation, cst.Name) and annotation.value in _SCALARS and names.qualified(annotation) is None
            leaf = scalar or is_array_annotation(annotation, names)
            fields[small.target.value] = Field(static=False, leaf=leaf, cls=None if leaf else class_of(annotation))
    return fields


def _decorator_function(decorator: cst.BaseExpression) -> cst.BaseExpression:
    return decorator.func if isinstance(decorator, cst.Call) else decorator


def _plain_registration(decorator: cst.Decorator) -> bool:
    """`@flax.struct.dataclass` or `@chex.dataclass`, as written or called with options that do not change
    what is a child (`frozen=True`); not `register_dataclass(data_fields=..., meta_fields=...)`, which lists
    them itself."""
    if not isinstance(decorator.decorator, cst.Call):
        return True
    return all(arg.keyword is not None and arg.keyword.value not in ("data_fields", "meta_fields", "drop")
               for arg in decorator.decorator.args)


def _static_default(value: cst.BaseExpression | None, names: Names) -> bool:
    """Whether a field's default marks it static: `flax.struct.field(pytree_node=False)`,
    `eqx.field(static=True)`, `dataclasses.field(metadata=dict(static=True))`."""
    if not isinstance(value, cst.Call):
        return False
    called = names.qualified(value.func)
    if called in STATIC_FIELD_CALLS:
        return True
    spec = STATIC_FIELD_SPECS.get(called or "")
    for arg in value.args:
        if arg.keyword is None:
            continue
        if spec is not None and arg.keyword.value == spec[0]:
            return _is_constant(arg.value, spec[1])
        if called in METADATA_FIELD_CALLS and arg.keyword.value == "metadata":
            return _static_metadata(arg.value)
    return False


def _is_constant(expr: cst.BaseExpression, wanted: bool) -> bool:
    return isinstance(expr, cst.Name) and expr.value == ("True" if wanted else "False")


def _static_metadata(expr: cst.BaseExpression) -> bool:
    """`dict(static=True)` or `{"static": True}`."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "dict":
        return any(arg.keyword is not None and arg.keyword.value == "static" and _is_constant(arg.value, True)
                   for arg in expr.args)
    if isinstance(expr, cst.Dict):
        return any(isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString)
                   and element.key.evaluated_value == "static" and _is_constant(element.value, True)
                   for element in expr.elements)
    return False
