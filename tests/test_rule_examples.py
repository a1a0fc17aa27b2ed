"""Each page's example is flagged by its rule and its `use_instead` is clean (JAX5xx, JAX6xx, JAX7xx)."""

from __future__ import annotations

import pytest

from jaxlint.checks import ALL_RULES
from jaxlint.lint import lint_source

CHECKED_MODULES = ("jaxlint.checks.compilation", "jaxlint.checks.transforms", "jaxlint.checks.dtypes")
RULES = [rule for rule in ALL_RULES if rule.__module__ in CHECKED_MODULES]


def codes(source: str, code: str) -> list[str]:
    return [d.code for d in lint_source(source, "example.py", frozenset({code}))]


def test_there_are_rules_to_check() -> None:
    assert RULES


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.code)
def test_example_is_flagged(rule) -> None:
    assert rule.code in codes(rule.example, rule.code)


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.code)
def test_use_instead_is_clean(rule) -> None:
    assert codes(rule.use_instead, rule.code) == []
