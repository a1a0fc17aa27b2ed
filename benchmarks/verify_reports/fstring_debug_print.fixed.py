"""silent, fixed: a format string with the value as an argument."""
import jax
import jax.numpy as jnp


@jax.jit
def step(x):
    jax.debug.print("x = {}", x)
    return x * 2


step(jnp.ones(2))
