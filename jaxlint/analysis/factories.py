"""Factories: functions that build a function and return it, the same one on every path (a path that returns a
tuple or list of it instead is no other function: calling that raises).

`def make_loss(scale): def loss(params, batch): ...; return loss` -- a transform applied to a call of the
factory (`jax.jit(make_loss(2.0))`, or to `fn` after `fn = make_loss(2.0)`) traces `loss`, with the
transform's usual rules for its parameters; the factory's own parameters are Python values `loss` closes
over. A factory that may return different functions, fall off its end, or is a generator makes nothing
known: the analysis stays silent about it.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from jaxlint.analysis.bindings import statements, terminates
from jaxlint.analysis.names import Names
from jaxlint.analysis.traced import TransformTable, unwrap
from jaxlint.traversal import children

Chain = tuple[cst.CSTNode, ...]
_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
_CACHES = frozenset({"functools.cache", "functools.lru_cache"})


@dataclass(frozen=True)
class Product:
    """The function a factory returns on every path, with the leading parameters (and keyword ones) that a
    `partial` around it fills (`return partial(step, cfg)`)."""

    function: cst.FunctionDef | cst.Lambda
    bound: int = 0
    bound_names: frozenset[str] = frozenset()


def returned(factory: cst.FunctionDef) -> list[cst.BaseExpression] | None:
    """What each `return` of a function gives, as written; None unless every path ends in a `return` with a
    value or a `raise` (no generator, no coroutine)."""
    if factory.asynchronous is not None or not terminates(factory.body):
        return None
    found: list[cst.BaseExpression] = []
    pending: list[cst.CSTNode] = [factory.body]
    while pending:
        node = pending.pop()
        if type(node) is cst.Return:
            if node.value is None:
                return None
            found.append(node.value)
        elif type(node) is cst.Yield:
            return None
        if type(node) not in _SCOPES:
            pending.extend(children(node))
    return found or None


# What a `return` may give that is never callable: calling the factory's result (or transforming it) runs the
# function its other returns give, or raises (`return step, state` beside `return step`).
_NOT_CALLABLE = (cst.Tuple, cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp, cst.GeneratorExp)


def callable_returns(factory: cst.FunctionDef) -> list[cst.BaseExpression] | None:
    """What each `return` gives that may be called (`returned`, without displays of containers)."""
    found = returned(factory)
    return None if found is None else [expr for expr in found if not isinstance(expr, _NOT_CALLABLE)]


def returned_items(factory: cst.FunctionDef, index: int, names: Names) -> list[cst.BaseExpression] | None:
    """What position `index` of the tuple each `return` gives holds, as written (`jax.jit(f)` of `return jax.jit(f),
    params`): what a caller unpacking the call's result (`step, params = make()`) binds there; None unless every
    path returns a tuple or list display with that position before any `*`, or when a decorator may change what
    calling the function gives."""
    if not all(_keeps_result(decorator.decorator, names) for decorator in factory.decorators):
        return None
    found = []
    for expr in returned(factory) or ():
        if type(expr) is not cst.Tuple and type(expr) is not cst.List:
            return None
        elements = expr.elements
        if len(elements) <= index or any(type(e) is cst.StarredElement for e in elements[: index + 1]):
            return None
        found.append(elements[index].value)
    return found or None


def product(factory: cst.FunctionDef, bindings, names: Names, table: TransformTable) -> Product | None:
    """The function `factory` returns on every path: a def or lambda of its own scope, returned by name,
    through a transform (`return jax.jit(step)`) or a `partial`; None when the paths may differ, or when a
    decorator may change what calling the factory gives. `bindings`: the module's callees.ModuleBindings,
    which keeps the answers (a module's calls of one helper ask again in every round of its analysis)."""
    if id(factory) not in bindings.products:
        bindings.products[id(factory)] = _product(factory, bindings, names, table)
    return bindings.products[id(factory)]


def _product(factory: cst.FunctionDef, bindings, names: Names, table: TransformTable) -> Product | None:
    if not all(_keeps_result(decorator.decorator, names) for decorator in factory.decorators):
        return None
    last = list(statements(factory.body))[-1:]
    if last and isinstance(last[0], cst.Return):  # what it returns last tells most functions apart, cheaply
        value = last[0].value
        if value is None or (
            not isinstance(value, _NOT_CALLABLE) and _made(value, factory, bindings, names, table) is None
        ):
            return None
    found = {_made(expr, factory, bindings, names, table) for expr in callable_returns(factory) or ()}
    return found.pop() if len(found) == 1 else None


def _keeps_result(decorator: cst.BaseExpression, names: Names) -> bool:
    """`@staticmethod`, `@functools.cache`, `@lru_cache(maxsize=None)`: calling the function still gives what
    its body returns."""
    if isinstance(decorator, cst.Name) and decorator.value in ("staticmethod", "classmethod"):
        return True
    return names.qualified(decorator.func if isinstance(decorator, cst.Call) else decorator) in _CACHES


def _made(
    expr: cst.BaseExpression, factory: cst.FunctionDef, bindings, names: Names, table: TransformTable, depth: int = 0
) -> Product | None:
    target, bound, bound_names = unwrap(expr, names, table)
    if isinstance(target, cst.Name) and depth < 3:
        found = bindings.binding(target, (factory,), want_def=True)  # bound once, in the factory's own scope
        node = found[0] if found is not None else None
        if isinstance(node, cst.Call):  # `step = jax.jit(step_impl, ...)`, then `return step`
            inner = _made(node, factory, bindings, names, table, depth + 1)
            if inner is None:
                return None
            return Product(inner.function, inner.bound + bound, inner.bound_names | bound_names)
        if isinstance(node, cst.FunctionDef) and not _rebound_by_transforms(node, factory, bindings, names, table):
            return None
        target = node
    if isinstance(target, (cst.FunctionDef, cst.Lambda)):
        return Product(target, bound, bound_names)
    return None


def _rebound_by_transforms(
    function: cst.FunctionDef, factory: cst.FunctionDef, bindings, names: Names, table: TransformTable
) -> bool:
    """Whether every binding of the def's name in the factory is the def or a transform of it (`step =
    jax.jit(step)`): another wrapper (`step = register(step)`, `step = partial(step, cfg)`) may change it."""
    for value in bindings.scopes[id(factory)].names[function.name.value]:
        if value is function:
            continue
        target, bound, bound_names = unwrap(value, names, table) if isinstance(value, cst.Call) else (None, 0, None)
        if not (isinstance(target, cst.Name) and target.value == function.name.value and not bound and not bound_names):
            return False
    return True
