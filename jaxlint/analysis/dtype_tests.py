"""Tests of an array's dtype, answered: a tracer's dtype is static, so `jnp.issubdtype(x, jnp.integer)`,
`jnp.issubdtype(x.dtype, jnp.floating)` and `x.dtype == jnp.int32` are Python booleans while jax traces.
Where the analysis knows the kind of `x`'s dtype (from what made it), it knows the answer, and the branch the
test fails is never traced; where the kind is unknown, so is the answer."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from jaxlint.analysis.names import Names
from jaxlint.model.dtypes import DTYPE_CLASSES, DTYPE_SPELLINGS, SUBDTYPE_TESTS

# The kinds of which a named dtype is every dtype, and those of which it is one dtype among several.
_Kinds = tuple[frozenset[str], frozenset[str]]
KindOf = Callable[[cst.BaseExpression], "str | None"]


def named_kind(dtype: cst.BaseExpression, names: Names) -> str | None:
    """The kind of the dtype an expression names: `jnp.int32`, `int`, `"float32"`, `np.bool_`."""
    spelled: str | bytes | None
    if isinstance(dtype, cst.SimpleString):
        spelled = dtype.evaluated_value
    elif isinstance(dtype, cst.Name) and names.qualified(dtype) is None:
        spelled = dtype.value
    else:
        spelled = names.qualified(dtype)
    return DTYPE_SPELLINGS.get(spelled) if isinstance(spelled, str) else None


def _concrete(dtype: cst.BaseExpression, names: Names) -> _Kinds | None:
    """A concrete dtype is one of its kind, except bool, the only one of its kind."""
    kind = named_kind(dtype, names)
    if kind is None:
        return None
    return (frozenset({kind}), frozenset()) if kind == "bool" else (frozenset(), frozenset({kind}))


def _answer(kind: str, kinds: _Kinds) -> bool | None:
    every, some = kinds
    return True if kind in every else None if kind in some else False


def _dtype_of(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """`x` of `x.dtype`: the array whose dtype a comparison reads."""
    return expr.value if isinstance(expr, cst.Attribute) and expr.attr.value == "dtype" else None


def _any(answers: list[bool | None]) -> bool | None:
    return True if True in answers else False if all(answer is False for answer in answers) else None


def dtype_test(test: cst.BaseExpression, names: Names, kind_of: KindOf) -> bool | None:
    """What `test` gives, when it tests the dtype of arrays whose kinds `kind_of` knows; None when unknown."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        answer = dtype_test(test.expression, names, kind_of)
        return None if answer is None else not answer
    if isinstance(test, cst.BooleanOperation):
        sides = [dtype_test(side, names, kind_of) for side in (test.left, test.right)]
        if isinstance(test.operator, cst.And):
            return False if False in sides else True if sides == [True, True] else None
        return _any(sides)
    if isinstance(test, cst.Call) and names.qualified(test.func) in SUBDTYPE_TESTS and len(test.args) == 2:
        first, second = (arg.value for arg in test.args)
        array = _dtype_of(first) or first  # `issubdtype(x.dtype, t)`, or `issubdtype(x, t)` of an array
        kind = kind_of(array)
        kinds = DTYPE_CLASSES.get(names.qualified(second) or "") or _concrete(second, names)
        return None if kind is None or kinds is None else _answer(kind, kinds)
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    operator = type(test.comparisons[0].operator)
    left, right = test.left, test.comparisons[0].comparator
    if operator in (cst.In, cst.NotIn):
        subject = _dtype_of(left)
        kind = kind_of(subject) if subject is not None else None
        if kind is None or not isinstance(right, (cst.Tuple, cst.List, cst.Set)) or not right.elements:
            return None
        options = [_concrete(element.value, names) for element in right.elements]
        if any(option is None for option in options):
            return None
        found = _any([_answer(kind, option) for option in options if option is not None])
        return found if found is None or operator is cst.In else not found
    if operator not in (cst.Equal, cst.NotEqual):
        return None
    for array_side, dtype_side in ((left, right), (right, left)):
        subject = _dtype_of(array_side)
        kind = kind_of(subject) if subject is not None else None
        kinds = _concrete(dtype_side, names)
        if kind is not None and kinds is not None:
            answer = _answer(kind, kinds)
            return answer if answer is None or operator is cst.Equal else not answer
    return None
