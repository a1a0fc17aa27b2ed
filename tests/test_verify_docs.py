"""What the pages say about `--verify` is what it does: each rule page says how `--verify` confirms the rule
exactly when `--verify` can, and the examples of docs/verify.md and docs/recompilation.md print what the
pages show (real command line, real jax)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import write
from jaxlint.checks import ALL_RULES
from jaxlint.checks.meta._common import FOUND_BY_TRACING
from jaxlint.verify.errors import CONFIRMABLE

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["verify.md", "recompilation.md"]
_BLOCK = re.compile(r"```(?P<kind>python|console)\n(?P<text>.*?)```", re.S)


def test_a_rule_page_says_how_verify_confirms_it_exactly_when_verify_can() -> None:
    for rule in ALL_RULES:
        text = " ".join(rule.verify.split())
        if rule.code in CONFIRMABLE:
            assert text.startswith("`--verify` "), (rule.code, text)
        else:
            assert text.startswith("Not ") or text == FOUND_BY_TRACING, (rule.code, text)


def examples(page: str) -> tuple[dict[str, str], list[tuple[list[str], str]]]:
    """The files a page shows (a python block whose first line is `# NAME`) and its commands with their output."""
    files, commands = {}, []
    for block in _BLOCK.finditer((ROOT / "docs" / page).read_text(encoding="utf-8")):
        first, _, rest = block["text"].partition("\n")
        if block["kind"] == "python":
            files[first.removeprefix("# ")] = rest
        else:
            commands.append((shlex.split(first.removeprefix("$ ")), rest))
    return files, commands


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_the_pages_examples_print_what_the_page_shows(page: str, tmp_path: Path) -> None:
    files, commands = examples(page)
    assert files and commands
    for name, text in files.items():
        write(tmp_path / name, text)
    for argv, shown in commands:
        assert argv[0] == "jaxlint"
        run = subprocess.run([sys.executable, "-m", *argv], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert run.stdout + run.stderr == shown
