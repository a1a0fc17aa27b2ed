"""`--verify=run` counts compiles, swaps legacy keys for typed ones and watches prints through libraries:
the real command line in a subprocess, running scripts with real jax (CPU)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import write

RECOMPILES = '''from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp


class Optimizer(NamedTuple):
    update: object


def sgd(lr):
    return Optimizer(lambda g: -lr * g)


@partial(jax.jit, static_argnums=1)
def apply(params, optimizer):
    return params + optimizer.update(params)


@partial(jax.jit, static_argnames="lr")
def scale(x, lr):
    return x * lr


@jax.jit
def total(x):
    return x.sum()


def loss_of(params, batch):
    @jax.jit
    def loss(p):
        return ((batch * p) ** 2).sum()

    return loss(params)


params, history = jnp.ones(3), jnp.zeros(0)
for step in range(5):
    print(loss_of(params, jnp.full(3, step, dtype=jnp.float32)))
    params = apply(params, sgd(0.1))
    params = scale(params, lr=0.5 * step)
    history = jnp.concatenate([history, params[:1]])
    print(total(history))
'''
# The same loop compiling each function once; a last, shorter batch is a second compile, which is normal,
# and so are a compile per learning rate of a sweep (many calls each) and one per dataset (four datasets).
FIXED = '''from functools import partial

import jax
import jax.numpy as jnp


@jax.jit
def apply(params, lr):
    return params - lr * params


@jax.jit
def loss(p, batch):
    return ((batch * p) ** 2).sum()


def decay(params, lr):
    return params - lr * params


def train(params, lr):
    step = jax.jit(partial(decay, lr=lr))
    for _ in range(3):
        params = step(params)
    return params


params, data = jnp.ones(3), jnp.ones(10)
for step in range(4):
    print(loss(params, jnp.full(3, step, dtype=jnp.float32)))
    params = apply(params, 0.1)
for start in range(0, 10, 4):
    print(loss(data[start:start + 4], data[start:start + 4]))
for lr in (0.1, 0.01, 0.001):
    train(params, lr)
for size in (2, 3, 4, 5):
    print(loss(jnp.ones(size), jnp.ones(size)))
'''
UNHASHABLE = '''from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=1)
def scaled(x, config):
    return x * config["scale"]


scaled(jnp.ones(2), {"scale": 2.0})
'''
# Three datasets, each of its own shape: one compile each, on purpose, and said so.
SWEEP = '''import jax
import jax.numpy as jnp


@jax.jit  # noqa: JAX013
def total(x):
    return x.sum()


for size in (2, 3, 4):
    total(jnp.ones(size))  # noqa: JAX013
'''
FIX_OBJECT = "create it once, or pass a value that is equal and hashes equal from call to call"
FIX_VALUE = "pass a value that changes as a traced argument, not a static one"
OPTIMIZER = "Optimizer(update=<function sgd.<locals>.<lambda> at 0x...>)"


def run_verify(
    cwd: Path, *scripts: str, python_path: str = "", options: tuple[str, ...] = ()
) -> tuple[subprocess.CompletedProcess, list[dict]]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if python_path:
        env["PYTHONPATH"] = python_path
    run = subprocess.run([sys.executable, "-m", "jaxlint", "--verify=run", "--output-format", "json", *options,
                          *scripts],
                         cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode in (0, 1), run.stderr
    return run, json.loads(run.stdout)


def found(findings: list[dict]) -> set[tuple]:
    return {(Path(d["filename"]).name, d["location"]["row"], d["location"]["column"], d["code"], d["message"],
             d["verify"]["status"], d["verify"]["detail"]) for d in findings}


@pytest.mark.slow
def test_a_loop_that_compiles_every_step_is_reported_with_the_count_and_jaxs_reason_its_fix_and_a_noqa_are_silent(
    tmp_path: Path,
) -> None:
    write(tmp_path / "recompiles.py", RECOMPILES)
    write(tmp_path / "fixed.py", FIXED)
    write(tmp_path / "unhashable.py", UNHASHABLE)
    write(tmp_path / "sweep.py", SWEEP)
    run, findings = run_verify(tmp_path, "recompiles.py", "fixed.py", "unhashable.py", "sweep.py")
    assert run.returncode == 1 and run.stderr == ""

    def twice(row: int, col: int, defined: tuple[int, int], function: str, change: str, fix: str) -> set[tuple]:
        """The finding at the call and at the function (its first line, a decorator's), for 5 compiles."""
        detail = f"5 compiles at line {row}, each explained by jax_explain_cache_misses"
        times = f"`{function}` was compiled 5 times in 5 calls"
        return {
            ("recompiles.py", row, col, "JAX013", f"{times} here: {change}; {fix}", "confirmed", detail),
            ("recompiles.py", *defined, "JAX013", f"{times} at line {row}: {change}; {fix}", "confirmed", detail),
        }

    def message(code: str) -> str:
        return next(d["message"] for d in findings if d["code"] == code)

    # The static rules foresee two of the four (JAX501: the jit of a nested def in a function the loop calls;
    # JAX511: an input grown in the loop): the compile count confirms them, with what jax says changed.
    # The other two are new findings, at the call and at the function.
    assert found(findings) == {
        ("recompiles.py", 32, 5, "JAX501", message("JAX501"), "confirmed",
         "`loss` was compiled 5 times in 5 calls at line 36: a new function object each call "
         "(jax_explain_cache_misses)"),
        *twice(42, 14, (16, 1), "apply", f"static argument 1 changed: {OPTIMIZER} is a new object each call", FIX_OBJECT),
        *twice(43, 14, (21, 1), "scale", "static argument `lr` changed: now 2.0, before 0.0", FIX_VALUE),
        ("recompiles.py", 45, 17, "JAX511", message("JAX511"), "confirmed",
         "`total` was compiled 5 times in 5 calls at line 45: argument `x` changed: now f32[5], before f32[1] "
         "(jax_explain_cache_misses)"),
        ("unhashable.py", 12, 21, "JAX502", message("JAX502"), "confirmed",
         "running `python unhashable.py` raised ValueError here"),
    }


KEYS = '''import jax


def init(key):
    w = jax.random.normal(key, (3,))
    b = jax.random.normal(key, (3,))
    return w, b


key = jax.random.PRNGKey(0)
print("the seed's words:", key[0], key[1], jax.numpy.asarray(key).shape)
params = init(key)
'''
LIBRARY = '''def show(tree):
    print("params:", tree)
'''
SHOWS = '''import jax
import jax.numpy as jnp
from report import show


@jax.jit
def step(params):
    show(params)
    return params


step({"w": jnp.ones(2)})
'''


@pytest.mark.slow
def test_legacy_keys_are_checked_as_typed_keys_and_a_tracer_printed_in_a_library_is_found_at_the_call(
    tmp_path: Path,
) -> None:
    """The script indexes its legacy key as the uint32 data it was, and still its reuse is confirmed; a
    library outside the project prints a tracer the project passed it."""
    write(tmp_path / "library" / "report.py", LIBRARY)
    project = tmp_path / "project"
    write(project / "keys.py", KEYS)
    write(project / "shows.py", SHOWS)
    run, findings = run_verify(project, "keys.py", "shows.py", python_path=str(tmp_path / "library"))
    assert run.stderr == ""
    statuses = {(Path(d["filename"]).name, d["location"]["row"], d["code"]): (d["verify"]["status"],
                                                                             d["verify"]["detail"]) for d in findings}
    assert statuses == {
        ("keys.py", 6, "JAX201"): ("confirmed", "running `python keys.py` raised KeyReuseError here"),
        ("shows.py", 8, "JAX306"): ("confirmed", "a tracer reached print here while tracing "
                                                 "(inside a library function called here)"),
    }
    printed = next(d for d in findings if d["code"] == "JAX306")
    assert (printed["location"]["column"], printed["message"]) == (
        5, "`print` of a traced value (inside a library function called here) runs once at trace "
           'time and shows a tracer, not the numbers; use `jax.debug.print("... {}", value)`')


LOGS = '''import logging

import jax
import jax.numpy as jnp


@jax.jit
def step(params):
    logging.warning("params %s", params)
    return params * 2


step(jnp.ones(2))
'''


@pytest.mark.slow
def test_a_tracer_logged_is_confirmed_for_the_opt_in_rule_and_is_no_print_finding_by_default(tmp_path: Path) -> None:
    write(tmp_path / "logs.py", LOGS)
    run, findings = run_verify(tmp_path, "logs.py")
    assert (run.returncode, findings) == (0, [])
    run, findings = run_verify(tmp_path, "logs.py", options=("--extend-select", "JAX310"))
    assert run.stderr == ""
    assert [(d["location"]["row"], d["location"]["column"], d["code"], d["verify"]["status"], d["verify"]["detail"])
            for d in findings] == [(9, 5, "JAX310", "confirmed", "a tracer reached logging here while tracing")]
