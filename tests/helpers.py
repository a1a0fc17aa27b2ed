"""What the command-line tests share: sample sources, the two ways to run jaxlint, and output parsers.

`jaxlint(cwd, ...)` runs the real command line in a subprocess; the in-process runner is the `run`
fixture in conftest.py, which returns an `Outcome`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

JAX101_SOURCE = "import jax.numpy as jnp\nx = jnp.zeros(3)\nx[0] = 1\n"
JAX101_MESSAGE = (
    "in-place update of a JAX array raises TypeError (`x` holds a JAX array); use `x = x.at[0].set(1)`"
)
CLEAN_SOURCE = "import jax.numpy as jnp\nx = jnp.zeros(3)\nx = x.at[0].set(1)\n"
# One JAX101 (line 3) and one JAX102 (line 4).
BOTH_SOURCE = "import jax.numpy as jnp\nx = jnp.zeros(3)\nx[0] = 1\nx.at[1].set(2)\n"
BOTH = {(3, 1, "JAX101"), (4, 1, "JAX102")}

SUMMARY_STARTS = ("Found ", "All checks passed")


@dataclass
class Outcome:
    """What an in-process run gives back: exit code, what it wrote to `out` (and stdout), and stderr."""

    code: int
    out: str
    err: str


def jaxlint(cwd: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """The real command line, in a subprocess."""
    return subprocess.run([sys.executable, "-m", "jaxlint", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def run_with_jax(script: str, folder: Path, listed: dict) -> dict:
    """What one jax subprocess reports (the JSON of its last line) after running `script` over the programs
    `listed` in `folder`, on the CPU with XLA's slow passes off."""
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONDONTWRITEBYTECODE": "1",
           "XLA_FLAGS": "--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true"}
    run = subprocess.run([sys.executable, "-c", script, str(folder), json.dumps(listed)],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _finding_parts(text_output: str) -> Iterator[tuple[str, str, str, str]]:
    """(file, row, column, rest) of each finding line of text output, ignoring the summary."""
    for line in text_output.splitlines():
        if line.startswith(SUMMARY_STARTS):
            continue
        path, row, col, rest = line.split(":", 3)
        yield path, row, col, rest


def findings(text_output: str) -> set[tuple[int, int, str]]:
    """(row, col, code) of each finding line of text output, ignoring the summary."""
    return {(int(row), int(col), rest.split()[0]) for _, row, col, rest in _finding_parts(text_output)}


def by_file(text_output: str) -> dict[str, set[str]]:
    """file -> codes found in it."""
    found: dict[str, set[str]] = {}
    for path, _, _, rest in _finding_parts(text_output):
        found.setdefault(path, set()).add(rest.split()[0])
    return found


def finding_files(text_output: str) -> set[str]:
    return {line.split(":", 1)[0] for line in text_output.splitlines()
            if not line.startswith(SUMMARY_STARTS)}
