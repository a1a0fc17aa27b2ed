"""silent, fixed: jax.debug.print."""
import jax
import jax.numpy as jnp


@jax.jit
def update(params, lr):
    jax.debug.print("params now {}", params)
    return jax.tree.map(lambda p: p * (1 - lr), params)


params = update({"w": jnp.ones(2)}, 0.1)
