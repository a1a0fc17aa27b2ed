"""silent: "training is slow: it compiles every step" """
import jax
import jax.numpy as jnp

w = jnp.ones(3)
for step in range(5):
    w = jax.jit(lambda v: v - 0.1 * v)(w)
