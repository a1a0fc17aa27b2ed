"""JAX012 verify-key-reuse: A PRNG key consumed twice, found by `--verify` with jax's key-reuse checker."""

from __future__ import annotations

from jaxlint.checks.base import Rule
from jaxlint.checks.meta._common import FOUND_BY_TRACING


class VerifyKeyReuse(Rule):
    code = "JAX012"
    name = "verify-key-reuse"
    summary = "A PRNG key consumed twice, found by `--verify` with jax's key-reuse checker"
    what_it_does = (
        "With `--verify`, your code runs with `jax_debug_key_reuse` on and `jax_enable_custom_prng`, so "
        "legacy `jax.random.PRNGKey` keys are checked too; jitted functions are traced with a typed key "
        "(`jax.random.key(0)`) for each key parameter. A `KeyReuseError` that no JAX201/JAX202 finding "
        "explains (the key went through a helper in another module, a data structure or a loop jaxlint "
        "cannot follow) is reported at the line where the key was consumed the second time."
    )
    why_bad = "Reusing a key gives identical or correlated random numbers, silently: no error without the checker."
    example = (
        "@jax.jit\n"
        "def noise(key, x):\n"
        "    keys = {'a': key, 'b': key}\n"
        "    return jax.random.normal(keys['a']) + jax.random.normal(keys['b'])\n"
    )
    use_instead = (
        "@jax.jit\n"
        "def noise(key, x):\n"
        "    a, b = jax.random.split(key)\n"
        "    return jax.random.normal(a) + jax.random.normal(b)\n"
    )
    verify = FOUND_BY_TRACING
