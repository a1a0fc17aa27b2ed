"""What the language server checks, with no LSP in it: a document's text or a notebook's cells checked by
the runner's per-file function, with the settings found from the document's own path, and the edits a
finding offers beyond its fix (`# noqa`, fix all).

Results are remembered by (settings, content): an edit that brings a document back to a text already
checked (undo, save) parses nothing, and with a project config the on-disk result cache that the command
line writes is read and written too, so opening a file `jaxlint` already checked parses nothing either.
"""

from __future__ import annotations

import io
import json
import os
import re
import tokenize
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from jaxlint.cache import DEFAULT_DIR, Cache, content_hash, fingerprint
from jaxlint.config import CommandLine, ConfigError, Settings, build_settings
from jaxlint.diagnostics import Diagnostic, Edit
from jaxlint.files import LINE_BREAK
from jaxlint.fix import Offsets, fix_source, parses
from jaxlint.noqa import line_suppression
from jaxlint.notebooks import MARKER, program
from jaxlint.runner import check_bytes

MEMORY = 64  # results kept in memory, across documents: a few versions of each open document
_NOQA_CODES = re.compile(r"#\s*noqa:\s*", re.IGNORECASE)  # where a noqa comment's code list starts
_MARKER_ROW = re.compile("^" + re.escape(MARKER).replace(re.escape("{}"), r"(\d+)") + "$", re.MULTILINE)


@dataclass(frozen=True)
class Checked:
    """A document's findings (in a notebook: rows within their cell, `cell` numbered from 1 in the order
    the cells were given), and a problem to tell the user about: a configuration error, a bug."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    problem: str | None = None


@dataclass(frozen=True)
class Cell:
    kind: str  # "code" or "markdown", as in nbformat: only code cells are checked
    text: str


class Checker:
    """Checks documents; `fallback_root` gives the settings of documents that are not files (untitled)."""

    def __init__(self, fallback_root: Path) -> None:
        self.fallback_root = fallback_root
        self._settings: dict[Path, tuple[tuple, Settings]] = {}
        self._results: OrderedDict[tuple[str, str], list[Diagnostic]] = OrderedDict()

    def settings_for(self, path: str | None) -> Settings:
        """`[tool.jaxlint]` from the nearest pyproject.toml above the document, read again when one of
        the pyproject.toml files that decide it changes. ConfigError when it is wrong."""
        folder = Path(path).parent if path else self.fallback_root
        stamp = _stamp(folder)
        known = self._settings.get(folder)
        if known is not None and known[0] == stamp:
            return known[1]
        settings = build_settings(CommandLine(), cwd=folder)
        self._settings[folder] = (stamp, settings)
        return settings

    def check_text(self, path: str | None, text: str) -> Checked:
        """The findings of a Python document's text (`path` None: not a file, checked as untitled.py)."""
        return self._check_document(path, _encode(text), notebook=False)

    def check_notebook(self, path: str | None, cells: list[Cell], metadata: dict | None) -> Checked:
        """The findings of a notebook's cells, checked as one program as `jaxlint x.ipynb` does."""
        return self._check_document(path, json.dumps(_notebook(cells, metadata)).encode("utf-8"), notebook=True)

    def _check_document(self, path: str | None, data: bytes, notebook: bool) -> Checked:
        try:
            settings = self.settings_for(path)
        except ConfigError as error:
            return Checked(problem=f"jaxlint: error: {error}")
        if path and _excluded(path, settings):
            return Checked()
        name = command_line_name(path) if path else "untitled"
        if notebook and not name.endswith(".ipynb"):
            name += ".ipynb"  # the name tells the per-file function that the bytes are a notebook
        elif not path:
            name += ".py"
        # The cache holds a notebook file's bytes, not the cells an editor sends.
        return self._check(name, data, settings, None if notebook or not path else _cache(settings))

    def _check(self, name: str, data: bytes, settings: Settings, cache: Cache | None) -> Checked:
        key, digest = fingerprint(settings, name), content_hash(data)
        known = self._results.get((key, digest))
        if known is not None:
            self._results.move_to_end((key, digest))
            return Checked(known)
        hit = cache.get(key, digest) if cache else None
        if hit is not None:
            diagnostics = hit[0]
        else:
            result = check_bytes(name, data, settings)
            if result.internal_error:
                return Checked(problem=f"jaxlint: {result.internal_error}")
            diagnostics = result.diagnostics
            if cache is not None and result.digest is not None:
                cache.put(key, result.digest, diagnostics, result.skipped)
        self._results[(key, digest)] = diagnostics
        if len(self._results) > MEMORY:
            self._results.popitem(last=False)
        return Checked(diagnostics)

    def fix_all(self, path: str | None, text: str) -> str | None:
        """The text with every safe fix applied (as `jaxlint --fix`), or None when there is none."""
        fixed = fix_source(text, lambda source: self.check_text(path, source).diagnostics)
        return fixed.source if fixed.fixed else None


def command_line_name(path: str) -> str:
    """A file as `jaxlint` run in the server's working directory names it (relative below it, else
    absolute): editors start the server in the project's root, where the command line runs too, so the
    result cache's entries (keyed by that name) are shared, and test folders are told apart alike."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive
        return path
    return path if relative == os.pardir or relative.startswith(os.pardir + os.sep) else relative


def _excluded(path: str, settings: Settings) -> bool:
    """Whether the file or a folder it is in, below the config's folder, is excluded: as with
    `--force-exclude` (pre-commit), an editor opening it gets no findings."""
    absolute = Path(os.path.abspath(path))
    return any(settings.is_excluded(str(part)) for part in (absolute, *absolute.parents)
               if settings.root in part.parents)


def _stamp(folder: Path) -> tuple:
    """The modification times of the pyproject.toml files at and above `folder`: when none changed,
    neither did the settings."""
    stamp = []
    for candidate in (folder, *folder.parents):
        try:
            stamp.append(os.stat(candidate / "pyproject.toml").st_mtime_ns)
        except OSError:
            stamp.append(None)
    return tuple(stamp)


def _cache(settings: Settings) -> Cache | None:
    """The project's result cache, where the command line keeps it; none outside a configured project
    (opening a file must not leave a cache folder beside it)."""
    if settings.config_file is None:
        return None
    return Cache(settings.cache_dir or settings.root / DEFAULT_DIR)


def _encode(text: str) -> bytes:
    """The document's text as the bytes its file would hold: in the encoding its coding comment names."""
    data = text.encode("utf-8", errors="surrogatepass")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data if encoding in ("utf-8", "utf-8-sig") else text.encode(encoding)
    except (SyntaxError, UnicodeEncodeError, LookupError):
        return data  # an invalid coding comment, or text it cannot hold: the check reports it (JAX001)


def _notebook(cells: list[Cell], metadata: dict | None) -> dict:
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": metadata or {},
            "cells": [{"cell_type": cell.kind, "metadata": {}, "source": cell.text} for cell in cells]}


def cell_edits(cells: list[Cell], diagnostic: Diagnostic) -> list[tuple[int, Edit]]:
    """A notebook finding's fix as (cell number, edit within that cell): a fix's edits may be in other
    cells than its finding (`import jax` goes after the notebook's imports). An insertion at the start of
    a cell's marker row, just after the previous cell's last line, goes at the start of that cell."""
    text = program(_notebook(cells, None))
    firsts = [(text.count("\n", 0, match.start()) + 2, int(match.group(1))) for match in _MARKER_ROW.finditer(text)]
    shift = next(first for first, number in firsts if number == diagnostic.cell) - 1
    placed = []
    for edit in diagnostic.fix.edits:
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
    new = text[:offsets.of(edit.row, edit.col)] + edit.content + text[offsets.of(edit.end_row, edit.end_col):]
    if parses(text) and not parses(new):
        return None
    return edit
