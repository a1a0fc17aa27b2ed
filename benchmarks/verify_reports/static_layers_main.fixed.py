"""raises, fixed: NaNs checked outside jit."""
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("num_layers",))
def mlp(params, x, num_layers):
    for i in range(num_layers):
        x = jnp.tanh(x @ params[i]["w"] + params[i]["b"])
    return x


if __name__ == "__main__":
    params = [{"w": jnp.ones((3, 3)), "b": jnp.zeros(3)}, {"w": jnp.ones((3, 2)), "b": jnp.zeros(2)}]
    out = mlp(params, jnp.ones((4, 3)), num_layers=2)
    if jnp.isnan(out).any():
        raise ValueError("nan in the output")
    print(out)
