"""JAX606 zero-gradient: A differentiated function whose output depends on its input only through comparisons, rounding
or casts."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.dependence import DependenceWalk
from jaxlint.analysis.traced import AppliedTransform, has_own_rule
from jaxlint.checks.base import Rule, code
from jaxlint.checks.transforms._common import returns_aux
from jaxlint.model.transforms import GRADIENTS


class ZeroGradient(Rule):
    code = "JAX606"
    name = "zero-gradient"
    summary = "A differentiated function whose output depends on its input only through comparisons, rounding or casts"
    what_it_does = (
        "Flags `jax.grad(f)` (and `value_and_grad`, `jacrev`, `jacfwd`, `hessian`, `jax.vjp`) when every way "
        "`f`'s output depends on its differentiated arguments, as its body shows, goes through an operation "
        "whose derivative is zero: a comparison (`x > 0`), `jnp.round`/`floor`/`ceil`/`sign`/`argmax`/"
        "`argmin`/`argsort`, `//`, a cast to an integer or boolean dtype (`x.astype(jnp.int32)`, `int(x)`), "
        "the condition of a `jnp.where`, or an index (`table[jnp.argmax(x)]`). Helpers of the same module "
        "it calls are followed, two calls deep (`1.0 - accuracy(predict(params, x), labels)`)."
    )
    why_bad = (
        "These operations are piecewise constant, and JAX defines their derivative as zero everywhere. When "
        "the output reaches the input only through them, the gradient is all zeros, silently: training "
        "does not move, and nothing says why. `jax.grad(lambda w: jnp.mean(((x * w) > 0.5).astype(jnp.float32)))"
        "(1.0)` is `0.0`, and so are the gradients of `jnp.round(x).sum()`, `jnp.sign(x).sum()` and "
        "`jnp.where(x > 0, 1.0, 0.0).sum()` (jax 0.10.2; when the output stays an integer or boolean array, "
        "as in `(x > 0).sum()`, `grad` raises `TypeError: grad requires real-valued outputs` instead). "
        "Differentiate a smooth surrogate (`jax.nn.sigmoid` for a step, `jax.nn.softmax` for an `argmax`, "
        "`jax.nn.soft_sign` for `sign`, a cross-entropy for an accuracy), or pass the gradient straight "
        'through: `x + lax.stop_gradient(jnp.round(x) - x)`. The JAX FAQ explains it: ["Why are gradients '
        'zero for functions based on sort order?"]'
        "(https://docs.jax.dev/en/latest/faq.html#why-are-gradients-zero-for-functions-based-on-sort-order)."
    )
    example = (
        "def accuracy_loss(w, x, labels):\n"
        "    predictions = (x @ w > 0.0).astype(jnp.float32)\n"
        "    return -jnp.mean(predictions == labels)\n\n\n"
        "grads = jax.grad(accuracy_loss)(w, x, labels)\n"
    )
    use_instead = (
        "def logistic_loss(w, x, labels):\n"
        "    logits = x @ w\n"
        "    return jnp.mean(jax.nn.softplus(logits) - labels * logits)\n\n\n"
        "grads = jax.grad(logistic_loss)(w, x, labels)\n"
    )
    not_flagged = (
        "Outputs with any differentiable path to a differentiated argument, however small "
        "(`x * (x > 0)` is a ReLU); straight-through estimators and anything under `lax.stop_gradient` (a "
        "deliberate cut); outputs that do not depend on the arguments at all; functions whose body the "
        "analysis does not model (nested functions, `try`, `match`, `global`); calls of other modules' "
        "functions, of methods and of decorated helpers, which are taken as differentiable; functions with "
        "a decorator other than a jax transform; functions with their own derivative rule (`jax.custom_jvp`, "
        "`jax.custom_vjp`), which the gradient runs in place of the body."
    )
    verify = "Not confirmed by `--verify` yet: the gradient is all zeros."

    def _check(self, function: cst.FunctionDef | cst.Lambda, name: str, decorators: list[AppliedTransform]) -> None:
        applied = [*decorators, *self.facts.applied(function)]
        if has_own_rule(applied):
            return  # differentiated by its own rule (a straight-through estimator), not through its body
        for transform in applied:
            if transform.name not in GRADIENTS:
                continue
            params = self.facts.traced_params(function, transform)
            if not params:
                continue
            walk = DependenceWalk(self.names, params, self._def_of)
            output = walk.output(function, returns_aux(transform) is not False)
            if output is None or output.smooth or not output.cut:
                continue
            param, operation = output.cut[0]
            self.report(
                transform.node,
                lambda line_of, transform=transform, param=param, operation=operation: (  # type: ignore[misc]  # mypy cannot infer a lambda whose extra parameters have defaults
                    f"`{transform.name}` differentiates {name} with respect to `{param}`, but its output depends on "
                    f"`{param}` only through `{code(operation)}` (line {line_of(operation)}) and operations like it, "
                    f"whose derivative is zero: the gradient is zero everywhere, silently; differentiate a smooth "
                    f"surrogate (a sigmoid for a step, a cross-entropy for an accuracy), or pass the gradient "
                    f"straight through (`x + lax.stop_gradient(jnp.round(x) - x)`)"
                ),
            )

    def _def_of(self, name: cst.Name) -> cst.CSTNode | None:
        found = self.facts.binding(name, want_def=True)
        return found[0] if found is not None and not found[2] else None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        decorators = self.facts.decorating_transforms(node)
        if decorators is not None:  # else another decorator may change what the function computes
            self._check(node, f"`{node.name.value}`", decorators)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._check(node, "the lambda", [])
