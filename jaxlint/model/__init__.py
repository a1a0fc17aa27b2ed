"""What jaxlint knows about JAX's API, as data (tables that the analysis and the rules read)."""
