"""What several JAX5xx rules share: how messages name a jitted callee and how a function is traced."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.callees import JittedCallee
from jaxlint.analysis.traced import TracedFunction
from jaxlint.checks.base import code
from jaxlint.checks.tracers._common import debug_print_fix  # noqa: F401 (JAX509 fixes a print as JAX306 does)


def option_text(callee: JittedCallee, *options: str) -> str:
    return ", ".join(f"{option}={code(callee.options[option])}" for option in options if callee.gives(option))


def callee_name(call: cst.Call) -> str:
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else "the jitted function"


def how_traced(scope: TracedFunction, line_of) -> str:
    """`staged by `jax.jit` at line 9`, or `called from `body` at line 31, traced by `jax.lax.scan``."""
    trace = scope.trace
    if trace is None:
        return "traced"
    if scope.transforms:
        return f"staged by `{trace.name}` at {trace.where(line_of)}"
    caller = (
        scope.entries[0].caller if scope.entries else next((t.caller for t in scope.traced.values() if t.caller), None)
    )
    origin = f" from `{caller}`" if caller else ""
    return f"called{origin} at {trace.where(line_of)}, traced by `{trace.name}`"
