"""rules/ (the rule pages and their index) is generated from the rule classes and never stale."""

from __future__ import annotations

import io
from pathlib import Path

from jaxlint.catalog import expected_files, rule_page, stale_files
from jaxlint.checks import ALL_RULES, BY_CODE
from jaxlint.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_generated_docs_are_up_to_date() -> None:
    assert stale_files(ROOT) == [], "run: python -m jaxlint.catalog"


def test_every_rule_has_a_page_and_a_row_in_the_index() -> None:
    index = expected_files(ROOT)[ROOT / "rules" / "README.md"]
    for rule in ALL_RULES:
        assert (ROOT / "rules" / f"{rule.code}.md").is_file()
        assert f"| [{rule.code}]({rule.code}.md) | {rule.name} |" in index


def test_rule_page_has_the_documented_sections() -> None:
    page = rule_page(BY_CODE["JAX101"])
    headings = [line for line in page.splitlines() if line.startswith("#")]
    assert headings == [
        "# JAX101: in-place-update", "## What it does", "## Why is this bad?", "## Example",
        "## Use instead", "## What it does not flag", "## Fix safety", "## How --verify confirms it",
    ]


def test_jaxlint_rule_prints_the_page() -> None:
    out = io.StringIO()
    assert main(["rule", "in-place-update"], out=out) == 0
    assert out.getvalue() == (ROOT / "rules" / "JAX101.md").read_text(encoding="utf-8")
