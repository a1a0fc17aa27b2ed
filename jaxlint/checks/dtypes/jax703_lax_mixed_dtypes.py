"""JAX703 lax-mixed-dtypes: A `lax` binary op given an int and a float (or complex) operand."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.calls import arguments
from jaxlint.analysis.expected_errors import ExpectedErrors
from jaxlint.model.functions import TYPE_ERRORS
from jaxlint.checks.base import Rule, code
from jaxlint.model.dtypes import DTYPE_KINDS, FLOAT_MAKERS, SAME_DTYPE_LAX_OPS


class LaxMixedDtypes(ExpectedErrors, Rule):
    code = "JAX703"
    raises = TYPE_ERRORS  # caught around the call, the error is shown on purpose
    name = "lax-mixed-dtypes"
    summary = "A `lax` binary op given an int and a float (or complex) operand"
    what_it_does = (
        "Flags `lax.add`, `sub`, `mul`, `div`, `rem`, `max`, `min` and the comparisons `eq`, `ne`, `lt`, `le`, "
        "`gt`, `ge` when their two operands are visibly of different kinds: Python int, float or complex "
        "literals, `jnp.float32(...)`-style scalars, `.astype(jnp.int32)`-style casts, or `jnp.zeros/ones/empty` "
        "(and their `_like` forms) without a `dtype`, which are floats."
    )
    why_bad = (
        "`lax` functions do not promote dtypes, and a Python int is an integer even next to a float array. "
        "With jax 0.10.2 `lax.add(jnp.ones(2), 1)` and `lax.add(1, 2.0)` raise `TypeError: lax.add requires "
        "arguments to have the same dtypes, got float32, int32.` (`lax.add(jnp.ones(2), 1.5)` works: a float "
        "literal is weakly typed); the message itself suggests the `jnp` function. See "
        "[`jax.lax`](https://docs.jax.dev/en/latest/jax.lax.html) and [type "
        "promotion](https://docs.jax.dev/en/latest/type_promotion.html)."
    )
    example = (
        "import jax.numpy as jnp\nfrom jax import lax\n\n\ndef first_step():\n    return lax.add(jnp.zeros(()), 1)\n"
    )
    use_instead = (
        "import jax.numpy as jnp\n"
        "from jax import lax\n\n\n"
        "def first_step():\n"
        "    return lax.add(jnp.zeros(()), 1.0)  # or jnp.add(jnp.zeros(()), 1), which promotes\n"
    )
    not_flagged = (
        "Operands whose dtype jaxlint cannot see (parameters, results of other calls, names); `jnp` functions "
        "(they promote); `lax.pow` (an integer exponent is allowed); `lax.atan2`, `nextafter` and `complex`, "
        "which reject the mix with other messages. Calls inside a `try` whose handler catches the TypeError (or `Exception`, or a bare `except:`) "
        "and does not raise again, which shows the error on purpose."
    )
    verify = "Not confirmed by `--verify` yet: `--verify` traces the function and would see the `TypeError`."

    def visit_Call(self, node: cst.Call) -> None:
        op = self.names.qualified(node.func)
        if op not in SAME_DTYPE_LAX_OPS:
            return
        given = arguments(node)
        if len(given.positional) != 2 or given.starred:
            return
        left, right = given.positional
        left_kind, right_kind = self._kind(left), self._kind(right)
        if left_kind is None or right_kind is None or left_kind == right_kind:
            return
        name = op.rpartition(".")[2]
        self.report(
            node,
            (
                f"`{code(node.func)}` gets {_article(left_kind)} (`{code(left)}`) and {_article(right_kind)} "
                f"(`{code(right)}`): lax does not promote dtypes, so this raises `TypeError: lax.{name} requires "
                f"arguments to have the same dtypes`; use `{SAME_DTYPE_LAX_OPS[op]}`, which promotes, or make both "
                f"operands the same kind"
            ),
        )

    def _kind(self, expr: cst.BaseExpression) -> str | None:
        """ "int", "float" or "complex" when the source shows it, else None."""
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
            expr = expr.expression
        if isinstance(expr, cst.Integer):
            return "int"
        if isinstance(expr, cst.Float):
            return "float"
        if isinstance(expr, cst.Imaginary):
            return "complex"
        if not isinstance(expr, cst.Call):
            return None
        func = self.names.qualified(expr.func)
        if func in DTYPE_KINDS:
            return DTYPE_KINDS[func]
        if func in FLOAT_MAKERS:
            dtype_given = any(arg.keyword is not None and arg.keyword.value == "dtype" for arg in expr.args)
            return None if dtype_given or len(expr.args) != 1 or expr.args[0].keyword else "float"
        if (
            isinstance(expr.func, cst.Attribute)
            and expr.func.attr.value == "astype"
            and len(expr.args) == 1
            and expr.args[0].keyword is None
        ):
            return DTYPE_KINDS.get(self.names.qualified(expr.args[0].value) or "")
        return None


def _article(kind: str) -> str:
    return f"an {kind}" if kind == "int" else f"a {kind}"
