"""raises, fixed: functional update."""
import jax.numpy as jnp

grid = jnp.zeros((4, 4))
for i in range(4):
    grid = grid.at[i, i].set(1.0)
print(grid)
