"""JAX4xx: array shapes must be known while tracing."""
