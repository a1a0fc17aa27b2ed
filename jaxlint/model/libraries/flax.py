"""flax (linen, nnx and struct), as data (checked with flax 0.12.8 on jax 0.10.2).

`nnx` transforms trace the array state of their arguments (Modules, Optimizers) and keep the rest static;
`nnx.jit` merges the outputs back into donated Modules, so they stay usable. `struct.dataclass` and
`struct.PyTreeNode` are dataclass pytrees whose `field(pytree_node=False)` fields are static."""

from __future__ import annotations

from jaxlint.model.initializers import DRAWING_INITIALIZER_NAMES
from jaxlint.model.transform_spec import FILTERED, JIT_OPTIONS, LIFTED, MAP, Options, Runner, TransformSpec

# linen's `jit` and `remat` take `static_argnums` counting the Module; `vmap` and `scan` take `in_axes` without it
# (and `scan`'s `nn.broadcast` leaves an argument untraced).
_LIFTED_JIT = TransformSpec(
    LIFTED, staged=True, unclaimed_options=("static_argnums", "static_argnames"), function_keyword="target"
)
_LIFTED_REMAT = TransformSpec(
    LIFTED, staged=True, unclaimed_options=("static_argnums", "concrete"), function_keyword="target"
)

TRANSFORMS = {
    "flax.linen.jit": _LIFTED_JIT,
    "flax.linen.remat": _LIFTED_REMAT,
    "flax.linen.checkpoint": _LIFTED_REMAT,
    "flax.linen.vmap": TransformSpec(
        LIFTED,
        staged=True,
        per_example=True,
        concrete_constants=True,
        unclaimed_options=("in_axes",),
        function_keyword="target",
    ),
    "flax.linen.scan": TransformSpec(LIFTED, staged=True, unclaimed_options=("in_axes",), function_keyword="target"),
    "flax.nnx.jit": TransformSpec(FILTERED, staged=True, options=Options(JIT_OPTIONS.static, None)),
    "flax.nnx.vmap": TransformSpec(
        FILTERED,
        staged=True,
        per_example=True,
        concrete_constants=True,
        none_spec_static="in_axes",
        function_keyword="f",
    ),
    "flax.nnx.remat": TransformSpec(FILTERED, staged=True, function_keyword="f"),
    "flax.nnx.pmap": TransformSpec(FILTERED, staged=True, per_example=True, per_device=True, function_keyword="f"),
    "flax.nnx.grad": TransformSpec(FILTERED, staged=False, gradient=True, function_keyword="f"),
    "flax.nnx.value_and_grad": TransformSpec(FILTERED, staged=False, gradient=True, function_keyword="f"),
    # `nnx.scan` runs `jax.lax.scan` over the arguments whose `in_axes` is an integer or `nnx.Carry` (default
    # `(nnx.Carry, 0)`); one given `None` is broadcast: traced in flax 0.12.8's graph mode, not claimed here.
    "flax.nnx.scan": TransformSpec(MAP, staged=True, traced_axes=("flax.nnx.Carry",), function_keyword="f"),
}
# linen's lifted control flow, like jax.lax's (model/transforms.py): the callables each takes, by position and
# keyword. Their functions get the Module first (`true_fun(mdl, *operands)`), untraced.
_LINEN_BODIES = {
    "flax.linen.cond": ((1, 2), ("true_fun", "false_fun")),
    "flax.linen.switch": ((1,), ("branches",)),
    "flax.linen.while_loop": ((0, 1), ("cond_fn", "body_fn")),
}
MODULE_FIRST_BODIES = frozenset(_LINEN_BODIES)
# nnx's control flow takes what jax.lax's does, where it does. A Module among the operands reaches the functions
# split: its arrays traced, its other attributes the Python values they were.
LAX_BODIES = {
    **_LINEN_BODIES,
    "flax.nnx.cond": ((1, 2), ("true_fun", "false_fun")),
    "flax.nnx.switch": ((1,), ("branches",)),
    "flax.nnx.while_loop": ((0, 1), ("cond_fun", "body_fun")),
    "flax.nnx.fori_loop": ((2,), ("body_fun",)),
}
LOOP_BODIES = frozenset({"flax.linen.while_loop", "flax.nnx.while_loop", "flax.nnx.fori_loop"})
LAX_CARRIES = {"flax.nnx.fori_loop": (3, "init_val", 1), "flax.nnx.while_loop": (2, "init_val", 0)}
LAX_OPERANDS = {
    "flax.nnx.cond": ((), (), 3),
    "flax.nnx.switch": ((), (), 2),
    "flax.nnx.fori_loop": ((3,), ("init_val",), None),
    "flax.nnx.while_loop": ((2,), ("init_val",), None),
}
# One branch runs: a key given to both is drawn from once.
BRANCHING = frozenset({"flax.nnx.cond", "flax.nnx.switch"})
CONDS = frozenset({"flax.nnx.cond"})
# nnx Variables box an array: `v[...] = x`, `v[...] += 1` and `v.value = x` update the box, under jit too (flax
# 0.12.8 docs_nnx/hijax: with `hijax=True` the update reaches the caller's Variable, without it the traced copy).
REF_FACTORIES = frozenset(
    f"flax.nnx.{name}" for name in ("Variable", "Param", "BatchStat", "Cache", "Intermediate", "VariableState")
)
PYTREE_BASES = frozenset({"flax.struct.PyTreeNode"})
# A linen Module (bound or not) is no pytree: jax takes it as a leaf it cannot trace (checked with flax 0.12).
NOT_PYTREE_BASES = frozenset({"flax.linen.Module", "flax.linen.module.Module"})
PYTREE_DECORATORS = frozenset({"flax.struct.dataclass"})
STATIC_FIELD_SPECS = {"flax.struct.field": ("pytree_node", False)}
STATIC_FIELD_CALLS = frozenset({"flax.struct.static_field"})
# Class decorators that give back the class, its methods as written.
PLAIN_CLASS_DECORATORS = frozenset({"flax.struct.dataclass"})
# Class decorators that make a dataclass whose `__init__` takes the fields in order (`dataclasses.dataclass(frozen=True)`).
DATACLASS_MAKERS = frozenset({"flax.struct.dataclass"})

# `jax_utils.prefetch_to_device(it, n)` yields each batch of `it` put on the local devices, and `jax_utils.replicate`
# puts a pytree there: what they give is made of JAX arrays (model/donation.py).
DEVICE_ITERATORS = frozenset({"flax.jax_utils.prefetch_to_device"})
DEVICE_TRANSFERS = frozenset({"flax.jax_utils.replicate"})
KEY_COPIES = DEVICE_TRANSFERS  # a key replicated: a copy of it on each device
# A linen Module's methods that draw from the keys they are given, by (position, keyword; None: keyword only):
# `init(rngs, x)` draws the parameters from `rngs` (a key, or a dict of keys by stream), `apply(variables, x,
# rngs={"dropout": key})` the streams its `make_rng` calls read (dropout masks). Given the same keys twice they give
# the same parameters and the same masks (flax 0.12.8 linen/module.py: `init` and `apply` seed each stream from
# its key, in a fixed order).
SUBCLASS_KEY_METHODS = {
    "flax.linen.Module": {"init": (0, "rngs"), "init_with_output": (0, "rngs"), "apply": (None, "rngs")}
}
# A dict of keys by stream given under this keyword (`apply(variables, x, rngs={"dropout": key})`, or a TrainState's
# `apply_fn` whatever holds it) is drawn from, each stream through keys `fold_in` derives from its key.
STREAM_KEYWORDS = frozenset({"rngs"})
# flax re-exports jax's initializer factories (model/initializers.py).
DRAWING_INITIALIZERS = frozenset(
    f"flax.{api}.initializers.{name}" for api in ("linen", "nnx") for name in DRAWING_INITIALIZER_NAMES
)
# Of those, the methods that make a model's parameters from a key: the same key and inputs again give a copy.
PARAMETER_INITIALISERS = frozenset({"init", "init_with_output"})
# The library's own subclasses of those bases, by the prefix of their names: a class of `flax.linen` (`nn.Dense`,
# `nn.Conv`) is a linen Module whose `init` draws its parameters, but these: not Modules, or normalisation layers
# whose parameters start as ones and zeros whatever the key (flax 0.12.8: two keys give equal parameters).
LIBRARY_SUBCLASSES = {
    "flax.linen.": (
        "flax.linen.Module",
        frozenset(
            {"BatchApply", "DenyList", "FrozenDict", "LogicallyPartitioned", "Partitioned", "Variable"}
            | {"LayerNorm", "BatchNorm", "GroupNorm", "RMSNorm", "InstanceNorm"}
        ),
    )
}
# Fields of library classes that hold such a method: a TrainState's `apply_fn` is the `apply` of its model
# (`TrainState.create(apply_fn=model.apply, ...)`), given `rngs=` the same way.
KEY_DRAWING_FIELDS = {"flax.training.train_state.TrainState": {"apply_fn": (None, "rngs")}}
# `model.apply(variables, x, deterministic=True)`: dropout draws nothing.
RANDOMNESS_OFF = {"deterministic": "True", "train": "False", "training": "False"}
# A linen Module's `apply(variables, *args, method=m)` and `init(rngs, *args, method=m)` run its `__call__` (or `m`)
# with `args`: traced when the caller's are (the step `jax.jit` traces), as given when called eagerly.
METHOD_RUNNERS = {
    "flax.linen.Module": Runner(
        {"apply": 1, "init": 1, "init_with_output": 1}, method_keyword="method", default="__call__"
    )
}
# Layers: a subclass's `__call__` is its forward pass, run at every step; where a layer gets a fresh key each time.
LAYER_BASES = {
    "flax.linen.Module": "`self.make_rng('dropout')`",
    "flax.nnx.Module": "an `nnx.Rngs` stream given to the layer",
}
# flax's own names for jax.nn.softmax: a result holding probabilities.
PROBABILITY_FUNCTIONS = frozenset({"flax.linen.softmax", "flax.linen.activation.softmax", "flax.nnx.softmax"})
# Objects seeding one stream of keys from each key given them (a positional default stream, one per keyword): each
# key a stream draws is `fold_in(seed, count)`, so two streams (or two objects) seeded with one key give the same keys.
STREAM_SEEDERS = frozenset({"flax.nnx.Rngs", "flax.nnx.rnglib.Rngs"})
