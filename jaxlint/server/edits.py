"""The edits a finding offers in an editor beyond its own fix: its fix placed in a notebook's cells, and
`# noqa`."""

from __future__ import annotations

import re
from dataclasses import replace

from jaxlint.diagnostics import Diagnostic, Edit
from jaxlint.files import LINE_BREAK
from jaxlint.fix import Offsets, parses
from jaxlint.noqa import line_suppression
from jaxlint.cells import MARKER
from jaxlint.notebooks import program
from jaxlint.server.checking import Cell, notebook_document

_NOQA_CODES = re.compile(r"#\s*noqa:\s*", re.IGNORECASE)  # where a noqa comment's code list starts
_MARKER_ROW = re.compile("^" + re.escape(MARKER).replace(re.escape("{}"), r"(\d+)") + "$", re.MULTILINE)


def cell_edits(cells: list[Cell], diagnostic: Diagnostic) -> list[tuple[int, Edit]]:
    """A notebook finding's fix as (cell number, edit within that cell): a fix's edits may be in other
    cells than its finding (`import jax` goes after the notebook's imports). An insertion at the start of
    a cell's marker row, just after the previous cell's last line, goes at the start of that cell."""
    assert diagnostic.fix is not None
    edits = diagnostic.fix.edits
    in_cells = [(edit.cell, replace(edit, cell=None)) for edit in edits if edit.cell is not None]
    if len(in_cells) == len(edits):  # all placed in their cells by notebooks.locate
        return in_cells
    text = program(notebook_document(cells, None))
    firsts = [(text.count("\n", 0, match.start()) + 2, int(match.group(1))) for match in _MARKER_ROW.finditer(text)]
    shift = next(first for first, number in firsts if number == diagnostic.cell) - 1
    placed = []
    for edit in edits:
        row, end_row = edit.row + shift, edit.end_row + shift
        starting = [(first, number) for first, number in firsts if first - 1 == row]
        if starting and edit.col == 1 and (edit.end_row, edit.end_col) == (edit.row, edit.col):
            placed.append((starting[0][1], Edit(1, 1, 1, 1, edit.content)))
            continue
        first, number = next((f, n) for f, n in reversed(firsts) if f <= row)
        placed.append((number, Edit(row - first + 1, edit.col, end_row - first + 1, edit.end_col, edit.content)))
    return placed


def noqa_edit(text: str, diagnostic: Diagnostic) -> Edit | None:
    """The edit that adds the finding's code to the `# noqa` of its line; None when the result would not
    be the same program (a line that goes on after a backslash, where a comment is a syntax error)."""
    lines = LINE_BREAK.split(text)
    row = diagnostic.noqa_row
    if row > len(lines):
        return None
    line = lines[row - 1]
    match = _NOQA_CODES.search(line)
    if line_suppression(line) is False or match is None:
        content = line.rstrip()
        edit = Edit(row, len(content) + 1, row, len(line) + 1, f"  # noqa: {diagnostic.code}")
    else:
        edit = Edit(row, match.end() + 1, row, match.end() + 1, f"{diagnostic.code}, ")
    offsets = Offsets(text)
    new = text[: offsets.of(edit.row, edit.col)] + edit.content + text[offsets.of(edit.end_row, edit.end_col) :]
    if parses(text) and not parses(new):
        return None
    return edit
