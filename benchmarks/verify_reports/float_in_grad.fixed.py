"""raises, fixed: report the value outside grad."""
import jax
import jax.numpy as jnp


def loss(w, x):
    return jnp.sum((w * x) ** 2)


value, grads = jax.value_and_grad(loss)(jnp.ones(3), jnp.arange(3.0))
print("loss", float(value))
