"""JAX306 print-in-traced: `print()` of a traced value inside a jitted function."""

from __future__ import annotations

import libcst as cst

from jaxlint.checks.base import Rule
from jaxlint.checks.tracers._common import debug_print_fix, report_shown_tracer


class PrintInTraced(Rule):
    code = "JAX306"
    name = "print-in-traced"
    summary = "`print()` of a traced value inside a jitted function"
    what_it_does = (
        "Flags `print(...)` calls that get a traced value (directly, inside a dict, list or tuple, in an f-string, "
        "through `%` or `.format`) inside a jitted (or vmapped, pmapped, lax-body) function."
    )
    why_bad = (
        "Python's `print` runs once, while JAX traces the function: it shows a tracer (`JitTracer(float32[3])` "
        "under jit, `VmapTracer(...)` under vmap) instead of the numbers, and never runs again on later calls, which hit the compiled cache. "
        "`jax.debug.print` is staged into the computation and prints the runtime values on every call."
    )
    example = (
        "def loss_fn(params, batch):\n"
        '    return jnp.mean((batch["x"] @ params - batch["y"]) ** 2)\n\n\n'
        "@jax.jit\n"
        "def step(params, batch):\n"
        "    loss = loss_fn(params, batch)\n"
        '    print(f"loss = {loss}")\n'
        "    return loss\n"
    )
    use_instead = (
        "def loss_fn(params, batch):\n"
        '    return jnp.mean((batch["x"] @ params - batch["y"]) ** 2)\n\n\n'
        "@jax.jit\n"
        "def step(params, batch):\n"
        "    loss = loss_fn(params, batch)\n"
        '    jax.debug.print("loss = {}", loss)\n'
        "    return loss\n"
    )
    not_flagged = (
        "`print` of static values (shapes, dtypes, static arguments, strings), which is a common and "
        "deliberate way to see what is being traced; `jax.debug.print`; printing outside traced functions; "
        "printing in a function that `jax.shard_map` runs when applied and called outside any trace (it runs "
        "eagerly at every call, and `print` shows each shard's numbers). "
        "Under `grad` alone (no `jit`) the print runs on every call but shows "
        "`GradTracer(primal=2.0, ...)` (jax 0.10): that is flagged too. Logging calls are JAX310's "
        "(`log-in-traced`, off by default)."
    )
    verify = (
        "`--verify` traces the function with `print` recorded and confirms a tracer was printed at this line. A "
        "tracer printed where no finding says so (it came through calls jaxlint could not follow, or a "
        "library function printed it) is a new finding at the project's line."
    )
    fixable = True
    fix_safety = (
        'Unsafe: `print(a, b)` becomes `jax.debug.print("{} {}", a, b)` (string arguments kept as text, '
        "f-string fields, `%s`/`%r` of `%` formatting and the automatically numbered fields of `.format` "
        "turned into placeholders). The output now appears on every call, at run time, formatted by JAX, "
        "which is a change in behaviour. Calls with `sep=`, `end=`, `file=` or `*args`, other `%` conversions "
        "(`%d`, `%.3f`...) and numbered or named `.format` fields have no automatic fix."
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.builtin(node.func, {"print"}):
            remedy = 'use `jax.debug.print("... {}", value)`'
            report_shown_tracer(self, node, "print", remedy, lambda: debug_print_fix(self, node))
