"""JAX603 vmap-in-axes-arity: A `vmap` `in_axes` tuple whose length is not the number of positional arguments."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.callees import JittedCallee
from jaxlint.analysis.calls import arguments
from jaxlint.analysis.expected_errors import ExpectedErrors
from jaxlint.checks.base import CalleeRule, code


def _axes_count(callee: JittedCallee) -> int | None:
    """How many positional arguments a literal `in_axes` tuple (or list) describes."""
    in_axes = callee.options.get("in_axes")
    if not isinstance(in_axes, (cst.Tuple, cst.List)):
        return None
    if any(isinstance(element, cst.StarredElement) for element in in_axes.elements):
        return None
    return len(in_axes.elements)


class VmapInAxesArity(ExpectedErrors, CalleeRule):
    code = "JAX603"
    name = "vmap-in-axes-arity"
    summary = "A `vmap` `in_axes` tuple whose length is not the number of positional arguments"
    what_it_does = (
        "Flags a call of a `jax.vmap`ped callable with a literal `in_axes` tuple (or list) when the call passes a "
        "different number of positional arguments, and a `jax.vmap(f, in_axes=...)` whose tuple is longer than "
        "the positional parameters `f` visibly takes (no `*args`). The vmapped callable is followed as JAX5xx "
        "rules follow jitted ones: called directly, bound to a name or `self.attr`, `@partial(jax.vmap, "
        "in_axes=...)`, also under `jax.jit(...)`; `partial` arguments are taken into account."
    )
    why_bad = (
        "`in_axes` must have one entry per positional argument of the call. With jax 0.10.2, "
        "`jax.vmap(f, in_axes=(0, None, 0))(x, y)` raises `ValueError: vmap in_axes must be an int, None, or a "
        "tuple of entries corresponding to the positional arguments passed to the function, but got "
        "len(in_axes)=3, len(args)=2`, and an `in_axes` longer than `f`'s parameters fails at every call "
        "(`TypeError: f() takes 2 positional arguments but 3 were given`). Keyword arguments are not counted: "
        "they are always mapped over axis 0. See "
        "[`jax.vmap`](https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html)."
    )
    example = (
        "import jax\n\n\n"
        "def predict(params, x):\n"
        "    return params @ x\n\n\n"
        "batched = jax.vmap(predict, in_axes=(None, 0, 0))\n\n\n"
        "def run(params, xs):\n"
        "    return batched(params, xs)\n"
    )
    use_instead = (
        "import jax\n\n\n"
        "def predict(params, x):\n"
        "    return params @ x\n\n\n"
        "batched = jax.vmap(predict, in_axes=(None, 0))\n\n\n"
        "def run(params, xs):\n"
        "    return batched(params, xs)\n"
    )
    not_flagged = (
        "`in_axes` given as an int, `None`, a dict or a variable; calls with `*args`; keyword arguments (never "
        "counted); callees jaxlint cannot resolve; `jax.pmap` and the `vmap`s of other libraries."
    )
    verify = "Not confirmed by `--verify` yet: the error is raised when the vmapped function is called."

    def visit_Module(self, node: cst.Module) -> None:
        self._reported: set[int] = set()  # in_axes already reported at a call: one finding per mistake

    def visit_Call(self, node: cst.Call) -> None:
        application = self.facts.vmap_made(node)
        if application is not None and application.where is node:
            self._check_signature(application)
        callee = self.facts.mapped(node)
        if callee is None:
            return
        expected = _axes_count(callee)
        given = arguments(node)
        if expected is None or given.starred:
            return
        passed = len(given.positional) + callee.offset
        if passed != expected:
            self._reported.add(id(callee.options["in_axes"]))
            axes = code(callee.options["in_axes"])
            self.report(
                node,
                lambda line_of: (
                    f"`in_axes={axes}` (line {line_of(callee.options['in_axes'])}) has {expected} "
                    f"entr{'y' if expected == 1 else 'ies'} but this call passes {passed} positional "
                    f"argument{'' if passed == 1 else 's'}: this raises `ValueError: vmap in_axes must be ... a tuple of "
                    f"entries corresponding to the positional arguments`; give one entry per positional argument"
                ),
            )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        callee = self.facts.vmap_decorated(node)
        if callee is not None:
            self._check_signature(callee)

    def _check_signature(self, callee: JittedCallee) -> None:
        expected = _axes_count(callee)
        function = callee.function
        if (
            expected is None
            or function is None
            or isinstance(function.params.star_arg, cst.Param)
            or id(callee.options["in_axes"]) in self._reported
        ):
            return
        signature = callee.signature
        if signature is None or expected <= len(signature.positional):
            return
        name = function.name.value if isinstance(function, cst.FunctionDef) else "the lambda"
        count = len(signature.positional)
        self.report(
            callee.options["in_axes"],
            (
                f"`in_axes` has {expected} entries but `{name}` takes {count} positional "
                f"parameter{'' if count == 1 else 's'}{' after those bound' if callee.bound else ''}: every call "
                f"fails (`ValueError` on the count of arguments, or `TypeError` from `{name}`); give one entry per "
                f"positional parameter"
            ),
        )
