"""Every fixture in fixtures/ lints to exactly the findings its `# expect:` comments list."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

from jaxlint.checks import ALL_RULES
from jaxlint.lint import lint_source

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DEFAULT_RULES = frozenset(rule.code for rule in ALL_RULES if rule.default_enabled)
_EXPECT = re.compile(r"#\s*expect:\s*(?P<items>.*)$")
_ITEM = re.compile(r"^(?P<code>JAX\d{3}):(?P<col>\d+)$")


def expectations(source: str) -> set[tuple[int, int, str]]:
    """(line, column, code) for each `# expect: CODE:COL [CODE:COL ...]` comment."""
    expected = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        match = _EXPECT.search(token.string) if token.type == tokenize.COMMENT else None
        if match is None:
            continue
        for item in match.group("items").replace(",", " ").split():
            parsed = _ITEM.match(item)
            assert parsed, f"line {token.start[0]}: bad expectation {item!r}, write CODE:COL"
            expected.add((token.start[0], int(parsed.group("col")), parsed.group("code")))
    return expected


def fixture_files() -> list[Path]:
    return sorted(path for path in FIXTURES.rglob("*.py") if not path.name.endswith(".fixed.py"))


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixture_findings_match_expectations(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    expected = expectations(source)
    # The default rules, plus the opt-in rules this fixture is about (as a user would select them).
    enabled = DEFAULT_RULES | {code for _, _, code in expected} | {path.stem}
    actual = {(d.row, d.col, d.code) for d in lint_source(source, str(path), frozenset(enabled))}
    assert sorted(actual - expected) == [], "unexpected findings (line, col, code)"
    assert sorted(expected - actual) == [], "missing findings (line, col, code)"


def test_every_rule_with_visitors_has_a_fixture() -> None:
    covered = {code for path in fixture_files() for _, _, code in expectations(path.read_text("utf-8"))}
    checked = {rule.code for rule in ALL_RULES if any(n.startswith("visit_") for n in dir(rule))}
    assert checked - covered == set()
