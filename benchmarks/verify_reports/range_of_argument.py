"""raises: "jit fails with TracerIntegerConversionError when looping n times" """
import jax
import jax.numpy as jnp


@jax.jit
def power(x, n):
    out = jnp.ones_like(x)
    for _ in range(n):
        out = out * x
    return out


print(power(jnp.arange(3.0), 4))
