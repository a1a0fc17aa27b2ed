"""JAX01x: findings only `--verify` makes, from tracing with real jax. No visitors: the static pass never
runs them; they are rules so that selection, noqa, the docs and SARIF know them."""

from __future__ import annotations

from jaxlint.checks.base import Rule

_FOUND_BY_TRACING = (
    "This finding exists only under `--verify`: it is what tracing the function with real jax reported."
)


class VerifyTraceError(Rule):
    code = "JAX010"
    name = "verify-trace-error"
    summary = "Tracing a jitted function with `--verify` raised a JAX error that no static rule predicted"
    what_it_does = (
        "With `--verify`, jaxlint traces each jitted function (abstract arguments, no compilation). When "
        "jax rejects the traced code (`ConcretizationTypeError` and its relatives, a traced shape or slice "
        "bound, an in-place update) at a line where no static finding predicted it, the error is reported "
        "at the deepest line of your file in its traceback: for example when the traced value went through "
        "a function in another module, which static analysis does not follow."
    )
    why_bad = (
        "The function fails the first time it is called under `jit`. Errors raised only because of the "
        "made-up arguments (a wrong rank, a missing attribute) are not reported: only jax's own verdicts "
        "on traced values, which hold for any argument values."
    )
    example = (
        "# lib.py\n"
        "def clip(v):\n"
        "    return v if v > 0 else 0.0\n\n"
        "# train.py\n"
        "@jax.jit\n"
        "def step(x):\n"
        "    return lib.clip(x)  # JAX010 at lib.py's line when lib.py is checked\n"
    )
    use_instead = "def clip(v):\n    return jnp.maximum(v, 0.0)\n"
    verify = _FOUND_BY_TRACING


class VerifyTracerLeak(Rule):
    code = "JAX011"
    name = "verify-tracer-leak"
    summary = "A tracer escaped a jitted function while `--verify` traced it under `jax.checking_leaks()`"
    what_it_does = (
        "With `--verify`, each jitted function is traced under `jax.checking_leaks()`. When jax reports that "
        "a tracer outlived the trace (stored by a library call, a callback, an object's attribute) and no "
        "JAX308 finding in that function explains it, the leak is reported at the function's first line."
    )
    why_bad = (
        "A leaked tracer is an abstract value with no data: whatever later reads it fails with "
        "`UnexpectedTracerError`, far from the place that stored it, or silently keeps stale state."
    )
    example = (
        "history = collections.deque()\n\n\n"
        "@jax.jit\n"
        "def step(x):\n"
        "    record(history, x)  # another module's helper appends x\n"
        "    return x * 2\n"
    )
    use_instead = "@jax.jit\ndef step(x):\n    return x * 2, x  # return what you need to keep\n"
    verify = _FOUND_BY_TRACING


class VerifyKeyReuse(Rule):
    code = "JAX012"
    name = "verify-key-reuse"
    summary = "A PRNG key consumed twice, found by `--verify` under `jax.debug_key_reuse(True)`"
    what_it_does = (
        "With `--verify`, each jitted function is traced under `jax.debug_key_reuse(True)`, with a typed key "
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
    verify = _FOUND_BY_TRACING
