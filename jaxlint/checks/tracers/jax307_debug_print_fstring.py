"""JAX307 debug-print-fstring: `jax.debug.print` given an f-string (or `%`/`.format`) that formats a traced value."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.values import Kind
from jaxlint.checks.base import Rule, code
from jaxlint.checks.tracers._common import only_traced, placeholders_fix
from jaxlint.model.functions import DEBUG_PRINT


class DebugPrintFstring(Rule):
    code = "JAX307"
    name = "debug-print-fstring"
    summary = "`jax.debug.print` given an f-string (or `%`/`.format`) that formats a traced value"
    what_it_does = (
        'Flags `jax.debug.print(f"... {x}")`, and the same with `%` or `.format`, when the formatted '
        "value is traced: the string is built in Python, at trace time."
    )
    why_bad = (
        "The f-string is evaluated before `jax.debug.print` sees it, so it formats the tracer's repr "
        "(`JitTracer(float32[])`) instead of the runtime value; recent JAX versions raise a "
        "`ValueError` when the braces left in the formatted text do not match the arguments. Pass the "
        "values as arguments and let `jax.debug.print` format them at run time."
    )
    example = '@jax.jit\ndef step(x):\n    jax.debug.print(f"x = {x}")\n    return x * 2\n'
    use_instead = '@jax.jit\ndef step(x):\n    jax.debug.print("x = {}", x)\n    return x * 2\n'
    not_flagged = (
        "Format strings with `{}` placeholders and the values as arguments; f-strings that only format "
        'static values (`f"step {name}: {{}}"` with a static `name`).'
    )
    verify = (
        "`--verify` traces the function and confirms when `jax.debug.print` gets a format string "
        "that already holds a tracer repr."
    )
    fixable = True
    fix_safety = (
        "For an f-string: each field becomes a `{}` placeholder (keeping its `!r` and format spec) and "
        "its expression an argument, so `jax.debug.print` formats the runtime value. Safe when every field is "
        "a traced value and the function is decorated with a transform (or nested in one), so the original "
        "only ever printed tracers. Unsafe otherwise: `jax.debug.print` turns Python and NumPy numbers into "
        "JAX arrays, so a static float field, or any field in a helper also called outside `jit`, prints "
        "as float32 (`0.3333333432674408` instead of `0.3333333333333333`). Not fixed: `{x=}` fields, "
        "nested fields in a format spec, calls with more positional arguments, `%` and `.format`."
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.names.qualified(node.func) != DEBUG_PRINT or not node.args:
            return
        template = node.args[0].value
        if isinstance(template, (cst.SimpleString, cst.ConcatenatedString)):
            return
        value = self.facts.traced_in(template, staged=False)
        if value.kind is Kind.TRACED:
            self.report(
                template,
                lambda line_of: (
                    f"`jax.debug.print` gets a string already formatted at trace time, showing the tracer "
                    f"instead of its value ({value.describe(code(template), line_of)}); pass the value as an "
                    f'argument: `jax.debug.print("... {{}}", value)`'
                ),
                placeholders_fix(node, template, self._all_traced(template) and only_traced(self)),
                because=value,
            )

    def _all_traced(self, template: cst.BaseExpression) -> bool:
        """Whether every field of an f-string is a traced value (whose text was the tracer's repr)."""
        parts = getattr(template, "parts", ())
        values = [self.facts.value_of(p.expression) for p in parts if isinstance(p, cst.FormattedStringExpression)]
        return all(value.kind is Kind.TRACED for value in values)
