"""The shape every rule has: identity, documentation, and visitor methods.

A rule is one class. Its `visit_<Node>` / `leave_<Node>` methods (libcst node names, and
`visit_<Node>_<field>` for a field) run in the single traversal of a file; `self.values` tells what
each name holds there, `self.names` resolves imports, and `self.report(node, message)` records a finding;
`self.report(node, message, fix=FixPlan(...))` offers a fix for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, ClassVar, Optional, Union

import libcst as cst

from jaxlint.analysis.tracker import ValueTracker
from jaxlint.diagnostics import SAFE

# A message, or a function building it once line numbers are known (positions are computed lazily).
Message = Union[str, Callable[[Callable[[cst.CSTNode], int]], str]]


# A piece of a fix's new code: text, an original node copied as written (with its parentheses), the
# original text from the start of one node to the end of another, or a new node (rendered by libcst;
# prefer original nodes inside it as pieces, since libcst renders them without their block's indentation).
Piece = Union[str, cst.CSTNode, tuple[cst.CSTNode, cst.CSTNode]]


@dataclass(frozen=True)
class FixPlan:
    """A fix as a rule sees it: put new code in place of nodes. lint.py turns it into positioned edits.

    New code is text, or pieces that copy original code verbatim (comments, line breaks and
    indentation inside it included). `imports` names modules the new code uses under their own name
    (`"jax"` for `jax.tree.map`); `import jax` is added once when the module does not bind that name.
    """

    message: str
    replacements: tuple[tuple[cst.CSTNode, Union[str, cst.CSTNode, tuple[Piece, ...]]], ...]
    applicability: str = SAFE
    imports: tuple[str, ...] = ()


Reporter = Callable[[str, cst.CSTNode, Message, Optional[FixPlan]], None]

_EMPTY = cst.Module(body=[])


def code(node: cst.CSTNode, limit: int = 40) -> str:
    """Source text of a node for a message, on one line, `...` when longer than `limit`."""
    text = " ".join(_EMPTY.code_for_node(node).split())
    return text if len(text) <= limit else "..."


def is_test_file(filename: str) -> bool:
    """`test_*.py`, `*_test.py`, `conftest.py`, or anything under a `tests`/`test` folder."""
    parts = filename.replace("\\", "/").split("/")
    name = parts[-1]
    return (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
            or any(part in ("tests", "test") for part in parts[:-1]))


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    default_enabled: ClassVar[bool] = True
    fixable: ClassVar[bool] = False

    # Documentation, rendered into rules/<code>.md and by `jaxlint rule`.
    what_it_does: ClassVar[str]
    why_bad: ClassVar[str]
    example: ClassVar[str] = ""
    use_instead: ClassVar[str] = ""
    not_flagged: ClassVar[str] = ""
    fix_safety: ClassVar[str] = "No automatic fix."
    verify: ClassVar[str] = "Not confirmed by `--verify` yet."

    # The jax release the code must run on (`target-jax-version`); None: the newest jaxlint knows.
    jax_version: str | None = None

    def __init__(self, values: ValueTracker, reporter: Reporter, filename: str = "") -> None:
        self.values = values
        self.names = values.names
        self.filename = filename
        self._reporter = reporter

    def report(self, node: cst.CSTNode, message: Message, fix: FixPlan | None = None) -> None:
        self._reporter(self.code, node, message, fix)

    def spell(self, qualified: str) -> tuple[str, tuple[str, ...]] | None:
        """Code naming `qualified` here and the imports it needs: `jnp.minimum` through the file's own
        alias, else `jax.numpy.minimum` with `import jax`; None when a local hides the top module."""
        spelled = self.names.spelling(qualified)
        if spelled is not None:
            return spelled, ()
        top = qualified.partition(".")[0]
        return (qualified, (top,)) if self.names.free(top) else None

    def rename(self, node: cst.CSTNode, qualified: str, applicability: str = SAFE) -> FixPlan | None:
        """A fix putting the name of `qualified` (as `spell` gives it) in place of `node`."""
        spelled = self.spell(qualified)
        if spelled is None:
            return None
        name, imports = spelled
        return FixPlan(f"use `{name}`", ((node, name),), applicability, imports)
