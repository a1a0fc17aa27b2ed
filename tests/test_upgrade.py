"""Programs written for jax 0.2/0.3 (stax, optimizers, jax.ops, tree_multimap, DeviceArray, jax.config) are
upgraded by `jaxlint --fix --unsafe-fixes` into code that runs on the installed jax and prints exactly what
a hand-upgraded version of the same program prints."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import jaxlint

pytestmark = pytest.mark.slow  # subprocesses, real jax or a language server in every test

UPGRADE = Path(__file__).resolve().parents[1] / "fixtures" / "upgrade"
# Each program: the error it stops with on the installed jax, as the last line of its traceback.
PROGRAMS = {
    "mlp": "ImportError: cannot import name 'optimizers' from 'jax.experimental'",
    "classifier": "ModuleNotFoundError: No module named 'jax.config'",
    "heat": "ImportError: cannot import name 'DeviceArray' from 'jax.interpreters.xla'",
    "tree_stats": "ImportError: cannot import name 'tree_multimap' from 'jax.tree_util'",
}


def run_program(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300,
                          cwd=path.parent)


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess, Path]:
    """The old programs, copied and fixed by the real command line in one run."""
    folder = tmp_path_factory.mktemp("upgrade")
    for name in PROGRAMS:
        shutil.copyfile(UPGRADE / f"{name}.py", folder / f"{name}.py")
    fixed = jaxlint(folder, "--fix", "--unsafe-fixes", "--extend-select", "JAX205",
                    *(f"{name}.py" for name in PROGRAMS), timeout=120)
    return fixed, folder


@pytest.mark.parametrize("name", PROGRAMS)
def test_the_old_program_fails_on_the_installed_jax(name: str) -> None:
    result = run_program(UPGRADE / f"{name}.py")
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1].startswith(PROGRAMS[name]), result.stderr


def test_one_command_fixes_every_finding(upgraded) -> None:
    fixed, _ = upgraded
    assert (fixed.returncode, fixed.stderr) == (0, "")
    assert fixed.stdout == "Found 53 findings (53 fixed, 0 remaining; 4 files checked).\n"


@pytest.mark.parametrize("name", PROGRAMS)
def test_the_fixed_program_is_written_as_expected(upgraded, name: str) -> None:
    _, folder = upgraded
    assert (folder / f"{name}.py").read_bytes() == (UPGRADE / f"{name}.fixed.py").read_bytes()


@pytest.mark.parametrize("name", PROGRAMS)
def test_the_fixed_program_prints_what_the_hand_upgraded_one_prints(upgraded, name: str) -> None:
    _, folder = upgraded
    fixed = run_program(folder / f"{name}.py")
    reference = run_program(UPGRADE / f"{name}.reference.py")
    assert (fixed.returncode, reference.returncode) == (0, 0), fixed.stderr + reference.stderr
    assert any(character.isdigit() for character in fixed.stdout)  # it printed its numbers
    assert fixed.stdout == reference.stdout
