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


def test_install_lines_name_this_projects_distribution() -> None:
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    name = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert name != "jaxlint"  # taken on PyPI by an unrelated project
    assert f"pip install {name} " in readme and f"pip install '{name}[verify]'" in readme
    assert "pip install jaxlint" not in readme and "'jaxlint[" not in readme
