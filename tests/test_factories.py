"""Functions made by factories and then transformed: `jax.jit(make_loss(2.0))` traces the `loss` that
`make_loss` returns, with the transform's rules for its parameters, while the factory's own parameters stay
Python values it closes over. A factory that may return different functions stays silent. (Across modules:
tests/test_project_transforms.py.)"""

from __future__ import annotations

from jaxlint.checks import ALL_RULES
from jaxlint.lint import LintOptions, lint_source

DEFAULT_RULES = frozenset(rule.code for rule in ALL_RULES if rule.default_enabled)


def findings(source: str) -> list[tuple[int, int, str, str]]:
    return [(d.row, d.col, d.code, d.message) for d in lint_source(source, "train.py", LintOptions(DEFAULT_RULES))]


TRACED = """\
from functools import partial

import jax
import jax.numpy as jnp
from jax import lax


def make_loss(scale, clip):
    def loss(params, batch):
        if clip > 0:
            params = jnp.clip(params, -clip, clip)
        err = jnp.mean((params - batch) ** 2)
        if err > scale:
            print("large loss", err)
        return err * scale
    return loss


fast_loss = jax.jit(make_loss(2.0, 1.0))


def make_per_example(threshold):
    def per_example(x, weights):
        if weights is None:
            return x
        if x.sum() > threshold:
            return x
        return x * weights
    return per_example


def make_body(decay):
    body = lambda carry, x: (carry * decay + x, carry) if x > 0 else (carry, x)
    return body


def make_step(model):
    def step(params, batch, training):
        if training:
            params = params * 0.9
        if batch.mean() > 0:
            params = -params
        return model(params)
    return step


def make_scaled(cfg):
    def scaled(cfg, x):
        if cfg > 0:
            x = x * cfg
        return jnp.where(x > 0, x, 0.0)
    return partial(scaled, cfg)


def train(params, xs):
    batched = jax.vmap(make_per_example(3.0), in_axes=(0, None))
    total, _ = lax.scan(make_body(0.9), 0.0, xs)
    step = partial(jax.jit, static_argnames="training")(make_step(jnp.tanh))
    scaled = jax.jit(make_scaled(2))
    return batched(xs, None), total, step(params, xs, True), scaled(xs)
"""


def test_a_transform_of_a_factory_call_traces_the_function_it_returns() -> None:
    tail = "use `jnp.where` or `lax.cond`"
    assert findings(TRACED) == [
        (13, 12, "JAX301", "Python `if` on a traced value raises TracerBoolConversionError: `err > scale` is traced "
                           "(`params` is a traced argument of `loss`, transformed by `jax.jit` at line 19); " + tail),
        (14, 13, "JAX306", "`print` of a traced value runs once at trace time and shows a tracer (`JitTracer(...)`; "
                           "`VmapTracer(...)` under vmap), not the numbers: `err` is traced (`params` is a traced "
                           "argument of `loss`, transformed by `jax.jit` at line 19); use "
                           "`jax.debug.print(\"... {}\", value)`"),
        (26, 12, "JAX301", "Python `if` on a traced value raises TracerBoolConversionError: `x.sum() > threshold` is "
                           "traced (`x` is a traced argument of `per_example`, transformed by `jax.vmap` at line 56); "
                           + tail),
        (33, 59, "JAX301", "Python `if` on a traced value raises TracerBoolConversionError: `x > 0` is traced (`x` is "
                           "a traced argument of `<lambda>`, transformed by `jax.lax.scan` at line 57); " + tail),
        (41, 12, "JAX301", "Python `if` on a traced value raises TracerBoolConversionError: `batch.mean() > 0` is "
                           "traced (`batch` is a traced argument of `step`, transformed by `jax.jit` at line 58); "
                           + tail),
    ]


def test_the_factory_s_parameters_and_the_static_ones_stay_python_values() -> None:
    lines = {row for row, _, _, _ in findings(TRACED)}
    # `clip`, `threshold` and `cfg` are closed over; `weights` is unmapped (in_axes None) and `training` static;
    # `cfg` of `scaled` is filled by the partial the factory returns.
    assert not lines & {10, 24, 39, 49}


NAMED = """\
import jax
import jax.numpy as jnp


def make_loss(scale):
    def loss(params, batch):
        err = jnp.mean((params - batch) ** 2)
        if err > scale:
            return err
        return err * scale
    return loss


loss_fn = make_loss(2.0)


@jax.jit
def train_step(params, batch):
    loss, grads = jax.value_and_grad(loss_fn)(params, batch)
    return params - 0.1 * grads, loss


class Trainer:
    def __init__(self, threshold):
        self.threshold = threshold

    def _make_update(self):
        def update(params, x):
            if x.sum() > self.threshold:
                x = x * 2
            return params + x
        return update

    def fit(self, params, xs):
        update = jax.jit(self._make_update())
        return update(params, xs)
"""


def test_a_name_bound_to_a_factory_call_is_the_function_it_makes() -> None:
    assert [(row, col, code) for row, col, code, _ in findings(NAMED)] == [(8, 12, "JAX301"), (29, 16, "JAX301")]
    messages = [message for _, _, _, message in findings(NAMED)]
    assert "(`params` is a traced argument of `loss`, transformed by `jax.value_and_grad` at line 19)" in messages[0]
    assert "(`x` is a traced argument of `update`, transformed by `jax.jit` at line 35)" in messages[1]


UNKNOWN = """\
import jax
import jax.numpy as jnp


def register(f):
    return f


def make_either(kind):
    def relu(x):
        if x > 0:
            return x
        return 0.0

    def identity(x):
        return x
    if kind == "relu":
        return relu
    return identity


def make_maybe(scale):
    def loss(params):
        if params > scale:
            return params
        return -params
    if scale > 0:
        return loss


def make_many(scale):
    def loss(params):
        if params > scale:
            return params
        return -params
    yield loss


@register
def make_registered(scale):
    def loss(params):
        if params > scale:
            return params
        return -params
    return loss


def make_wrapped(scale):
    def loss(params):
        if params > scale:
            return params
        return -params
    loss = register(loss)
    return loss


def make_same_name(flag):
    if flag:
        def loss(params):
            if params > 0:
                return params
            return -params
    else:
        def loss(params):
            return params
    return loss


either = jax.jit(make_either("relu"))
maybe = jax.jit(make_maybe(1.0))
many = jax.jit(make_many(1.0))
registered = jax.jit(make_registered(1.0))
wrapped = jax.jit(make_wrapped(1.0))
same_name = jax.jit(make_same_name(True))


def run(x, flag):
    f = make_maybe(1.0)
    if flag:
        f = jnp.sin
    return jax.jit(f)(x)
"""


def test_a_factory_that_may_return_something_else_is_left_alone() -> None:
    # Different defs by path, falling off the end (None), a generator, a decorator or wrapper that may change
    # what it returns, a name defined twice, a name rebound: which function is transformed is unknown.
    assert findings(UNKNOWN) == []


CALLS = """\
from functools import partial

import jax
import jax.numpy as jnp


def make_train_step(optimizer):
    @partial(jax.jit, donate_argnums=(0, 1))
    def train_step(params, opt_state, batch):
        grads = jax.grad(lambda p: jnp.mean((p - batch) ** 2))(params)
        updates, opt_state = optimizer.update(grads, opt_state)
        return params - updates, opt_state
    return train_step


def make_eval(n_layers):
    def evaluate(params, shape):
        return jnp.zeros(shape) + params * n_layers
    return jax.jit(evaluate, static_argnums=1)


def train(params, optimizer, batches):
    opt_state = optimizer.init(params)
    step = make_train_step(optimizer)
    for batch in batches:
        new_params, opt_state = step(params, opt_state, batch)
        print(params.sum())
        params = new_params
    evaluate = make_eval(2)
    return evaluate(params, [2, 3])
"""


def test_a_call_of_what_a_factory_returns_knows_its_donated_and_static_arguments() -> None:
    assert findings(CALLS) == [
        (27, 15, "JAX504", "`params` was donated to `step` at line 26 (donate_argnums=(0, 1)) and is read here: jax "
                           "deleted its buffer, so this raises `RuntimeError: Array has been deleted`; use the "
                           "call's result (`params = step(...)`), or do not donate `params`"),
        (30, 29, "JAX502", "`[2, 3]` (a list) is passed as static argument `shape` of `evaluate` (static_argnums=1): "
                           "static arguments must be hashable, so this raises `ValueError: Non-hashable static "
                           "arguments are not supported`; pass a tuple"),
    ]


def test_a_factory_returning_different_jitted_callables_gives_no_callee() -> None:
    source = CALLS.replace("    return jax.jit(evaluate, static_argnums=1)\n",
                           "    if n_layers > 1:\n        return jax.jit(evaluate, static_argnums=1)\n"
                           "    return jax.jit(evaluate)\n")
    # (The plain `jax.jit(evaluate)` traces `shape`, which `jnp.zeros` cannot take: JAX401 is right there.)
    assert [(row, code) for row, _, code, _ in findings(source)] == [(18, "JAX401"), (29, "JAX504")]


def test_an_isinstance_test_of_a_conditional_expression_narrows_its_arms() -> None:
    # optax's cosine_decay_schedule, jitted as `jax.jit(cosine_decay_schedule(1.0, 100))`: a tracer is never a
    # Python int, so `float(x)` runs on ints only (jax 0.10.2 runs it); the other arm still sees the tracer.
    source = """\
import jax
import jax.numpy as jnp


def cosine_decay_schedule(init_value, decay_steps):
    def schedule(count):
        nonlocal decay_steps
        decay_steps, count = jax.tree.map(lambda x: float(x) if isinstance(x, int) else x, (decay_steps, count))
        count = jnp.minimum(count, decay_steps)
        return init_value * 0.5 * (1 + jnp.cos(jnp.pi * count / decay_steps))
    return schedule


def make_warmup(steps):
    def warmup(count):
        return jax.tree.map(lambda x: x if isinstance(x, int) else float(x) / steps, count)
    return warmup


lr = jax.jit(cosine_decay_schedule(1.0, 100))
warm = jax.jit(make_warmup(10))
"""
    assert [(row, col, code) for row, col, code, _ in findings(source)] == [(16, 68, "JAX303")]


def test_a_traced_call_of_what_a_factory_made_passes_its_tracers_on() -> None:
    source = """\
import jax
import jax.numpy as jnp


def make_metric(threshold):
    def accuracy(logits, labels):
        acc = jnp.mean(jnp.argmax(logits, -1) == labels)
        if acc > threshold:
            print("good", acc)
        return acc
    return accuracy


metric = make_metric(0.9)


@jax.jit
def eval_step(params, x, y):
    return metric(x @ params, y)
"""
    assert [(row, col, code) for row, col, code, _ in findings(source)] == [(8, 12, "JAX301"), (9, 13, "JAX306")]
    assert ("`acc > threshold` is traced (`logits` is traced: `accuracy` is called with a tracer from `eval_step` at "
            "line 19)") in findings(source)[0][3]
