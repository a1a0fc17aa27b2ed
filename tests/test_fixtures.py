"""Every fixture in fixtures/ lints to exactly the findings its `# expect:` comments list."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

from jaxlint.checks import ALL_RULES
from jaxlint.lint import LintOptions, lint_source

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DEFAULT_RULES = frozenset(rule.code for rule in ALL_RULES if rule.default_enabled)
_EXPECT = re.compile(r"#\s*expect:\s*(?P<items>.*)$")
_MISS = re.compile(r"#\s*expect-miss:\s*(?P<codes>.*)$")
# `CODE:COL`, optionally followed by a quoted piece of the message: `JAX306:5 "compute_loss"`.
_CODES = re.compile(r"JAX\d{3}")  # a fixture is named by the rules it is about: JAX201_key_paths.py
_ITEM = re.compile(r'(?P<code>JAX\d{3}):(?P<col>\d+)(?:\s+"(?P<text>[^"]*)")?')


def _comments(source: str):
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string


def expectations(source: str) -> set[tuple[int, int, str]]:
    """(line, column, code) for each `# expect: CODE:COL [CODE:COL ...]` comment."""
    return {(line, col, code) for line, col, code, _ in expected_messages(source)}


def expected_messages(source: str) -> list[tuple[int, int, str, str | None]]:
    """(line, column, code, a piece of the message or None) for each expected finding."""
    expected = []
    for line, comment in _comments(source):
        match = _EXPECT.search(comment)
        if match is None:
            continue
        items = match.group("items")
        leftover = _ITEM.sub("", items).replace(",", " ").strip()
        assert not leftover, f"line {line}: bad expectation {leftover!r}, write CODE:COL [\"message piece\"]"
        for item in _ITEM.finditer(items):
            expected.append((line, int(item.group("col")), item.group("code"), item.group("text")))
    return expected


def known_misses(source: str) -> set[tuple[int, str]]:
    """(line, code) for each `# expect-miss: CODE [CODE ...]`: a bug jaxlint does not find yet."""
    return {(line, code) for line, comment in _comments(source) if (match := _MISS.search(comment))
            for code in match.group("codes").replace(",", " ").split()}


def fixture_files() -> list[Path]:
    # fixtures/project* are programs of several modules: tests/test_project*.py check each as a whole.
    return sorted(path for path in FIXTURES.rglob("*.py") if not path.name.endswith(".fixed.py")
                  and not path.relative_to(FIXTURES).parts[0].startswith("project"))


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixture_findings_match_expectations(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    expected = expectations(source)
    # The default rules, plus the opt-in rules this fixture is about (as a user would select them): those it
    # expects, and those its name starts with (fixtures/JAX205.py, fixtures/fix/JAX509_print_at_trace_time.unsafe.py).
    enabled = DEFAULT_RULES | {code for _, _, code in expected} | set(_CODES.findall(path.stem))
    found = lint_source(source, str(path), LintOptions(frozenset(enabled)))
    actual = {(d.row, d.col, d.code) for d in found}
    assert sorted(actual - expected) == [], "unexpected findings (line, col, code)"
    assert sorted(expected - actual) == [], "missing findings (line, col, code)"
    messages = {(d.row, d.col, d.code): d.message for d in found}
    for line, col, code, text in expected_messages(source):
        assert text is None or text in messages[(line, col, code)], f"line {line}: {code} message lacks {text!r}"
    # A known miss that jaxlint now finds is a gap closed: turn its `expect-miss` into an `expect`.
    assert known_misses(source) & {(row, code) for row, _, code in actual} == set()


def test_every_rule_with_visitors_has_a_fixture() -> None:
    covered = {code for path in fixture_files() for _, _, code in expectations(path.read_text("utf-8"))}
    checked = {rule.code for rule in ALL_RULES if any(n.startswith("visit_") for n in dir(rule))}
    assert checked - covered == set()
