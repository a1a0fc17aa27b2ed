"""Results of unchanged files, kept between runs in `.jaxlint_cache/` so a warm run never parses.

One entry per (file path, settings fingerprint, jaxlint version), holding the hash of the content it
was computed from: an edited file overwrites its own entry instead of piling up new ones. An entry
that cannot be read, does not decode, or belongs to other content is a miss, never an error; entries
are written to a temporary file and renamed into place, so a run that reads while another writes
sees either the old entry or the new one, whole.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from jaxlint import __version__
from jaxlint.analysis.interface import Interface, ModuleContext
from jaxlint.config import Settings
from jaxlint.diagnostics import Diagnostic, Edit, Fix, Verification, Evidence

DEFAULT_DIR = ".jaxlint_cache"
# Raised when what an entry holds changes meaning within a version: 2, interfaces say which facts were read;
# 3, interface records are read back by field name; 4, entries keep the evidence of findings; 5, interfaces list
# their calls in loops; 6, and which of their functions' loops elsewhere were read; 7, which returns they read;
# 8, their calls give the dtype kinds of the arrays they pass; 9, their eager calls that give Python containers, and
# the container attributes of their classes; 10, which of those they read; 11, the literals their transforms'
# wrappers are called with, the dict entries their functions draw keys from, and which names of theirs other
# modules import, call or subclass (read_reached); 12, the line of a transform applied over several lines (it was 0);
# 13, the attributes of `self` their methods draw kept keys from (`self.key` in Consumes.params); 14, the type tests
# their functions return (Exported.tests); 19, their factories that give a jitted function (`make_step()` in
# Interface.jitted); 20, the key defaults their functions draw from (Consumes.defaults); 24, the arguments of a
# transform called where it is applied (Applied.at_once).
FORMAT = 24


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fingerprint(settings: Settings, path: str, context: ModuleContext | None = None, findings: bool = True) -> str:
    """Everything besides the content that decides a file's findings: the settings, and what the other
    modules of its project tell it (so editing `metrics.py` checks again the modules that import it); and
    whether the entry holds the findings, or the interface alone (runner.check_bytes)."""
    return json.dumps(
        [
            __version__,
            path,  # findings carry it, and rules treat test files differently
            sorted(settings.enabled_for(path)),
            sorted(settings.extra_transforms),
            list(settings.key_names),
            settings.target_jax_version,
            settings.python_version,
            None if context is None else [context.package, sorted(context.top_level), context.imported.digest()],
            FORMAT,
            *(() if findings else ("interface only",)),
        ]
    )


class Cache:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _entry(self, key: str) -> Path:
        name = hashlib.sha256(key.encode("utf-8")).hexdigest()
        return self.folder / name[:2] / name[2:]

    def get(self, key: str, digest: str) -> tuple[list[Diagnostic], bool, Interface] | None:
        """(findings, skipped, the module's interface) stored for this key and content, or None."""
        entry = self.get_value(key, digest)
        if entry is None:
            return None
        try:
            interface = Interface.from_json(entry["interface"])
            return [_diagnostic(item) for item in entry["diagnostics"]], bool(entry["skipped"]), interface
        except Exception:  # missing, truncated, corrupt or foreign: recompute
            return None

    def put(
        self, key: str, digest: str, diagnostics: list[Diagnostic], skipped: bool, interface: Interface = Interface()
    ) -> None:
        """Store an entry atomically; a cache that cannot be written only costs speed."""
        self.put_value(
            key,
            digest,
            {"skipped": skipped, "interface": interface.to_json(), "diagnostics": [_serialize(d) for d in diagnostics]},
        )

    def get_value(self, key: str, digest: str) -> dict | None:
        """The JSON object stored for this key and content (with its `key` and `content`), or None."""
        try:
            with open(self._entry(key), "rb") as handle:
                entry = json.load(handle)
            return entry if entry["key"] == key and entry["content"] == digest else None
        except Exception:  # missing, unreadable, truncated, corrupt or foreign: recompute
            return None

    def put_value(self, key: str, digest: str, value: dict) -> None:
        """Store a JSON object for this key and content, atomically; failing to only costs speed."""
        target = self._entry(key)
        try:
            self._prepare(target.parent)
            _write_atomically(
                target, json.dumps({"key": key, "content": digest, **value}, ensure_ascii=False).encode("utf-8")
            )
        except OSError:
            pass

    def _prepare(self, subfolder: Path) -> None:
        if subfolder.is_dir():
            return
        subfolder.mkdir(parents=True, exist_ok=True)
        ignore = self.folder / ".gitignore"
        if not ignore.exists():
            _write_atomically(ignore, b"# created by jaxlint\n*\n")


def _write_atomically(target: Path, data: bytes) -> None:
    import tempfile  # only runs that write entries need it

    descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise


def _serialize(d: Diagnostic) -> list:
    fix = (
        None
        if d.fix is None
        else [
            d.fix.applicability,
            d.fix.message,
            [[e.row, e.col, e.end_row, e.end_col, e.content, e.cell] for e in d.fix.edits],
        ]
    )
    verify = None if d.verify is None else [d.verify.status, d.verify.detail]
    evidence = [[step.row, step.why, step.cell] for step in d.evidence]
    return [d.filename, d.row, d.col, d.code, d.message, d.end_row, d.end_col, fix, verify, d.cell, evidence]


def _diagnostic(item: list) -> Diagnostic:
    filename, row, col, code, message, end_row, end_col, fix, verify, cell, evidence = item
    return Diagnostic(
        filename,
        row,
        col,
        code,
        message,
        end_row,
        end_col,
        None if fix is None else Fix(fix[0], fix[1], tuple(Edit(*edit) for edit in fix[2])),
        None if verify is None else Verification(*verify),
        cell,
        tuple(Evidence(*step) for step in evidence),
    )
