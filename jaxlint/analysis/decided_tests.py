"""Tests whose answer Python fixes before anything runs: a literal (`if False:`), or a name bound once, to a
literal, in the scope that owns it (`DEBUG = False` at module level, `uniform = True` in a function), tested for
its truth, against `None`, or against literals (`mode == "fast"`). The branch the other way never runs, traced
or not: the flow engine ends its paths there, as after a `return`.

A name bound once holds that literal wherever it is read (before the binding runs, reading it raises), unless a
function rebinds it from elsewhere (`global`, `nonlocal`) or an assignment expression does: the caller leaves
those out.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from jaxlint.analysis.loop_guards import constant

Known = tuple[bool, object]  # (whether the value is known, the value)


def fixed_truth(test: cst.BaseExpression, literal_of: Callable[[cst.Name], Known]) -> bool | None:
    """The truth `test` has on every run, or None when Python decides it only then; `literal_of` gives the
    literal a name always holds, when it holds one."""
    if isinstance(test, cst.UnaryOperation) and type(test.operator) is cst.Not:
        inner = fixed_truth(test.expression, literal_of)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        left, right = fixed_truth(test.left, literal_of), fixed_truth(test.right, literal_of)
        if type(test.operator) is cst.And:
            return False if False in (left, right) else True if left is right is True else None
        return True if True in (left, right) else False if left is right is False else None
    known, value = _value(test, literal_of)
    if known:
        return bool(value)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        return _compared(test, literal_of)
    return None


def iterations_at_most_one(loop: cst.For, literal_of: Callable[[cst.Name], Known]) -> bool:
    """Whether a `for` loop's body runs once at most: over `range(n)` (or `range(a, b)`) of ints Python fixes, one
    apart at most (`num_episodes = 1`, then `for episode in range(num_episodes):`), or a display of one item."""
    iterated = loop.iter
    if isinstance(iterated, (cst.List, cst.Tuple)):
        return len(iterated.elements) <= 1 and not any(type(e) is cst.StarredElement for e in iterated.elements)
    if not (isinstance(iterated, cst.Call) and type(iterated.func) is cst.Name and iterated.func.value == "range"):
        return False
    if literal_of(iterated.func)[0] or not 1 <= len(iterated.args) <= 2:
        return False  # (`range` bound to something else)
    bounds = []
    for arg in iterated.args:
        known, value = _value(arg.value, literal_of) if arg.keyword is None and not arg.star else (False, None)
        if not known or type(value) is not int:
            return False
        bounds.append(value)
    return (bounds[0] if len(bounds) == 1 else bounds[1] - bounds[0]) <= 1


def _value(expr: cst.BaseExpression, literal_of: Callable[[cst.Name], Known]) -> Known:
    known, value = constant(expr)
    if not known and type(expr) is cst.Name:
        return literal_of(expr)
    return known, value


def _compared(test: cst.Comparison, literal_of: Callable[[cst.Name], Known]) -> bool | None:
    """`name is None`, `name == "a"`, `name in ("a", "b")` (and their negations) of known literals."""
    operator = type(test.comparisons[0].operator)
    right = test.comparisons[0].comparator
    left_known, left = _value(test.left, literal_of)
    if not left_known:
        return None
    if operator in (cst.In, cst.NotIn):
        if not isinstance(right, (cst.Tuple, cst.List, cst.Set)):
            return None
        elements = [element for element in right.elements if type(element) is not cst.StarredElement]
        found = [constant(element.value) for element in elements]
        if len(found) != len(right.elements) or not all(known for known, _ in found):
            return None
        return any(left == value for _, value in found) is (operator is cst.In)
    right_known, value = _value(right, literal_of)
    if not right_known:
        return None
    if operator in (cst.Is, cst.IsNot):
        if left is not None and value is not None:
            return None  # identity of two literals other than `None` is CPython's business
        return (left is value) is (operator is cst.Is)
    if operator in (cst.Equal, cst.NotEqual):
        return (left == value) is (operator is cst.Equal)
    return None
