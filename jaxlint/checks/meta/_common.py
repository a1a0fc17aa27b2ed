"""What the JAX01x rules share: the tracing that finds them."""

from __future__ import annotations


FOUND_BY_TRACING = (
    "This finding exists only under `--verify`: it is what running or tracing your code with real jax reported."
)
