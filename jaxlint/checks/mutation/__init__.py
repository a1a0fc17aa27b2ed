"""JAX1xx: JAX arrays are immutable."""
