"""What JAX501, JAX502, JAX510 and JAX511 claim about recompilation, run with real jax: each flagged fixture function compiles its
jitted function once per call or iteration, and each static twin compiles it once (or once per value a sweep asks
for). One subprocess runs every case (JAX_PLATFORMS=cpu) and counts jax's "Compiling jit(<name>)" log records."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

# (fixture module, call run with `x` = jnp.ones(3), the jitted function's name, compilations expected or the error)
CASES = [
    ("JAX510", "apply_all([x, x, x])", "scaled", 3),
    ("JAX510", "list(serve([x, x, x]))", "apply_fn", 3),
    ("JAX510", "train_decay(x, 3)", "decayed_step", 3),
    ("JAX510", "apply_hashable([x, x, x])", "scaled", 3),  # one per class: equal configs hit the cache
    ("JAX510", "sweep(x, [0.1, 0.01])", "decayed_step", 2),
    ("JAX510", "fixed_rate(x, 3)", "decayed_step", 1),
    ("JAX510", "[forward_once(x) for _ in range(1)]", "apply_fn", 1),
    ("JAX501_helper_called_in_loop", "run_epoch(x, [(x, x)] * 3, 0.1)", "step", 3),
    ("JAX501_helper_called_in_loop", "evaluate(x, [x[None], x[None], x[None]])", "predict", 3),
    ("JAX501_helper_called_in_loop", "Trainer(0.1).fit(x, [(x, x)] * 3)", "step", 3),
    ("JAX501_helper_called_in_loop", "fit_in_loop(x, [(x, x)] * 3)", "step", 3),
    ("JAX501_helper_called_in_loop", "serve(x, [x, x, x])", "step", 3),
    ("JAX501_helper_called_in_loop", "fit_well(x, [(x, x)] * 3)", "sgd_step", 1),
    ("JAX501_helper_called_in_loop", "fit_with_factory(x, [(x, x)] * 3)", "step", 1),
    ("JAX501_helper_called_in_loop", "module_level_each_time(x, [(x, x)] * 3)", "loss_fn", 1),
    ("JAX501_helper_called_in_loop", "traced_outer(x, [x, x, x])", "step", 0),  # inlined into `traced_outer`
    ("JAX501_transform_in_loop", "fit(x, [x, x, x], 0.1)", "loss", 3),
    ("JAX501_transform_in_loop", "fit_reporting(x, [x, x, x], 0.1)", "loss", 3),
    ("JAX501_transform_in_loop", "per_example_losses(x, [x, x, x])", "loss", 3),
    ("JAX501_transform_in_loop", "fit_checkpointed(x, [x, x, x])", "loss", 3),
    ("JAX501_transform_in_loop", "fit_once(x, [x, x, x], 0.1)", "loss", 1),
    ("JAX501_transform_in_loop", "fit_module_level(x, [x, x, x], 0.1)", "loss", 1),
    ("JAX501_transform_in_loop", "fit_plain(x, [x, x, x])", "loss", 1),
    ("JAX501_stored_on_instance", "predict_all(w, [x, x, x])", "_apply", 3),
    ("JAX501_stored_on_instance", "list(serve(w, [x, x, x]))", "_apply", 3),
    ("JAX501_stored_on_instance", "predict_once(w, [x, x, x])", "_apply", 1),
    ("JAX501_stored_on_instance", "predict_shared(w, [x, x, x])", "forward", 1),
    ("JAX511", "running_totals([1.0, 2.0, 3.0])", "total", 3),
    ("JAX511", "grow_rows([x, x, x])", "total", 3),
    ("JAX511", "history_means([1.0, 2.0, 3.0])", "total", 3),
    ("JAX511", "prefix_loop(x, 4)", "total", 3),
    ("JAX511", "batches(jnp.ones(6), 2)", "total", 1),
    ("JAX511", "grow_then_call([1.0, 2.0, 3.0])", "total", 1),
    ("JAX511", "preallocated([1.0, 2.0, 3.0])", "total", 1),
    ("JAX511", "fixed_window(x, 3)", "total", 2),
    ("JAX511", "padded_chunks(jnp.ones(5), 2)", "total", 1),
    ("JAX511", "reassemble([[x, x], [x, x], [x, x]], [0, 1])", "total", 1),  # `x[:4]` and `x[i]`: two shapes, each compiled once
    ("JAX502_from_elsewhere", "forward([w, w], x)", "mlp", "ValueError"),
    ("JAX502_from_elsewhere", "Model([w, w])(x)", "mlp", "ValueError"),
    ("JAX502_from_elsewhere", "scaled(x, Config(2.0))", "scaled", "ValueError"),
    ("JAX502_from_elsewhere", "scaled(x, IdentityConfig(2.0))", "scaled", 1),
    ("JAX502_from_elsewhere", "forward_tuple([w, w], x)", "mlp", 1),
]

SCRIPT = r"""
import contextlib, importlib, io, json, logging, sys
import jax, jax.numpy as jnp

sys.path[:0] = sys.argv[1:3]
jax.config.update("jax_log_compiles", True)
compiled = []


class Count(logging.Handler):
    def emit(self, record):
        compiled.append(record.getMessage())


logging.getLogger("jax").addHandler(Count())
counts = []
for module, call, name, _ in json.loads(sys.argv[3]):
    namespace = dict(vars(importlib.import_module(module)), x=jnp.ones(3), w=jnp.ones((3, 3)))
    jax.clear_caches()
    compiled.clear()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            jax.block_until_ready(eval(call, namespace))
    except ValueError as error:
        counts.append(type(error).__name__ if "Non-hashable static arguments" in str(error) else str(error))
        continue
    counts.append(sum(message.startswith(f"Compiling jit({name})") for message in compiled))
print(json.dumps(counts))
"""


@pytest.mark.slow
def test_compilations_are_what_the_rules_say() -> None:
    pytest.importorskip("jax")
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    paths = [str(FIXTURES), str(FIXTURES / "regressions")]
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, *paths, json.dumps(CASES)], capture_output=True, text=True, env=env, timeout=300
    )
    assert run.returncode == 0, run.stderr[-3000:]
    counts = json.loads(run.stdout.strip().splitlines()[-1])
    assert {case[1]: count for case, count in zip(CASES, counts)} == {case[1]: case[3] for case in CASES}
