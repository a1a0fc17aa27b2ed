"""silent, fixed: return what you keep."""
import jax
import jax.numpy as jnp

activations = []


@jax.jit
def layer(x):
    h = jnp.tanh(x)
    return h, h


out, h = layer(jnp.ones(3))
activations.append(h)
