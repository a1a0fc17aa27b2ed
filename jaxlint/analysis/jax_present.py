"""Flags that say jax imported (`HAS_JAX`, `JAX_AVAILABLE`): a module-level name set True in a `try:` right after it
imports jax, and False only in that `try:`'s handlers or before it. Code runs under a jax trace only where jax
imported, so there such a flag is True: `if not HAS_JAX:` guards a fallback no trace enters.

`jax_present_values(module)` gives the ids of those True and False literals: a name whose every binding is one of
them is such a flag (callees.ModuleBindings.values_held tells its bindings where it is read)."""

from __future__ import annotations

from typing import cast

import libcst as cst

from jaxlint.analysis.module_memo import ModuleMemo
from jaxlint.analysis.names import dotted

# What a `try:` may import before the flag: jax, and what jax itself needs (if jax imports, these did too).
_IMPORTED_WITH_JAX = frozenset({"jax", "jaxlib", "numpy"})


def _flag_assignment(statement: cst.CSTNode, literal: str) -> tuple[str, cst.Name] | None:
    """`NAME = True` (`literal`), as one small statement of its line: the name and the literal."""
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if type(assign) is not cst.Assign or len(assign.targets) != 1:
        return None
    target, value = assign.targets[0].target, assign.value
    if type(target) is not cst.Name or type(value) is not cst.Name or value.value != literal:
        return None
    return target.value, value


def _imports_only_jax(statement: cst.CSTNode) -> bool:
    """`import jax`, `import jax.numpy as jnp`, `from jax import lax`: imports of jax (or of what it needs) only."""
    if type(statement) is not cst.SimpleStatementLine:
        return False
    for small in statement.body:
        if type(small) is cst.Import:
            roots = [dotted(alias.name) for alias in small.names]
        elif type(small) is cst.ImportFrom and not small.relative and small.module is not None:
            roots = [dotted(small.module)]
        else:
            return False
        if not all(root is not None and root.split(".")[0] in _IMPORTED_WITH_JAX for root in roots):
            return False
    return True


def _flags_of_try(statement: cst.Try) -> dict[str, list[cst.Name]]:
    """The names the `try:` sets True once nothing but its jax imports ran (their False literals in its handlers
    with them): reaching that line means jax imported."""
    found: dict[str, list[cst.Name]] = {}
    imported = False
    for inner in statement.body.body:
        set_true = _flag_assignment(inner, "True")
        if set_true is not None and imported:
            found.setdefault(set_true[0], []).append(set_true[1])
        elif _imports_only_jax(inner):
            imported = True
        elif set_true is None:
            break  # (anything else may fail with jax imported)
    for handler in statement.handlers:
        for inner in cast(cst.IndentedBlock, handler.body).body:
            set_false = _flag_assignment(inner, "False")
            if set_false is not None and set_false[0] in found:
                found[set_false[0]].append(set_false[1])
    return found


def _present_values(module: cst.Module) -> frozenset[int]:
    values: set[int] = set()
    earlier: dict[str, list[cst.Name]] = {}  # `HAS_JAX = False` before the `try:` that sets it
    for statement in module.body:
        set_false = _flag_assignment(statement, "False")
        if set_false is not None:
            earlier.setdefault(set_false[0], []).append(set_false[1])
        elif type(statement) is cst.Try:
            for name, literals in _flags_of_try(statement).items():
                values.update(id(literal) for literal in (*literals, *earlier.get(name, ())))
    return frozenset(values)


jax_present_values = ModuleMemo(_present_values)  # (once per module, whatever the rounds)
