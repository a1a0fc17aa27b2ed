"""Reading files without ever guessing at their bytes."""

from __future__ import annotations

import io
import os
import re
import stat
import tokenize
from pathlib import Path

# Python's line breaks (str.splitlines also splits at form feeds and other separators, Python does not).
LINE_BREAK = re.compile(r"\r\n|\r|\n")
# A line with its line break, as Python counts line breaks.
LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
PYTHON_SUFFIXES = (".py", ".pyi")
NOTEBOOK_SUFFIX = ".ipynb"


class InputError(Exception):
    """A file that cannot be checked, with the code and position to report it at."""

    def __init__(self, code: str, message: str, row: int = 1, col: int = 1) -> None:
        super().__init__(message)
        self.code, self.message, self.row, self.col = code, message, row, col


def mentions_jax(source: str) -> bool:
    """Files that never say `jax` cannot use it; they are not parsed at all."""
    return "jax" in source


def read_source(path: str) -> str:
    """The text of a Python file, decoded as Python does (BOM, coding cookie, else UTF-8)."""
    return decode(read_bytes(path))[0]


def read_bytes(path: str, max_size: int | None = None) -> bytes:
    """A file's bytes, or an InputError saying why it cannot be read (never blocks on a pipe), or why
    it is not read: larger than `max_size` bytes."""
    try:
        status = os.stat(path)
        # Only regular files are opened: opening a FIFO named x.py would block the run forever.
        if not stat.S_ISREG(status.st_mode):
            raise InputError("JAX003", "not a regular file (a pipe, socket or device)")
        if max_size is not None:
            check_size(status.st_size, max_size)
        data = Path(path).read_bytes()
    except FileNotFoundError:
        if os.path.islink(path):
            raise InputError("JAX003", f"broken symlink: its target {os.readlink(path)} does not exist")
        raise InputError("JAX003", "no such file or directory")
    except IsADirectoryError:
        raise InputError("JAX003", "is a directory, not a file")
    except PermissionError:
        raise InputError("JAX003", "permission denied")
    except OSError as error:
        raise InputError("JAX003", f"cannot read: {error.strerror or error}")
    return data


def check_size(size: int, max_size: int) -> None:
    if size > max_size:
        raise InputError(
            "JAX003",
            f"too large to check: {_megabytes(size)}, over max-file-size "
            f"({_megabytes(max_size)}); the file was skipped",
        )


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB" if size >= 100_000 else f"{size:,} bytes"


def decode(data: bytes) -> tuple[str, str]:
    """(text, encoding) of Python source bytes; the encoding writes the text back the same way."""
    if b"\0" in data:
        raise InputError("JAX001", "binary file (contains NUL bytes), not Python source")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        raise InputError("JAX001", f"invalid encoding declaration: {error}")
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError as error:
        row = data.count(b"\n", 0, error.start) + 1
        line_start = data.rfind(b"\n", 0, error.start) + 1
        col = len(data[line_start : error.start].decode(encoding, errors="replace")) + 1
        byte = data[error.start : error.start + 1].hex()
        raise InputError(
            "JAX001",
            f"not valid {encoding.replace('-sig', '')}: byte 0x{byte} at line {row}, column {col} "
            f"(declare the encoding with a coding comment, or save the file as UTF-8)",
            row,
            col,
        )
