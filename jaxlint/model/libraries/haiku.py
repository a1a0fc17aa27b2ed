"""dm-haiku, as data (checked with dm-haiku 0.0.17 on jax 0.10.2).

Inside `hk.transform`, haiku's own transforms and control flow (`hk.vmap`, `hk.remat`, `hk.scan`, `hk.cond`...)
thread haiku's state through jax's (`jax.vmap`, `jax.remat`, `jax.lax.scan`, `jax.lax.cond`...), which trace the
function given as they do; `hk.next_rng_key()` gives a new key at each call."""

from __future__ import annotations

from jaxlint.model.transform_spec import JIT, MAP, Runner, TransformSpec

# `net.apply(params, rng, x, is_training=False)`: dropout draws nothing.
RANDOMNESS_OFF = {"is_training": "False"}
# Functions drawing from the key given by (position, keyword): `hk.dropout(rng, rate, x)` draws its mask.
SAMPLERS = {"haiku.dropout": (0, "rng")}
# Layers: a subclass's `__call__` is its forward pass, run at every step; where a layer gets a fresh key each time.
LAYER_BASES = {"haiku.Module": "`hk.next_rng_key()`"}
# `hk.transform(f)` gives an object whose `init(rng, *args)` and `apply(params, rng, *args)` run `f(*args)`:
# traced when the caller's arguments are (a step `jax.jit` traces), as given when called eagerly.
FUNCTION_RUNNERS = {
    "haiku.transform": Runner({"init": 1, "apply": 2}),
    "haiku.transform_with_state": Runner({"init": 1, "apply": 3}),
}
# Wrappers of those objects whose method takes one argument fewer: `without_apply_rng(f).apply(params, *args)`.
RNG_DROPPING = {"haiku.without_apply_rng": "apply"}
# Their `init(rng, *args)` draws the parameters' initial values from `rng`: haiku's PRNGSequence of it gives the first
# `hk.next_rng_key()` as `split(rng)[1]`, so a split of `rng` after `init` gives a layer's initial weights again.
KEY_DRAWING_METHODS = {
    made: {"init": (0, "rng")}
    for made in ("haiku.transform", "haiku.transform_with_state", "haiku.without_apply_rng", "haiku.without_state")
}

TRANSFORMS = {
    "haiku.vmap": TransformSpec(
        MAP, staged=True, positional_options=("in_axes", "out_axes"), per_example=True, concrete_constants=True
    ),
    "haiku.remat": TransformSpec(JIT, staged=True),
}
# Like jax.lax's (model/transforms.py): the callables each takes, by position and keyword. `hk.cond` also takes
# the older `hk.cond(pred, true_operand, true_fun, false_operand, false_fun)`, and jax rejects a function as an
# operand: a function at position 1, 2 or 4 is a branch, whichever form the call has.
LAX_BODIES = {
    "haiku.cond": ((1, 2, 4), ("true_fun", "false_fun")),
    "haiku.switch": ((1,), ("branches",)),
    "haiku.while_loop": ((0, 1), ("cond_fun", "body_fun")),
    "haiku.fori_loop": ((2,), ("body_fun",)),
    "haiku.scan": ((0,), ("f",)),
    "haiku.map": ((0,), ("f",)),
}
LOOP_BODIES = frozenset({"haiku.scan", "haiku.fori_loop", "haiku.while_loop", "haiku.map"})
LAX_CARRIES = {
    "haiku.fori_loop": (3, "init_val", 1),
    "haiku.while_loop": (2, "init_val", 0),
    "haiku.scan": (1, "init", 0),
}
CARRY_WITH_OUTPUT = frozenset({"haiku.scan"})
LAX_OPERANDS = {
    "haiku.cond": ((), ("operand",), 3),
    "haiku.switch": ((), (), 2),
    "haiku.scan": ((1, 2), ("init", "xs"), None),
    "haiku.fori_loop": ((3,), ("init_val",), None),
    "haiku.while_loop": ((2,), ("init_val",), None),
    "haiku.map": ((1,), ("xs",), None),
}
# One branch runs: a key given to both is drawn from once. The older form gives each branch its operand, and a key
# given as both operands is still drawn from once (jax's key-reuse checker, under jit, counts it twice).
BRANCHING = frozenset({"haiku.cond", "haiku.switch"})
CONDS = frozenset({"haiku.cond"})
PAIRED_BRANCHES = {"haiku.cond": ((2, 1), (4, 3))}
