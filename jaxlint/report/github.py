"""GitHub Actions workflow commands: an annotation on the diff for each finding."""

from __future__ import annotations

from jaxlint.runner import RunResult


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(result: RunResult) -> str:
    return "".join(
        f"::error file={_escape_property(d.filename)},line={d.row},col={d.col},"
        f"endLine={d.end_row},endColumn={d.end_col},title={d.code}::"
        f"{_escape_data(f'{d.code} {d.message}')}\n"
        for d in result.diagnostics
    )
