"""jax_dataclasses, as data (brentyi's library, version 1.6): `pytree_dataclass` registers a dataclass pytree whose
fields annotated `Static[...]` (or made with `static_field()`) are static; its `jit` is `jax.jit` with the parameters
annotated `Static[...]` made static."""

from __future__ import annotations

from jaxlint.model.transform_spec import FILTERED, TransformSpec

# Only the parameters annotated as arrays are taken as traced: a parameter annotated `Static[...]` is static, and one
# not annotated is not known.
TRANSFORMS = {"jax_dataclasses.jit": TransformSpec(FILTERED, staged=True, caches_by_function=True)}
PYTREE_DECORATORS = frozenset({"jax_dataclasses.pytree_dataclass"})
STATIC_FIELD_CALLS = frozenset({"jax_dataclasses.static_field"})
STATIC_ANNOTATIONS = frozenset({"jax_dataclasses.Static"})
PLAIN_CLASS_DECORATORS = frozenset({"jax_dataclasses.pytree_dataclass"})
DATACLASS_MAKERS = frozenset({"jax_dataclasses.pytree_dataclass"})
