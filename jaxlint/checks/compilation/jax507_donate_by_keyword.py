"""JAX507 donate-by-keyword: A parameter listed for donation passed in a way jax does not donate (by keyword, or by
position)."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.callees import Argument, JittedCallee
from jaxlint.analysis.expected_errors import ExpectedErrors
from jaxlint.checks.base import CalleeRule, code
from jaxlint.checks.compilation._common import callee_name, option_text
from jaxlint.model.transforms import JAX_PMAP


# ---------------------------------------------------------------------- JAX507


class DonateByKeyword(ExpectedErrors, CalleeRule):
    code = "JAX507"
    name = "donate-by-keyword"
    summary = "A parameter listed for donation passed in a way jax does not donate (by keyword, or by position)"
    what_it_does = (
        "Flags an argument of a call to a jitted callable whose parameter is listed in `donate_argnums` (or "
        "`donate_argnames`) but which jax will not donate as it is passed:\n\n"
        "- `jax.pmap(f, donate_argnums=0)` called with that argument by keyword: pmap donates positional "
        "arguments only;\n"
        "- `jax.jit(f, donate_argnums=0, donate_argnames='y')` (both given) called with the `donate_argnums` "
        "parameter by keyword, or with the `donate_argnames` parameter by position: when both are given jax "
        "does not match numbers to names;\n"
        "- with `target-jax-version` older than 0.4.14, `jax.jit(f, donate_argnums=0)` called with that "
        "argument by keyword (`donate_argnames` and the matching of names to numbers came in jax 0.4.14).\n\n"
        "The callee is found as for JAX504 (jit assigned to a name or `self.attr`, decorators, aliases, "
        "`partial`); its signature must be visible."
    )
    why_bad = (
        "Nothing is donated, silently: no error and no warning, the input buffer stays allocated and the memory "
        "the donation was meant to save is spent on every call. Checked with jax 0.10.2: `jax.pmap(f, "
        "donate_argnums=0)(x=x, y=y)` leaves `x` alive while `(x, y)` deletes it; `jax.jit(f, donate_argnums=0, "
        "donate_argnames='y')(x=x, y=y)` deletes `y` but not `x`, and `(x, y)` deletes `x` but not `y`. With only "
        "`donate_argnums` given, `jax.jit` since 0.4.14 finds the names with `inspect.signature`, and passing by "
        "keyword donates as well (not flagged). See the `donate_argnums` and `donate_argnames` parameters of "
        "[`jax.jit`](https://docs.jax.dev/en/latest/_autosummary/jax.jit.html) and "
        "[buffer donation](https://docs.jax.dev/en/latest/buffer_donation.html)."
    )
    example = (
        "import jax\n"
        "from functools import partial\n\n\n"
        "@partial(jax.pmap, axis_name='i', donate_argnums=0)\n"
        "def update(params, grads):\n"
        "    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)\n\n\n"
        "def train(params, grads):\n"
        "    return update(params=params, grads=grads)\n"
    )
    use_instead = (
        "import jax\n"
        "from functools import partial\n\n\n"
        "@partial(jax.pmap, axis_name='i', donate_argnums=0)\n"
        "def update(params, grads):\n"
        "    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)\n\n\n"
        "def train(params, grads):\n"
        "    return update(params, grads)\n"
    )
    not_flagged = (
        "`jax.jit` (and `pjit`, `flax.nnx.jit`) given only `donate_argnums` or only `donate_argnames`, "
        "called either way, on jax 0.4.14 or newer: jax matches names and numbers itself; callees whose "
        "signature jaxlint cannot see; specs that are not literals."
    )
    verify = "Not confirmed by `--verify`: nothing fails; the buffer is simply not donated."

    def visit_Call(self, node: cst.Call) -> None:
        found = self.jitted_arguments(node)
        if found is None:
            return
        callee, arguments = found
        for argument in arguments:
            if not argument.donate_listed or argument.donated is not False:
                continue
            self.report(argument.expr, self._message(callee, argument, callee_name(node)))

    def _message(self, callee: JittedCallee, argument: Argument, function: str) -> str:
        options = option_text(callee, "donate_argnums", "donate_argnames")
        param = argument.param or argument.keyword or code(argument.expr)
        if argument.keyword is None:
            return (
                f"`{param}` is passed by position, but `{function}` lists it in `donate_argnames` only "
                f"({options}): with both options given jax does not match names to positions, so nothing "
                f"is donated; add its position to `donate_argnums` or pass `{param}=` by keyword"
            )
        if callee.transform == JAX_PMAP or not callee.gives("donate_argnames") and self.facts.target_version:
            why = (
                "`jax.pmap` donates positional arguments only"
                if callee.transform == JAX_PMAP
                else f"before jax 0.4.14 (the target is {self.facts.jax_version}) keyword arguments are never donated"
            )
            return f"`{param}` is passed by keyword, so it is not donated ({options}): {why}; pass it by position"
        return (
            f"`{param}` is passed by keyword, but `{function}` lists it in `donate_argnums` only ({options}): "
            f"with `donate_argnames` also given jax does not match positions to names, so nothing is donated; "
            f"add `'{param}'` to `donate_argnames` or pass it by position"
        )
