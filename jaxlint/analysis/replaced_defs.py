"""Module-level defs that never run: the module binds the name again before any statement reads it, so no call
can reach the first def (a lesson's failing first version, replaced by the working one before anything calls it;
an importer sees the last binding too)."""

from __future__ import annotations

from typing import cast

import libcst as cst

from jaxlint.analysis.bindings import mentioned_names, statements
from jaxlint.analysis.module_memo import ModuleMemo
from jaxlint.analysis.scopes import every_assigned_value


def _replaced(module: cst.Module) -> frozenset[cst.FunctionDef]:
    body = list(statements(module.body))
    bindings = every_assigned_value(body)
    if not any(len(bindings[s.name.value]) > 1 for s in body if type(s) is cst.FunctionDef):
        return frozenset()  # (no def whose name the module binds again: nothing to read)
    pending: dict[str, cst.FunctionDef] = {}
    dead: set[cst.FunctionDef] = set()
    for statement in body:
        bound = _plain_binding(statement)
        read = mentioned_names(_read_part(statement))
        for name in list(pending):
            if name in read:
                del pending[name]  # read (or bound in a way that may read it): the def may run
            elif name == bound:
                dead.add(pending.pop(name))
        if type(statement) is cst.FunctionDef:
            pending[statement.name.value] = statement
    return frozenset(dead)


def _plain_binding(statement: cst.CSTNode) -> str | None:
    """The name a def, a class or a plain `name = value` binds."""
    if type(statement) is cst.FunctionDef or type(statement) is cst.ClassDef:
        return statement.name.value
    if type(statement) is cst.Assign and len(statement.targets) == 1 and type(statement.targets[0].target) is cst.Name:
        return statement.targets[0].target.value
    return None


def _read_part(statement: cst.CSTNode) -> cst.CSTNode:
    """What of a statement may read a name: all of it but the name a def, a class or a plain assignment binds."""
    if type(statement) is cst.FunctionDef or type(statement) is cst.ClassDef:
        return statement.with_changes(name=cst.Name("_"))
    if _plain_binding(statement) is not None:
        return cast(cst.Assign, statement).value
    return statement


replaced_defs = ModuleMemo(_replaced)
