"""raises: "TypeError: JAX arrays are immutable" (coming from numpy)"""
import jax.numpy as jnp

grid = jnp.zeros((4, 4))
for i in range(4):
    grid[i, i] = 1.0
print(grid)
