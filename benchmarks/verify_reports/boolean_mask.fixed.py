"""raises, fixed: a where-mean."""
import jax
import jax.numpy as jnp


@jax.jit
def masked_mean(values):
    valid = values > 0
    return jnp.where(valid, values, 0.0).sum() / valid.sum()


print(masked_mean(jnp.array([1.0, -2.0, 3.0])))
