"""Whether a pytree is known to have two leaves or more: a tree map then runs its function twice or more.

jax flattens a tuple, list or dict into its leaves, and a subtree with no leaf (`None`, `()`) adds none: so a tree
counts only the entries known to hold a leaf. A display counts its entries (`(w1, w2)`, `{"w": w, "b": b}`), save
`None` and empty displays; any other expression counts what the analysis knows it holds (a tuple it saw built, the
pytree a traced parameter is given at every call). A bare array, or anything unknown, is one leaf at most here.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from jaxlint.analysis.values import Kind, Value

_DISPLAYS = (cst.Tuple, cst.List, cst.Dict)


def has_many_leaves(tree: cst.BaseExpression, value_of: Callable[[cst.BaseExpression], Value | None]) -> bool:
    """Whether `tree` holds two leaves or more, on facts."""
    if isinstance(tree, _DISPLAYS):
        return sum(_entry_has_leaf(entry, value_of) for entry in _entries(tree)) >= 2
    value = value_of(tree)
    if value is None or value.contents is None:
        return False
    return sum(_holds_leaf(item) for item in value.contents.items or ()) >= 2


def _entries(display: cst.Tuple | cst.List | cst.Dict) -> list[cst.BaseExpression]:
    """The entries of a display written there (`*rest` and `**other` add what is unknown: not counted)."""
    if isinstance(display, cst.Dict):
        return [element.value for element in display.elements if isinstance(element, cst.DictElement)]
    return [element.value for element in display.elements if isinstance(element, cst.Element)]


def _entry_has_leaf(entry: cst.BaseExpression, value_of: Callable[[cst.BaseExpression], Value | None]) -> bool:
    if isinstance(entry, cst.Name) and entry.value == "None":
        return False
    if isinstance(entry, _DISPLAYS):
        return any(_entry_has_leaf(inner, value_of) for inner in _entries(entry))
    value = value_of(entry)
    if value is None or (value.kind is Kind.UNKNOWN and value.contents is None):
        return True  # an entry written there, of a value not known: an array, as entries of a tree are
    return _holds_leaf(value)


def _holds_leaf(value: Value | None) -> bool:
    """Whether a value the analysis knows holds a leaf: an array, a number, or a container with one."""
    if value is None:
        return False
    if value.contents is not None:
        return any(_holds_leaf(item) for item in value.contents.items or ())
    if value.kind in (Kind.ARRAY, Kind.TRACED):
        return not value.container
    return value.numpy or (value.kind is Kind.STATIC and value.number is not None)
