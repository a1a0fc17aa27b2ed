"""The options a ruff user reaches for (issue 23, item 8), each through the real command line."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from helpers import BOTH_SOURCE, CLEAN_SOURCE, JAX101_MESSAGE, JAX101_SOURCE, jaxlint, write

JAX102_LINE = "JAX102 the result of `.at[...].set(...)` is discarded: JAX arrays are immutable, so `x` is unchanged"


def codes_by_file(result) -> list[str]:
    """`file:CODE` of each finding line (concise or quiet text output)."""
    return [f"{line.split(':')[0]}:{line.split(': ')[1].split()[0]}" for line in result.stdout.splitlines()]


def test_help_lists_the_subcommands(tmp_path: Path) -> None:
    result = jaxlint(tmp_path, "--help")
    assert result.returncode == 0
    assert result.stdout.startswith("usage: jaxlint [check] [options] [paths ...]\n"
                                    "       jaxlint rule CODE | --all\n       jaxlint server\n")
    assert result.stdout.endswith(
        "commands:\n"
        "  check    check the paths (the default: `jaxlint src/` is `jaxlint check src/`)\n"
        "  rule     explain a rule (`jaxlint rule JAX201`), or list them all (`jaxlint rule --all`)\n"
        "  server   the language server, on stdin and stdout (for editors)\n")


def test_exclude_replaces_the_config_s_and_extend_exclude_adds(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.jaxlint]\nexclude = ["gen"]\n')
    for name in ("gen/a.py", "old/b.py", "src/c.py", "venv/d.py"):
        write(tmp_path / name, JAX101_SOURCE)
    concise = ("--no-cache", "--output-format", "concise")
    assert codes_by_file(jaxlint(tmp_path, *concise, ".")) == ["old/b.py:JAX101", "src/c.py:JAX101",
                                                               "venv/d.py:JAX101"]
    assert codes_by_file(jaxlint(tmp_path, *concise, "--exclude", "old,venv", ".")) == [
        "gen/a.py:JAX101", "src/c.py:JAX101"]
    assert codes_by_file(jaxlint(tmp_path, *concise, "--extend-exclude", "old", "--extend-exclude", "src", ".")) == [
        "venv/d.py:JAX101"]
    assert jaxlint(tmp_path, "--show-files", "--extend-exclude", "old", ".").stdout == "src/c.py\nvenv/d.py\n"


def test_extend_ignore_and_per_file_ignores(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.jaxlint.per-file-ignores]\n"src/*" = ["JAX101"]\n')
    write(tmp_path / "src" / "a.py", BOTH_SOURCE)
    write(tmp_path / "tests" / "b.py", BOTH_SOURCE)
    concise = ("--no-cache", "--output-format", "concise", ".")
    assert codes_by_file(jaxlint(tmp_path, *concise)) == ["src/a.py:JAX102", "tests/b.py:JAX101", "tests/b.py:JAX102"]
    assert codes_by_file(jaxlint(tmp_path, "--extend-ignore", "JAX102", *concise)) == ["tests/b.py:JAX101"]
    # On the command line, per-file-ignores replace the config's (as in ruff and flake8).
    result = jaxlint(tmp_path, "--per-file-ignores", "tests/*:JAX101,in-place-update",
                     "--per-file-ignores", "src/*:JAX1", *concise)
    assert codes_by_file(result) == ["tests/b.py:JAX102"]
    result = jaxlint(tmp_path, "--per-file-ignores", "tests/*", ".")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.endswith("argument --per-file-ignores: expected GLOB:CODES such as 'tests/*:JAX101', "
                                  "got 'tests/*'\n")
    result = jaxlint(tmp_path, "--per-file-ignores", "tests/*:JAX999", ".")
    assert (result.returncode, result.stderr) == (
        2, "jaxlint: error: --per-file-ignores 'tests/*': unknown rule code or name 'JAX999'\n")


def test_fix_only_reports_what_was_fixed_and_exits_0(tmp_path: Path) -> None:
    write(tmp_path / "a.py", BOTH_SOURCE)
    result = jaxlint(tmp_path, "--no-cache", "--fix-only", "a.py")
    assert (result.returncode, result.stdout, result.stderr) == (0, "Fixed 1 finding (1 file checked).\n", "")
    assert (tmp_path / "a.py").read_text() == BOTH_SOURCE.replace("x[0] = 1", "x = x.at[0].set(1)")
    write(tmp_path / "a.py", BOTH_SOURCE)
    result = jaxlint(tmp_path, "--no-cache", "--fix-only", "--exit-non-zero-on-fix", "a.py")
    assert (result.returncode, result.stdout) == (1, "Fixed 1 finding (1 file checked).\n")
    result = jaxlint(tmp_path, "--no-cache", "--fix-only", "--exit-non-zero-on-fix", "a.py")
    assert (result.returncode, result.stdout) == (0, "Fixed 0 findings (1 file checked).\n")  # JAX102 remains


def test_exit_non_zero_on_fix(tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    assert jaxlint(tmp_path, "--no-cache", "--fix", "a.py").returncode == 0  # everything was fixed
    write(tmp_path / "a.py", JAX101_SOURCE)
    result = jaxlint(tmp_path, "--no-cache", "--fix", "--exit-non-zero-on-fix", "a.py")
    assert (result.returncode, result.stdout) == (
        1, "Found 1 finding (1 fixed, 0 remaining; 1 file checked).\n")


def test_show_settings(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.jaxlint]\nselect = ["JAX1"]\nextend-exclude = ["gen"]\n'
                                       'respect-gitignore = false\n[tool.jaxlint.per-file-ignores]\n'
                                       '"tests/*" = ["JAX101"]\n')
    result = jaxlint(tmp_path, "--show-settings", "--target-version", "0.4.30", "src")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "Settings for src:"
    assert {"enabled = JAX101, JAX102, JAX103, JAX104", f"root = {tmp_path}", "per_file_ignores = tests/*: JAX101",
            f"config_file = {tmp_path / 'pyproject.toml'}", "target_jax_version = 0.4.30",
            "respect_gitignore = False", "exclude = .git, .venv, venv, build, dist, __pycache__, .tox, node_modules, "
            ".ipynb_checkpoints, gen"} <= set(lines)


def test_show_files_lists_what_a_run_checks(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path / ".gitignore", "scratch/\n")
    for name in ("a.py", "nb.ipynb", "pkg/b.pyi", "scratch/c.py", "build/d.py", "notes.txt"):
        write(tmp_path / name, "")
    result = jaxlint(tmp_path, "--show-files")
    assert (result.returncode, result.stdout, result.stderr) == (0, "a.py\nnb.ipynb\npkg/b.pyi\n", "")


def test_silent_prints_nothing_and_quiet_prints_the_findings(tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    assert (lambda r: (r.returncode, r.stdout, r.stderr))(jaxlint(tmp_path, "--silent", "a.py")) == (1, "", "")
    assert jaxlint(tmp_path, "-q", "a.py").stdout == f"a.py:3:1: JAX101 [*] {JAX101_MESSAGE}\n"
    assert jaxlint(tmp_path, "--silent", "--exit-zero", "a.py").returncode == 0


def test_concise_is_one_line_per_finding(tmp_path: Path) -> None:
    write(tmp_path / "a.py", BOTH_SOURCE)
    result = jaxlint(tmp_path, "--output-format", "concise", "a.py")
    assert result.stdout == f"a.py:3:1: JAX101 [*] {JAX101_MESSAGE}\na.py:4:1: {JAX102_LINE}\n"


def test_fix_on_stdin_prints_the_fixed_code(tmp_path: Path) -> None:
    def stdin(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "jaxlint", *args], cwd=tmp_path, input=BOTH_SOURCE,
                              capture_output=True, text=True, timeout=60)

    fixed = BOTH_SOURCE.replace("x[0] = 1", "x = x.at[0].set(1)")
    result = stdin("--fix", "--stdin-filename", "src/a.py", "-")
    assert (result.returncode, result.stdout) == (1, fixed)  # JAX102 remains: exit 1, as a plain run
    assert result.stderr == f"src/a.py:4:1: {JAX102_LINE}\nFound 2 findings (1 fixed, 1 remaining; 1 file checked).\n"
    result = stdin("--fix-only", "-")
    assert (result.returncode, result.stdout, result.stderr) == (0, fixed, "Fixed 1 finding (1 file checked).\n")
    result = stdin("--diff", "--stdin-filename", "a.py", "-")
    assert result.returncode == 1
    assert result.stdout.startswith("--- a/a.py\n+++ b/a.py\n")
    assert "-x[0] = 1\n+x = x.at[0].set(1)\n" in result.stdout


def test_noqa_prefixes_suppress_as_flake8_reads_them(tmp_path: Path) -> None:
    write(tmp_path / "a.py", BOTH_SOURCE.replace("x[0] = 1", "x[0] = 1  # noqa: JAX1")
          .replace("x.at[1].set(2)", "x.at[1].set(2)  # noqa: JAX2"))
    assert codes_by_file(jaxlint(tmp_path, "--no-cache", "-q", "a.py")) == ["a.py:JAX102"]


def test_unused_noqa_codes_are_reported_and_fixed(tmp_path: Path) -> None:
    source = ("import jax.numpy as jnp\n"
              "x = jnp.zeros(3)  # noqa: JAX101\n"
              "x[0] = 1  # noqa: JAX101, JAX102\n"
              "y = jnp.ones(2)  # noqa: E501, JAX1  # checked by hand\n")
    write(tmp_path / "a.py", source)
    assert jaxlint(tmp_path, "--no-cache", "-q", "a.py").stdout == ""  # opt-in
    result = jaxlint(tmp_path, "--no-cache", "-q", "--extend-select", "JAX002", "a.py")
    assert (result.returncode, result.stdout) == (1, (
        "a.py:2:19: JAX002 [*] unused `noqa` code JAX101: no such finding on this line\n"
        "a.py:3:11: JAX002 [*] unused `noqa` code JAX102: no such finding on this line\n"
        "a.py:4:18: JAX002 [*] unused `noqa` code JAX1: no such finding on this line\n"))
    result = jaxlint(tmp_path, "--no-cache", "--extend-select", "unused-noqa", "--fix", "a.py")
    assert result.returncode == 0
    assert (tmp_path / "a.py").read_text() == ("import jax.numpy as jnp\n"
                                               "x = jnp.zeros(3)\n"
                                               "x[0] = 1  # noqa: JAX101\n"
                                               "y = jnp.ones(2)  # noqa: E501  # checked by hand\n")


def test_add_noqa(tmp_path: Path) -> None:
    source = ("import jax.numpy as jnp\r\n"
              "x = jnp.zeros(3)\r\n"
              "x[0] = 1\r\n"
              "x.at[1].set(2)  # noqa: E501\r\n"
              "x[1] = 3  # the second one\r\n"
              "x[2] = len('''\r\n"
              "''')\r\n")
    write(tmp_path / "a.py", JAX101_SOURCE)
    (tmp_path / "b.py").write_bytes(source.encode())
    result = jaxlint(tmp_path, "--no-cache", "--add-noqa", ".")
    assert (result.returncode, result.stdout, result.stderr) == (0, "Added 4 noqa comments.\n", "")
    assert (tmp_path / "a.py").read_text() == JAX101_SOURCE.replace("x[0] = 1", "x[0] = 1  # noqa: JAX101")
    assert (tmp_path / "b.py").read_bytes().decode() == (
        "import jax.numpy as jnp\r\n"
        "x = jnp.zeros(3)\r\n"
        "x[0] = 1  # noqa: JAX101\r\n"
        "x.at[1].set(2)  # noqa: JAX102, E501\r\n"
        "x[1] = 3  # the second one  # noqa: JAX101\r\n"
        "x[2] = len('''\r\n"  # the line ends inside a string: a comment there would be part of it
        "''')\r\n")
    result = jaxlint(tmp_path, "--no-cache", "--output-format", "concise", ".")
    assert [line.split(" ")[:2] for line in result.stdout.splitlines()] == [["b.py:6:1:", "JAX101"]]
    result = jaxlint(tmp_path, "--add-noqa", "--fix-only", ".")
    assert (result.returncode, result.stderr) == (2, "jaxlint: error: --add-noqa does not go with --fix-only\n")
    result = jaxlint(tmp_path, "--watch", "--diff", ".")
    assert (result.returncode, result.stderr) == (2, "jaxlint: error: --watch does not go with --diff\n")


def test_watch_checks_again_when_a_file_changes(tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    watcher = subprocess.Popen([sys.executable, "-m", "jaxlint", "--watch", "--no-cache", "-q", "."], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert watcher.stdout is not None
        assert watcher.stdout.readline() == f"a.py:3:1: JAX101 [*] {JAX101_MESSAGE}\n"
        assert watcher.stdout.readline() == "Watching for file changes.\n"
        time.sleep(0.1)  # a modification time that differs from the first, on any file system
        write(tmp_path / "b.py", BOTH_SOURCE)  # a new file is seen too
        write(tmp_path / "a.py", "import jax\n")
        lines = []
        while not lines or lines[-1] != "Watching for file changes.\n":
            lines.append(watcher.stdout.readline())
        if lines[0].startswith("a.py"):  # the first edit was seen alone: the next check has both
            lines = []
            while not lines or lines[-1] != "Watching for file changes.\n":
                lines.append(watcher.stdout.readline())
        assert lines == [f"b.py:3:1: JAX101 [*] {JAX101_MESSAGE}\n", f"b.py:4:1: {JAX102_LINE}\n",
                         "Watching for file changes.\n"]
    finally:
        watcher.terminate()
        _, err = watcher.communicate(timeout=30)
    assert (watcher.returncode, err) == (143, "jaxlint: terminated\n")


def test_watch_prints_each_check_with_its_summary_and_ctrl_c_ends_it_with_exit_0(tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    watcher = subprocess.Popen([sys.executable, "-m", "jaxlint", "--watch", "--no-cache", "."], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = threading.Timer(60, watcher.kill)  # a watcher that never prints fails the test, not hangs it
    deadline.start()
    try:
        assert watcher.stdout is not None
        assert [watcher.stdout.readline() for _ in range(3)] == [
            f"a.py:3:1: JAX101 [*] {JAX101_MESSAGE}\n",
            "Found 1 finding (1 file checked); 1 fixable with `--fix`.\n",
            "Watching for file changes.\n"]
        time.sleep(0.1)  # a modification time that differs from the first, on any file system
        write(tmp_path / "a.py", CLEAN_SOURCE)
        assert [watcher.stdout.readline() for _ in range(2)] == [
            "All checks passed (1 file checked).\n", "Watching for file changes.\n"]
    finally:
        watcher.send_signal(signal.SIGINT)  # Ctrl-C
        out, err = watcher.communicate(timeout=30)
        deadline.cancel()
    assert (watcher.returncode, out, err) == (0, "", "")


def test_every_option_is_on_the_command_line_page() -> None:
    from jaxlint.cli import _parser

    page = (Path(__file__).resolve().parents[1] / "docs" / "command-line.md").read_text(encoding="utf-8")
    options = {option for action in _parser()._actions for option in action.option_strings if option.startswith("--")}
    assert sorted(option for option in options - {"--help", "--version"} if f"`{option}" not in page) == []
