"""JAX6xx: gradient transforms given functions or inputs they cannot differentiate.

JAX6xx: transforms used in ways they reject."""
