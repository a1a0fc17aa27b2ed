"""Module-level aliases of imported names: `partial = functools.partial`, `jit = jax.jit`.

A module-level name bound once, by a plain assignment, to an imported name is that name wherever it is read
(a function runs after the module has bound it), except where a function binds the name itself. A name bound
twice, or rebound through `global`, is whichever binding ran last: not known, so not an alias.
"""

from __future__ import annotations

from collections import Counter

import libcst as cst

from jaxlint.analysis.bindings import rebound_names, statements
from jaxlint.analysis.names import dotted, scope_imports


class _Globals(cst.CSTVisitor):
    """The names some function declares `global` (and so may rebind)."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Global(self, node: cst.Global) -> None:
        self.names.update(item.name.value for item in node.names)


def module_aliases(module: cst.Module, package: str | None) -> dict[str, str]:
    """Name -> the qualified name it aliases, for the module-level aliases of imported names."""
    spelled: dict[str, str] = {}  # `name = a.b`, in the order of the module
    for statement in statements(module.body):
        if type(statement) is cst.Assign and len(statement.targets) == 1:
            target, value = statement.targets[0].target, dotted(statement.value)
            if type(target) is cst.Name and value is not None:
                spelled[target.value] = value
    if not spelled:
        return {}
    counts = Counter(name for statement in module.body for name in rebound_names([statement]))
    declared = _Globals()
    module.visit(declared)
    known = scope_imports(module.body, package)
    found: dict[str, str] = {}
    for name, value in spelled.items():
        head, _, rest = value.partition(".")
        base = found.get(head) or known.get(head)
        if base is not None and counts[name] == 1 and name not in declared.names:
            found[name] = f"{base}.{rest}" if rest else base
    return found
