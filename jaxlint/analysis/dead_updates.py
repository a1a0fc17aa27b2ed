"""Functional updates whose result never leaves their function: `a = a.at[i].set(v)`, and `a` is not read after.

`a.at[i].set(v)` gives a new array, and rebinding the local `a` to it changes no other name. When every read that such
a rebinding may reach is inside another update of `a` itself (the loop of `a = a.at[i].set(2 * a[i])`), nothing built
from the updates is returned, stored, yielded or passed on: they are lost together. A read "may be reached" when it
comes later in the function, or shares a loop with the update; a later rebinding is not taken to hide the update
(silent when unsure). So are a name the function declares `global` or `nonlocal`, a name a nested function, lambda
or class mentions, a function that reads its locals by name (`locals()`, `eval`), and an update whose operands reach
a call that may keep them (only array methods and the functions of `jaxlint.model.functions.RESULT_ONLY_NAMESPACES`
are known not to).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import libcst as cst

from jaxlint.analysis.arrays import functional_update_receiver
from jaxlint.analysis.bindings import declared_outer
from jaxlint.model.functions import FUNCTION_TAKING, RESULT_ONLY_NAMESPACES
from jaxlint.traversal import TOKENS_BUT_NAMES, branches

Qualify = Callable[[cst.BaseExpression], "str | None"]

# Builtins that read a function's local names by their spelling.
_LOCALS_READERS = frozenset({"locals", "vars", "eval", "exec"})
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


@dataclass
class _Seen:
    """What a walk over a function's body found of one name, each with its order and the loops around it."""

    updates: list[tuple[cst.Assign, int, frozenset[int]]] = field(default_factory=list)
    reads: list[tuple[int, frozenset[int]]] = field(default_factory=list)  # outside any update of the name
    unsure: bool = False


def self_update(statement: cst.BaseSmallStatement, name: str) -> cst.Call | None:
    """The update call of `name = name.at[...].set(...)` (or another update method)."""
    if (
        not isinstance(statement, cst.Assign)
        or len(statement.targets) != 1
        or not isinstance(statement.value, cst.Call)
    ):
        return None
    target, receiver = statement.targets[0].target, functional_update_receiver(statement.value)
    if not (isinstance(target, cst.Name) and isinstance(receiver, cst.Name) and target.value == receiver.value == name):
        return None
    return statement.value


def last_lost_update(function: cst.FunctionDef, name: str, qualify: Qualify) -> cst.Assign | None:
    """The last update `name = name.at[...](...)` of a function when none of its updates of `name` leaves it."""
    if name in declared_outer(function.body):
        return None
    seen = _Seen()
    _walk(function.body, name, frozenset(), seen, qualify, [0])
    if seen.unsure or not seen.updates:
        return None
    for read, loops in seen.reads:
        if any(read > at or loops & around for _, at, around in seen.updates):
            return None
    return max(seen.updates, key=lambda update: update[1])[0]


def _walk(node: cst.CSTNode, name: str, loops: frozenset[int], seen: _Seen, qualify: Qualify, order: list[int]) -> None:
    if isinstance(node, cst.Name):
        if node.value == name:
            order[0] += 1
            seen.reads.append((order[0], loops))
        elif node.value in _LOCALS_READERS:
            seen.unsure = True
    elif isinstance(node, (cst.Attribute, cst.Arg)):
        _walk(node.value, name, loops, seen, qualify, order)  # `a.b` and `f(k=v)` read `a` and `v` only
    elif isinstance(node, _SCOPES):
        seen.unsure |= _mentions(node, name)
    elif isinstance(node, cst.Assign) and self_update(node, name) is not None:
        order[0] += 1
        seen.updates.append((node, order[0], loops))
        seen.unsure |= not _kept_inside(node.value, name, qualify)
    elif isinstance(node, (cst.For, cst.While)):
        # A `for` evaluates its header once; a `while` evaluates its test again for each iteration.
        header: list[cst.CSTNode] = [node.target, node.iter] if isinstance(node, cst.For) else []
        repeated: list[cst.CSTNode] = [node.body] if isinstance(node, cst.For) else [node.test, node.body]
        for part in header:
            _walk(part, name, loops, seen, qualify, order)
        for part in repeated:
            _walk(part, name, loops | {id(node)}, seen, qualify, order)
        if node.orelse is not None:
            _walk(node.orelse, name, loops, seen, qualify, order)
    else:
        for child in branches(node, TOKENS_BUT_NAMES):
            _walk(child, name, loops, seen, qualify, order)


def _mentions(node: cst.CSTNode, name: str) -> bool:
    if isinstance(node, cst.Name):
        return node.value in (name, *_LOCALS_READERS)
    return any(_mentions(child, name) for child in branches(node, TOKENS_BUT_NAMES))


def _kept_inside(expr: cst.CSTNode, name: str, qualify: Qualify) -> bool:
    """Whether what an update's expression computes from `name` goes only into its result: through operators,
    array methods and calls known to keep nothing, with no walrus, `yield` or nested scope to take it elsewhere."""
    if isinstance(expr, (cst.NamedExpr, cst.Yield, cst.Await, *_SCOPES)):
        return not _mentions(expr, name)
    if isinstance(expr, cst.Call) and _mentions(expr, name) and not _keeps_nothing(expr, name, qualify):
        return False
    return all(_kept_inside(child, name, qualify) for child in branches(expr, TOKENS_BUT_NAMES))


def _keeps_nothing(call: cst.Call, name: str, qualify: Qualify) -> bool:
    """A method of the array itself (`a.at[i].set(v)`, `a.sum()`), or a function of a namespace that only computes
    (`jnp.sin`), not one that takes a function or NumPy's `out=` buffer."""
    root: cst.BaseExpression = call.func
    while isinstance(root, (cst.Attribute, cst.Subscript)):
        root = root.value
    if isinstance(root, cst.Name) and root.value == name and isinstance(call.func, cst.Attribute):
        return True
    qualified = qualify(call.func) or ""
    return (
        qualified.startswith(RESULT_ONLY_NAMESPACES)
        and qualified.rsplit(".", 1)[-1] not in FUNCTION_TAKING
        and not any(arg.keyword is not None and arg.keyword.value == "out" for arg in call.args)
    )
