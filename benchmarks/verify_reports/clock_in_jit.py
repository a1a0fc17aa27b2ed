"""silent: "the timestamp in my jitted function never changes" """
import time

import jax
import jax.numpy as jnp


@jax.jit
def tag(x):
    return x + time.time()


first = tag(jnp.zeros(()))
