"""What a check reports: one finding at a 1-based position in one file."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Diagnostic:
    """A finding. Rows and columns are 1-based, columns count code points."""

    filename: str
    row: int
    col: int
    code: str
    message: str
    end_row: int
    end_col: int

    @property
    def noqa_row(self) -> int:
        """The line whose `# noqa` comment suppresses this finding."""
        return self.row
