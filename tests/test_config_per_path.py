"""The configuration (and the cache) come from each checked path, as in ruff: the nearest
pyproject.toml with [tool.jaxlint] at or above it, not the one of the folder jaxlint runs in."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from helpers import BOTH_SOURCE, findings, jaxlint, write


def _project(root: Path, ignore: str) -> Path:
    write(root / "pyproject.toml", f'[tool.jaxlint]\nignore = ["{ignore}"]\n')
    write(root / "src" / "a.py", BOTH_SOURCE)  # a JAX101 at 3:1 and a JAX102 at 4:1
    return root


def test_a_project_checked_from_elsewhere_keeps_its_config_and_its_cache(tmp_path: Path) -> None:
    _project(tmp_path / "proj", "JAX102")
    write(tmp_path / "elsewhere" / "pyproject.toml", '[tool.jaxlint]\nignore = ["JAX101"]\n')
    result = jaxlint(tmp_path / "elsewhere", "--quiet", "../proj")
    assert findings(result.stdout) == {(3, 1, "JAX101")}
    assert (tmp_path / "proj" / ".jaxlint_cache").is_dir()
    assert not (tmp_path / "elsewhere" / ".jaxlint_cache").exists()
    assert findings(jaxlint(tmp_path / "elsewhere", "--quiet", "../proj/src/a.py").stdout) == {(3, 1, "JAX101")}


def test_two_projects_in_one_run_each_with_its_config(tmp_path: Path) -> None:
    _project(tmp_path / "one", "JAX102")
    _project(tmp_path / "two", "JAX101")
    result = jaxlint(tmp_path, "--quiet", "--output-format", "concise", "one", "two")
    assert [line.split(": ")[0] + " " + line.split()[1] for line in result.stdout.splitlines()] == [
        "one/src/a.py:3:1 JAX101", "two/src/a.py:4:1 JAX102"]
    assert jaxlint(tmp_path, "one", "two").stdout.endswith("Found 2 findings (2 files checked); "
                                                          "1 fixable with `--fix`, 1 more with `--unsafe-fixes`.\n")


def test_config_option_still_applies_to_every_path(tmp_path: Path) -> None:
    _project(tmp_path / "one", "JAX102")
    write(tmp_path / "strict.toml", "[tool.jaxlint]\nselect = [\"JAX102\"]\n")
    result = jaxlint(tmp_path, "--quiet", "--config", "strict.toml", "one")
    assert findings(result.stdout) == {(4, 1, "JAX102")}


def test_stdin_uses_the_config_of_the_name_it_is_given(tmp_path: Path) -> None:
    _project(tmp_path / "proj", "JAX102")
    run = subprocess.run([sys.executable, "-m", "jaxlint", "--quiet", "-", "--stdin-filename", "proj/src/b.py"],
                         cwd=tmp_path, input=BOTH_SOURCE, capture_output=True, text=True)
    assert findings(run.stdout) == {(3, 1, "JAX101")}


def test_flake8_plugin_uses_the_files_config(tmp_path: Path) -> None:
    _project(tmp_path / "proj", "JAX102")
    run = subprocess.run([sys.executable, "-m", "flake8", "--select", "JAX", "proj/src/a.py"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert [line.split()[1] for line in run.stdout.splitlines()] == ["JAX101"]
