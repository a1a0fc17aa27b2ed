"""equinox, as data (checked with equinox 0.13.8 on jax 0.10.2).

Its `filter_*` transforms trace the array leaves of their arguments and keep every other leaf static; a
`Module` is a dataclass pytree whose `field(static=True)` fields are static."""

from __future__ import annotations

from jaxlint.model.transform_spec import FILTERED, TransformSpec

TRANSFORMS = {
    "equinox.filter_jit": TransformSpec(FILTERED, staged=True, caches_by_function=True),
    "equinox.filter_vmap": TransformSpec(
        FILTERED, staged=True, per_example=True, concrete_constants=True, none_spec_static="in_axes"
    ),
    "equinox.filter_pmap": TransformSpec(FILTERED, staged=True, per_example=True, per_device=True),
    "equinox.filter_checkpoint": TransformSpec(FILTERED, staged=True),
    "equinox.filter_grad": TransformSpec(FILTERED, staged=False, gradient=True),
    "equinox.filter_value_and_grad": TransformSpec(FILTERED, staged=False, gradient=True),
}
PYTREE_BASES = frozenset({"equinox.Module"})
STATIC_FIELD_SPECS = {"equinox.field": ("static", True)}
STATIC_FIELD_CALLS = frozenset({"equinox.static_field"})
# `model(x, inference=True)`: dropout draws nothing.
RANDOMNESS_OFF = {"inference": "True"}
# Layers: a subclass's `__call__` is its forward pass, run at every step; where a layer gets a fresh key each time.
LAYER_BASES = {"equinox.Module": "a `key` argument of `__call__`"}
# The layers of `eqx.nn` draw their initial weights from the key given as `key=`: by name prefix, that keyword.
KEY_DRAWERS = {"equinox.nn.": "key"}
# Of those, the layers whose call draws from the `key=` it is given (equinox 0.13.8's `__call__`): Dropout's mask,
# MultiheadAttention's dropout (it splits the key by head), Sequential (it splits the key for its layers). The
# others (`Linear`, `Conv`, `MLP`, `Lambda`, `Identity`, norms, pools, cells) take a key and never read it.
LAYERS_DRAWING_WHEN_CALLED = frozenset({"equinox.nn.Dropout", "equinox.nn.MultiheadAttention", "equinox.nn.Sequential"})
