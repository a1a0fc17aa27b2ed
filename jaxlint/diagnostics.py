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

    def shown(self) -> str:
        """`line 6: why`, `line 6 of cell 2: why` in a notebook; the `why` alone in another module."""
        if self.row is None:
            return self.why
        return f"line {self.row}{'' if self.cell is None else f' of cell {self.cell}'}: {self.why}"


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

    @property
    def headline(self) -> str:
        """The message as one line of text output shows it: what is wrong, short (see `headline`)."""
        return headline(self.message)


# How long a headline may grow by whole clauses (ruff's messages are one short sentence).
HEADLINE_LIMIT = 120


def headline(message: str) -> str:
    """A message short enough for one line of text output: whole when it fits, else its first clauses
    (split at `: ` and `; `) without their parenthesized asides, as many as fit. The asides and later
    clauses are the explanation and the evidence, which the full format, JSON, SARIF and the editor show."""
    if len(message) <= HEADLINE_LIMIT:
        return message
    first, *rest = _clauses(message)
    for clause in rest:
        if _prose(first) and len(first) + len(clause) > HEADLINE_LIMIT:
            break
        first += clause
    return first


def _clauses(message: str) -> list[str]:
    """The message's clauses, each after the first starting with its `: ` or `; `; parenthesized asides
    are left out. Code in backticks is kept whole: its parentheses and colons are not the message's."""
    clauses, current, depth, in_code = [], "", 0, False
    for at, char in enumerate(message):
        if char == "`":
            in_code = not in_code
        elif not in_code and char == "(":
            depth += 1
            current = current.rstrip(" ") if depth == 1 else current
            continue
        elif not in_code and char == ")" and depth:
            depth -= 1
            continue
        elif not in_code and not depth and char in ":;" and message[at + 1 : at + 2] == " " and current:
            clauses.append(current)
            current = ""
        if not depth:
            current += char
    merged: list[str] = []
    for clause in [*clauses, current]:
        if merged and not _prose(clause):  # `assign it: `x = x.at[1].set(2)``: code showing the clause before
            merged[-1] += clause
        else:
            merged.append(clause)
    return merged


def _prose(text: str) -> bool:
    """Whether `text` says something outside its code spans (`` `x[0]` `` alone names, it does not say)."""
    return any(char.isalpha() for char in "".join(text.split("`")[::2]))
