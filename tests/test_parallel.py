"""Many files in a process pool: the same output, in the same order, as one process gives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import JAX101_SOURCE, jaxlint, write

from jaxlint.runner import MIN_FILES_FOR_POOL


def many_files(root: Path) -> None:
    """Files of very different sizes (the pool starts the largest first), some without jax."""
    for n in range(3 * MIN_FILES_FOR_POOL):
        padding = "y = 1\n" * (n * 37 % 200)
        write(root / "pkg" / f"sub{n % 3}" / f"m{n:02}.py",
              "import os\n" if n % 5 == 0 else JAX101_SOURCE + padding + "x[1] = 2\n")


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_a_pool_prints_exactly_what_one_process_prints(tmp_path: Path, output_format: str) -> None:
    many_files(tmp_path)
    one = jaxlint(tmp_path, "--no-cache", "--jobs", "1", "--output-format", output_format, "pkg")
    pool = jaxlint(tmp_path, "--no-cache", "--jobs", "3", "--output-format", output_format, "pkg")
    assert (pool.stdout, pool.stderr, pool.returncode) == (one.stdout, "", 1)
    if output_format == "text":
        names = [line.split(":")[0] for line in one.stdout.splitlines()[:-1]]
        assert names == sorted(names) and len(names) == 2 * len(set(names))
        assert one.stdout.endswith("(24 files checked, 5 without jax skipped); 38 fixable with `--fix`.\n")


def test_a_crash_in_a_worker_is_reported_and_the_other_files_are_still_checked(
    run, tmp_path: Path, bug_in
) -> None:
    bug_in("m07.py")  # before the pool forks its workers, which inherit it
    many_files(tmp_path)
    result = run("--no-cache", "--jobs", "2", "pkg")
    assert result.code == 2
    assert "pkg/sub1/m07.py" not in result.out
    assert result.out.count(" JAX101 ") == 2 * (3 * MIN_FILES_FOR_POOL - 5 - 1)
    assert result.out.endswith("and 1 internal error (24 files checked, 5 without jax skipped); see stderr.\n")
    first, *_, last = result.err.rstrip("\n").splitlines()
    assert first == "jaxlint: internal error while checking pkg/sub1/m07.py (please report it):"
    worker = int(last.rsplit(" ", 1)[1])
    assert last.startswith("RuntimeError: simulated bug in process ") and worker != os.getpid()


def test_a_worker_that_dies_costs_only_its_own_file(run, tmp_path: Path, bug_in) -> None:
    bug_in("m07.py", kills=True)
    many_files(tmp_path)
    result = run("--no-cache", "--jobs", "2", "pkg")
    assert result.code == 2
    assert result.out.count(" JAX101 ") == 2 * (3 * MIN_FILES_FOR_POOL - 5 - 1)
    assert result.out.endswith("and 1 internal error (24 files checked, 5 without jax skipped); see stderr.\n")
    assert result.err == ("jaxlint: internal error while checking pkg/sub1/m07.py (please report it): "
                          "the process checking it died\n")


def test_jobs_must_be_a_positive_number(tmp_path: Path) -> None:
    run = jaxlint(tmp_path, "--jobs", "0", ".")
    assert run.returncode == 2
    assert "argument --jobs/-j: expected a positive whole number, got '0'" in run.stderr
