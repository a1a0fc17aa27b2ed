"""The flake8 plugin, through flake8's own command line, agrees with jaxlint finding for finding."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # subprocesses, real jax or a language server in every test

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _short(filename: str, cwd: Path) -> str:
    """A finding's file, relative to the folder the tool ran in."""
    return (cwd / filename).resolve().relative_to(cwd.resolve()).as_posix()


def _jaxlint(paths: list[str], cwd: Path) -> set[tuple[str, int, int, str]]:
    run = subprocess.run([sys.executable, "-m", "jaxlint", "--output-format", "json", *paths],
                         cwd=cwd, capture_output=True, text=True)
    assert run.returncode in (0, 1), run.stderr
    return {(_short(d["filename"], cwd), d["location"]["row"], d["location"]["column"], d["code"])
            for d in json.loads(run.stdout)}


def _flake8(args: list[str], cwd: Path) -> tuple[int, set[tuple[str, int, int, str]], str]:
    run = subprocess.run([sys.executable, "-m", "flake8", *args], cwd=cwd, capture_output=True, text=True)
    found = set()
    for line in run.stdout.splitlines():
        match = re.match(r"^(?P<file>.+?):(?P<row>\d+):(?P<col>\d+): (?P<code>\w+) ", line)
        assert match, line
        found.add((_short(match["file"], cwd), int(match["row"]), int(match["col"]), match["code"]))
    return run.returncode, found, run.stderr


def test_flake8_reports_the_same_findings_as_jaxlint_on_the_fixtures() -> None:
    # Not fixtures/syntax: flake8 parses each file with the Python that runs it before any plugin runs
    # (E999 and no plugin on 3.12+ syntax under 3.11); jaxlint parses as the code's own version.
    paths = [str(p) for p in sorted(FIXTURES.rglob("*.py")) if "syntax" not in p.relative_to(FIXTURES).parts]
    code, found, stderr = _flake8(["--select", "JAX", *paths], FIXTURES)
    assert stderr == ""
    assert code == 1
    assert found == _jaxlint(paths, FIXTURES)
    assert len(found) > 20


def test_flake8_plugin_is_registered_and_silent_on_clean_code(tmp_path: Path) -> None:
    (tmp_path / "clean.py").write_text("import jax.numpy as jnp\nx = jnp.zeros(3)\nx = x.at[0].set(1)\n")
    (tmp_path / "bug.py").write_text("import jax.numpy as jnp\nx = jnp.zeros(3)\nx[0] = 1\n")
    code, found, _ = _flake8(["--select", "JAX", "clean.py"], tmp_path)
    assert (code, found) == (0, set())
    code, found, _ = _flake8(["--select", "JAX", "bug.py"], tmp_path)
    assert (code, found) == (1, {("bug.py", 3, 1, "JAX101")})
    version = subprocess.run([sys.executable, "-m", "flake8", "--version"], capture_output=True, text=True)
    assert "jax-sharpbits: " in version.stdout  # flake8 lists a plugin under its distribution's name


def test_flake8_noqa_and_ignore_apply_on_top(tmp_path: Path) -> None:
    (tmp_path / "bug.py").write_text(
        "import jax.numpy as jnp\nx = jnp.zeros(3)\nx[0] = 1  # noqa: JAX101\nx[1] = 1\n"
    )
    _, found, _ = _flake8(["--select", "JAX", "bug.py"], tmp_path)
    assert found == {("bug.py", 4, 1, "JAX101")}
    code, found, _ = _flake8(["--select", "JAX", "--extend-ignore", "JAX101", "bug.py"], tmp_path)
    assert (code, found) == (0, set())


def test_flake8_follows_the_jaxlint_config(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nignore = ["in-place-update"]\n')
    (tmp_path / "bug.py").write_text("import jax.numpy as jnp\nx = jnp.zeros(3)\nx[0] = 1\nx.at[0].set(2)\n")
    _, found, _ = _flake8(["--select", "JAX", "bug.py"], tmp_path)
    assert found == {("bug.py", 4, 1, "JAX102")}


def test_flake8_checks_one_file_with_its_project() -> None:
    # flake8 hands the plugin one file; its findings come from the jitted caller in another module.
    metrics = "project/mypkg/metrics.py"
    code, found, stderr = _flake8(["--select", "JAX", metrics], FIXTURES)
    assert (code, stderr) == (1, "")
    assert found == {(metrics, 11, 5, "JAX306"), (metrics, 17, 8, "JAX301")}
    # The loop bodies of steps.py: the transforms applied to them are in pipeline.py.
    steps = "project/mypkg/steps.py"
    code, found, stderr = _flake8(["--select", "JAX", steps], FIXTURES)
    assert (code, stderr) == (1, "")
    assert found == {(steps, 8, 8, "JAX301"), (steps, 14, 5, "JAX306"), (steps, 19, 11, "JAX203"),
                     (steps, 28, 5, "JAX306"), (steps, 36, 8, "JAX301"), (steps, 71, 13, "JAX303"),
                     (steps, 78, 8, "JAX301")}


def test_flake8_checks_several_files_of_a_project_in_one_process() -> None:
    # The first file is checked with the modules connected to it, the next ones with the whole project.
    metrics, train = "project/mypkg/metrics.py", "project/mypkg/train.py"
    code, found, stderr = _flake8(["--select", "JAX", "--jobs", "1", metrics, train], FIXTURES)
    assert (code, stderr) == (1, "")
    assert found == {(metrics, 11, 5, "JAX306"), (metrics, 17, 8, "JAX301"), (train, 22, 8, "JAX301"),
                     (train, 25, 5, "JAX308")}


def test_noqa_is_left_to_flake8(tmp_path: Path) -> None:
    (tmp_path / "bug.py").write_text("import jax.numpy as jnp\nx = jnp.zeros(3)\nx[0] = 1  # noqa: JAX101\n"
                                     "x[1] = 2  # noqa\n")
    assert _flake8(["--select", "JAX", "bug.py"], tmp_path)[:2] == (0, set())
    code, found, _ = _flake8(["--select", "JAX", "--disable-noqa", "bug.py"], tmp_path)
    assert (code, found) == (1, {("bug.py", 3, 1, "JAX101"), ("bug.py", 4, 1, "JAX101")})


def test_file_level_jaxlint_noqa_still_holds_in_the_plugin(tmp_path: Path) -> None:
    (tmp_path / "bug.py").write_text("# jaxlint: noqa: JAX101\nimport jax.numpy as jnp\nx = jnp.zeros(3)\n"
                                     "x[0] = 1\nx.at[1].set(2)\n")
    code, found, _ = _flake8(["--select", "JAX", "--disable-noqa", "bug.py"], tmp_path)
    assert (code, found) == (1, {("bug.py", 5, 1, "JAX102")})
