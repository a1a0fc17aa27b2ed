"""`--verify` and the environment the user's code runs in, through the real command line with real jax: a
module that is not installed is one "could not verify" line per module and never a finding; the same
project with that module on the path is verified, its scripts run with the project root on sys.path as
the project imports its own modules (`from mypkg.model import relu` in mypkg/train.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import write

MODEL = '''import jax
import jaxlint_test_dependency


@jax.jit
def relu(x):
    if x > 0:
        return x
    return 0.0
'''
TRAIN = '''import jax.numpy as jnp
import jaxlint_test_dependency
from mypkg.model import relu

print(relu(jnp.float32(1.0)))
'''
OTHER = '''import jax
import jaxlint_test_dependency
import jaxlint_test_second_dependency


@jax.jit
def clip(x):
    if x > 1:
        return 1.0
    return x
'''
SCRIPTS = ["mypkg/train.py", "mypkg/model.py", "mypkg/other.py"]


def project(root: Path) -> Path:
    write(root / "mypkg" / "__init__.py", "")
    write(root / "mypkg" / "model.py", MODEL)
    write(root / "mypkg" / "train.py", TRAIN)
    write(root / "mypkg" / "other.py", OTHER)
    return root


def verify_run(cwd: Path, python_path: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if python_path:
        env["PYTHONPATH"] = python_path
    return subprocess.run(
        [sys.executable, "-m", "jaxlint", "--verify=run", "--fail-on", "confirmed", "--output-format", "json",
         *SCRIPTS], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def verdicts(run: subprocess.CompletedProcess, cwd: Path) -> set[tuple[str, int, str, str]]:
    return {(Path(d["filename"]).relative_to(cwd).as_posix(), d["location"]["row"], d["code"], d["verify"]["status"])
            for d in json.loads(run.stdout)}


@pytest.mark.slow
def test_a_missing_dependency_is_one_line_per_module_and_no_finding(tmp_path: Path) -> None:
    run = verify_run(project(tmp_path), None)
    assert run.stderr == ("jaxlint: could not verify: module `jaxlint_test_dependency` is not installed "
                          "(imported by mypkg/train.py, mypkg/model.py, mypkg/other.py)\n")
    assert verdicts(run, tmp_path) == {("mypkg/model.py", 7, "JAX301", "unverified"), ("mypkg/other.py", 8, "JAX301", "unverified")}
    assert run.returncode == 0  # nothing confirmed


@pytest.mark.slow
def test_with_the_dependency_on_the_path_the_real_bugs_are_confirmed(tmp_path: Path) -> None:
    write(tmp_path / "site" / "jaxlint_test_dependency.py", "VALUE = 1\n")
    write(tmp_path / "site" / "jaxlint_test_second_dependency.py", "")
    run = verify_run(project(tmp_path / "project"), str(tmp_path / "site"))
    assert run.stderr == ""
    # train.py imports mypkg from the project root and runs relu; other.py's clip, which its run never
    # calls, is traced after the run as an import would trace it
    assert verdicts(run, tmp_path / "project") == {("mypkg/model.py", 7, "JAX301", "confirmed"), ("mypkg/other.py", 8, "JAX301", "confirmed")}
    assert run.returncode == 1
