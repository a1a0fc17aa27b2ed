"""JAX304 tracer-as-python-index: `range()` of a traced value, or a traced index into a list, tuple or NumPy array."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.values import Kind, Value
from jaxlint.checks.base import FixPlan, Rule, code
from jaxlint.checks.tracers._common import only_traced, static_hint
from jaxlint.diagnostics import SAFE, UNSAFE
from jaxlint.model.functions import ASARRAY


class TracerAsPythonIndex(Rule):
    code = "JAX304"
    trace_error = "TypeError"
    name = "tracer-as-python-index"
    summary = "`range()` of a traced value, or a traced index into a list, tuple or NumPy array"
    what_it_does = (
        "Flags a traced value used where Python needs an integer inside a jitted (or vmapped, lax-body) "
        "function: `range(n)`, and indexing a Python list or tuple or a NumPy array (`table[i]`) with a "
        "traced index, in any position for a NumPy array (`table[i, :]`, `table[:, j]`)."
    )
    why_bad = (
        "Python's `range` and sequence indexing call `__index__`, which a tracer cannot answer: JAX raises "
        "`TracerIntegerConversionError`; indexing a NumPy array with a tracer raises "
        "`TracerArrayConversionError`. Loop with `lax.fori_loop`, or index a `jnp` array instead."
    )
    example = (
        "@jax.jit\ndef power(x, n):\n    out = x\n    for _ in range(n - 1):\n        out = out * x\n    return out\n"
    )
    use_instead = (
        "@jax.jit\n"
        "def power(x, n):\n"
        "    return lax.fori_loop(1, n, lambda _, out: out * x, x)\n\n\n"
        "# or, when n is a configuration value:\n"
        "@partial(jax.jit, static_argnames=('n',))\n"
        "def power(x, n):\n"
        "    ...\n"
    )
    not_flagged = (
        "`range(x.shape[0])`, `range(len(xs))` and other static bounds; indexing a `jnp` array with a "
        "tracer (`x[i]` is a dynamic index, which JAX supports); functions under `grad` alone."
        " Nor code of a function whose every trace starts in a `try` that catches this error and does not "
        "raise again (a lesson's failing first attempt, `try: jax.jit(f)(x) except Exception as e: print(e)`)."
    )
    verify = "`--verify` traces the function and expects `TracerIntegerConversionError` at this line."
    fixable = True
    fix_safety = (
        "When the indexed value is a NumPy array (built by `np.array`, `np.zeros` and the like): "
        "`table[i]` becomes `jnp.asarray(table)[i]`, the same numbers indexed in JAX. Safe in a function "
        "decorated with a transform (or nested in one), whose code only ever runs traced; unsafe in a "
        "helper that a traced caller passes tracers to, or a function wrapped by a call (`jax.jit(f)`), "
        "which may also be called with a Python integer and then returns a JAX array instead of a NumPy "
        "value. Lists, tuples and `range()` have no automatic fix: a list may hold objects that are not "
        "numbers."
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.builtin(node.func, {"range"}) is None:
            return
        for arg in node.args:
            value = self.facts.value_of(arg.value)
            if value.staged:
                hint = static_hint(self, value, arg.value)  # now: it reads the function around this point
                self.report(
                    node,
                    lambda line_of: (
                        f"`range()` of a traced value raises TracerIntegerConversionError: `{code(arg.value)}` "
                        f"is traced ({value.describe(code(arg.value), line_of)}); loop with `lax.fori_loop`"
                        f"{hint}"
                    ),
                    because=value,
                )
                return

    def visit_Subscript(self, node: cst.Subscript) -> None:
        base = self.facts.value_of(node.value)
        literal = isinstance(node.value, (cst.List, cst.Tuple))
        if not literal and base.kind is not Kind.HOST and not base.is_sequence:
            return
        numpy = base.numpy
        if len(node.slice) != 1 and not numpy:
            return  # `seq[i, j]` on a list or tuple raises TypeError whatever `i` is
        for element in node.slice:
            index = element.slice
            if not isinstance(index, cst.Index):
                continue
            value = self.facts.value_of(index.value)
            if value.staged:
                self._report(node, index.value, value, numpy)
                return

    def _report(self, node: cst.Subscript, index: cst.BaseExpression, value: Value, numpy: bool) -> None:
        if numpy:
            what = "indexing a NumPy array with a traced value raises TracerArrayConversionError"
        else:
            what = "indexing a Python sequence with a traced value raises TracerIntegerConversionError"
        hint = static_hint(self, value, index)  # now: it reads the function around this point
        self.report(
            node,
            lambda line_of: (
                f"{what}: `{code(index)}` is traced ({value.describe(code(index), line_of)}); index a "
                f"`jnp.asarray(...)` instead{hint}"
            ),
            self._on_device(node) if numpy else None,
            because=value,
        )

    def _on_device(self, node: cst.Subscript) -> FixPlan | None:
        """`table[i]` -> `jnp.asarray(table)[i]` for a NumPy array: the same numbers, indexed in JAX."""
        spelled = self.spell(ASARRAY)
        if spelled is None:
            return None
        name, imports = spelled
        new = (f"{name}(", node.value, ")", (node.lbracket, node.rbracket))
        return FixPlan(f"index `{name}(...)`", ((node, new),), SAFE if only_traced(self) else UNSAFE, imports)
