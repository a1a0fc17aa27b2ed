"""JAX01x: findings only `--verify` makes, from tracing with real jax. No visitors: the static pass never
runs them; they are rules so that selection, noqa, the docs and SARIF know them."""

from __future__ import annotations

from jaxlint.checks.base import Rule

_FOUND_BY_TRACING = (
    "This finding exists only under `--verify`: it is what running or tracing your code with real jax "
    "reported."
)


class VerifyTraceError(Rule):
    code = "JAX010"
    name = "verify-trace-error"
    summary = "Running your code under `--verify` raised an error that no static rule predicted"
    what_it_does = (
        "With `--verify`, jaxlint imports each module that imports jax (`--verify=run` also runs your "
        "scripts and tests) and traces jitted functions. When that raises and no static finding on the "
        "line predicted the error, it is reported at the innermost line of your project in its traceback: "
        "a jax error (`ConcretizationTypeError` and its relatives, a traced shape or slice bound, an "
        "in-place update), for example when the traced value went through a function in another module, "
        "which static analysis does not follow; or any other exception your code raised "
        "(\"the module could not be imported: FileNotFoundError: ...\")."
    )
    why_bad = (
        "The code fails the first time it runs. When jaxlint traces with arguments it made up, only jax's "
        "own verdicts on traced values are reported (they hold for any argument values), never errors the "
        "made-up arguments may have caused (a wrong rank, a missing attribute)."
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
    summary = "A tracer escaped a traced function, found by `--verify` with jax's leak checker"
    what_it_does = (
        "With `--verify`, jax's tracer-leak check runs at the end of every trace while your code runs "
        "(and around each trace jaxlint makes itself). When jax reports that a tracer outlived the trace "
        "(stored by a library call, a callback, an object's attribute) and no JAX308 finding in that "
        "function explains it, the leak is reported at the function's `def` line when jaxlint traced it, "
        "else at the innermost line of your project where the error surfaced."
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
    verify = _FOUND_BY_TRACING
