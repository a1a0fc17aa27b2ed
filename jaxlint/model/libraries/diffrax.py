"""diffrax, as data (checked with diffrax 0.7.2 on jax 0.10.2).

`diffeqsolve` runs under `equinox.filter_jit`: the vector field a term wraps is called with traced `t` and `y`;
its `args` are traced where they hold arrays and static where they hold Python numbers."""

from __future__ import annotations

from jaxlint.model.transform_spec import POSITIONS, TransformSpec

_VECTOR_FIELD = TransformSpec(POSITIONS, staged=True, traced_positions=(0, 1), function_keyword="vector_field")

TRANSFORMS = {
    "diffrax.ODETerm": _VECTOR_FIELD,
    "diffrax.ControlTerm": TransformSpec(
        POSITIONS,
        staged=True,
        positional_options=("control",),
        traced_positions=(0, 1),
        function_keyword="vector_field",
    ),
}

# A Brownian path made from a key and drawn from when evaluated, by (position, keyword): `VirtualBrownianTree`
# splits its key at each evaluation (under jax_debug_key_reuse, a key drawn from before raises KeyReuseError there),
# so the key is spent on that path. Not `UnsafeBrownianPath`: it draws from keys `fold_in` derives, which jax's
# checker does not count as a use.
SAMPLERS = {"diffrax.VirtualBrownianTree": (4, "key")}
