"""`jaxlint --verify` as jax's own checkers, each run cleanly, each finding at the line that caused it: the
real command line in a subprocess on small fixture programs (fixtures/verify/leaks, fixtures/verify/keys),
with real jax (CPU)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LEAKS = ROOT / "fixtures" / "verify" / "leaks"
KEYS = ROOT / "fixtures" / "verify" / "keys"
UNVERIFIABLE = ROOT / "fixtures" / "verify" / "unverifiable"


def run_verify(cwd: Path, *args: str, key_reuse: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "JAXLINT_VERIFY_KEY_REUSE": "1" if key_reuse else "0"}
    run = subprocess.run([sys.executable, "-m", "jaxlint", "--output-format", "json", *args], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode in (0, 1), run.stderr
    return run


def verify(cwd: Path, *args: str, key_reuse: bool = True) -> list[dict]:
    return json.loads(run_verify(cwd, *args, key_reuse=key_reuse).stdout)


def found(findings: list[dict]) -> dict[tuple[str, int, str], tuple[str, str]]:
    return {(Path(d["filename"]).name, d["location"]["row"], d["code"]): (d["verify"]["status"], d["verify"]["detail"])
            for d in findings}


@pytest.mark.slow
@pytest.mark.parametrize("key_reuse", [True, False])
def test_a_leak_is_the_same_finding_with_and_without_the_key_reuse_checker(key_reuse: bool) -> None:
    # With jax_debug_key_reuse on, jax itself turns the use of the leaked tracer into "TypeError: ...
    # LinearizeTracer is not a valid JAX type": that was reported as JAX010 at the use (line 17).
    assert found(verify(LEAKS, "--verify", "grad_leak_used.py", key_reuse=key_reuse)) == {
        ("memo.py", 8, "JAX011"): (
            "confirmed", "jaxlint's scan of module globals after `jax.grad` returned: `SEEN['w']` holds a GradTracer "
                         "stored at line 8 while tracing `loss` (line 11)"),
    }
    # deeper than the scan looks: confirmed when the use fails, from what holds the tracer jax refused
    assert found(verify(LEAKS, "--verify", "deep_leak_used.py", key_reuse=key_reuse)) == {
        ("deep_leak_used.py", 22, "JAX308"): (
            "confirmed", "jax's check for escaped tracers: `STATE.history.entries[0]` holds a GradTracer stored at "
                         "line 22"),
    }


@pytest.mark.slow
def test_leaks_are_one_finding_at_the_store_and_a_crash_in_jax_s_report_is_still_a_leak() -> None:
    results = found(verify(LEAKS, "--verify=all", "stored_in_trace.py"))
    assert results == {
        # the static finding and jax's check on the same store: one finding, confirmed
        ("stored_in_trace.py", 14, "JAX308"): (
            "confirmed", "jax.checking_leaks: `CACHE['k']` holds a JitTracer stored at line 14 while tracing `scaled` "
                         "(line 20)"),
        # stored through another module: at that module's line, not at `jax.remat(g)()`
        ("memo.py", 8, "JAX011"): (
            "confirmed", "jax.checking_leaks: `SEEN['remat']` holds a JitTracer stored at line 8 while tracing `g` "
                         "(line 27)"),
    }
    assert found(verify(LEAKS, "--verify", "report_crash.py")) == {
        ("memo.py", 8, "JAX011"): (
            "confirmed", "jax.checking_leaks: `SEEN['crash']` holds a JitTracer stored at line 8 while tracing "
                         "`remember` (line 18)"),
    }


@pytest.mark.slow
def test_key_reuse_is_at_the_second_consumer_and_a_checkpointed_sampler_under_grad_is_no_reuse() -> None:
    results = found(verify(KEYS, "--verify", "reuse_in_helper.py", "checkpointed_sampler.py"))
    assert results == {
        # the second consumer; jax's chained exception says where the first was
        ("reuse_in_helper.py", 14, "JAX012"): (
            "confirmed", "jax.debug_key_reuse: KeyReuseError raised by importing the module; the key was consumed "
                         "first at line 7"),
        # jax's eager checker reports grad(checkpoint(sampler)) at line 10; jit and the jaxpr check accept it.
        # The reuse through a list is JAX201 statically, which the run confirms.
        ("checkpointed_sampler.py", 22, "JAX201"): ("confirmed", "importing the module raised KeyReuseError here"),
    }


@pytest.mark.slow
def test_a_missing_module_is_no_finding_the_static_one_stays_unverified_and_a_note_says_why() -> None:
    run = run_verify(UNVERIFIABLE, "--verify", "missing_module.py")
    reason = ("could not verify: a module it imports is not installed (importing the module raised "
              "ModuleNotFoundError: No module named 'jaxlint_fixture_module_that_is_not_installed')")
    assert found(json.loads(run.stdout)) == {("missing_module.py", 10, "JAX301"): ("unverified", reason)}
    assert run.stderr == ("jaxlint: could not verify: module `jaxlint_fixture_module_that_is_not_installed` is not "
                          "installed (imported by missing_module.py)\n")


@pytest.mark.slow
def test_a_leak_jax_does_not_check_is_confirmed_in_a_class_attribute_after_an_eager_vmap() -> None:
    assert found(verify(LEAKS, "--verify", "vmap_leak.py")) == {
        ("vmap_leak.py", 12, "JAX308"): (
            "confirmed", "jaxlint's scan of module globals after `jax.vmap` returned: `Registry.last` holds a "
                         "VmapTracer stored at line 12 while tracing `record` (line 11)"),
    }
