"""dm-haiku, as data (checked with dm-haiku 0.0.17 on jax 0.10.2)."""

from __future__ import annotations

from jaxlint.model.transform_spec import Runner

# `net.apply(params, rng, x, is_training=False)`: dropout draws nothing.
RANDOMNESS_OFF = {"is_training": "False"}
# `hk.transform(f)` gives an object whose `init(rng, *args)` and `apply(params, rng, *args)` run `f(*args)`:
# traced when the caller's arguments are (a step `jax.jit` traces), as given when called eagerly.
FUNCTION_RUNNERS = {
    "haiku.transform": Runner({"init": 1, "apply": 2}),
    "haiku.transform_with_state": Runner({"init": 1, "apply": 3}),
}
# Wrappers of those objects whose method takes one argument fewer: `without_apply_rng(f).apply(params, *args)`.
RNG_DROPPING = {"haiku.without_apply_rng": "apply"}
