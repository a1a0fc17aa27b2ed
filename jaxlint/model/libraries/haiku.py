"""dm-haiku, as data (checked with dm-haiku 0.0.17 on jax 0.10.2)."""

from __future__ import annotations

# `net.apply(params, rng, x, is_training=False)`: dropout draws nothing.
RANDOMNESS_OFF = {"is_training": "False"}
