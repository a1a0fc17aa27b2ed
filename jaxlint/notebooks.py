"""Jupyter notebooks: the code cells become one program (the analysis must see imports made in cell 1
when it checks a jitted function in cell 3), and each finding is mapped back to its cell.

IPython syntax that is not Python (`%magic`, `!shell`, `obj?`) is replaced line for line by `pass`, so
rows and columns stay those of the cell. A cell run by a non-Python cell magic (`%%bash`) is left out.
Cells are numbered as in the file, from 1, counting every cell (markdown too).
"""

from __future__ import annotations

import io
import json
import re
import tokenize
from dataclasses import dataclass, replace

from jaxlint.diagnostics import Diagnostic, Edit, Fix
from jaxlint.files import NOTEBOOK_SUFFIX, InputError, read_bytes

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# `%time f()`, `%%time`, `!pip install jax`, and their assigned forms `files = !ls`, `t = %timeit -o f()`.
_MAGIC = re.compile(r"^\s*(?:[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*)?[%!]")
# `jnp.zeros?`, `jax.random.*key*??`, `?jit`
_HELP = re.compile(r"^\s*(?:\?{1,2}[\w.*]+|[\w.*]+\?{1,2})\s*$")
# Cell magics whose body is Python run in this kernel; the others (`%%bash`, `%%html`, `%%writefile`) are not.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})


class NotPython(Exception):
    """A valid notebook in another language: nothing for jaxlint to check."""


@dataclass(frozen=True)
class CodeCell:
    number: int  # 1-based position among all the notebook's cells
    first_row: int  # where its first line sits in the program


@dataclass(frozen=True)
class Notebook:
    source: str  # the Python code cells, one after the other
    cells: tuple[CodeCell, ...]

    def cell_of(self, row: int) -> CodeCell:
        return next(cell for cell in reversed(self.cells) if cell.first_row <= row)

    def line_name(self, row: int) -> str:
        """How a message names a row of the program: `3 of cell 5`, as in "at line 3 of cell 5"."""
        cell = self.cell_of(row)
        return f"{row - cell.first_row + 1} of cell {cell.number}"

    def locate(self, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
        """Program rows -> (cell, row within the cell), for the finding and its fix's edits."""
        located = []
        for d in diagnostics:
            cell = self.cell_of(d.row)
            shift = cell.first_row - 1
            fix = d.fix and replace(d.fix, edits=tuple(_shifted(edit, shift) for edit in d.fix.edits))
            located.append(replace(d, row=d.row - shift, end_row=d.end_row - shift, fix=fix, cell=cell.number))
        return located


def _shifted(edit: Edit, shift: int) -> Edit:
    return replace(edit, row=edit.row - shift, end_row=edit.end_row - shift)


def is_notebook(path: str) -> bool:
    return path.endswith(NOTEBOOK_SUFFIX)


def read_notebook(path: str) -> Notebook:
    """The program of a notebook's Python code cells; InputError when it is not a valid notebook."""
    return program(parse_notebook(read_bytes(path)))


def parse_notebook(data: bytes) -> dict:
    """The notebook's JSON, checked far enough to find its code cells (nbformat 4)."""
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        raise _invalid(f"not UTF-8 (byte 0x{data[error.start:error.start + 1].hex()})")
    except json.JSONDecodeError as error:
        raise _invalid(f"not JSON: {error.msg}", error.lineno, error.colno)
    if not isinstance(document, dict):
        raise _invalid("the top level is not a JSON object")
    version = document.get("nbformat")
    if version != 4:
        raise _invalid(f"nbformat {version!r}; jaxlint reads nbformat 4 (convert it with `jupyter nbconvert`)")
    cells = document.get("cells")
    if not isinstance(cells, list):
        raise _invalid("no `cells` list")
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            raise _invalid(f"cell {number} is not an object with a `cell_type`")
        source = cell.get("source")
        if not (isinstance(source, str) or isinstance(source, list) and all(isinstance(s, str) for s in source)):
            raise _invalid(f"cell {number} has no `source` string or list of strings")
    language = _language(document.get("metadata"))
    if language.lower() != "python":
        raise NotPython(f"skipped: a notebook in {language}, not Python")
    return document


def _invalid(reason: str, row: int = 1, col: int = 1) -> InputError:
    return InputError("JAX001", f"not a valid Jupyter notebook: {reason}", row, col)


def _language(metadata: object) -> str:
    """The kernel's language; Python when the notebook does not say."""
    if not isinstance(metadata, dict):
        return "python"
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        section = metadata.get(key)
        if isinstance(section, dict) and isinstance(section.get(field), str):
            return section[field]
    return "python"


def cell_text(cell: dict) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def cell_lines(text: str) -> list[str]:
    """The lines of a cell as Jupyter shows them, without a last empty line after a final newline."""
    lines = _LINE_BREAK.split(text)
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def program(document: dict) -> Notebook:
    rows: list[str] = []
    cells = []
    for number, cell in enumerate(document["cells"], 1):
        if cell["cell_type"] != "code":
            continue
        python = python_lines(cell_lines(cell_text(cell)))
        if python is None:
            continue
        cells.append(CodeCell(number, len(rows) + 1))
        rows.extend(python)
    return Notebook("".join(row + "\n" for row in rows), tuple(cells))


def python_lines(lines: list[str]) -> list[str] | None:
    """The cell's lines with IPython syntax replaced by `pass`; None for a cell that is not Python."""
    first = next((line.strip() for line in lines if line.strip()), "")
    if first.startswith("%%") and first[2:].split(" ")[0] not in PYTHON_CELL_MAGICS:
        return None
    python: list[str] = []
    indent = None  # of a magic line that ends in `\` and so goes on on the next line
    for line in lines:
        if indent is None and (_MAGIC.match(line) or _HELP.match(line)) and not _inside_statement(python):
            indent = line[:len(line) - len(line.lstrip())]
        if indent is None:
            python.append(line)
            continue
        python.append(indent + "pass")
        if not line.rstrip().endswith("\\"):
            indent = None
    return python


def _inside_statement(lines: list[str]) -> bool:
    """Whether these lines end inside a bracket or a string, where `%` and `!` are Python, not IPython."""
    try:
        for _ in tokenize.generate_tokens(io.StringIO("".join(line + "\n" for line in lines)).readline):
            pass
    except tokenize.TokenError:
        return True
    except SyntaxError:  # an indentation error: not an open statement
        return False
    return False
