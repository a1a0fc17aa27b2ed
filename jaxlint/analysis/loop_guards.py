"""Branches of a Python loop's body that run in one iteration at most.

A Python `for` loop runs while jax traces, with Python values: over `range(...)`, or over a literal list or
tuple of distinct constants, its target takes each value once, so a test `n == c` against a value the body
never changes holds in one iteration at most (`for n in [0, 1]: if n == 1: y = dropout(y, key)` draws from
`key` once per call); over values the code does not show (`for task in args.tasks: if task == 0: ...`), that
the test holds in two iterations is no fact either; `i == 0` of a loop counting from 0 (`range(n)`,
`enumerate(xs)`) holds in its first only.
"""

from __future__ import annotations

import ast

import libcst as cst

from jaxlint.analysis.bindings import rebound_names
from jaxlint.analysis.names import Names

_CONSTANTS = (cst.Integer, cst.Float, cst.SimpleString)


def constant(expr: cst.BaseExpression) -> tuple[bool, object]:
    """(True, its value) for a literal number or string, `-1`, `True`, `False`, `None`; else (False, None)."""
    if isinstance(expr, _CONSTANTS) or (
        isinstance(expr, cst.UnaryOperation)
        and isinstance(expr.operator, cst.Minus)
        and isinstance(expr.expression, (cst.Integer, cst.Float))
    ):
        return True, ast.literal_eval(cst.Module([]).code_for_node(expr))
    if type(expr) is cst.Name and expr.value in ("True", "False", "None"):
        return True, {"True": True, "False": False, "None": None}[expr.value]
    return False, None


def _distinct_values(loop: cst.For) -> bool:
    """Whether the loop's target takes no value twice, as far as the code shows: over `range(...)`, over a literal
    list or tuple of distinct constants (`[0, 1]`, `("a", "b")`), or over values it does not show (`for task in
    args.tasks:`, a dispatch on each task: that one comes twice is no fact); not over a display that repeats one."""
    iterated = loop.iter
    if not isinstance(iterated, (cst.List, cst.Tuple)):
        return True
    values: list[object] = []
    for element in iterated.elements:
        known, value = constant(element.value) if not isinstance(element, cst.StarredElement) else (False, None)
        if not known or any(value == other for other in values):
            return False
        values.append(value)
    return True


def fixed_in(expr: cst.BaseExpression, rebound: set[str]) -> bool:
    """A constant, or a name the loop's body never rebinds: the same value in every iteration."""
    if type(expr) is cst.Name and expr.value not in ("True", "False", "None"):
        return expr.value not in rebound
    return constant(expr)[0]


def runs_once(test: cst.BaseExpression, truth: bool, loop: cst.For) -> bool:
    """Whether the branch taken when `test` is `truth` runs in one iteration of `loop` at most."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return runs_once(test.expression, not truth, loop)
    if isinstance(test, cst.BooleanOperation):
        # `a and b` holds only where both do; `a or b` fails only where both do.
        if isinstance(test.operator, cst.And) is truth:
            return runs_once(test.left, truth, loop) or runs_once(test.right, truth, loop)
        return False
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    operator = type(test.comparisons[0].operator)
    if not (operator is cst.Equal and truth or operator is cst.NotEqual and not truth):
        return False
    target = loop.target
    if type(target) is not cst.Name or not _distinct_values(loop):
        return False
    rebound = rebound_names(loop.body)
    if target.value in rebound:
        return False
    sides = (test.left, test.comparisons[0].comparator)
    return any(
        _is_name(side, target.value) and not _is_name(other, target.value) and fixed_in(other, rebound)
        for side, other in (sides, sides[::-1])
    )


def _is_name(expr: cst.BaseExpression, name: str) -> bool:
    return type(expr) is cst.Name and expr.value == name


def first_iteration_only(test: cst.BaseExpression, loop: cst.CSTNode, names: Names) -> bool:
    """Whether `test` holds only in the first iteration of `loop`: `i == 0` (or a conjunction with it) for a loop
    `for i in range(n)`, `range(0, n)` or `for i, x in enumerate(xs)` whose body leaves `i` alone."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return first_iteration_only(test.left, loop, names) or first_iteration_only(test.right, loop, names)
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    if type(test.comparisons[0].operator) is not cst.Equal:
        return False
    counter = _counter(loop, names)
    sides = (test.left, test.comparisons[0].comparator)
    return counter is not None and any(
        type(a) is cst.Name and a.value == counter and type(b) is cst.Integer and b.evaluated_value == 0
        for a, b in (sides, sides[::-1])
    )


def _counter(loop: cst.CSTNode, names: Names) -> str | None:
    """The name that counts a loop's iterations from 0: `i` of `for i in range(n)` (or `range(0, n)`) and of
    `for i, x in enumerate(xs)`, when the body never rebinds it."""
    if type(loop) is not cst.For:
        return None
    iterated, target = loop.iter, loop.target
    if type(iterated) is not cst.Call or type(iterated.func) is not cst.Name or names.qualified(iterated.func):
        return None
    args = iterated.args
    if iterated.func.value == "range" and type(target) is cst.Name:
        counted = (
            len(args) == 1
            or len(args) == 2
            and type(args[0].value) is cst.Integer
            and args[0].value.evaluated_value == 0
        )
        name = target.value if counted and not any(arg.star or arg.keyword for arg in args) else None
    elif iterated.func.value == "enumerate" and len(args) == 1 and type(target) is cst.Tuple:
        first = target.elements[0].value if target.elements else None
        name = first.value if type(first) is cst.Name else None
    else:
        return None
    return name if name is not None and name not in rebound_names(loop.body) else None
