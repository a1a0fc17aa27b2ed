"""JAX601 grad-non-scalar: `jax.grad`/`value_and_grad` of a function that returns a tuple, list or dict, without
`has_aux=True`."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.traced import AppliedTransform
from jaxlint.checks.base import Rule, code
from jaxlint.checks.transforms._common import returns_aux
from jaxlint.model.transforms import SCALAR_OUTPUT


# Transforms that need a scalar output: the function's value is what they differentiate.
_KINDS = {cst.Tuple: "a tuple", cst.List: "a list", cst.ListComp: "a list", cst.Dict: "a dict", cst.DictComp: "a dict"}


class GradNonScalar(Rule):
    code = "JAX601"
    name = "grad-non-scalar"
    summary = "`jax.grad`/`value_and_grad` of a function that returns a tuple, list or dict, without `has_aux=True`"
    what_it_does = (
        "Flags `jax.grad(f)` and `jax.value_and_grad(f)` (as a decorator, a wrapping call, through a name or "
        "`functools.partial`) when `f` returns a tuple, list or dict on every path: a literal such as "
        "`return loss, aux`, a local name only ever bound to one, or a call of a function of the same module "
        "that does; `f` may be defined in another module of the project (`jax.grad(losses.loss_fn)`). "
        "`has_aux=` is missing or `False`."
    )
    why_bad = (
        "`grad` differentiates the function's output, which must be a scalar. A function that returns "
        "`(loss, metrics)` makes the gradient call raise `TypeError: Gradient only defined for scalar-output "
        "functions. Output was (...)` (jax 0.10.2, for tuples, lists and dicts alike, one-element tuples "
        "included). To return extra values next to the loss, return a pair `(loss, aux)` and pass "
        "`has_aux=True`: jax differentiates the first element and hands the second back unchanged. The "
        "[`jax.grad`](https://docs.jax.dev/en/latest/_autosummary/jax.grad.html) and "
        "[`jax.value_and_grad`](https://docs.jax.dev/en/latest/_autosummary/jax.value_and_grad.html) "
        'documentation says `fun` "should return a scalar" and '
        "describes `has_aux`."
    )
    example = (
        "def loss_fn(params, x, y):\n"
        "    pred = x @ params\n"
        "    loss = jnp.mean((pred - y) ** 2)\n"
        "    return loss, pred\n\n\n"
        "grads = jax.grad(loss_fn)(params, x, y)\n"
    )
    use_instead = (
        "def loss_fn(params, x, y):\n"
        "    pred = x @ params\n"
        "    loss = jnp.mean((pred - y) ** 2)\n"
        "    return loss, pred\n\n\n"
        "grads, pred = jax.grad(loss_fn, has_aux=True)(params, x, y)\n"
    )
    not_flagged = (
        "`has_aux=True`, or a `has_aux=` that is not a literal; functions that return a container on some "
        "paths only (`return loss, aux` under `if return_aux:`, with `partial(loss_fn, return_aux=False)` "
        "given to `grad`); functions whose output is a non-scalar array (their shapes are not known "
        "statically); functions with a decorator other than a jax transform (it may change what they "
        "return); `jax.jacfwd`/`jacrev`/`hessian`, which accept any output; functions of other modules that "
        "return a container through a call of a third module, and modules outside the project (installed "
        "packages)."
    )
    verify = "Not confirmed by `--verify` yet: calling the gradient raises the `TypeError` quoted above."

    def _check(self, function: cst.CSTNode, name: str, decorators: list[AppliedTransform]) -> None:
        applied = [*decorators, *self.facts.applied(function)]
        transforms = [t for t in applied if t.name in SCALAR_OUTPUT and returns_aux(t) is False]
        if not transforms:
            return
        returned = self.facts.returned_container(function)
        if returned is None:
            return
        shown = code(returned)
        what = _KINDS[type(returned)] + (f" (`{shown}`)" if shown != "..." else "")
        pair = isinstance(returned, cst.Tuple) and len(returned.elements) == 2
        remedy = (
            "pass `has_aux=True` to differentiate the first element and get the second back"
            if pair
            else "return `(loss, aux)` and pass `has_aux=True`"
        )
        for transform in transforms:
            self.report(
                transform.node,
                lambda line_of, transform=transform: (  # type: ignore[misc]  # mypy cannot infer a lambda whose extra parameters have defaults
                    f"`{transform.name}` needs {name} to return a scalar, but it returns {what} at line "
                    f'{line_of(returned)}: calling the gradient raises TypeError ("Gradient only defined for '
                    f'scalar-output functions"); {remedy}'
                ),
            )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        decorators = self.facts.decorating_transforms(node)
        if decorators is not None:  # else another decorator may change what calling the function gives
            self._check(node, f"`{node.name.value}`", decorators)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._check(node, "the lambda", [])

    def visit_Call(self, node: cst.Call) -> None:
        """`jax.grad(loss_fn)` of a function another module of the project defines."""
        for target, transform in self.facts.transformed_by(node):
            if transform.name not in SCALAR_OUTPUT or returns_aux(transform) is not False:
                continue
            literal = self.facts.imported_literal(target)
            if literal is None:
                continue
            pair = literal.startswith("a tuple (`") and literal.count(",") == 1
            remedy = (
                "pass `has_aux=True` to differentiate the first element and get the second back"
                if pair
                else "return `(loss, aux)` and pass `has_aux=True`"
            )
            self.report(
                node,
                (
                    f"`{transform.name}` needs `{code(target)}` to return a scalar, but it returns {literal}: calling "
                    f'the gradient raises TypeError ("Gradient only defined for scalar-output functions"); {remedy}'
                ),
            )
