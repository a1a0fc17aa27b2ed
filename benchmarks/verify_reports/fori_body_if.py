"""raises: "if inside fori_loop body gives TracerBoolConversionError" """
import jax
import jax.numpy as jnp


def body(i, acc):
    if i % 2 == 0:
        return acc + i
    return acc


total = jax.lax.fori_loop(0, 10, body, jnp.zeros(()))
