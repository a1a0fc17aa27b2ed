"""jaxlint: a correctness linter for JAX code."""

__version__ = "0.1.0"
