"""JAX512 non-array-jit-argument: A string or a function passed in a position a jitted callable traces."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.expected_errors import ExpectedErrors
from jaxlint.analysis.values import STRING_LITERALS
from jaxlint.checks.base import CalleeRule, code
from jaxlint.model.functions import TYPE_ERRORS
from jaxlint.model.transforms import JITS


class NonArrayJitArgument(ExpectedErrors, CalleeRule):
    code = "JAX512"
    name = "non-array-jit-argument"
    summary = "A string or a function passed in a position a jitted callable traces"
    what_it_does = (
        "Flags an argument of a call to a jitted callable, in a position that is not static, that is visibly a "
        "string or a function: a string literal or f-string, a lambda, a def of the module, a name bound once to "
        "one of those, or a dict, list or tuple display holding one among its values (`{'side': 'bid'}`). "
        "The callee is found as JAX502 finds it (`jax.jit(f)` assigned to a name, `@jax.jit`, `@partial(jax.jit, "
        "...)`, aliases), and its static positions must be literals."
    )
    why_bad = (
        "jit turns every argument it does not keep static into an abstract array (each leaf of a pytree), and "
        "a string or a function has no array form. With jax 0.10.2 the call raises `TypeError: Error "
        "interpreting argument to <PjitFunction of <function step>> as an abstract array. The problematic value "
        "is of type <class 'str'> and was passed to the function at path mode.` at every call, before tracing. "
        "A dict key is pytree structure and may be a string; its values are leaves. See `static_argnums` in "
        "[`jax.jit`](https://docs.jax.dev/en/latest/_autosummary/jax.jit.html)."
    )
    example = (
        "import jax\n"
        "import jax.numpy as jnp\n\n\n"
        "@jax.jit\n"
        "def activate(x, kind):\n"
        "    return jnp.tanh(x) if kind == 'tanh' else jax.nn.relu(x)\n\n\n"
        "y = activate(jnp.ones(3), 'tanh')\n"
    )
    use_instead = (
        "import jax\n"
        "import jax.numpy as jnp\n"
        "from functools import partial\n\n\n"
        "@partial(jax.jit, static_argnames='kind')\n"
        "def activate(x, kind):\n"
        "    return jnp.tanh(x) if kind == 'tanh' else jax.nn.relu(x)\n\n\n"
        "y = activate(jnp.ones(3), 'tanh')\n"
    )
    not_flagged = (
        "Static positions; strings as dict keys; `None`, numbers and booleans (jit makes weakly typed arrays of "
        "them); names and attributes bound more than once or to values jaxlint cannot see; callees whose static "
        "positions are not literals; `jax.pmap` and other transforms."
    )
    verify = "`--verify` runs the call and expects the `TypeError` at this line."
    raises = TYPE_ERRORS  # caught around the call, the error is shown on purpose

    def visit_Call(self, node: cst.Call) -> None:
        found = self.jitted_arguments(node)
        if found is None or found[0].transform not in JITS:
            return
        _, arguments = found
        for argument in arguments:
            if argument.static is not False:
                continue
            kind = self._non_array(argument.expr, 0)
            if kind is None:
                continue
            where = f"`{argument.param}`" if argument.param else "a position it traces"
            self.report(
                argument.expr,
                (
                    f"`{code(argument.expr)}` is {kind}, passed to the jitted `{code(node.func)}` as {where}, "
                    f"which jit turns into an array: this raises `TypeError: Error interpreting argument ... as an "
                    f"abstract array` at every call; make the parameter static (`static_argnames`) or pass arrays"
                ),
            )

    def _non_array(self, expr: cst.BaseExpression, depth: int) -> str | None:
        """What visibly has no array form in `expr`, or None."""
        if type(expr) in STRING_LITERALS:
            return "a string"
        if isinstance(expr, cst.Lambda):
            return "a function"
        if isinstance(expr, cst.Dict):
            inner = [self._non_array(e.value, depth) for e in expr.elements if isinstance(e, cst.DictElement)]
            return next((f"a dict holding {kind}" for kind in inner if kind), None)
        if isinstance(expr, (cst.List, cst.Tuple)):
            inner = [self._non_array(e.value, depth) for e in expr.elements if isinstance(e, cst.Element)]
            container = "a list" if isinstance(expr, cst.List) else "a tuple"
            return next((f"{container} holding {kind}" for kind in inner if kind), None)
        if isinstance(expr, cst.Name) and depth == 0:
            found = self.facts.binding(expr, want_def=True)
            if found is None:
                return None
            if isinstance(found[0], cst.FunctionDef):
                return "a function"
            if isinstance(found[0], cst.BaseExpression):
                return self._non_array(found[0], depth + 1)
        return None
