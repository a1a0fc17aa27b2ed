"""raises: "NonConcreteBooleanIndexError in my loss" """
import jax
import jax.numpy as jnp


@jax.jit
def masked_mean(values):
    valid = values[values > 0]
    return valid.mean()


print(masked_mean(jnp.array([1.0, -2.0, 3.0])))
