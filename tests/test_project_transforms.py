"""Transforms applied to functions of another module: `lax.scan(ops.body, ...)` in main.py traces `body`
in ops.py, as if the scan were written there (fixtures/project/mypkg/pipeline.py and steps.py hold the
fuller set, checked by tests/test_project.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import write
from jaxlint import project
from jaxlint.analysis.interface import Applied, IncomingTracer, Imported, Interface, Outgoing
from jaxlint.connected import connected
from test_project import found

# main.py transforms functions of ops.py; ops.body passes its tracer on to util.py, which never mentions
# jax; report.py calls an ops helper with Python ints only.
APP = {
    "app/__init__.py": "from .ops import per_example\n",
    "app/ops.py": ("import jax.numpy as jnp\n\nfrom app.util import bounded\n\n\n"
                   "def body(carry, x):\n    if x > 0:\n        carry = carry + x\n    return carry + bounded(x), x\n\n\n"
                   "def per_example(x):\n    print(x)\n    return x * 2\n\n\n"
                   "def loss(params, x):\n    return jnp.mean((params * x) ** 2)\n\n\n"
                   "def window(x, size):\n    if size > 2:\n        return x[:size]\n    return x\n"),
    "app/util.py": "def bounded(v):\n    if v > 1:\n        return 1.0\n    return v\n",
    "app/main.py": ("import jax\nfrom jax import lax\n\nfrom app import ops, per_example\n\n\n"
                    "def run(xs):\n    total, _ = lax.scan(ops.body, 0.0, xs)\n"
                    "    ys = jax.vmap(per_example)(xs)\n    fast_loss = jax.jit(ops.loss)\n"
                    "    first = jax.jit(ops.window, static_argnames=\"size\")(xs, 3)\n"
                    "    return total, ys, fast_loss(1.0, xs), first\n"),
    "app/report.py": "from app.ops import window\n\n\ndef head(rows):\n    return window(rows, 3)\n",
}


@pytest.mark.slow
def test_a_transform_applied_in_another_module_traces_the_function_there(tmp_path: Path) -> None:
    for name, text in APP.items():
        write(tmp_path / name, text)
    whole = found(tmp_path, "app")
    assert [(f["filename"], f["location"]["row"], f["location"]["column"], f["code"]) for f in whole] == [
        ("app/ops.py", 7, 8, "JAX301"), ("app/ops.py", 13, 5, "JAX306"), ("app/util.py", 2, 8, "JAX301")]
    messages = [f["message"] for f in whole]
    assert "`x` is a traced argument of `body`, transformed by `jax.lax.scan` at app/main.py:8" in messages[0]
    assert "`x` is a traced argument of `per_example`, transformed by `jax.vmap` at app/main.py:9" in messages[1]
    # Two modules away: body, traced by the scan in main.py, passes its tracer on to util.py.
    assert "`bounded` is called with a tracer from `body` (app/ops.py:9), transformed by `jax.lax.scan`" in messages[2]
    for name in APP:
        assert found(tmp_path, name) == [f for f in whole if f["filename"] == name], name


def test_a_module_that_passes_a_function_to_a_call_is_connected_to_the_function_s_module(tmp_path: Path) -> None:
    for name, text in APP.items():
        write(tmp_path / name, text)
    modules = {project.module_of(str(path))[1]: path for path in project.importable(tmp_path)}
    # main.py never calls a function of ops.py: it passes them to transforms; util.py is reached through ops.py.
    assert connected({"app.util"}, modules) == {"app", "app.main", "app.ops", "app.report", "app.util"}
    assert connected({"app.report"}, modules) == {"app.ops", "app.report", "app.util"}


def test_applied_transforms_cross_the_cache_and_are_always_read() -> None:
    applied = Applied("app.ops.window", "jax.jit", True, "app/main.py:11", (("static_argnames", '"size"'),), 1,
                      ("scale",))
    interface = Interface(applications=(applied,))
    assert Interface.from_json(interface.to_json()) == interface
    imported = Imported(applied={"window": (applied,)})
    assert imported.traces and project.read_facts(imported, Interface()) == imported
    facts = project.imported_facts({"app.main": interface, "app.ops": Interface()})
    assert facts["app.ops"].applied == {"window": (applied,)} and not facts["app.main"]


# Factories in another module: main.py transforms what losses.py's factories make, by a call of the factory,
# through a name bound to one, and through a re-export; `make_either` may return either of two functions.
FACTORIES = {
    "app/__init__.py": "from .losses import make_body\n",
    "app/losses.py": ("import jax.numpy as jnp\n\n\n"
                      "def make_loss(scale):\n    def loss(params, batch):\n"
                      "        err = jnp.mean((params - batch) ** 2)\n        if err > scale:\n"
                      "            print(\"large loss\", err)\n        return err * scale\n    return loss\n\n\n"
                      "def make_body(decay):\n    def body(carry, x):\n        if x > 0:\n"
                      "            carry = carry * decay\n        return carry + x, carry\n    return body\n\n\n"
                      "def make_clip(limit):\n    def clip(x):\n        if x.max() > limit:\n"
                      "            return x / x.max() * limit\n        return x\n    return clip\n\n\n"
                      "def make_either(kind):\n    def relu(x):\n        if x > 0:\n            return x\n"
                      "        return 0.0\n\n    def identity(x):\n        return x\n"
                      "    return relu if kind == \"relu\" else identity\n"),
    "app/main.py": ("import jax\nfrom jax import lax\n\nfrom app import losses, make_body\n\n\n"
                    "def train(params, batch, xs):\n    fast_loss = jax.jit(losses.make_loss(2.0))\n"
                    "    clip_fn = losses.make_clip(3.0)\n    clipped = jax.vmap(clip_fn)(batch)\n"
                    "    total, _ = lax.scan(make_body(0.9), 0.0, xs)\n"
                    "    relu = jax.jit(losses.make_either(\"relu\"))\n"
                    "    return fast_loss(params, batch), clipped, total, relu(xs)\n"),
}


@pytest.mark.slow
def test_a_transform_of_another_module_s_factory_call_traces_what_the_factory_makes(tmp_path: Path) -> None:
    for name, text in FACTORIES.items():
        write(tmp_path / name, text)
    whole = found(tmp_path, "app")
    assert [(f["filename"], f["location"]["row"], f["location"]["column"], f["code"]) for f in whole] == [
        ("app/losses.py", 7, 12, "JAX301"), ("app/losses.py", 8, 13, "JAX306"), ("app/losses.py", 15, 12, "JAX301"),
        ("app/losses.py", 23, 12, "JAX301")]
    messages = [f["message"] for f in whole]
    assert "(`params` is a traced argument of `loss`, transformed by `jax.jit` at app/main.py:8)" in messages[0]
    assert "`err` is traced (`params` is a traced argument of `loss`, transformed by `jax.jit` at app/main.py:8)" \
        in messages[1]
    assert "(`x` is a traced argument of `body`, transformed by `jax.lax.scan` at app/main.py:11)" in messages[2]
    assert "(`x` is a traced argument of `clip`, transformed by `jax.vmap` at app/main.py:10)" in messages[3]
    for name in FACTORIES:
        assert found(tmp_path, name) == [f for f in whole if f["filename"] == name], name


def test_an_application_to_what_a_factory_makes_crosses_the_cache() -> None:
    made = Applied("app.losses.make_loss", "jax.jit", True, "app/main.py:8", made=True)
    interface = Interface(applications=(made,))
    assert Interface.from_json(interface.to_json()) == interface
    facts = project.imported_facts({"app.main": interface, "app.losses": Interface()})
    assert facts["app.losses"].applied == {"make_loss": (made,)}


def test_a_call_of_what_another_module_s_factory_made_passes_its_tracers_there(tmp_path: Path) -> None:
    files = {
        "app/__init__.py": "",
        "app/losses.py": FACTORIES["app/losses.py"],
        "app/train.py": ("import jax\n\nfrom app import losses\n\nloss_fn = losses.make_loss(2.0)\n"
                         "relu = losses.make_either(\"relu\")\n\n\n@jax.jit\ndef step(params, batch):\n"
                         "    loss = loss_fn(params, batch)\n    return params - 0.1 * loss, relu(batch)\n"),
    }
    for name, text in files.items():
        write(tmp_path / name, text)
    whole = found(tmp_path, "app")
    assert [(f["filename"], f["location"]["row"], f["location"]["column"], f["code"]) for f in whole] == [
        ("app/losses.py", 7, 12, "JAX301"), ("app/losses.py", 8, 13, "JAX306")]
    assert ("`err > scale` is traced (`params` is traced: `loss` is called with a tracer from `step` "
            "(app/train.py:11), transformed by `jax.jit`)") in whole[0]["message"]


def test_a_call_of_what_a_factory_made_crosses_the_cache_to_the_factory_s_module() -> None:
    call = Outgoing("app.losses.make_loss", "step", "jax.jit", True, "app/train.py:11", (0,), (), made=True)
    interface = Interface(calls=(call,))
    assert Interface.from_json(interface.to_json()) == interface
    facts = project.imported_facts({"app.train": interface, "app.losses": Interface()})
    assert facts["app.losses"].entries == {"make_loss": (IncomingTracer(0, "step", "jax.jit", True, "app/train.py:11",
                                                                made=True),)}
