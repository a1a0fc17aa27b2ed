"""JAX5xx: compilation, caching and buffer donation.

JAX5xx: Python side effects in staged functions, which run once, while jax traces them."""
