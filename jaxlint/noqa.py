"""Suppression comments: `# noqa`, `# noqa: JAX101,in-place-update`, and file-level `# jaxlint: noqa`."""

from __future__ import annotations

import re
from typing import Literal

from jaxlint.checks import find_rule

_LINE_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[\w-]+(?:[,\s]+[\w-]+)*))?", re.IGNORECASE)
_FILE_NOQA = re.compile(
    r"^[ \t]*#[ \t]*jaxlint:[ \t]*noqa(?::[ \t]*(?P<codes>[\w-]+(?:[, \t]+[\w-]+)*))?[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
_CODE_LIKE = re.compile(r"^[A-Z]+[0-9]+$")

ALL = None  # a blanket suppression


def _codes(spelled: str | None) -> frozenset[str] | None:
    """The rule codes named in a noqa comment; None for a blanket `# noqa`.

    Like flake8, a list with nothing that looks like a code or a rule name counts as blanket,
    and codes of other tools (`E501`) suppress nothing here.
    """
    if not spelled:
        return ALL
    tokens = [t for t in re.split(r"[,\s]+", spelled) if t]
    codes = set()
    recognised = False
    for token in tokens:
        rule = find_rule(token)
        if rule is not None:
            codes.add(rule.code)
            recognised = True
        elif _CODE_LIKE.match(token.upper()) and token[0].isupper():
            recognised = True
    return frozenset(codes) if recognised else ALL


def file_suppressions(source: str) -> list[frozenset[str] | None]:
    """One entry per `# jaxlint: noqa` line: None suppresses everything, else those codes."""
    return [_codes(match.group("codes")) for match in _FILE_NOQA.finditer(source)]


def line_suppression(line: str) -> frozenset[str] | None | Literal[False]:
    """False when the line has no noqa; None for a blanket noqa; else the codes it names."""
    match = _LINE_NOQA.search(line)
    if match is None:
        return False
    return _codes(match.group("codes"))


def is_suppressed(code: str, line: str, file_level: list[frozenset[str] | None]) -> bool:
    for codes in file_level:
        if codes is ALL or code in codes:
            return True
    on_line = line_suppression(line)
    if on_line is False:
        return False
    return on_line is ALL or code in on_line
