"""silent, fixed: split."""
import jax
import jax.numpy as jnp


def augment(keys, x):
    return x + jax.random.normal(keys["noise"], x.shape) * jax.random.uniform(keys["scale"], ())


noise_key, scale_key = jax.random.split(jax.random.PRNGKey(0))
out = augment({"noise": noise_key, "scale": scale_key}, jnp.zeros(3))
