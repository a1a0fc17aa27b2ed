"""JAX010 verify-trace-error: Running your code under `--verify` raised an error that no static rule predicted."""

from __future__ import annotations

from jaxlint.checks.base import Rule
from jaxlint.checks.meta._common import FOUND_BY_TRACING


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
        '("the module could not be imported: RuntimeError: ..."). A module or file the code needs that is '
        "missing, or a checker failing inside itself, is no finding: a note says the file could not be verified."
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
    verify = FOUND_BY_TRACING
