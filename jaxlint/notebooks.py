"""Jupyter notebooks: the code cells become one program (the analysis must see imports made in cell 1
when it checks a jitted function in cell 3), and each finding is mapped back to its cell.

Each cell is cleaned up as IPython does before running it: a cell indented as a whole is dedented
(its marker line records by how much, so columns are those of the cell), and IPython syntax that is
not Python (`%magic`, `!shell`, `obj?`, `/f x`, `pip install x` run by automagic) is replaced line for line by
`pass`, so rows stay those of the cell. A cell run by a non-Python cell magic (`%%bash`) is left out.
Cells are numbered as in the file, from 1, counting every cell (markdown too).
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from itertools import product
from typing import Callable

from jaxlint.cells import MARKER, TIMED_BY, TIMED_MARK, TIMING_CELL_MAGICS, TIMING_MAGICS
from jaxlint.diagnostics import Diagnostic, Edit, Evidence
from jaxlint.files import LINE_BREAK, NOTEBOOK_SUFFIX, InputError
from jaxlint.fix import FixError

INDENT = " indent {}"  # after the marker of a cell IPython dedents
_JSON_LINES = re.compile(r"[^\n]*\n|[^\n]+")  # how Jupyter splits a cell's source into a list
_MARKER = re.compile(r"^# %% notebook cell (\d+)(?: indent (\d+))?$", re.MULTILINE)
# `%time f()`, `%%time`, `!pip install jax`, and their assigned forms `files = !ls`, `t = %timeit -o f()`;
# the autocall escapes `/f 1 2`, `,f a b`, `;f a b`.
_MAGIC = re.compile(r"^\s*(?:[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*)?[%!]|^\s*[/,;][A-Za-z_]")
# The last line of an assignment target that spans lines, assigned a magic's value (`timings[lib][\n    name\n] =
# %timeit -o f()`): IPython assigns what the magic gives to the whole target.
_TARGET_END_MAGIC = re.compile(r"^(\s*[)\]}][\s)\]}]*=\s*)[%!]")
# A line magic written without `%`, which IPython's automagic (on by default) runs as one: `pip install jax`,
# `conda install -c conda-forge jax`, `cd data` (two names side by side: never Python).
_AUTOMAGIC = re.compile(r"^\s*(?:(?:pip|conda|mamba)\s+-{0,2}|cd\s+)(?!(?:in|is|if|and|or|not|else)\b)[\w./~-]")
# `jnp.zeros?`, `jax.random.*key*??`, `?jit`
_HELP = re.compile(r"^\s*(?:\?{1,2}[\w.*]+|[\w.*]+\?{1,2})\s*$")
# `%timeit -n 10 f(x)`, `%time f(x)`: the magic, its options, and the statement it times after them.
_TIMING_MAGIC = re.compile(r"^(\s*)(" + "|".join(TIMING_MAGICS) + r")((?:\s+-[a-z](?:\s*\d+)?)*)\s+(?=\S)")
# `%%timeit -n 10` (options only: a setup statement after them runs untimed, and is left out with the line).
_TIMING_CELL_MAGIC = re.compile(r"^(" + "|".join(TIMING_CELL_MAGICS) + r")(?:\s+-[a-z](?:\s*\d+)?)*(?:\s|$)")
# Cell magics whose body is Python run in this kernel; the others (`%%bash`, `%%html`, `%%writefile`) are not.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})


class NotPython(Exception):
    """A valid notebook in another language: nothing for jaxlint to check."""


@dataclass(frozen=True)
class Notebook:
    """A notebook read from `data`, and `source`: its Python code cells as one program.

    A marker comment opens each cell in the program, so that any version of the program (after fixes
    add or remove lines) still says which rows belong to which cell.
    """

    data: bytes
    document: dict
    source: str

    @classmethod
    def read(cls, data: bytes) -> Notebook:
        document = parse_notebook(data)
        return cls(data, document, program(document))

    def rewrite(self, fixed: str) -> bytes:
        """The notebook with the cells of a fixed program, in the file's own JSON layout."""
        document = json.loads(self.data.decode("utf-8-sig"))
        rows = LINE_BREAK.split(fixed)[:-1]
        cells = _cells_in(fixed)
        if [number for _, number, _ in cells] != [number for _, number, _ in _cells_in(self.source)]:
            raise FixError("a fix moved code across notebook cells")
        ends = [first - 2 for first, _, _ in cells[1:]] + [len(rows)]  # the row before the next marker
        for (first, number, _), end in zip(cells, ends):
            cell = document["cells"][number - 1]
            text = cell_text(cell)
            lines = cell_lines(text)
            python = python_lines(lines)
            assert python is not None  # the program holds only the Python cells
            new = _restore_ipython(lines, python, rows[first - 1 : end], leading_indent(lines))
            if new != lines:
                new_text = "\n".join(new) + ("\n" if text.endswith("\n") else "")
                cell["source"] = new_text if isinstance(cell["source"], str) else _JSON_LINES.findall(new_text)
        return _dump_like(self.data, self.document, document)


def line_name(program_text: str) -> Callable[[int], str]:
    """How a message names a row of the program: `3 of cell 5`, as in "at line 3 of cell 5"."""
    return _row_names(program_text, lambda cell, row: f"{row} of cell {cell}")


def _row_names(program_text: str, spell: Callable[[int, int], str]) -> Callable[[int], str]:
    """A row of the program, spelled from its cell's number and its row in that cell."""
    cells = _cells_in(program_text)

    def name(row: int) -> str:
        first, number, _ = _cell_of(cells, row)
        return spell(number, row - first + 1)

    return name


def place_name(program_text: str) -> Callable[[int], str]:
    """How another file's message places a row of the program: `cell 5:3`, as findings are placed."""
    return _row_names(program_text, lambda cell, row: f"cell {cell}:{row}")


def locate(program_text: str, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Program rows -> (cell, row within the cell), for each finding and its fix's edits; columns move
    right by the indentation IPython removed from the cell."""
    cells = _cells_in(program_text)
    located = []
    for d in diagnostics:
        first, number, indent = _cell_of(cells, d.row)
        shift = first - 1
        fix = d.fix and replace(d.fix, edits=tuple(_edit_in_cell(edit, cells, program_text) for edit in d.fix.edits))
        located.append(
            replace(
                d,
                row=d.row - shift,
                end_row=d.end_row - shift,
                col=d.col + indent,
                end_col=d.end_col + indent,
                fix=fix,
                cell=number,
                evidence=tuple(_evidence_in_cell(step, cells) for step in d.evidence),
            )
        )
    return located


def _evidence_in_cell(step: Evidence, cells: list[tuple[int, int, int]]) -> Evidence:
    if step.row is None:
        return step
    first, number, _ = _cell_of(cells, step.row)
    return replace(step, row=step.row - first + 1, cell=number)


def _cells_in(program_text: str) -> list[tuple[int, int, int]]:
    """(first row, cell number, indentation removed) of each cell in a program, from its markers."""
    return [
        (program_text.count("\n", 0, match.start()) + 2, int(match.group(1)), int(match.group(2) or 0))
        for match in _MARKER.finditer(program_text)
    ]


def _cell_of(cells: list[tuple[int, int, int]], row: int) -> tuple[int, int, int]:
    return next((cell for cell in reversed(cells) if cell[0] <= row), cells[0])


def _edit_in_cell(edit: Edit, cells: list[tuple[int, int, int]], program_text: str) -> Edit:
    """An edit of the program as an edit of the cell it falls in. An insertion at the start of a marker
    row (`import jax` after the imports that end a cell) is an insertion at the end of the cell before."""
    markers = {first - 1: index for index, (first, _, _) in enumerate(cells)}
    if edit.row in markers and edit.row == edit.end_row and edit.col == edit.end_col == 1 and markers[edit.row]:
        first, number, indent = cells[markers[edit.row] - 1]
        last = LINE_BREAK.split(program_text)[edit.row - 2]  # the cell's last line
        row, col = edit.row - first, len(last) + 1 + indent
        content = "\n" + edit.content[:-1] if edit.content.endswith("\n") else "\n" + edit.content
        return Edit(row, col, row, col, content, number)
    first, number, indent = _cell_of(cells, edit.row)
    shift = first - 1
    return replace(
        edit,
        row=edit.row - shift,
        end_row=edit.end_row - shift,
        col=edit.col + indent,
        end_col=edit.end_col + indent,
        cell=number,
    )


def is_notebook(path: str) -> bool:
    return path.endswith(NOTEBOOK_SUFFIX)


def parse_notebook(data: bytes) -> dict:
    """The notebook's JSON, checked far enough to find its code cells (nbformat 4)."""
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        raise _invalid(f"not UTF-8 (byte 0x{data[error.start : error.start + 1].hex()})")
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
    if not _PYTHON.fullmatch(language):
        raise NotPython(f"skipped: a notebook in {language}, not Python")
    return document


def _invalid(reason: str, row: int = 1, col: int = 1) -> InputError:
    return InputError("JAX001", f"not a valid Jupyter notebook: {reason}", row, col)


# The kernel's language names Python with or without a version or IPython: jupyter-book and jupytext write
# "python3" (ipykernel's kernel name), some kernels "Python 3" or "ipython3".
_PYTHON = re.compile(r"i?python[ -]?[\d.]*", re.IGNORECASE)


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
    lines = LINE_BREAK.split(text)
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def program(document: dict) -> str:
    """The Python code cells, each after its marker line."""
    rows: list[str] = []
    for number, cell in enumerate(document["cells"], 1):
        lines = cell_lines(cell_text(cell))
        python = python_lines(lines) if cell["cell_type"] == "code" else None
        if python is not None:
            indent = len(leading_indent(lines))
            rows.append(MARKER.format(number) + (INDENT.format(indent) if indent else ""))
            rows.extend(python)
    return "".join(row + "\n" for row in rows)


def leading_indent(lines: list[str]) -> str:
    """The indentation IPython removes from every line of a cell: that of its first line that is not blank."""
    first = next((line for line in lines if line.strip()), "")
    return first[: len(first) - len(first.lstrip(" \t"))]


def python_lines(lines: list[str]) -> list[str] | None:
    """The cell's lines as IPython runs them, dedented, with IPython syntax replaced by `pass`; None for a
    cell that is not Python."""
    indent = leading_indent(lines)
    if indent:
        lines = [line[len(indent) :] if line.startswith(indent) else line for line in lines]
    first = next((line.strip() for line in lines if line.strip()), "")
    if first.startswith("%%") and first[2:].split(" ")[0] not in PYTHON_CELL_MAGICS:
        return None
    python: list[str] = []
    magic: str | None = None  # the indent of a magic line that ends in `\` and so goes on on the next line
    timing = _TIMING_CELL_MAGIC.match(first)
    if timing is not None and not first.endswith("\\"):  # `%%timeit -n 10`: the rest of the cell is what it times
        start = next(n for n, line in enumerate(lines) if line.strip())
        python = [*lines[:start], f"pass  {TIMED_BY.format(timing.group(1))}"]
        lines = lines[start + 1 :]
    for line in lines:
        if (
            magic is None
            and (_MAGIC.match(line) or _HELP.match(line) or _AUTOMAGIC.match(line))
            and not _inside_statement(python)
        ):
            magic = line[: len(line) - len(line.lstrip())]
        elif magic is None and (end := _TARGET_END_MAGIC.match(line)) and _inside_statement(python):
            python.append(end.group(1) + "None")  # (the target stays: its names are bound, as IPython binds them)
            continue
        if magic is None:
            python.append(line)
            continue
        timed = timed_statement(line) if not line.rstrip().endswith("\\") else None
        python.append(timed if timed is not None else magic + "pass")
        if not line.rstrip().endswith("\\"):
            magic = None
    return python


def timed_statement(line: str) -> str | None:
    """`%timeit f(x)` (or `%time`, options included) as the Python the magic runs, in place: `pass;` and spaces
    where the magic was, so the statement keeps its columns, and a comment naming the magic (cells.TIMED_BY), for
    the rules that judge what it times. None when the statement is not simple statements that Python parses."""
    found = _TIMING_MAGIC.match(line)
    if found is None:
        return None
    indent, magic, statement = found.group(1), found.group(2), line[found.end() :]
    try:
        parsed = ast.parse(statement)
    except SyntaxError:
        return None
    if not parsed.body or any(hasattr(node, "body") for node in parsed.body):
        return None  # a compound statement (`for i in xs: f(i)`): no `pass;` may go before it
    padding = found.end() - len(indent) - len("pass;")
    return f"{indent}pass;{' ' * padding}{statement.rstrip()}  {TIMED_BY.format(magic)}"


def _untimed(original: str, fixed: str) -> str:
    """A fixed line of a timed statement (`timed_statement`) back as the magic line it came from."""
    found = _TIMING_MAGIC.match(original)
    timed = timed_statement(original)
    if found is None or timed is None:
        raise FixError("a fix changed an IPython magic line")
    start, marker = found.end(), "  " + TIMED_BY.format(found.group(2))
    if not fixed.startswith(timed[:start]) or not fixed.endswith(marker):
        raise FixError("a fix changed an IPython magic line")
    return original[:start] + fixed[start : len(fixed) - len(marker)]


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


def _restore_ipython(original: list[str], python: list[str], fixed: list[str], indent: str) -> list[str]:
    """The fixed cell with its IPython lines back where the program had `pass` for them, and the
    indentation IPython removes back on the lines the fixes wrote."""
    restored = []
    matcher = SequenceMatcher(None, python, fixed, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            restored.extend(original[i1:i2])
            continue
        timed = [i for i in range(i1, i2) if python[i] != original[i][len(indent) :] and TIMED_MARK in python[i]]
        if timed and (tag != "replace" or i2 - i1 != j2 - j1):
            raise FixError("a fix changed an IPython magic line")
        for i, line in enumerate(fixed[j1:j2], i1):  # (line for line where a timed statement is: its magic stays)
            restored.append(
                indent + _untimed(original[i][len(indent) :], line) if i in timed else _indented(line, indent)
            )
    return restored


def _indented(line: str, indent: str) -> str:
    return indent + line if line.strip() else line


def _dump_like(data: bytes, original: dict, document: dict) -> bytes:
    """`document` as JSON in the layout of `data` (indent, escapes, final newline): the layout that
    writes `original` back byte for byte. A notebook written some other way is not rewritten."""
    text = data.decode("utf-8")
    for indent, ascii_only, end in product((1, 2, 4, None), (False, True), ("\n", "")):
        if json.dumps(original, indent=indent, ensure_ascii=ascii_only) + end == text:
            return (json.dumps(document, indent=indent, ensure_ascii=ascii_only) + end).encode("utf-8")
    raise FixError("jaxlint cannot rewrite this notebook's JSON in its own layout")
