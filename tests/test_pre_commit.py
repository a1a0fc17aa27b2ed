"""The hooks in .pre-commit-hooks.yaml, run by the real pre-commit.

`pre-commit try-repo` installs the hook repository into a fresh virtualenv (pip, from the package
index) each time, so it runs once; `pre-commit run` with a config naming the same repository installs
once into PRE_COMMIT_HOME and reuses it for both hooks. The hook repository is a temporary git
repository holding this checkout's current files (committed or not), so the test checks what is on disk.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import CLEAN_SOURCE, JAX101_SOURCE, write
from test_fix import FIXED_JAX101
from test_notebooks import notebook

pytestmark = pytest.mark.slow  # subprocesses, real jax or a language server in every test

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


def pre_commit(project: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRE_COMMIT_HOME": str(project.parent / "pre-commit-home"), "NO_COLOR": "1"}
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run([sys.executable, "-m", "pre_commit", *args, "--color", "never"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=TRY_REPO_TIMEOUT)


def config_for(repo: Path, folder: Path) -> Path:
    """A .pre-commit-config.yaml (JSON is YAML) using both hooks of `repo` at its commit."""
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    hooks = [{"id": "jaxlint"}, {"id": "jaxlint-fix"}]
    return write(folder / "pre-commit-config.yaml", json.dumps({"repos": [{"repo": str(repo), "rev": rev,
                                                                             "hooks": hooks}]}))


def test_hooks_fail_on_buggy_files_pass_on_clean_ones_and_fix(tmp_path: Path) -> None:
    repo = hook_repository(tmp_path / "hook")
    project = tmp_path / "project"
    write(project / "buggy.py", JAX101_SOURCE)
    write(project / "clean.py", CLEAN_SOURCE)
    write(project / "nb.ipynb", notebook(("markdown", "# notes"), ("code", JAX101_SOURCE)))
    write(project / "notes.txt", JAX101_SOURCE)  # not Python: the hook is never given it
    shutil.copytree(ROOT / "fixtures" / "project" / "mypkg", project / "mypkg")
    git(project, "init", "-q")
    git(project, "add", ".")

    failing = pre_commit(project, "try-repo", str(repo), "jaxlint",
                         "--files", "buggy.py", "clean.py", "nb.ipynb", "notes.txt")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "jaxlint" in failing.stdout and "Failed" in failing.stdout
    reported = [line.split(" ", 3)[:3] for line in failing.stdout.splitlines() if ": JAX" in line]
    assert reported == [["buggy.py:3:1:", "JAX101", "[*]"], ["nb.ipynb:cell", "2:3:1:", "JAX101"]]

    config = config_for(repo, tmp_path)
    passing = pre_commit(project, "run", "--config", str(config), "--files", "clean.py")
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert [line.rsplit(".", 1)[-1] for line in passing.stdout.splitlines() if line.startswith("jaxlint")] == [
        "Passed", "Passed"]

    # Only the helpers module changed: its findings come from the jitted caller in train.py all the same.
    helpers = pre_commit(project, "run", "jaxlint", "--config", str(config), "--files", "mypkg/metrics.py")
    assert helpers.returncode == 1, helpers.stdout + helpers.stderr
    assert [line.split(" ", 2)[:2] for line in helpers.stdout.splitlines() if ": JAX" in line] == [
        ["mypkg/metrics.py:11:5:", "JAX306"], ["mypkg/metrics.py:17:8:", "JAX301"]]
    assert ("mypkg/metrics.py:17:8: JAX301 Python `if` on a traced value raises TracerBoolConversionError: "
            "`norm > limit` is traced; use `jnp.where` or `lax.cond`\n") in helpers.stdout
    # Only the module of loop bodies changed: pipeline.py, which transforms them, is read all the same.
    bodies = pre_commit(project, "run", "jaxlint", "--config", str(config), "--files", "mypkg/steps.py")
    assert bodies.returncode == 1, bodies.stdout + bodies.stderr
    assert [line.split(" ", 2)[:2] for line in bodies.stdout.splitlines() if ": JAX" in line] == [
        ["mypkg/steps.py:8:8:", "JAX301"], ["mypkg/steps.py:14:5:", "JAX306"], ["mypkg/steps.py:19:11:", "JAX203"],
        ["mypkg/steps.py:28:5:", "JAX306"], ["mypkg/steps.py:36:8:", "JAX301"], ["mypkg/steps.py:71:13:", "JAX303"],
        ["mypkg/steps.py:78:8:", "JAX301"]]
    assert ("mypkg/steps.py:19:11: JAX203 `jax.random.key(0)` makes the same key every time `add_noise` runs, so "
            "every mapped example draws the same numbers\n") in bodies.stdout

    fixing = pre_commit(project, "run", "jaxlint-fix", "--config", str(config), "--files", "buggy.py", "nb.ipynb")
    assert fixing.returncode == 1, fixing.stdout + fixing.stderr  # pre-commit fails a hook that changed files
    assert "files were modified by this hook" in fixing.stdout
    assert (project / "buggy.py").read_text() == FIXED_JAX101
    assert json.loads((project / "nb.ipynb").read_text())["cells"][1]["source"][2] == "x = x.at[0].set(1)\n"
    assert (project / "clean.py").read_text() == CLEAN_SOURCE
