"""JAX2xx: randomness. Keys that never change, and host randomness frozen at trace time.

Python code inside a staged traced scope (jit, vmap, pmap, a lax body...) runs once, while jax
traces it; only what flows through jax operations is computed again on each call. A literal seed,
a clock read, or a draw from NumPy's or Python's generator there becomes a constant of the traced
computation."""
