"""silent: "print inside jit shows Traced<ShapedArray> instead of numbers" """
import jax
import jax.numpy as jnp


@jax.jit
def update(params, lr):
    print("params now", params)
    return jax.tree.map(lambda p: p * (1 - lr), params)


params = update({"w": jnp.ones(2)}, 0.1)
