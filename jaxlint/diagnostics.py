"""What a check reports: one finding at a 1-based position in one file, maybe with a fix."""

from __future__ import annotations

from dataclasses import dataclass, field

SAFE, UNSAFE = "safe", "unsafe"


@dataclass(frozen=True, order=True)
class Edit:
    """Replace the text from (row, col) up to (end_row, end_col) with `content`; 1-based, code points."""

    row: int
    col: int
    end_row: int
    end_col: int
    content: str
    cell: int | None = field(default=None, compare=False)  # in a notebook: the cell its rows count from


@dataclass(frozen=True)
class Fix:
    """Edits that resolve one finding together. `safe` keeps behaviour; `unsafe` may change it."""

    applicability: str
    message: str
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Verification:
    """What `--verify` found for a finding: confirmed, not-reproduced or unverified, and why."""

    status: str
    detail: str = ""


@dataclass(frozen=True)
class Evidence:
    """One step of why a finding holds: what is true of a value at a row (None: in another module, which
    `why` names), from where the value comes to where the finding is."""

    row: int | None
    why: str
    cell: int | None = None  # in a notebook: the cell its row counts from


@dataclass(frozen=True)
class Diagnostic:
    """A finding. Rows and columns are 1-based, columns count code points. Sorted by file, then cell
    (a notebook's rows restart in each cell), then position."""

    filename: str
    row: int
    col: int
    code: str
    message: str
    end_row: int
    end_col: int
    fix: Fix | None = field(default=None, compare=False)
    verify: Verification | None = field(default=None, compare=False)
    cell: int | None = field(default=None, compare=False)  # in a notebook: rows count from its cell's start
    evidence: tuple[Evidence, ...] = field(default=(), compare=False)

    def __lt__(self, other: Diagnostic) -> bool:
        return self._order() < other._order()

    def _order(self) -> tuple:
        return (self.filename, self.cell or 0, self.row, self.col, self.code, self.message, self.end_row, self.end_col)

    @property
    def noqa_row(self) -> int:
        """The line whose `# noqa` comment suppresses this finding."""
        return self.row
