"""chex, as data (checked with chex 0.1.92 on jax 0.10.2): `chex.dataclass` registers a dataclass pytree,
every field a child."""

from __future__ import annotations

PYTREE_DECORATORS = frozenset({"chex.dataclass"})
PLAIN_CLASS_DECORATORS = frozenset({"chex.dataclass"})
