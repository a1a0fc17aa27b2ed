"""silent: "the loop slows down: the running mean compiles at every step" """
import jax
import jax.numpy as jnp


@jax.jit
def running_mean(history):
    return history.mean()


history = jnp.zeros(0)
for step in range(6):
    history = jnp.append(history, float(step))
    print(running_mean(history))
