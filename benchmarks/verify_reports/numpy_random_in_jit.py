"""silent: "dropout mask is the same every step" """
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def dropout(x):
    mask = np.random.rand(*x.shape) > 0.5
    return jnp.where(mask, x, 0.0)


out = dropout(jnp.ones(4))
