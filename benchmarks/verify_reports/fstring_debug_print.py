"""silent: "jax.debug.print prints Traced<...> even though I used debug.print" """
import jax
import jax.numpy as jnp


@jax.jit
def step(x):
    jax.debug.print(f"x = {x}")
    return x * 2


step(jnp.ones(2))
