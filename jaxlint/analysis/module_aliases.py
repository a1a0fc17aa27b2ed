"""Module-level aliases of imported names: `partial = functools.partial`, `jit = jax.jit`.

A module-level name bound once, by a plain assignment, to an imported name is that name wherever it is read
(a function runs after the module has bound it), except where a function binds the name itself. A name bound
twice, or rebound through `global`, is whichever binding ran last: not known, so not an alias.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, cast

import libcst as cst

from jaxlint.analysis.bindings import COMPOUND, blocks, declared_outer, rebound_names, statements
from jaxlint.analysis.names import dotted, scope_imports


def _declared_global(body: cst.BaseSuite | Iterable[cst.CSTNode]) -> set[str]:
    """The names some function at any depth of `body` declares `global` (and so may rebind)."""
    found: set[str] = set()
    for statement in statements(body):
        kind = type(statement)
        if kind is cst.FunctionDef:
            inner = cast(cst.FunctionDef, statement).body
            found |= declared_outer(inner) | _declared_global(inner.body)
        elif type(statement) in COMPOUND:  # a class's body, a block's
            for block in blocks(cast(cst.BaseCompoundStatement, statement)):
                found |= _declared_global(block)
    return found


def module_assignments(module: cst.Module) -> dict[str, cst.BaseExpression]:
    """Name -> what a plain module-level `name = value` binds it to (the last one), in the order of the module."""
    found: dict[str, cst.BaseExpression] = {}
    for statement in statements(module.body):
        if type(statement) is cst.Assign and len(statement.targets) == 1:
            target = statement.targets[0].target
            if type(target) is cst.Name:
                found[target.value] = statement.value
    return found


def bound_once(module: cst.Module) -> dict[str, cst.BaseExpression]:
    """Name -> value of each module-level `name = value` that is the name's one binding: no other statement of the
    module binds it, and no function declares it `global`. What every function of the module reads there."""
    counts = Counter(name for statement in module.body for name in rebound_names([statement]))
    declared = _declared_global(module.body)
    return {
        name: value for name, value in module_assignments(module).items() if counts[name] == 1 and name not in declared
    }


def module_aliases(module: cst.Module, package: str | None) -> dict[str, str]:
    """Name -> the qualified name it aliases, for the module-level aliases of imported names."""
    spelled: dict[str, str] = {}  # `name = a.b`, in the order of the module
    for name, expr in bound_once(module).items():
        value = dotted(expr)
        if value is not None:
            spelled[name] = value
    if not spelled:
        return {}
    known = scope_imports(module.body, package)
    found: dict[str, str] = {}
    for name, value in spelled.items():
        head, _, rest = value.partition(".")
        base = found.get(head) or known.get(head)
        if base is not None:
            found[name] = f"{base}.{rest}" if rest else base
    return found
