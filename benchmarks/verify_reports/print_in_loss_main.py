"""silent: "print in my loss shows Traced<ShapedArray(float32[])> instead of the number" """
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=2)
def loss(params, batch, reduction):
    preds = batch["x"] @ params["w"]
    err = (preds - batch["y"]) ** 2
    print("loss:", err.mean())
    return err.mean() if reduction == "mean" else err.sum()


def main():
    params = {"w": jnp.zeros((3, 1))}
    batch = {"x": jnp.ones((5, 3)), "y": jnp.ones((5, 1))}
    print(loss(params, batch, "mean"))


if __name__ == "__main__":
    main()
