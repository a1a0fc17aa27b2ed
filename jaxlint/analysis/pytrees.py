"""The fields of a pytree class of the module: which are children, traced when an argument holding an
instance is traced, and which are static aux data (model/pytrees.py says how each library marks them).

A class is known only when the module defines it, once, with a base or decorator of the model and no other
base or decorator that could change how it flattens; anything else is unknown, and rules stay silent on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import libcst as cst

from jaxlint.analysis.arrays import is_array_annotation
from jaxlint.analysis.names import Names
from jaxlint.model.pytrees import (
    ARRAY_DEFAULT_LIBRARIES,
    CLASS_VARIABLE_ANNOTATIONS,
    DATACLASS_DECORATORS,
    LISTED_REGISTRATION,
    METADATA_FIELD_CALLS,
    NAMEDTUPLE_BASES,
    NOT_PYTREE_BASES,
    ORDINARY_CLASS_DECORATORS,
    PYTREE_BASES,
    PYTREE_DECORATORS,
    STATIC_FIELD_CALLS,
    STATIC_ANNOTATIONS,
    STATIC_FIELD_SPECS,
    PYTREE_REGISTRATIONS,
    STATIC_REGISTRATION,
    FLATTEN_METHODS,
)
from jaxlint.model.transforms import PARTIAL
from jaxlint.traversal import children

_SCALARS = frozenset({"bool", "int", "float", "complex"})


@dataclass(frozen=True)
class Field:
    """One field of a pytree class: static aux data, or a child that is one array (`leaf`) or a subtree
    (of the pytree class `cls` when its annotation names one). `number`: a leaf annotated as a Python number, which
    a filtering transform (`eqx.filter_jit`) keeps static."""

    static: bool
    leaf: bool = False
    cls: cst.ClassDef | None = None
    number: bool = False


def namedtuple_class(cls: cst.ClassDef, names: Names) -> bool:
    """`class State(NamedTuple):`, undecorated: one field per annotated name, in order."""
    bases = [names.qualified(base.value) for base in cls.bases]
    return bool(bases) and all(base in NAMEDTUPLE_BASES for base in bases) and not cls.decorators


def pytree_fields(cls: cst.ClassDef, names: Names, class_of) -> dict[str, Field] | None:
    """The fields of `cls` by name when it is a pytree class the model knows; None otherwise. `class_of`
    resolves an annotation to a class of the module (or None)."""
    if any(arg.keyword is not None or arg.star for arg in cls.bases):
        return None
    bases = [names.qualified(base.value) for base in cls.bases]
    registering = [
        d.decorator
        for d in cls.decorators
        if names.qualified(_decorator_function(d.decorator)) not in DATACLASS_DECORATORS
    ]
    namedtuple = namedtuple_class(cls, names)
    listed = None
    if not bases and len(registering) == 1:
        listed = _listed_fields(registering[0], names)
        if listed is None and not _plain_registration(registering[0], names):
            return None
    elif not (namedtuple or bases and all(base in PYTREE_BASES for base in bases) and not registering):
        return None
    fields = {}
    for statement in cls.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.AnnAssign) or not isinstance(small.target, cst.Name):
                continue
            name, annotation = small.target.value, small.annotation.annotation
            outer = annotation.value if isinstance(annotation, cst.Subscript) else annotation
            if names.qualified(outer) in CLASS_VARIABLE_ANNOTATIONS:
                continue
            static = (
                name in listed[1]
                if listed is not None
                else not namedtuple
                and (names.qualified(outer) in STATIC_ANNOTATIONS or _static_default(small.value, names))
            )
            if static is None:
                continue  # a default the model does not know may make it static, or not: an unknown field
            if listed is not None and not static and name not in listed[0]:
                return None  # a field the registration does not name: jax rejects the class
            if static:
                fields[name] = Field(static=True)
                continue
            scalar = (
                isinstance(annotation, cst.Name)
                and annotation.value in _SCALARS
                and names.qualified(annotation) is None
            )
            leaf = scalar or is_array_annotation(annotation, names)
            fields[name] = Field(static=False, leaf=leaf, cls=None if leaf else class_of(annotation), number=scalar)
    return fields


def flattened_class(cls: cst.ClassDef, names: Names, module: cst.Module) -> bool:
    """Whether jax flattens instances of `cls` into leaves: a registering decorator or base the model knows, a
    `tree_flatten` method (for a registration anywhere), or a module-level registration call naming it."""
    for decorator in cls.decorators:
        qualified = names.qualified(_decorator_function(decorator.decorator))
        if qualified in PYTREE_DECORATORS or qualified in PYTREE_REGISTRATIONS and qualified != STATIC_REGISTRATION:
            return True
    if any(names.qualified(base.value) in PYTREE_BASES for base in cls.bases):
        return True
    if _flattens_itself(cls):
        return True
    for statement in module.body:
        small = statement.body[0] if type(statement) is cst.SimpleStatementLine else None
        call = small.value if type(small) is cst.Expr else None
        if (
            type(call) is cst.Call
            and names.qualified(call.func) in PYTREE_REGISTRATIONS
            and call.args
            and type(call.args[0].value) is cst.Name
            and call.args[0].value.value == cls.name.value
        ):
            return True
    return False


def never_flattened(
    cls: cst.ClassDef, names: Names, registered: frozenset[str], class_of, seen: frozenset[str] = frozenset()
) -> bool:
    """Whether jax visibly takes instances of `cls` as leaves it cannot trace, so that a transform given one raises
    `TypeError` before tracing: an ordinary class (no metaclass, no decorator but those that give it back as it is,
    no `tree_flatten`), not among the `registered` names (pytree_registrations), whose bases are `object`, classes
    of the module (`class_of` resolves a base to one, or None) that are so too, or library classes the model knows
    are no pytrees (a flax linen Module, a PyTorch Module)."""
    name = cls.name.value
    if name in registered or name in seen or cls.keywords:
        return False
    for decorator in cls.decorators:
        if names.qualified(_decorator_function(decorator.decorator)) not in ORDINARY_CLASS_DECORATORS:
            return False
    if _flattens_itself(cls):
        return False
    for base in cls.bases:
        if base.keyword is not None or base.star:
            return False
        if type(base.value) is cst.Name and base.value.value == "object":
            continue
        if names.qualified(base.value) in NOT_PYTREE_BASES:
            continue
        parent = class_of(base.value)
        if type(parent) is not cst.ClassDef or not never_flattened(parent, names, registered, class_of, seen | {name}):
            return False
    return True


def _flattens_itself(cls: cst.ClassDef) -> bool:
    """A class with a `tree_flatten` method: one registered wherever it is (`register_pytree_node_class`)."""
    body = cls.body.body if type(cls.body) is cst.IndentedBlock else ()
    return any(type(statement) is cst.FunctionDef and statement.name.value in FLATTEN_METHODS for statement in body)


def pytree_registrations(module: cst.Module, names: Names) -> frozenset[str]:
    """The names of the classes a registration call anywhere in the module names first (`register_pytree_node(Point,
    ...)`): they are pytrees, whatever they look like."""
    found = set()
    pending: list[cst.CSTNode] = [module]
    while pending:
        node = pending.pop()
        if type(node) is cst.Call and node.args and type(node.args[0].value) is cst.Name:
            if names.qualified(node.func) in PYTREE_REGISTRATIONS:
                found.add(node.args[0].value.value)
        pending.extend(children(node))
    return frozenset(found)


def _listed_fields(decorator: cst.BaseExpression, names: Names) -> tuple[set[str], set[str]] | None:
    """The children and static fields `partial(register_dataclass, data_fields=[...], meta_fields=[...])`
    names, when both are literal lists of strings."""
    if not isinstance(decorator, cst.Call) or names.qualified(decorator.func) not in PARTIAL:
        return None
    given = [arg for arg in decorator.args if arg.keyword is None]
    if len(given) != 1 or names.qualified(given[0].value) != LISTED_REGISTRATION:
        return None
    lists = {arg.keyword.value: _strings(arg.value) for arg in decorator.args if arg.keyword is not None}
    if set(lists) != {"data_fields", "meta_fields"}:
        return None
    data, meta = lists["data_fields"], lists["meta_fields"]
    return None if data is None or meta is None else (data, meta)


def _strings(expr: cst.BaseExpression) -> set[str] | None:
    if not isinstance(expr, (cst.List, cst.Tuple)):
        return None
    found = {
        cast(str, element.value.evaluated_value)  # a bytes literal passes through as before
        for element in expr.elements
        if isinstance(element.value, cst.SimpleString)
    }
    return found if len(found) == len(expr.elements) else None


def _decorator_function(decorator: cst.BaseExpression) -> cst.BaseExpression:
    return decorator.func if isinstance(decorator, cst.Call) else decorator


def _plain_registration(decorator: cst.BaseExpression, names: Names) -> bool:
    """`@flax.struct.dataclass`, `@chex.dataclass` or `@jax.tree_util.register_dataclass`, as written or
    called with keyword options only (`frozen=True`)."""
    if names.qualified(_decorator_function(decorator)) not in PYTREE_DECORATORS:
        return False
    return not isinstance(decorator, cst.Call) or all(
        arg.keyword is not None and arg.keyword.value not in ("data_fields", "meta_fields", "drop_fields")
        for arg in decorator.args
    )


def _static_default(value: cst.BaseExpression | None, names: Names) -> bool | None:
    """Whether a field's default marks it static: `flax.struct.field(pytree_node=False)`,
    `eqx.field(static=True)`, `dataclasses.field(metadata=dict(static=True))`. None for a call the model does not
    know (a project's own `nonpytree_field()`, which may wrap `flax.struct.field(pytree_node=False)`)."""
    if not isinstance(value, cst.Call):
        return False
    called = names.qualified(value.func)
    if called in STATIC_FIELD_CALLS:
        return True
    if (
        called not in STATIC_FIELD_SPECS
        and called not in METADATA_FIELD_CALLS
        and (called or "").split(".")[0] not in ARRAY_DEFAULT_LIBRARIES
    ):
        return None
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
        return any(
            arg.keyword is not None and arg.keyword.value == "static" and _is_constant(arg.value, True)
            for arg in expr.args
        )
    if isinstance(expr, cst.Dict):
        return any(
            isinstance(element, cst.DictElement)
            and isinstance(element.key, cst.SimpleString)
            and element.key.evaluated_value == "static"
            and _is_constant(element.value, True)
            for element in expr.elements
        )
    return False
