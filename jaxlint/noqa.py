"""Suppression comments: `# noqa`, `# noqa: JAX101,in-place-update`, `# noqa: JAX1` (a prefix, as flake8
reads it), file-level `# jaxlint: noqa`; and the codes of a noqa comment that suppress nothing (JAX002)."""

from __future__ import annotations

import io
import re
import tokenize
from typing import Iterable, Literal

from jaxlint.checks import ALL_RULES, find_rule
from jaxlint.diagnostics import SAFE, Diagnostic, Edit, Fix
from jaxlint.files import LINES

_LINE_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[\w-]+(?:[,\s]+[\w-]+)*))?", re.IGNORECASE)
_FILE_NOQA = re.compile(
    r"^[ \t]*#[ \t]*jaxlint:[ \t]*noqa(?::[ \t]*(?P<codes>[\w-]+(?:[, \t]+[\w-]+)*))?[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
_CODE_LIKE = re.compile(r"^[A-Z]+[0-9]+$")
_PREFIX = re.compile(r"^JAX[0-9]{1,2}$")
UNUSED_NOQA = "JAX002"

ALL = None  # a blanket suppression


def _codes(spelled: str | None) -> frozenset[str] | None:
    """The rule codes named in a noqa comment; None for a blanket `# noqa`.

    Like flake8, a list with nothing that looks like a code or a rule name counts as blanket,
    and codes of other tools (`E501`) suppress nothing here.
    """
    if not spelled:
        return ALL
    tokens = [t for t in re.split(r"[,\s]+", spelled) if t]
    codes: set[str] = set()
    recognised = False
    for token in tokens:
        named = _named(token)
        if named:
            codes.update(named)
            recognised = True
        elif _CODE_LIKE.match(token.upper()) and token[0].isupper():
            recognised = True
    return frozenset(codes) if recognised else ALL


def _named(token: str) -> frozenset[str]:
    """The rule codes a token of a noqa comment names: a code, a rule name or a prefix (`JAX1`)."""
    rule = find_rule(token)
    if rule is not None:
        return frozenset({rule.code})
    if _PREFIX.match(token):
        return frozenset(rule.code for rule in ALL_RULES if rule.code.startswith(token))
    return frozenset()


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


def unused(source: str, filename: str, found: Iterable[Diagnostic], enabled: frozenset[str]) -> list[Diagnostic]:
    """JAX002: a code in a `# noqa: ...` comment whose rules ran on this line and found nothing, with a
    safe fix that takes it out (the whole comment when nothing else is left). Only codes of enabled rules
    the static pass runs are judged; a blanket `# noqa`, other tools' codes and `--verify`'s are not."""
    on_row: dict[int, set[str]] = {}
    for finding in found:
        on_row.setdefault(finding.noqa_row, set()).add(finding.code)
    reported = []
    for row, col, comment, line in _comments(source):
        match = _LINE_NOQA.search(comment)
        if match is None or not match.group("codes"):
            continue
        tokens = [t for t in re.split(r"[,\s]+", match.group("codes")) if t]
        judged = {token: {c for c in _named(token) if c in enabled and not c.startswith("JAX0")} for token in tokens}
        idle = [token for token in tokens if judged[token] and not judged[token] & on_row.get(row, set())]
        if not idle:
            continue
        start, end = col + match.start(), col + match.end()
        listed = ", ".join(idle)
        reported.append(
            Diagnostic(
                filename,
                row,
                start + 1,
                UNUSED_NOQA,
                f"unused `noqa` code{'s' if len(idle) > 1 else ''} {listed}: no such finding on this line",
                row,
                end + 1,
                _removal(row, col, comment, line, match, tokens, idle),
            )
        )
    return reported


def _removal(
    row: int, col: int, comment: str, line: str, match: re.Match, tokens: list[str], idle: list[str]
) -> Fix | None:
    """Take the idle codes out of the comment; None when it holds words that are neither codes nor rule names
    (`# noqa: JAX101 because ...`): rewriting the list would mangle them."""
    if not all(_named(token) or _CODE_LIKE.match(token) for token in tokens):
        return None
    rest = [token for token in tokens if token not in idle]
    if rest:
        start, end = col + match.start("codes"), col + match.end("codes")
        edit = Edit(row, start + 1, row, end + 1, ", ".join(rest))
    elif comment[match.end() :].strip():  # another comment follows (`# noqa: JAX101  # why`): it stays
        after = comment[match.end() :]
        if not after.lstrip().startswith("#"):
            return None  # text that is a comment only with the directive's `#`
        end = col + len(comment) - len(after.lstrip())
        edit = Edit(row, col + match.start() + 1, row, end + 1, "")
    else:
        start = len((line[:col] + comment[: match.start()]).rstrip())  # with the spaces before it
        edit = Edit(row, start + 1, row, col + len(comment) + 1, "")
    return Fix(SAFE, f"remove the unused `noqa` code{'s' if len(idle) > 1 else ''} {', '.join(idle)}", (edit,))


def _comments(source: str) -> list[tuple[int, int, str, str]]:
    """(row, column from 0 in code points, text, its line) of each comment."""
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                found.append((token.start[0], token.start[1], token.string, token.line))
    except (tokenize.TokenError, SyntaxError):  # the parser took it: the tokenizer should too
        return found
    return found


def with_noqa(source: str, rows: dict[int, set[str]]) -> tuple[str, int]:
    """`source` with `# noqa: CODES` on each of `rows` (`--add-noqa`), and how many lines got one. The codes
    join a noqa comment already there; a line that ends inside a string or goes on after a backslash gets
    none (a comment there would change the code). Raises SyntaxError or TokenError for code Python cannot read."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    ends = {token.start[0] for token in tokens if token.type in (tokenize.NEWLINE, tokenize.NL)}
    comments = {token.start[0]: token for token in tokens if token.type == tokenize.COMMENT}
    lines = LINES.findall(source)
    added = 0
    for row, codes in sorted(rows.items()):
        if row not in ends or row > len(lines):
            continue
        text = lines[row - 1]
        body = text.rstrip("\r\n")
        comment = comments.get(row)
        match = _LINE_NOQA.search(comment.string) if comment is not None else None
        if match is not None and comment is not None:
            if not match.group("codes"):
                continue  # a blanket noqa suppresses everything already
            named = _codes(match.group("codes")) or frozenset()
            missing = sorted(code for code in codes if code not in named)
            if not missing:
                continue
            at = comment.start[1] + match.start("codes")
            body = f"{body[:at]}{', '.join(missing)}, {body[at:]}"
        else:
            body = f"{body.rstrip()}  # noqa: {', '.join(sorted(codes))}"
        lines[row - 1] = body + text[len(text.rstrip("\r\n")) :]
        added += 1
    return "".join(lines), added
