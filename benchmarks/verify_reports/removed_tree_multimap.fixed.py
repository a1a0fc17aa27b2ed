"""raises, fixed: jax.tree.map."""
import jax
import jax.numpy as jnp

params = {"w": jnp.ones(3), "b": jnp.zeros(3)}
grads = {"w": jnp.ones(3), "b": jnp.ones(3)}
params = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
