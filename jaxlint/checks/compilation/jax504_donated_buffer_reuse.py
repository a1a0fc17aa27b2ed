"""JAX504 donated-buffer-reuse: An array read after it was donated to a jitted call."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.donations import Donation
from jaxlint.analysis.expected_errors import expects_error
from jaxlint.checks.base import CalleeRule
from jaxlint.checks.compilation._common import callee_name, option_text


# ---------------------------------------------------------------------- JAX504


class DonatedBufferReuse(CalleeRule):
    code = "JAX504"
    needs_donations = True
    name = "donated-buffer-reuse"
    summary = "An array read after it was donated to a jitted call"
    what_it_does = (
        "Flags a read of a name after it was passed in a donated position of a jitted callable "
        "(`donate_argnums`/`donate_argnames` of `jax.jit`, `jax.pmap`, `pjit`) and before it "
        "is bound again: later in the same function, after the `if` or the `match` case that donated it, or in the "
        "next iteration of a loop that donates it without rebinding it. The callee is followed through the spellings of a jitted "
        "callable: `jax.jit(f, donate_argnums=0)` assigned to a name (or to `self.step`) and called later, "
        "`@partial(jax.jit, donate_argnums=...)`, `@jax.jit(donate_argnames=...)`, aliases of those names, "
        "`jax.jit(partial(f, cfg), ...)`, and its ahead-of-time `Compiled` (`f.lower(x, y).compile()`, "
        "`f.trace(x, y).lower().compile()`, or `fn = fn.lower(x, y)` then `fn = fn.compile()`), which donates alike "
        "and takes the non-static arguments only; keywords are matched to the wrapped function's parameters as jax does. "
        "Also a name passed in a donated position and again, as it is or inside a tuple, list or dict, in another "
        "argument of the same call (`f(x, x)`)."
    )
    why_bad = (
        "Donating an argument tells XLA it may reuse the argument's buffer for an output. When it does (an output "
        "has the same shape and dtype), jax marks the array deleted: any later use of it raises "
        "`RuntimeError: Array has been deleted with shape=float32[3].` (checked with jax 0.10.2 on CPU; a pytree "
        "argument's array leaves are deleted the same way; its static fields, such as a train state's `apply_fn`, "
        "are not, and reading one is flagged all the same). When no output matches, jax warns `Some donated buffers were "
        "not usable` and the array survives, so the same code fails on another shape. JAX's "
        '[buffer donation](https://docs.jax.dev/en/latest/buffer_donation.html) documentation: "you will not use '
        'the donated input buffer after calling the donating function".'
    )
    example = (
        "import jax\n"
        "from functools import partial\n\n\n"
        "@partial(jax.jit, donate_argnums=0)\n"
        "def sgd(params, grads):\n"
        "    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)\n\n\n"
        "def train(params, grads):\n"
        "    new_params = sgd(params, grads)\n"
        "    drift = jax.tree.map(lambda a, b: a - b, new_params, params)  # params was donated\n"
        "    return new_params, drift\n"
    )
    use_instead = (
        "import jax\n"
        "from functools import partial\n\n\n"
        "@partial(jax.jit, donate_argnums=0)\n"
        "def sgd(params, grads):\n"
        "    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)\n\n\n"
        "def train(params, grads):\n"
        "    params = sgd(params, grads)  # rebind the name to the result: the old buffer is never read\n"
        "    return params\n"
    )
    not_flagged = (
        "`state = step(state, batch)` and `loss, state = step(state, batch)`, which rebind the name; a donating "
        "function called inside a function that jit (or a lax body, pmap) traces: there it is staged into the outer "
        "trace with tracers as arguments, and no buffer is donated; reads on a "
        "path where the donating call did not run (`try` handlers, the other branch of an `if`); arguments "
        'that are not plain names (`self.state`, `batch["x"]`), NumPy arrays and Python values (jax copies '
        "them to the device, so the caller's object is never deleted); a batch drawn from a Python iterator "
        "(`batch = next(it)`, `for batch in loader`), which a data pipeline yields as NumPy as often as not, unless "
        "the iterator puts it on the device (flax's `jax_utils.prefetch_to_device`, `map(jax.device_put, it)`) or a "
        "JAX array is stored in it; another name for the same array "
        "(`old = params` before the call); the metadata of an item of a donated dict reached by any key once the "
        'function shows it is a dict (`for k in batch["inputs"].keys(): batch["inputs"][k].shape`); a dict rebuilt '
        "from a donated pytree (`d = state.model_state.unfreeze()`, `FrozenDict(d)`, `dict(d)`) until a leaf "
        'of it is read (`"k" in d`, `del d["k"]`, `d["k"] = v` and `d.keys()` read none); callables jaxlint '
        "cannot see are jitted with donation (imported from "
        "another module, chosen at run time, bound more than once); `equinox.filter_jit(donate=...)`; "
        "`flax.nnx.jit(donate_argnums=...)`, which writes the results back into the donated Modules and "
        "Optimizers, so they stay usable."
    )
    verify = (
        "Not confirmed by `--verify`: it traces functions without running them, and only running the "
        "donating call deletes the buffer."
    )

    def visit_Module(self, node: cst.Module) -> None:
        self._reported: set[int] = set()  # each read is reported once
        self._quiet: set[int] = set()  # statements inside blocks that expect an error
        self._expecting = 0

    def _statement(self, node: cst.CSTNode) -> None:
        if self.facts.in_test_file:
            return  # tests read donated arrays on purpose, to check they were deleted
        if self._expecting:
            self._quiet.add(id(node))
        for read, donation in self.facts.donations.reads(node):
            self._flag(node, read, donation)

    visit_Assign = visit_AnnAssign = visit_AugAssign = visit_Expr = visit_Return = _statement
    visit_Raise = visit_Assert = visit_Del = visit_If = visit_While = visit_For = _statement
    visit_FunctionDef = visit_ClassDef = visit_Match = visit_MatchCase = _statement

    def visit_With(self, node: cst.With) -> None:
        self._statement(node)  # its items
        self._expecting += expects_error(node, self.names)

    def leave_With(self, node: cst.With) -> None:
        self._expecting -= expects_error(node, self.names)

    def leave_Module(self, node: cst.Module) -> None:
        if self.facts.in_test_file:
            return
        for read, donation in self.facts.donations.passed_twice:
            name, function = read.value, callee_name(donation.call)
            self.report(
                read,
                f"`{name}` is donated to `{function}` and passed again in the same call: XLA refuses a buffer "
                f"given as a donated input and as a live one (`JaxRuntimeError: Attempt to use a buffer that was "
                f"previously donated in the same call`); pass a copy (`jnp.copy({name})`), or do not donate `{name}`",
            )

    def _leave_loop(self, node: cst.For | cst.While) -> None:
        for statement, read, donation in self.facts.donations.read_again(node):
            if not self.facts.in_test_file:
                self._flag(statement, read, donation)

    leave_For = leave_While = _leave_loop

    def _flag(self, statement: cst.CSTNode, read: cst.Name, donation: Donation) -> None:
        if id(read) in self._reported or id(statement) in self._quiet:
            return
        self._reported.add(id(read))
        options = option_text(donation.callee, "donate_argnums", "donate_argnames")
        name, function = read.value, callee_name(donation.call)
        when = " in the previous iteration" if read is donation.argument else ""
        self.report(
            read,
            lambda line_of: (
                f"`{name}` was donated to `{function}` at line {line_of(donation.call)}{when}"
                f"{f' ({options})' if options else ''} and is read here: jax deleted its buffer, so this raises "
                f"`RuntimeError: Array has been deleted`; use the call's result (`{name} = {function}(...)`), "
                f"or do not donate `{name}`"
            ),
        )
