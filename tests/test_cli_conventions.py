"""What users of ruff and flake8 expect: `jaxlint check`, `--select ALL`, stdin, `--output-file`; and
clear one-line errors for a closed pipe, a full disk and a pyproject.toml that is not UTF-8."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from helpers import JAX101_MESSAGE, JAX101_SOURCE, jaxlint, write

FINDING = f"a.py:3:1: JAX101 [*] {JAX101_MESSAGE}\n"
SUMMARY = "Found 1 finding (1 file checked); 1 fixable with `--fix`.\n"


def test_check_subcommand_as_in_ruff(tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    result = jaxlint(tmp_path, "check", "a.py")
    assert (result.returncode, result.stdout, result.stderr) == (1, FINDING + SUMMARY, "")


def test_select_all_enables_the_opt_in_rules_too(tmp_path: Path) -> None:
    write(tmp_path / "a.py", "import jax\nkey = jax.random.PRNGKey(0)\n")
    assert jaxlint(tmp_path, "--quiet", "a.py").stdout == ""
    assert [line.split()[1] for line in jaxlint(tmp_path, "--quiet", "--select", "ALL", "a.py").stdout.splitlines()] \
        == ["JAX205"]
    assert jaxlint(tmp_path, "--quiet", "--select", "ALL", "--ignore", "ALL", "a.py").stdout == ""


def test_stdin_is_checked_as_the_named_file(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.jaxlint.per-file-ignores]\n"tests/*" = ["JAX101"]\n')
    run = subprocess.run([sys.executable, "-m", "jaxlint", "-", "--stdin-filename", "src/a.py"], cwd=tmp_path,
                         input=JAX101_SOURCE, capture_output=True, text=True)
    assert (run.returncode, run.stdout, run.stderr) == (1, "src/" + FINDING + SUMMARY, "")
    run = subprocess.run([sys.executable, "-m", "jaxlint", "-", "--stdin-filename", "tests/a.py"], cwd=tmp_path,
                         input=JAX101_SOURCE, capture_output=True, text=True)
    assert (run.returncode, run.stdout) == (0, "All checks passed (1 file checked).\n")
    run = subprocess.run([sys.executable, "-m", "jaxlint", "-", "--add-noqa"], cwd=tmp_path, input=JAX101_SOURCE,
                         capture_output=True, text=True)
    assert (run.returncode, run.stderr) == (
        2, "jaxlint: error: `-` (stdin) is checked alone, without --verify, --add-noqa or --watch\n")


def test_output_file(tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    result = jaxlint(tmp_path, "a.py", "--output-file", "report.txt")
    assert (result.returncode, result.stdout, result.stderr) == (1, "", "")
    assert (tmp_path / "report.txt").read_text() == FINDING + SUMMARY


def test_a_full_disk_is_a_one_line_error(tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    result = jaxlint(tmp_path, "a.py", "--output-file", "/dev/full")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == "jaxlint: error: cannot write the report to /dev/full: No space left on device\n"
    with open("/dev/full", "w") as full:
        run = subprocess.run([sys.executable, "-m", "jaxlint", "a.py"], cwd=tmp_path, stdout=full,
                             stderr=subprocess.PIPE, text=True)
    assert (run.returncode, run.stderr) == (
        2, "jaxlint: error: cannot write the report to stdout: No space left on device\n")


def test_a_closed_pipe_ends_the_run_quietly(tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    # `true` exits without reading: jaxlint writes to a pipe already closed, as `| head` leaves it.
    run = subprocess.run(["bash", "-c", f"'{sys.executable}' -m jaxlint a.py | true; echo \"${{PIPESTATUS[0]}}\""],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert (run.stdout, run.stderr) == ("141\n", "")  # as if killed by SIGPIPE, like the other tools in a pipeline


def test_a_pyproject_that_is_not_utf8_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_bytes(b'[tool.jaxlint]\nselect = ["\xff"]\n')
    write(tmp_path / "a.py", JAX101_SOURCE)
    result = jaxlint(tmp_path, "a.py")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (f"jaxlint: error: invalid TOML in {tmp_path / 'pyproject.toml'}: not UTF-8 "
                             "(byte 0xff at offset 26)\n")
