"""JAX7xx: dtypes and the kinds of values jax functions take."""
