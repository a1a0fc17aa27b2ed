"""The hooks in .pre-commit-hooks.yaml, run by the real `pre-commit try-repo`.

try-repo installs the hook repository into a fresh virtualenv (pip, from the package index), so each
invocation takes a while; the tests keep to few of them. The hook repository is a temporary git
repository holding this checkout's current files (committed or not), so the test checks what is on disk.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from helpers import CLEAN_SOURCE, JAX101_SOURCE, write
from test_notebooks import notebook

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_FILES = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml")
TRY_REPO_TIMEOUT = 900  # a fresh virtualenv and pip install of jaxlint and its dependencies


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=jaxlint tests", "-c", "user.email=tests@jaxlint.invalid",
                    "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
                   cwd=cwd, check=True, capture_output=True)


def hook_repository(folder: Path) -> Path:
    """A git repository with what pip needs to install jaxlint from this checkout, and the hooks file."""
    folder.mkdir()
    for name in PACKAGE_FILES:
        shutil.copy(ROOT / name, folder / name)
    shutil.copytree(ROOT / "jaxlint", folder / "jaxlint", ignore=shutil.ignore_patterns("__pycache__"))
    git(folder, "init", "-q")
    git(folder, "add", ".")
    git(folder, "commit", "-q", "-m", "jaxlint as it is on disk")
    return folder


def try_repo(repo: Path, project: Path, hook: str, *files: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRE_COMMIT_HOME": str(project.parent / "pre-commit-home"), "NO_COLOR": "1"}
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(repo), hook, "--color", "never", "--files", *files],
        cwd=project, env=env, capture_output=True, text=True, timeout=TRY_REPO_TIMEOUT)


def test_jaxlint_hook_fails_on_buggy_files_and_passes_on_clean_ones(tmp_path: Path) -> None:
    repo = hook_repository(tmp_path / "hook")
    project = tmp_path / "project"
    write(project / "buggy.py", JAX101_SOURCE)
    write(project / "clean.py", CLEAN_SOURCE)
    write(project / "nb.ipynb", notebook(("markdown", "# notes"), ("code", JAX101_SOURCE)))
    write(project / "notes.txt", JAX101_SOURCE)  # not Python: the hook is never given it
    git(project, "init", "-q")
    git(project, "add", ".")

    failing = try_repo(repo, project, "jaxlint", "buggy.py", "clean.py", "nb.ipynb", "notes.txt")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "jaxlint" in failing.stdout and "Failed" in failing.stdout
    reported = [line.split(" ", 2)[:2] for line in failing.stdout.splitlines() if ": JAX" in line]
    assert reported == [["buggy.py:3:1:", "JAX101"], ["nb.ipynb:cell", "2:3:1:"]]

    passing = try_repo(repo, project, "jaxlint", "clean.py")
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "Passed" in passing.stdout and ": JAX" not in passing.stdout
