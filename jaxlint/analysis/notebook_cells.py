"""What a notebook's cells mean to the analysis: each starts at its marker comment (jaxlint/cells.py), Jupyter
displays the value of a cell's last expression, and a line magic may time a statement (`%timeit f(x)`)."""

from __future__ import annotations

import re

import libcst as cst

from jaxlint.cells import CELL_MARKER, TIMED_BY, TIMING_CELL_MAGICS, TIMING_MAGICS


# The comment after a timed statement (notebooks.timed_statement), naming its magic; and after the `pass` where a
# cell's timing magic was (`%%timeit`).
def _timed_by(magics: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(re.escape(TIMED_BY).replace(re.escape("{}"), "(" + "|".join(magics) + ")") + "$")


_TIMED = _timed_by(TIMING_MAGICS)
_TIMED_CELL = _timed_by(TIMING_CELL_MAGICS)


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


def timing_magic(statement: cst.CSTNode) -> str | None:
    """The IPython magic a notebook line times its statement with (`%timeit`, `%time`), from the comment jaxlint
    wrote after it; the statement is the line's second (the first is the `pass` where the magic was)."""
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) < 2:
        return None
    comment = statement.trailing_whitespace.comment
    found = _TIMED.search(comment.value) if comment is not None else None
    return found.group(1) if found is not None and type(statement.body[0]) is cst.Pass else None


def timing_cell_magic(statement: cst.CSTNode) -> str | None:
    """The IPython cell magic (`%%timeit`, `%%time`) that times the rest of the cell whose first line this statement
    stands for (the `pass` notebooks.python_lines wrote, with a comment naming the magic)."""
    if (
        type(statement) is not cst.SimpleStatementLine
        or len(statement.body) != 1
        or type(statement.body[0]) is not cst.Pass
    ):
        return None
    comment = statement.trailing_whitespace.comment
    found = _TIMED_CELL.search(comment.value) if comment is not None else None
    return found.group(1) if found is not None else None
