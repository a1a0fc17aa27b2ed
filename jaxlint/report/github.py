"""GitHub Actions workflow commands: an annotation on the diff for each finding."""

from __future__ import annotations

from jaxlint.diagnostics import Diagnostic
from jaxlint.results import RunResult


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _annotation(d: Diagnostic) -> str:
    """A notebook's lines are not the file's lines: its annotation is on the file, and names the cell."""
    if d.cell is None:
        where = f"line={d.row},col={d.col},endLine={d.end_row},endColumn={d.end_col},"
        text = f"{d.code} {d.message}"
    else:
        where, text = "", f"cell {d.cell}:{d.row}:{d.col}: {d.code} {d.message}"
    return f"::error file={_escape_property(d.filename)},{where}title={d.code}::{_escape_data(text)}\n"


def render(result: RunResult) -> str:
    return "".join(_annotation(d) for d in result.diagnostics)
