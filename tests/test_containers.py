"""Tracers in Python containers cross module boundaries: a dict of tracers passed from a jitted step to
another module's helper makes the helper's parameter a container of tracers, whose values stay traced.
(The single-module cases are in fixtures/analysis/containers.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import jaxlint, write

UTILS = """\
import jax
import jax.numpy as jnp


def log_metrics(metrics):
    for name, value in metrics.items():
        print(f"{name}: {value}")


def clip(grads, max_norm):
    norm = jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree_util.tree_leaves(grads)))
    if norm > max_norm:
        grads = jax.tree_util.tree_map(lambda g: g * max_norm / norm, grads)
    return grads


def count_leaves(grads):
    leaves = jax.tree_util.tree_leaves(grads)
    if len(leaves) > 2:
        print("leaves:", len(leaves))
    return len(leaves)
"""

TRAIN = """\
import jax
import jax.numpy as jnp

from proj.utils import clip, count_leaves, log_metrics


def loss_fn(params, batch):
    return jnp.mean((batch @ params) ** 2)


@jax.jit
def train_step(params, batch):
    loss, grads = jax.value_and_grad(loss_fn)(params, batch)
    grads = clip(grads, 1.0)
    count_leaves(grads)
    log_metrics({"loss": loss})
    return params - 0.1 * grads, loss


def evaluate(params, batch):
    log_metrics({"loss": loss_fn(params, batch)})
"""


def _findings(cwd: Path, *paths: str) -> list[tuple[str, int, int, str, str]]:
    run = jaxlint(cwd, "--no-cache", "--output-format", "json", *paths)
    assert run.returncode in (0, 1), run.stderr
    return sorted((str(Path(f["filename"]).relative_to(cwd)), f["location"]["row"], f["location"]["column"],
                   f["code"], f["message"]) for f in json.loads(run.stdout))


@pytest.mark.slow
def test_a_dict_of_tracers_passed_to_another_module_keeps_its_values_traced(tmp_path: Path) -> None:
    write(tmp_path / "proj" / "__init__.py", "")
    write(tmp_path / "proj" / "utils.py", UTILS)
    write(tmp_path / "proj" / "train.py", TRAIN)
    found = _findings(tmp_path, "proj")
    assert [finding[:4] for finding in found] == [("proj/utils.py", 7, 9, "JAX306"), ("proj/utils.py", 12, 8, "JAX301")]
    printed, branched = found[0][4], found[1][4]
    assert printed.startswith("`print` of a traced value runs once at trace time")
    assert ("`metrics` is traced: `log_metrics` is called with a tracer from `train_step` (proj/train.py:16), "
            "transformed by `jax.jit`") in printed
    assert branched.startswith("Python `if` on a traced value raises TracerBoolConversionError: `norm > max_norm`")
    assert "`clip` is called with a tracer from `train_step` (proj/train.py:14)" in branched
    # The helpers module alone gets the same findings, from its jitted caller.
    assert _findings(tmp_path, "proj/utils.py") == found


METRICS = """\
import jax
import jax.numpy as jnp


def compute_metrics(logits, labels):
    loss = jnp.mean((logits - labels) ** 2)
    return {"loss": loss, "accuracy": jnp.mean(jnp.argmax(logits, -1) == labels)}


def leaves_norm(tree):
    return jnp.sqrt(sum(jnp.sum(leaf ** 2) for leaf in jax.tree.leaves(tree)))
"""

STEP = """\
import jax

from proj.metrics import compute_metrics, leaves_norm


@jax.jit
def step(params, logits, labels):
    metrics = compute_metrics(logits, labels)
    print(metrics)
    if metrics["loss"] > 1.0:
        pass
    if leaves_norm(params) > 2.0:
        pass
    print("metrics:", list(metrics), len(metrics))
    return metrics
"""


@pytest.mark.slow
def test_a_dict_of_tracers_returned_by_another_module_holds_tracers(tmp_path: Path) -> None:
    write(tmp_path / "proj" / "__init__.py", "")
    write(tmp_path / "proj" / "metrics.py", METRICS)
    write(tmp_path / "proj" / "train.py", STEP)
    found = _findings(tmp_path, "proj")
    assert [finding[:4] for finding in found] == [
        ("proj/train.py", 9, 5, "JAX306"), ("proj/train.py", 10, 8, "JAX301"), ("proj/train.py", 12, 8, "JAX301")]
    returned = "(returned by `compute_metrics` from a traced argument: `logits` is a traced argument of `step`"
    assert "`metrics` is traced " + returned in found[0][4]
    assert "`metrics[\"loss\"] > 1.0` is traced " + returned in found[1][4]
    assert "`leaves_norm(params) > 2.0` is traced (returned by `leaves_norm` from a traced argument" in found[2][4]
    assert _findings(tmp_path, "proj/train.py") == found


REPORT = """\
import jax.numpy as jnp


def report(metrics):
    for name, value in metrics.items():
        print(name, value)


def summarize(params):
    summary = {}
    summary["norm"] = jnp.linalg.norm(params)
    summary["mean"] = jnp.mean(params)
    return summary
"""

FILLED = """\
import jax
import jax.numpy as jnp

from proj.report import report, summarize


@jax.jit
def step(params, batch):
    metrics = {}
    metrics["loss"] = jnp.mean((batch @ params) ** 2)
    print(metrics)
    report(metrics)
    losses = []
    for leaf in jax.tree.leaves(batch):
        losses.append(jnp.sum(leaf))
    if losses[0] > 0:
        params = params * 0.5
    summary = summarize(params)
    if summary["norm"] > 1.0:
        params = params / summary["norm"]
    sizes = []
    for leaf in jax.tree.leaves(params):
        sizes.append(leaf.shape[0])
    print("sizes", sizes, len(losses), list(metrics))
    if sum(sizes) > 3 and "loss" in metrics:
        params = params * 1.0
    return params, metrics


def fit(params, batches):
    history = []
    for batch in batches:
        params, metrics = step(params, batch)
        history.append(float(metrics["loss"]))
    print(history)
    if history[-1] > history[0]:
        print("loss went up")
    return params
"""


def test_containers_that_start_empty_and_are_filled_later_hold_tracers(tmp_path: Path) -> None:
    # Checked on jax 0.10.2: `print(metrics)` shows {'loss': JitTracer(float32[])} and `report` prints
    # `loss JitTracer(float32[])`, once, at trace time; `losses[0] > 0` raises TracerBoolConversionError.
    write(tmp_path / "proj" / "__init__.py", "")
    write(tmp_path / "proj" / "report.py", REPORT)
    write(tmp_path / "proj" / "train.py", FILLED)
    printed = ("`print` of a traced value runs once at trace time and shows a tracer (`JitTracer(...)`; "
               "`VmapTracer(...)` under vmap), not the numbers: ")
    branched = "Python `if` on a traced value raises TracerBoolConversionError: "
    found = _findings(tmp_path, "proj")
    assert found == [
        ("proj/report.py", 6, 9, "JAX306", printed + "`value` is traced (`metrics[\"loss\"]` is an item of "
         "`metrics`: `metrics` is traced: `report` is called with a tracer from `step` (proj/train.py:12), "
         "transformed by `jax.jit`); "
         "use `jax.debug.print(\"... {}\", value)`"),
        ("proj/train.py", 11, 5, "JAX306", printed + "`metrics` is traced (`batch` is a traced argument of `step`, "
         "transformed by `jax.jit` at line 7); use `jax.debug.print(\"... {}\", value)`"),
        ("proj/train.py", 16, 8, "JAX301", branched + "`losses[0] > 0` is traced (`batch` is a traced argument of "
         "`step`, transformed by `jax.jit` at line 7); use `jnp.where` or `lax.cond`"),
        ("proj/train.py", 19, 8, "JAX301", branched + "`summary[\"norm\"] > 1.0` is traced (returned by `summarize` "
         "from a traced argument: `params` is a traced argument of `step`, transformed by `jax.jit` at line 7); use "
         "`jnp.where` or `lax.cond`"),
    ]
    # Each module alone gets its own findings of the folder run.
    assert _findings(tmp_path, "proj/report.py") == found[:1]
    assert _findings(tmp_path, "proj/train.py") == found[1:]


SILENT = """\
import jax
import jax.numpy as jnp


@jax.jit
def step(params):
    scores = [jnp.sum(params)]
    alias = scores
    alias[0] = 0.0
    parts = [jnp.sum(params)]

    def reset():
        parts[0] = 0.0

    reset()
    grown = [params]
    grown.pop()
    grown.append(1.0)
    mixed = {}
    if params.ndim:
        mixed["loss"] = jnp.sum(params)
    mixed["step"] = 0
    if scores[0] > 0:
        params = params * 2.0
    if parts[0] > 0:
        params = params * 3.0
    if grown[0] > 0:
        params = params * 5.0
    if mixed["step"] > 0:
        params = params * 7.0
    return params
"""


def test_a_container_changed_in_ways_not_followed_has_unknown_items(tmp_path: Path) -> None:
    # Every item compared is a Python value when the `if` runs (it traces on jax 0.10.2): changed through
    # an alias, by a nested function, after a `pop`, or stored after a branch that may have added a tracer.
    write(tmp_path / "step.py", SILENT)
    assert _findings(tmp_path, "step.py") == []
