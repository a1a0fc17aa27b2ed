"""What a notebook's saved outputs show of its findings: a run of the code, recorded in the file.

A cell's error output whose traceback marks a finding's line (IPython's `---->` arrow) with the error jax gives
for that rule (model/confirmations.py's EXPECTED, the same evidence `--verify` looks for), and a stream output where a
flagged `print` shows a tracer, are runs of the finding that the notebook already shows. Lessons show JAX's
sharp bits this way on purpose (`x[0] = 1  # TypeError`, a jitted `print` showing `Traced<...>`), and whoever
saved the outputs has seen them: jaxlint reports what the notebook does not show.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from jaxlint.diagnostics import Diagnostic
from jaxlint.notebooks import cell_lines, cell_text
from jaxlint.model.confirmations import EXPECTED, OBSERVED

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_ARROW = re.compile(r"^\s*-*>\s*\d+\s(.*)$")  # `----> 4     y = jnp.arange(0., n)`
_PRINTED = re.compile(r"""^\s*print\(\s*f?(["'])([^"'{}\\]+)\1""")  # the literal a print shows first
_TRACER = "Traced<"
_PRINTS = frozenset(OBSERVED["print"])


@dataclass(frozen=True)
class _Raised:
    error: str
    message: str
    lines: frozenset[str]  # the source lines the traceback marks, stripped


def unshown(document: dict, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The findings (placed in their cells) that the notebook's saved outputs do not show."""
    raised, printed = _outputs(document)
    if not raised and not printed:
        return diagnostics
    cells = document.get("cells", [])
    kept = []
    for finding in diagnostics:
        line = _line(cells, finding)
        if line is None or not (_raised_at(raised, finding.code, line) or _printed_by(printed, finding.code, line)):
            kept.append(finding)
    return kept


def _outputs(document: dict) -> tuple[list[_Raised], list[str]]:
    """Every error the saved outputs show, and every line they printed that shows a tracer."""
    raised: list[_Raised] = []
    printed: list[str] = []
    for cell in document.get("cells", []):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        for output in cell.get("outputs") or ():
            if not isinstance(output, dict):
                continue
            if output.get("output_type") == "error":
                frames = output.get("traceback") or []
                text = _ANSI.sub("", "\n".join(str(frame) for frame in frames))
                marked = frozenset(m.group(1).strip() for m in map(_ARROW.match, text.splitlines()) if m)
                raised.append(_Raised(str(output.get("ename", "")), str(output.get("evalue", "")), marked))
            elif output.get("output_type") == "stream":
                text = output.get("text", "")
                text = "".join(text) if isinstance(text, list) else str(text)
                printed.extend(line for line in text.splitlines() if _TRACER in line)
    return raised, printed


def _line(cells: list, finding: Diagnostic) -> str | None:
    """The finding's line of its cell, stripped."""
    if finding.cell is None or not 0 < finding.cell <= len(cells) or not isinstance(cells[finding.cell - 1], dict):
        return None
    lines = cell_lines(cell_text(cells[finding.cell - 1]))
    return lines[finding.row - 1].strip() if 0 < finding.row <= len(lines) else None


def _raised_at(raised: list[_Raised], code: str, line: str) -> bool:
    expected = EXPECTED.get(code, ())
    return bool(line) and any(
        line in error.lines and any(error.error == cls and fragment in error.message for cls, fragment in expected)
        for error in raised
    )


def _printed_by(printed: list[str], code: str, line: str) -> bool:
    """A flagged print whose first literal starts a saved line that shows a tracer (`print("i:", i)` and
    `i: Traced<ShapedArray(int32[])>with<DynamicJaxprTrace>`)."""
    match = _PRINTED.match(line) if code in _PRINTS else None
    shown = match.group(2).strip() if match else ""
    return bool(shown) and any(text.lstrip().startswith(shown) for text in printed)
