"""What a new user hits first (issue 23, item 5): a pipe closed by `head` on every output path, a file over
max-file-size that must cost nothing, and a named file in a folder that cannot be entered."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import JAX101_MESSAGE, JAX101_SOURCE, jaxlint, write
from test_bad_input import workdir  # noqa: F401  (the fixture that runs the command line as a plain user)


@pytest.mark.parametrize(("args", "code"), [
    ("rule --all", 141), ("rule JAX101", 141), ("--statistics a.py", 141), ("--output-format json a.py", 141),
    ("--help", 0), ("--version", 0),  # argparse drops what it cannot write, and exits 0
])
def test_a_pipe_closed_by_the_reader_ends_every_output_quietly(tmp_path: Path, args: str, code: int) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    # `true` exits without reading: jaxlint writes to a pipe already closed, as `| head -3` leaves it.
    run = subprocess.run(["bash", "-c", f"'{sys.executable}' -m jaxlint {args} | true; echo \"${{PIPESTATUS[0]}}\""],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert (run.stdout, run.stderr) == (f"{code}\n", "")  # 141: as if killed by SIGPIPE; no traceback, not 1


def test_a_file_over_max_file_size_is_not_read_to_find_the_project_s_calls(tmp_path: Path) -> None:
    """The import scan (jaxlint/connected.py) skips it as the run does: a 3 MB generated module cost
    10 s and 650 MB there while it was reported as skipped."""
    write(tmp_path / "pyproject.toml", '[tool.jaxlint]\nmax-file-size = "1KB"\n')
    write(tmp_path / "train.py", JAX101_SOURCE)
    write(tmp_path / "small.py", "import jax\nimport train\ntrain.x.sum()\n")
    write(tmp_path / "generated.py", "import jax\nimport train\n" + "train.x.sum()\n" * 200)
    result = jaxlint(tmp_path, "--cache-dir", "cache", "--quiet", "train.py")
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout == f"train.py:3:1: JAX101 [*] {JAX101_MESSAGE}\n"
    scanned = {json.loads(json.loads(entry.read_text())["key"])[2] for entry in (tmp_path / "cache").glob("*/*")
               if "calls and arguments" in entry.read_text()}
    assert scanned == {str(tmp_path / "train.py"), str(tmp_path / "small.py")}


@pytest.mark.parametrize("fix", [[], ["--fix"]])
def test_a_named_file_in_a_folder_that_cannot_be_entered(workdir, fix: list[str]) -> None:  # noqa: F811
    """Reported as the file it is (JAX003), and the other files are still checked (and fixed)."""
    folder, jaxlint_as_user = workdir
    write(folder / "good.py", JAX101_SOURCE)
    write(folder / "locked" / "inside.py", JAX101_SOURCE)
    (folder / "locked").chmod(0o000)
    for writable in (folder, folder / "good.py"):  # for --fix, whoever runs it
        writable.chmod(0o777)
    result = jaxlint_as_user(folder, "--no-cache", *fix, "--output-format", "concise", "good.py", "locked/inside.py")
    assert (result.returncode, result.stderr) == (1, "")
    expected = ["locked/inside.py:1:1: JAX003 permission denied"]
    assert result.stdout.splitlines() == expected if fix else [f"good.py:3:1: JAX101 [*] {JAX101_MESSAGE}", *expected]
    assert ("x.at[0].set(1)" in (folder / "good.py").read_text()) == bool(fix)
