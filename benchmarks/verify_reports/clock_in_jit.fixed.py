"""silent, fixed: pass the time in."""
import time

import jax
import jax.numpy as jnp


@jax.jit
def tag(x, now):
    return x + now


first = tag(jnp.zeros(()), time.time())
