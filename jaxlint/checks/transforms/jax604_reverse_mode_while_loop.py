"""JAX604 reverse-mode-while-loop: `lax.while_loop` (or `fori_loop` with traced bounds) on a value differentiated by
`grad`/`jacrev`."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.bindings import parameter_names, rebound_names
from jaxlint.analysis.calls import argument
from jaxlint.analysis.name_reads import NameReads
from jaxlint.analysis.values import UNKNOWN, Value
from jaxlint.checks.base import Rule, code
from jaxlint.checks.transforms._common import reverse_mode
from jaxlint.model.transforms import CALLING, FORI_LOOP, STOP_GRADIENT, WHILE_LOOP


class ReverseModeWhileLoop(Rule):
    code = "JAX604"
    name = "reverse-mode-while-loop"
    summary = "`lax.while_loop` (or `fori_loop` with traced bounds) on a value differentiated by `grad`/`jacrev`"
    what_it_does = (
        "Flags `lax.while_loop(cond, body, init)` whose carried `init` is a value that `jax.grad`, "
        "`value_and_grad`, `jacrev`, `hessian`, `jax.vjp` or `jax.linear_transpose` differentiates (under "
        "`jax.jit` too: `jax.jit(jax.grad(f))`), or whose body (a lambda or a def) reads such a value from its "
        "closure: in the differentiated function itself or in "
        "a helper of the same module (or another module of the project) it passes that value to, at any "
        "depth. Also `lax.fori_loop(lower, upper, body, init)` when a bound is traced under `jit` (a "
        "`fori_loop` with a traced trip count is a `while_loop`)."
    )
    why_bad = (
        "Reverse-mode differentiation has to store every iteration for the backward pass, and a "
        "`while_loop` has no bound on its number of iterations, so jax refuses it: calling the gradient "
        "raises `ValueError: Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop "
        "with dynamic start/stop values` (jax 0.10.2: for `grad`, `value_and_grad`, `jacrev`, `hessian` and "
        "`vjp`, when the pullback is called, and `linear_transpose`, when the transposed function is called; "
        "`jacfwd`, `jvp` and `linearize` work). The "
        "[`jax.lax.while_loop`](https://docs.jax.dev/en/latest/_autosummary/jax.lax.while_loop.html) "
        "documentation says it is not reverse-mode differentiable; the "
        "[`jax.lax.fori_loop`](https://docs.jax.dev/en/latest/_autosummary/jax.lax.fori_loop.html) "
        "documentation says a `fori_loop` is a `scan` "
        "(differentiable) only when its trip count is static."
    )
    example = (
        "def newton_sqrt(a):\n"
        "    def body(state):\n"
        "        x, i = state\n"
        "        return 0.5 * (x + a / x), i + 1\n\n"
        "    x, _ = lax.while_loop(lambda s: s[1] < 20, body, (a, 0))\n"
        "    return x\n\n\n"
        "def loss(a):\n"
        "    return newton_sqrt(a) ** 2\n\n\n"
        "da = jax.grad(loss)(2.0)\n"
    )
    use_instead = (
        "def newton_sqrt(a):\n"
        "    def body(x, _):\n"
        "        return 0.5 * (x + a / x), None\n\n"
        "    x, _ = lax.scan(body, a, None, length=20)\n"
        "    return x\n\n\n"
        "def loss(a):\n"
        "    return newton_sqrt(a) ** 2\n\n\n"
        "da = jax.grad(loss)(2.0)\n"
    )
    not_flagged = (
        "Loops whose carried value is not differentiated (a constant, a non-differentiated argument such as "
        "a static iteration count, `lax.stop_gradient(x)`): jax differentiates nothing through them, which "
        "works. `fori_loop` with "
        "static bounds (a `scan`); forward mode (`jacfwd`, `jvp`, `linearize`); loops inside `custom_vjp`/`custom_jvp` "
        "functions, whose own rule is used; a `cond_fun` that reads a differentiated value (only the body "
        "is differentiated)."
    )
    verify = (
        "Not confirmed by `--verify` yet: calling the gradient (or the pullback, or the transposed "
        "function) raises the `ValueError` quoted above."
    )

    def _reverse(self, value: Value) -> str | None:
        return reverse_mode(value, self.facts.traced_scope)

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.names.qualified(node.func)
        if qualified == WHILE_LOOP:
            init, body = argument(node, 2, "init_val"), argument(node, 1, "body_fun")
            loop = "`lax.while_loop`"
        elif qualified == FORI_LOOP:
            bounds = [argument(node, 0, "lower"), argument(node, 1, "upper")]
            if not any(bound is not None and self.facts.value_of(bound).staged for bound in bounds):
                return
            init, body = argument(node, 3, "init_val"), argument(node, 2, "body_fun")
            loop = "`lax.fori_loop` with a traced trip count (a `while_loop`)"
        else:
            return
        if init is None or (isinstance(init, cst.Call) and self.names.qualified(init.func) == STOP_GRADIENT):
            what, subject = None, None  # nothing to differentiate through the carry
        else:
            what, subject = f"carries `{code(init)}`", init
        value = self.facts.value_of(subject) if subject is not None else UNKNOWN
        transform = self._reverse(value)
        if transform is None and body is not None:
            # The body may read a differentiated value from its closure (`lambda c: c * x`): the same error.
            for name in self._closure_reads(body):
                subject = cst.Name(name)
                value = self.facts.value_of(subject)
                transform = self._reverse(value)
                if transform is not None:
                    what = f"has a body that reads `{name}` from its closure"
                    break
        if transform is None or subject is None:  # a transform is found through a subject only
            return
        self.report(
            node,
            lambda line_of: (
                f"{loop} {what}, which `{transform}` differentiates in reverse mode "
                f"({value.describe(code(subject), line_of)}): {CALLING.get(transform, 'calling the gradient')} raises "
                f'ValueError ("Reverse-mode '
                f'differentiation does not work for lax.while_loop"); use `lax.scan` with a fixed number of steps, '
                f"`fori_loop` with static bounds, or forward mode (`jax.jacfwd`, `jax.jvp`)"
            ),
            because=value,
        )

    def _closure_reads(self, body: cst.BaseExpression) -> list[str]:
        """The names a loop body given as a lambda or a def reads from around it, in order."""
        function: cst.CSTNode | None = body
        if isinstance(body, cst.Name):
            found = self.facts.binding(body, want_def=True)
            function = found[0] if found is not None else None
        if not isinstance(function, (cst.Lambda, cst.FunctionDef)):
            return []
        own = set(parameter_names(function.params))
        if isinstance(function, cst.FunctionDef):
            own |= rebound_names(function.body)
        reads = NameReads()
        function.body.visit(reads)
        return [name for name in dict.fromkeys(reads.names) if name not in own]
