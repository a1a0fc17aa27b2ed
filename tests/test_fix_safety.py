"""Fixes keep working code working: the fix-pair fixtures that are programs are run with real jax before
and after the fix, and must print the same."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import jaxlint, write

FIX_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fix"


def execute(path: Path, **env: str) -> subprocess.CompletedProcess:
    """Run a program with real jax on the CPU."""
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "JAX_PLATFORMS": "cpu", **env})


def run(path: Path, **env: str) -> str:
    """What a program that must succeed prints."""
    result = execute(path, **env)
    assert result.returncode == 0, result.stderr
    return result.stdout


def fixed(name: str) -> Path:
    return FIX_FIXTURES / (name[:-3] + ".fixed.py")


@pytest.mark.parametrize("name", [
    "JAX101_JAX102_in_place_update_scopes.py",  # globals, closures, list carries, a list given to jit: left alone
    "JAX302_JAX304_JAX305_numpy_in_helpers.py",  # helpers also called with NumPy arrays and Python numbers: left alone
    "JAX205_legacy_prng_key_as_data.unsafe.py",  # keys used as keys fixed, keys used as data left alone
])
@pytest.mark.slow
def test_the_fixed_program_prints_what_the_original_printed(name: str) -> None:
    before = run(FIX_FIXTURES / name)
    assert before  # the program exercises the code
    assert run(fixed(name)) == before
    assert fixed(name).read_text() != (FIX_FIXTURES / name).read_text()  # and something was fixed


@pytest.mark.slow
def test_fixed_prints_show_at_run_time_what_the_original_shows_without_jit() -> None:
    name = "JAX306_print_formatting.unsafe.py"
    untraced = run(FIX_FIXTURES / name, JAX_DISABLE_JIT="1")
    assert run(fixed(name)) == untraced
    assert "loss = 1.875\n" in untraced


@pytest.mark.parametrize("name, written, forced, broken", [
    ("JAX101_JAX102_in_place_update_scopes.py", "table[0] = 1.0", "table = table.at[0].set(1.0)", "UnboundLocalError"),
    ("JAX101_JAX102_in_place_update_scopes.py", "acc[0] = acc[0] + i", "acc = acc.at[0].set(acc[0] + i)",
     "AttributeError: 'list' object has no attribute 'at'"),
    ("JAX302_JAX304_JAX305_numpy_in_helpers.py", "np.linalg.norm(v)", "jnp.linalg.norm(v)", "ArrayImpl 1.7320508"),
    ("JAX302_JAX304_JAX305_numpy_in_helpers.py", "max(a, b)", "jnp.maximum(a, b)", "ArrayImpl 2"),
    ("JAX302_JAX304_JAX305_numpy_in_helpers.py", "np.tanh(x)", "jnp.tanh(x)", "ArrayImpl [0.7615942 0.7615942]"),
    ("JAX205_legacy_prng_key_as_data.unsafe.py", "state = jax.random.PRNGKey", "state = jax.random.key", "IndexError"),
    ("JAX205_legacy_prng_key_as_data.unsafe.py", "low_word(jax.random.PRNGKey", "low_word(jax.random.key", "IndexError"),
])
@pytest.mark.slow
def test_the_fixes_left_out_would_have_broken_the_programs(name: str, written: str, forced: str, broken: str,
                                                            tmp_path: Path) -> None:
    """What the rules refuse really breaks: each fix, forced by hand, fails or prints something else."""
    source = (FIX_FIXTURES / name).read_text()
    assert source.count(written) == 1
    result = execute(write(tmp_path / "forced.py", source.replace(written, forced)))
    assert broken in result.stdout + result.stderr
    assert broken not in run(FIX_FIXTURES / name)


def test_jnp_fixes_are_safe_only_where_the_code_runs_only_traced() -> None:
    findings = json.loads(jaxlint(FIX_FIXTURES, "--no-cache", "--output-format", "json",
                                  "JAX302_JAX304_JAX305_numpy_in_helpers.py").stdout)
    applicability = {(f["location"]["row"], f["code"], f["fix"]["message"]): f["fix"]["applicability"]
                     for f in findings}
    assert applicability == {
        (13, "JAX305", "use `jnp.linalg.norm`"): "unsafe",  # a helper: also called with NumPy arrays
        (17, "JAX302", "use `jnp.maximum`"): "unsafe",  # a helper: also called with Python numbers
        (21, "JAX304", "index `jnp.asarray(...)`"): "unsafe",
        (25, "JAX305", "use `jnp.square`"): "unsafe",  # wrapped by a call, `jax.grad(loss)`: `loss` is callable
        (25, "JAX305", "use `jnp.exp`"): "unsafe",
        (47, "JAX305", "use `jnp.log1p`"): "safe",  # nested in a jitted function
        (49, "JAX302", "use `jnp.maximum`"): "safe",
        (49, "JAX304", "index `jnp.asarray(...)`"): "safe",
    }


def test_a_lambda_written_in_a_loop_call_runs_only_traced(tmp_path: Path) -> None:
    write(tmp_path / "m.py", "import jax\nfrom jax import lax\n\n\ndef run(x, n):\n"
          "    return lax.fori_loop(0, n, lambda i, y: max(y, i * 1.0), x)\n\n\n"
          "def body(i, y):\n    return max(y, i * 1.0)\n\n\ndef run_body(x, n):\n"
          "    return lax.fori_loop(0, n, body, x)\n")
    findings = json.loads(jaxlint(tmp_path, "--no-cache", "--output-format", "json", "m.py").stdout)
    assert [(f["location"]["row"], f["fix"]["applicability"]) for f in findings] == [(6, "safe"), (10, "unsafe")]


def test_in_place_fixes_on_possible_lists_are_unsafe_and_on_outer_names_absent() -> None:
    findings = json.loads(jaxlint(FIX_FIXTURES, "--no-cache", "--output-format", "json",
                                  "JAX101_JAX102_in_place_update_scopes.py").stdout)
    assert [(f["location"]["row"], f["fix"] and f["fix"]["applicability"]) for f in findings] == [
        (13, None),  # a global: `table = ...` would make it local to the function
        (21, None),  # a closure variable
        (40, "unsafe"),  # a jit argument: no call shows what it is
        (53, "safe"),  # a local array (a jit argument that its call gives a list, line 46, is not flagged)
        (66, "unsafe"),  # a fori_loop carry no call shows (the carries its calls give lists, lines 28 and 34, are not)
    ]
    assert findings[0]["message"].endswith("use `table = table.at[0].set(1.0)` (after `global table`)")
    assert findings[1]["message"].endswith("(after `nonlocal counts`)")
