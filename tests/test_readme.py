"""The README is the first screen: short, its commands the ones CI runs, so they stay true on a fresh
machine. The code examples of every page are run by test_docs.py."""

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
    install = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    assert name != "jaxlint"  # taken on PyPI by an unrelated project
    # Not published yet: the install line is from the source checkout; the install page names the
    # distribution to come, and warns that `pip install jaxlint` is another project.
    assert "```bash\npip install .  " in readme and "pip install jaxlint" not in readme
    assert f"`pip install {name}`" in install and f"'{name}[verify]'" in install
    assert "'jaxlint[" not in readme + install
    assert "until then, `pip install jaxlint` installs that other project" in install


def test_the_first_screen_is_short_and_links_the_reference() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme) < 4000 and len(readme.splitlines()) < 70
    assert [line for line in readme.splitlines() if line.startswith("## ")] == [
        "## Install", "## Quick start", "## An example", "## Documentation"]
    for page in ("docs/index.md", "docs/usage.md", "docs/command-line.md", "docs/configuration.md",
                 "rules/README.md", "docs/pre-commit.md", "docs/editors.md", "docs/github-action.md",
                 "docs/verify.md"):
        assert f"]({page})" in readme


def _pre_commit_snippets() -> list[str]:
    page = (ROOT / "docs" / "pre-commit.md").read_text(encoding="utf-8")
    return re.findall(r"```yaml\n(.+?)```", page, re.DOTALL)


def test_the_pre_commit_snippet_names_no_invented_url_or_tag() -> None:
    # A clone carries no tags it was not given, so the snippet names a commit of the user's clone; the clone
    # hook itself runs through real pre-commit at such a commit in test_pre_commit.py.
    local, clone = _pre_commit_snippets()
    assert "repo: local" in local and "http" not in local + clone
    assert "    rev: COMMIT-OF-YOUR-CLONE\n" in clone


def test_the_local_pre_commit_snippet_runs_as_written(tmp_path: Path, monkeypatch) -> None:
    import os
    import sys

    from helpers import CLEAN_SOURCE, JAX101_SOURCE, write
    from test_pre_commit import git, pre_commit

    local, _ = _pre_commit_snippets()
    project = tmp_path / "project"
    write(project / ".pre-commit-config.yaml", local)
    write(project / "buggy.py", JAX101_SOURCE)
    write(project / "clean.py", CLEAN_SOURCE)
    git(project, "init", "-q")
    git(project, "add", ".")
    # `language: system` runs the jaxlint on PATH: this checkout's, next to the Python running the tests.
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    failing = pre_commit(project, "run", "--all-files")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert [line.split(" ", 2)[:2] for line in failing.stdout.splitlines() if ": JAX" in line] == [
        ["buggy.py:3:1:", "JAX101"]]
    passing = pre_commit(project, "run", "--files", "clean.py")
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "jaxlint" in passing.stdout and "Passed" in passing.stdout
