"""Issue 15's hostile run, tried again: inputs and environments that once gave internal errors or
wrong exit codes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import JAX101_MESSAGE, JAX101_SOURCE, write
from test_bad_input import workdir  # noqa: F401 (a fixture, used by name)

# 200 findings: a json report of about 150 kB, more than a pipe holds (64 kB on Linux).
MANY_FINDINGS = "import jax.numpy as jnp\nx = jnp.zeros(3)\n" + "x[0] = 1\n" * 200


@pytest.mark.parametrize("unbuffered", ["1", ""])
def test_a_reader_that_goes_away_midway_ends_the_run_quietly(tmp_path: Path, unbuffered: str) -> None:
    # `head -c 100` reads the start of the report and leaves while jaxlint is still writing. With an
    # unbuffered stdout (PYTHONUNBUFFERED=1, common in CI) one write(2) took part of the report and the
    # rest was dropped without an error: exit 1, as if the whole report had been read.
    write(tmp_path / "many.py", MANY_FINDINGS)
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered}
    run = subprocess.run(["bash", "-c", f"'{sys.executable}' -m jaxlint --no-cache --output-format json many.py"
                          " | head -c 100 > /dev/null; echo \"${PIPESTATUS[0]}\""],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert (run.stdout, run.stderr) == ("141\n", "")


def test_the_whole_report_reaches_a_reader_that_reads_it_all(tmp_path: Path) -> None:
    write(tmp_path / "many.py", MANY_FINDINGS)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    run = subprocess.run([sys.executable, "-m", "jaxlint", "--no-cache", "--output-format", "concise", "many.py"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    assert [line.split(" ")[0] for line in run.stdout.splitlines()] == [f"many.py:{row}:1:" for row in range(3, 203)]


def test_a_named_folder_that_cannot_be_looked_into_is_reported(workdir) -> None:
    # Finding its config (and the nearest pyproject.toml) looks into the folder first: that must not crash.
    folder, jaxlint_as_user = workdir
    locked = folder / "src" / "locked"
    write(locked / "a.py", JAX101_SOURCE)
    write(folder / "src" / "good.py", JAX101_SOURCE)
    locked.chmod(0o000)
    result = jaxlint_as_user(folder, "--output-format", "concise", "src/locked", "src/good.py")
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout.splitlines() == [
        "src/locked:1:1: JAX003 cannot list folder: permission denied",
        f"src/good.py:3:1: JAX101 [*] {JAX101_MESSAGE}"]
