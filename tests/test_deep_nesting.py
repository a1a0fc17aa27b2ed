"""Deeply nested code never crashes the run: libcst's parser segfaults where Python refuses cleanly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CASES = {
    # Python accepts these, and jaxlint checks them (its visitors need a higher recursion limit).
    "sum_330.py": ("x = " + " + ".join(["1"] * 330), []),
    "lists_190.py": ("x = " + "[" * 190 + "]" * 190, []),
    # Python refuses these: reported, never handed to libcst (which would crash the process).
    "parens_5000.py": ("x = " + "(" * 5000 + "1" + ")" * 5000, [(2, 205, "JAX001")]),
    "sum_30000.py": ("x = " + " + ".join(["1"] * 30000), [(1, 1, "JAX003")]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_deep_nesting_is_reported_not_crashed(tmp_path: Path, name: str) -> None:
    body, expected = CASES[name]
    (tmp_path / name).write_text(f"import jax\n{body}\nx[0] = 1\n")
    (tmp_path / "bug.py").write_text("import jax.numpy as jnp\nx = jnp.zeros(3)\nx[0] = 1\n")
    run = subprocess.run([sys.executable, "-m", "jaxlint", "--quiet", name, "bug.py"],
                         cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 1, run.stderr
    assert run.stderr == ""
    found = [tuple(line.split(":")[1:3]) + (line.split()[1],) for line in run.stdout.splitlines()]
    assert [(int(r), int(c), code) for r, c, code in found] == [*expected, (3, 1, "JAX101")]
