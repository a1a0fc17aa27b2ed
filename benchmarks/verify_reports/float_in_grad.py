"""raises: "ConcretizationTypeError when I call float() on the loss under grad" """
import jax
import jax.numpy as jnp


def loss(w, x):
    value = jnp.sum((w * x) ** 2)
    print("loss", float(value))
    return value


grads = jax.grad(loss)(jnp.ones(3), jnp.arange(3.0))
