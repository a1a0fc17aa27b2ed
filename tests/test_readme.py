"""The README's commands are the ones CI runs, so they stay true on a fresh machine."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", section)


def test_ci_runs_the_readme_test_command_exactly() -> None:
    install_and_lint, install_and_test = _quick_start_commands()
    assert install_and_test.endswith("python -m pytest")
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert install_and_test in ci_lines


def test_the_lint_command_points_at_bundled_examples() -> None:
    install_and_lint, _ = _quick_start_commands()
    target = install_and_lint.rsplit("jaxlint ", 1)[1]
    assert (ROOT / target).is_dir() and any((ROOT / target).glob("*.py"))
