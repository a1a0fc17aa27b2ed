"""raises, fixed: n is static."""
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="n")
def power(x, n):
    out = jnp.ones_like(x)
    for _ in range(n):
        out = out * x
    return out


print(power(jnp.arange(3.0), n=4))
