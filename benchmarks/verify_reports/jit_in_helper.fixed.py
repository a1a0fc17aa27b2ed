"""silent, fixed: jit once, the batch an argument."""
import jax
import jax.numpy as jnp


@jax.jit
def loss(p, batch):
    return ((batch @ p) ** 2).mean()


def train_step(params, batch):
    return params - 0.1 * jax.grad(loss)(params, batch)


params = jnp.ones(3)
for step in range(5):
    params = train_step(params, jnp.ones((4, 3)) * step)
