"""JAX509 print-at-trace-time: `print()` in a jitted (staged) function: it runs only while jax traces it."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.values import Kind
from jaxlint.checks.base import Rule
from jaxlint.checks.compilation._common import debug_print_fix, how_traced


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
        "arguments. `jax.debug.print` prints on every call. The JAX documentation shows this in "
        "[The Sharp Bits: pure functions]"
        "(https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions), and documents "
        "[`jax.debug.print`](https://docs.jax.dev/en/latest/_autosummary/jax.debug.print.html) for printing at "
        "run time."
    )
    example = (
        '@jax.jit\ndef step(params, batch):\n    print("running step")\n    return params - 0.1 * jnp.mean(batch)\n'
    )
    use_instead = (
        "@jax.jit\n"
        "def step(params, batch):\n"
        '    jax.debug.print("running step")\n'
        "    return params - 0.1 * jnp.mean(batch)\n"
    )
    not_flagged = (
        "Prints outside staged functions; under `grad` alone (it runs on every call); in functions traced "
        "only by `jax.eval_shape`/`jax.make_jaxpr`; prints of traced values, which JAX306 reports. Off by "
        "default: printing static values at trace time is also a deliberate way to see when jax retraces."
    )
    fixable = True
    fix_safety = (
        'Unsafe: `print(a, b)` becomes `jax.debug.print("{} {}", a, b)`, which prints on every call, at run '
        "time: a change in behaviour. Calls with `sep=`, `end=`, `file=` or `*args` are not fixed."
    )
    verify = "`--verify` traces the function with `print` recorded and confirms when a tracer reaches it at this line."

    def visit_Call(self, node: cst.Call) -> None:
        scope = self.facts.traced_scope
        if scope is None or not scope.staged or scope.only_traced_for_shapes:
            return
        if self.builtin(node.func, {"print"}) is None:
            return
        if any(self.facts.traced_in(arg.value, staged=True).kind is Kind.TRACED for arg in node.args):
            return  # JAX306
        self.report(
            node,
            lambda line_of: (
                f"`print` in `{scope.name}` ({how_traced(scope, line_of)}) runs only while jax traces it: once per "
                "compilation, not on every call; use `jax.debug.print` to print at run time"
            ),
            debug_print_fix(self, node),
        )
