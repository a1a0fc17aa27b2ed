"""JAX5xx: Python side effects in staged functions, which run once, while jax traces them."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.traced import TracedFunction
from jaxlint.checks.base import Rule
from jaxlint.checks.tracers import PrintInTraced, _builtin, _mentions_traced


class PrintAtTraceTime(Rule):
    code = "JAX509"
    name = "print-at-trace-time"
    summary = "`print()` in a jitted (staged) function: it runs only while jax traces it"
    default_enabled = False
    what_it_does = (
        "Flags every `print(...)` in a function that jax stages (`jit`, `vmap`, `pmap`, lax loop and branch "
        "bodies, and helpers called from them with traced values), including prints of static values "
        "(shapes, strings, configuration). Prints of traced values are JAX306's (`print-in-traced`)."
    )
    why_bad = (
        "A staged function's Python body runs when jax traces it: on the first call and again only when "
        "the arguments' shapes, dtypes or static values change. Later calls run the compiled computation "
        "and print nothing, which looks like a function that is not being called. Measured on jax 0.10.2: "
        "a `print` in a jitted function prints on the first call and not on the second call with same-shaped "
        "arguments. `jax.debug.print` prints on every call. See \"Printing and debugging\" "
        "(`jax.debug.print`) and the Sharp Bits section on pure functions in the JAX documentation."
    )
    example = (
        "@jax.jit\n"
        "def step(params, batch):\n"
        "    print(\"running step\")\n"
        "    return params - 0.1 * jnp.mean(batch)\n"
    )
    use_instead = (
        "@jax.jit\n"
        "def step(params, batch):\n"
        "    jax.debug.print(\"running step\")\n"
        "    return params - 0.1 * jnp.mean(batch)\n"
    )
    not_flagged = (
        "Prints outside staged functions; under `grad` alone (it runs on every call); in functions traced "
        "only by `jax.eval_shape`/`jax.make_jaxpr`; prints of traced values, which JAX306 reports. Off by "
        "default: printing static values at trace time is also a deliberate way to see when jax retraces."
    )
    fixable = True
    fix_safety = (
        "Unsafe: `print(a, b)` becomes `jax.debug.print(\"{} {}\", a, b)`, which prints on every call, at run "
        "time: a change in behaviour. Calls with `sep=`, `end=`, `file=` or `*args` are not fixed."
    )
    verify = "Not confirmed by `--verify` yet."

    def visit_Call(self, node: cst.Call) -> None:
        scope = self.values.traced_scope
        if scope is None or not scope.staged or scope.only_traced_for_shapes:
            return
        if _builtin(self, node.func, {"print"}) is None:
            return
        if any(_mentions_traced(self, arg.value, staged=True) is not None for arg in node.args):
            return  # JAX306
        self.report(node, lambda line_of: (
            f"`print` in `{scope.name}` ({_how_traced(scope, line_of)}) runs only while jax traces it: once per "
            "compilation, not on every call; use `jax.debug.print` to print at run time"
        ), PrintInTraced._debug_print(self, node))


def _how_traced(scope: TracedFunction, line_of) -> str:
    """`staged by `jax.jit` at line 9`, or `called from `body` at line 31, traced by `jax.lax.scan``."""
    trace = scope.trace
    if trace is None:
        return "traced"
    if scope.transforms:
        return f"staged by `{trace.name}` at line {line_of(trace.node)}"
    caller = scope.entries[0].caller if scope.entries else next(
        (t.caller for t in scope.traced.values() if t.caller), None)
    origin = f" from `{caller}`" if caller else ""
    return f"called{origin} at line {line_of(trace.node)}, traced by `{trace.name}`"
