"""What a notebook's cells mean to the analysis: each starts at its marker comment (jaxlint/cells.py), and
Jupyter displays the value of a cell's last expression."""

from __future__ import annotations

import libcst as cst

from jaxlint.cells import CELL_MARKER


def starts_cell(statement: cst.CSTNode) -> bool:
    """Whether a module-level statement is the first of a cell (its marker is a comment before it)."""
    return any(
        line.comment is not None and line.comment.value.startswith(CELL_MARKER)
        for line in getattr(statement, "leading_lines", ())
    )


def displayed(module: cst.Module) -> frozenset[int]:
    """The expression statements (by id) whose value Jupyter displays: a cell's last statement when it is an
    expression not ended by `;`. Its result is shown, not thrown away."""
    shown: set[int] = set()
    body = module.body
    for statement, following in zip(body, [*body[1:], None]):
        if type(statement) is cst.SimpleStatementLine and (following is None or starts_cell(following)):
            last = statement.body[-1]
            if type(last) is cst.Expr and type(last.semicolon) is not cst.Semicolon:
                shown.add(id(last))
    return frozenset(shown)
