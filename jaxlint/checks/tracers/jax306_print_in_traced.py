"""JAX306 print-in-traced: `print()` or `logging` of a traced value inside a jitted function."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.values import Kind
from jaxlint.checks.base import Rule, code
from jaxlint.checks.tracers._common import debug_print_fix


class PrintInTraced(Rule):
    code = "JAX306"
    name = "print-in-traced"
    summary = "`print()` or `logging` of a traced value inside a jitted function"
    what_it_does = (
        "Flags `print(...)`, `logging.<level>(...)`, `logger.<level>(...)` (a module-level "
        "`logging.getLogger(...)`) and `absl.logging` calls that get a traced value (directly, inside a dict, "
        "list or tuple, in an f-string, through `%` or `.format`) inside a jitted (or vmapped, pmapped, "
        "lax-body) function."
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
        "`GradTracer(primal=2.0, ...)` (jax 0.10): that is flagged too."
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
        "(`%d`, `%.3f`...), numbered or named `.format` fields, and logging calls, have no automatic fix."
    )

    _LEVELS = frozenset("debug info warning warn error exception critical fatal log".split())

    def visit_Module(self, node: cst.Module) -> None:
        self._loggers = set()
        for statement in node.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if (
                    isinstance(small, cst.Assign)
                    and isinstance(small.value, cst.Call)
                    and self.names.qualified(small.value.func) in ("logging.getLogger", "absl.logging.get_absl_logger")
                ):
                    for target in small.targets:
                        if isinstance(target.target, cst.Name):
                            self._loggers.add(target.target.value)

    def _is_output(self, func: cst.BaseExpression) -> str | None:
        if self.builtin(func, {"print"}):
            return "print"
        qualified = self.names.qualified(func) or ""
        if qualified.startswith(("logging.", "absl.logging.")) and qualified.rsplit(".", 1)[1] in self._LEVELS:
            return qualified
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value in self._loggers
            and func.attr.value in self._LEVELS
        ):
            return code(func)
        return None

    def visit_Call(self, node: cst.Call) -> None:
        scope = self.facts.traced_scope
        if scope is None or not (scope.staged or scope.differentiated) or scope.runs_eagerly:
            return
        what = self._is_output(node.func)
        if what is None:
            return
        for arg in node.args:
            value = self.facts.traced_in(arg.value, staged=scope.staged)
            if value.kind is not Kind.TRACED:
                continue
            if scope.staged:
                shown = "runs once at trace time and shows a tracer (`JitTracer(...)`; `VmapTracer(...)` under vmap), not the numbers"
            else:
                shown = "under a gradient transform shows `GradTracer(primal=...)`, not the numbers"
            self.report(
                node,
                lambda line_of: (
                    f"`{what}` of a traced value {shown}: `{code(arg.value)}` is traced "
                    f'({value.describe(code(arg.value), line_of)}); use `jax.debug.print("... {{}}", value)`'
                ),
                debug_print_fix(self, node) if what == "print" else None,
                because=value,
            )
            return
