"""A rule's fix plan (checks.base.FixPlan) turned into positioned edits of the file's text."""

from __future__ import annotations

from typing import Callable

import libcst as cst

from jaxlint.analysis.bindings import is_docstring
from jaxlint.analysis.names import dotted
from jaxlint.checks.base import FixPlan
from jaxlint.diagnostics import Edit, Fix
from jaxlint.fix import Offsets


def fix_edits(
    plan: FixPlan, module: cst.Module, source: str, positions, offsets: Offsets, bound: Callable[[], dict[str, str]]
) -> Fix:
    """Positioned edits for a rule's fix plan, in the file's own newline style (`bound`: the module's imports)."""
    newline = module.default_newline

    def original(first: cst.CSTNode, last: cst.CSTNode) -> str:
        start, end = positions[_outer(first, 0)].start, positions[_outer(last, -1)].end
        return source[offsets.of(start.line, start.column + 1) : offsets.of(end.line, end.column + 1)]

    def styled(code: str) -> str:
        return code.replace("\r\n", "\n").replace("\n", newline)

    # Not recursive: a closure calling itself is a reference cycle holding the module's whole tree until the
    # collector runs.
    def text(piece) -> str:
        if isinstance(piece, str):
            return styled(piece)
        if isinstance(piece, tuple):
            return original(*piece)
        if piece not in positions:  # a node the rule built: its code, in the file's newline style
            return styled(module.code_for_node(piece))
        return original(piece, piece)

    edits = []
    for node, new in plan.replacements:
        where = positions[node]
        content = "".join(text(piece) for piece in new) if isinstance(new, tuple) else text(new)
        edits.append(Edit(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1, content))
    for name in plan.imports:
        if bound().get(name) != name:
            edits.append(_import_edit(name, module, positions, offsets, newline))
    return Fix(plan.applicability, plan.message, tuple(sorted(edits)))


def drops_comments(plan: FixPlan) -> bool:
    """Whether the fix would delete a comment: one in a replaced node that no copied piece keeps."""
    for node, new in plan.replacements:
        kept = [
            piece
            for part in (new if isinstance(new, tuple) else (new,))
            for piece in (part if isinstance(part, tuple) else (part,))
            if isinstance(piece, cst.CSTNode)
        ]
        if len(_comments(node)) > sum(len(_comments(piece)) for piece in kept):
            return True
    return False


def _comments(node: cst.CSTNode) -> list[cst.Comment]:
    found: list[cst.Comment] = []

    class Collector(cst.CSTVisitor):
        def visit_Comment(self, comment: cst.Comment) -> None:
            found.append(comment)

    node.visit(Collector())
    return found


def _outer(node: cst.CSTNode, side: int) -> cst.CSTNode:
    """The node's outermost parenthesis on that side (positions leave parentheses out), or the node."""
    parens = getattr(node, "lpar" if side == 0 else "rpar", None)
    return parens[side] if parens else node


def _import_edit(name: str, module: cst.Module, positions, offsets: Offsets, newline: str) -> Edit:
    """`import name` on its own line after the imports that open the file, or, when jax is first
    imported further down (after setup code such as `os.environ[...] = ...`), after the imports that
    import of jax is one of; else before the first statement."""
    statements = list(module.body)
    first = 1 if statements and is_docstring(statements[0]) else 0
    opening = []
    for statement in statements[first:]:
        if not _imports(statement):
            break
        opening.append(statement)
    of_jax = next((i for i, s in enumerate(statements) if any(m.split(".")[0] == "jax" for m in _imports(s))), None)
    anchor: cst.CSTNode | None
    if of_jax is not None and statements[of_jax] not in opening:
        while of_jax + 1 < len(statements) and _imports(statements[of_jax + 1]):
            of_jax += 1  # the end of the imports that jax's is one of
        anchor = statements[of_jax]
    else:
        anchor = opening[-1] if opening else None
    if anchor is not None:
        row = positions[anchor].end.line + 1  # the next line: the anchor's trailing comment stays with it
        if row > offsets.rows:
            return Edit(row, 1, row, 1, f"{newline}import {name}")
        return Edit(row, 1, row, 1, f"import {name}{newline}")
    if first < len(statements):
        start = positions[statements[first]].start
        return Edit(start.line, 1, start.line, 1, f"import {name}{newline}")
    end = positions[module].end
    return Edit(end.line, end.column + 1, end.line, end.column + 1, f"{newline}import {name}{newline}")


def _imports(statement: cst.CSTNode) -> list[str]:
    """The modules a top-level line of nothing but imports imports from; [] for any other statement."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return []
    modules: list[str] = []
    for small in statement.body:
        if isinstance(small, cst.Import):
            modules.extend(dotted(alias.name) or "" for alias in small.names)
        elif isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
            modules.append(dotted(small.module) or "")
        else:
            return []
    return modules
