"""Big files: over `max-file-size` a file is reported (JAX003, with its size) and skipped, and the run
goes on with the other files. Time and memory below the limit are measured by benchmarks/big_files.py."""

from __future__ import annotations

import json

from pathlib import Path

import pytest

from helpers import JAX101_SOURCE, jaxlint, write


def test_a_file_over_the_default_limit_is_reported_and_the_run_goes_on(tmp_path: Path) -> None:
    write(tmp_path / "generated.py", "import jax\n" + "x = [" + "1.0, " * 500_000 + "]\n")  # 2.5 MB
    write(tmp_path / "train.py", JAX101_SOURCE)
    result = jaxlint(tmp_path, "--no-cache", "--output-format", "concise", ".")
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout.splitlines() == [
        "generated.py:1:1: JAX003 too large to check: 2.5 MB, over max-file-size (2.0 MB); the file was skipped",
        "train.py:3:1: JAX101 [*] in-place update of a JAX array raises TypeError (`x` holds a JAX array); "
        "use `x = x.at[0].set(1)`",
    ]


@pytest.mark.parametrize(("limit", "expected"), [
    ('"10KB"', "too large to check: 20,011 bytes, over max-file-size (10,000 bytes); the file was skipped"),
    ("10000", "too large to check: 20,011 bytes, over max-file-size (10,000 bytes); the file was skipped"),
    ('"1 MB"', None),
])
def test_max_file_size_setting(tmp_path: Path, limit: str, expected: str | None) -> None:
    write(tmp_path / "pyproject.toml", f"[tool.jaxlint]\nmax-file-size = {limit}\n")
    write(tmp_path / "m.py", "import jax\n" + "# padding\n" * 2_000)
    result = jaxlint(tmp_path, "--no-cache", "--quiet", "m.py")
    assert result.stdout == (f"m.py:1:1: JAX003 {expected}\n" if expected else "")
    assert result.returncode == (1 if expected else 0)


def test_a_notebook_is_judged_by_its_code_not_its_outputs(tmp_path: Path) -> None:
    # A notebook's bytes are mostly outputs (jumanji's 8 MB example): its code is what must fit.
    write(tmp_path / "pyproject.toml", '[tool.jaxlint]\nmax-file-size = "1KB"\n')
    output = {"output_type": "stream", "name": "stdout", "text": ["x" * 5_000]}
    code = {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [output],
            "source": ["import jax.numpy as jnp\n", "x = jnp.zeros(3)\n", "x[0] = 1\n"]}
    write(tmp_path / "nb.ipynb", json.dumps({"cells": [code], "nbformat": 4, "nbformat_minor": 5, "metadata": {}}))
    result = jaxlint(tmp_path, "--no-cache", "--quiet", "--output-format", "concise", "nb.ipynb")
    assert [line.split(" ", 2)[:2] for line in result.stdout.splitlines()] == [["nb.ipynb:cell", "1:3:1:"]]
    long_code = dict(code, source=["import jax\n", "y = 1\n" * 400])
    write(tmp_path / "nb.ipynb", json.dumps({"cells": [long_code], "nbformat": 4, "nbformat_minor": 5,
                                             "metadata": {}}))
    result = jaxlint(tmp_path, "--no-cache", "--quiet", "nb.ipynb")
    assert result.stdout == ("nb.ipynb:1:1: JAX003 too large to check: 2,432 bytes, over max-file-size "
                             "(1,000 bytes); the file was skipped\n")


@pytest.mark.parametrize("value", ['"big"', "0", '"-1MB"', "true", "1.5"])
def test_a_bad_max_file_size_stops_the_run(tmp_path: Path, value: str) -> None:
    write(tmp_path / "pyproject.toml", f"[tool.jaxlint]\nmax-file-size = {value}\n")
    write(tmp_path / "m.py", "import jax\n")
    result = jaxlint(tmp_path, "m.py")
    assert result.returncode == 2
    assert "'max-file-size' must be a size such as \"5MB\", \"500KB\" or a number of bytes, got " in result.stderr
