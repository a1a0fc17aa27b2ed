"""silent, fixed: jit once."""
import jax
import jax.numpy as jnp

update = jax.jit(lambda v: v - 0.1 * v)
w = jnp.ones(3)
for step in range(5):
    w = update(w)
