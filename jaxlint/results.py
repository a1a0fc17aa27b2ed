"""What a run gives: each file's outcome and the run's, for the reporters, the CLI and the plugins
(which read them without needing the runner that makes them)."""

from __future__ import annotations

from dataclasses import dataclass, field

from jaxlint.analysis.interface import Interface
from jaxlint.diagnostics import Diagnostic


@dataclass
class RunResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0
    skipped: int = 0  # files that never mention jax, not parsed
    internal_errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # files left out on purpose, and why
    unsafe_fixes: bool = False  # whether unsafe fixes count as available (`[*]` in text)
    fixed: list[Diagnostic] = field(default_factory=list)  # fixed (or, with --diff, fixable) findings
    diffs: list[str] = field(default_factory=list)
    fix_failures: list[str] = field(default_factory=list)  # files that could not be written, and why
    docs_url: str | None = None  # the `docs-url` setting: where the reports link each rule's page (None: nowhere)


@dataclass
class FileResult:
    """One file's outcome. `digest` is the hash of the content it was computed from, None when
    the result must not be cached (unreadable or undecodable files, internal errors, fixes)."""

    diagnostics: list[Diagnostic]
    skipped: bool = False
    internal_error: str | None = None
    digest: str | None = None
    note: str | None = None
    fixed: list[Diagnostic] = field(default_factory=list)
    diff: str | None = None
    fix_failure: str | None = None
    content: bytes | None = None  # the fixed file's bytes (with --fix, as written; with --diff, as they would be)
    interface: Interface = Interface()  # what the module tells the other modules of its project
