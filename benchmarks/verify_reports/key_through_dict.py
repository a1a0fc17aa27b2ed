"""silent: "augmentations look the same" (the key reaches both draws through a dict)"""
import jax
import jax.numpy as jnp


def augment(keys, x):
    return x + jax.random.normal(keys["noise"], x.shape) * jax.random.uniform(keys["scale"], ())


key = jax.random.PRNGKey(0)
out = augment({"noise": key, "scale": key}, jnp.zeros(3))
