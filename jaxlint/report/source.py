"""`--output-format full` (and `--show-source`): the text findings, each with the line it is on, a caret
under its span, the whole message when the finding's line shortened it, and the evidence step by step.

Columns count code points; the caret line counts display cells, so it stays under the span after
tabs (expanded to the next multiple of 4) and wide characters (two cells).
"""

from __future__ import annotations

import unicodedata

from jaxlint.diagnostics import Diagnostic
from jaxlint.files import LINE_BREAK, InputError, read_bytes, read_source
from jaxlint.notebooks import NotPython, cell_lines, cell_text, is_notebook, parse_notebook
from jaxlint.report.text import finding
from jaxlint.results import RunResult

TAB_SIZE = 4


def render(result: RunResult) -> str:
    sources: dict[str, list[str] | dict | None] = {}
    out = []
    for d in result.diagnostics:
        out.append(finding(d, result.unsafe_fixes))
        if d.filename not in sources:
            sources[d.filename] = _read(d.filename)
        line = _line(sources[d.filename], d)
        if line is not None:
            out.append(excerpt(line, d))
        out.append(notes(d))
    return "".join(out)


def notes(d: Diagnostic) -> str:
    """`  = note: the whole message` when the headline left some out, then `  = evidence: line 6: why`
    for each step from where the value comes to the finding."""
    gutter = " " * len(str(d.row))
    lines = [] if d.headline == d.message else [f"{gutter} = note: {d.message}\n"]
    lines += [f"{gutter} = evidence: {step.shown()}\n" for step in d.evidence]
    return "".join(lines)


def _read(path: str) -> list[str] | dict | None:
    """The file's lines, or a notebook's JSON; None when it cannot be read (it was reported already)."""
    try:
        return parse_notebook(read_bytes(path)) if is_notebook(path) else LINE_BREAK.split(read_source(path))
    except (InputError, NotPython):
        return None


def _line(source: list[str] | dict | None, d: Diagnostic) -> str | None:
    if isinstance(source, dict):
        cells = source["cells"]
        source = cell_lines(cell_text(cells[d.cell - 1])) if d.cell is not None and d.cell <= len(cells) else None
    if source is None or not 1 <= d.row <= len(source):
        return None
    return source[d.row - 1]


def _cells(text: str) -> list[tuple[str, int]]:
    """Each code point as it is shown and how many cells it takes."""
    shown, column = [], 0
    for char in text:
        if char == "\t":
            width = TAB_SIZE - column % TAB_SIZE
            shown.append((" " * width, width))
        else:
            width = 0 if unicodedata.combining(char) else 2 if unicodedata.east_asian_width(char) in "WF" else 1
            shown.append((char, width))
        column += width
    return shown


def excerpt(line: str, d: Diagnostic) -> str:
    """`  3 | x[0] = 1` and `    | ^^^^` under the finding's span (to the end of the line when it goes on)."""
    shown = _cells(line)
    start = min(d.col - 1, len(shown))
    end = d.end_col - 1 if d.end_row == d.row else len(shown)
    before = sum(width for _, width in shown[:start])
    span = max(sum(width for _, width in shown[start:end]), 1)
    gutter = " " * len(str(d.row))
    return f"{d.row} | {''.join(text for text, _ in shown)}\n{gutter} | {' ' * before}{'^' * span}\n"
