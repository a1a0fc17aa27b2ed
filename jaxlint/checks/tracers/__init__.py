"""JAX3xx: tracers reaching Python, which needs concrete values."""
