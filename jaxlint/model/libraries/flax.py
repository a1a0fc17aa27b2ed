"""flax (linen, nnx and struct), as data (checked with flax 0.12.8 on jax 0.10.2).

`nnx` transforms trace the array state of their arguments (Modules, Optimizers) and keep the rest static;
`nnx.jit` merges the outputs back into donated Modules, so they stay usable. `struct.dataclass` and
`struct.PyTreeNode` are dataclass pytrees whose `field(pytree_node=False)` fields are static."""

from __future__ import annotations

from jaxlint.model.transform_spec import FILTERED, JIT_OPTIONS, Options, Runner, TransformSpec

TRANSFORMS = {
    "flax.nnx.jit": TransformSpec(FILTERED, staged=True, options=Options(JIT_OPTIONS.static, None)),
    "flax.nnx.vmap": TransformSpec(FILTERED, staged=True, per_example=True, concrete_constants=True),
    "flax.nnx.remat": TransformSpec(FILTERED, staged=True),
    "flax.nnx.pmap": TransformSpec(FILTERED, staged=True, per_example=True),
    "flax.nnx.grad": TransformSpec(FILTERED, staged=False, gradient=True),
    "flax.nnx.value_and_grad": TransformSpec(FILTERED, staged=False, gradient=True),
}
PYTREE_BASES = frozenset({"flax.struct.PyTreeNode"})
PYTREE_DECORATORS = frozenset({"flax.struct.dataclass"})
STATIC_FIELD_SPECS = {"flax.struct.field": ("pytree_node", False)}
STATIC_FIELD_CALLS = frozenset({"flax.struct.static_field"})
# Class decorators that give back the class, its methods as written.
PLAIN_CLASS_DECORATORS = frozenset({"flax.struct.dataclass"})
# `model.apply(variables, x, deterministic=True)`: dropout draws nothing.
RANDOMNESS_OFF = {"deterministic": "True", "train": "False", "training": "False"}
# A linen Module's `apply(variables, *args, method=m)` and `init(rngs, *args, method=m)` run its `__call__` (or `m`)
# with `args`: traced when the caller's are (the step `jax.jit` traces), as given when called eagerly.
METHOD_RUNNERS = {
    "flax.linen.Module": Runner(
        {"apply": 1, "init": 1, "init_with_output": 1}, method_keyword="method", default="__call__"
    )
}
