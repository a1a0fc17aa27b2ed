"""raises, fixed: jnp.where in the body."""
import jax
import jax.numpy as jnp


def body(i, acc):
    return jnp.where(i % 2 == 0, acc + i, acc)


total = jax.lax.fori_loop(0, 10, body, jnp.zeros(()))
