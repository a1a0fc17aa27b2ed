"""JAX011 verify-tracer-leak: A tracer escaped a traced function, found by `--verify` with jax's leak checker."""

from __future__ import annotations

from jaxlint.checks.base import Rule
from jaxlint.checks.meta._common import FOUND_BY_TRACING


class VerifyTracerLeak(Rule):
    code = "JAX011"
    name = "verify-tracer-leak"
    summary = "A tracer escaped a traced function, found by `--verify` with jax's leak checker"
    what_it_does = (
        "With `--verify`, jax's tracer-leak check runs at the end of every trace while your code runs "
        "(and around each trace jaxlint makes itself). When jax reports that a tracer outlived the trace "
        "(stored by a library call, a callback, an object's attribute) and no JAX308 finding in that "
        "function explains it, the leak is reported at the line that stored the tracer (found from the module "
        "global that holds it); when no such line is found, at the function's `def` line when jaxlint traced "
        "it, else at the innermost line of your project where the error surfaced. After `jax.grad` and eager "
        "`jax.vmap` calls, which jax does not check, jaxlint looks for tracers in module globals itself."
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
    verify = FOUND_BY_TRACING
