"""silent: "every batch takes as long as the first: it compiles each time" """
import jax
import jax.numpy as jnp


def train_step(params, batch):
    @jax.jit
    def loss(p):
        return ((batch @ p) ** 2).mean()

    return params - 0.1 * jax.grad(loss)(params)


params = jnp.ones(3)
for step in range(5):
    params = train_step(params, jnp.ones((4, 3)) * step)
