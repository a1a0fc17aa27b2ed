"""JAX305 numpy-on-tracer: A NumPy, SciPy or `math` function called on a traced value."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import cast

import libcst as cst

from jaxlint.analysis.calls import argument
from jaxlint.analysis.values import Kind, Value
from jaxlint.checks.base import FixPlan, Rule, code
from jaxlint.checks.tracers._common import only_traced, static_hint
from jaxlint.diagnostics import SAFE, UNSAFE
from jaxlint.model.numpy_boundary import (
    ARITHMETIC_ARGUMENTS,
    ARRAY_KEYWORDS,
    LIST_THROUGH_NUMPY,
    MATH_BY_OPERATORS,
    NUMPY_CONVERSION_ERRORS,
    RAISES_TYPE_ERROR,
    READS_SHAPE_OR_DTYPE,
    STORES_AS_GIVEN,
    TAKES_TRACED_ARRAY,
    TAKE_SEQUENCES,
    WEAKLY_REFERENCING,
)
from jaxlint.model.functions import JAX_NUMPY


class NumpyOnTracer(Rule):
    code = "JAX305"
    trace_error = "TypeError"
    name = "numpy-on-tracer"
    summary = "A NumPy, SciPy or `math` function called on a traced value"
    what_it_does = (
        "Flags `np.<function>(x)`, `np.asarray(x)`, `np.float32(x)`, `scipy.<...>(x)` and `math.<function>(x)` "
        "when an argument is a traced value inside a transformed function (jit, vmap, grad, lax bodies), "
        "with `import numpy as np`, `import numpy as onp`, `from numpy import ...` alike; a list or tuple "
        "holding traced values given to NumPy (`np.asarray([x, y])`, `np.shape([x, y])`) or to `jnp.ndim`, "
        "`jnp.shape` and `jnp.size` (which read a list's shape through NumPy); a traced section count or "
        "axis given to the NumPy functions that otherwise work on tracers (`np.split(x, n)`, "
        "`np.sum(x, axis)`); a NumPy function through a parameter defaulting to NumPy (`xnp.stack(...)` of "
        "`def f(..., xnp=np)`) that a traced call leaves out; and a NumPy function given to a transform "
        "(`jax.jit(np.cumsum)`, `jax.vmap(np.linalg.norm)`)."
    )
    why_bad = (
        "NumPy needs concrete data: converting a tracer raises `TracerArrayConversionError` (and the `math` "
        "functions, which convert their arguments to a C double or int, raise `ConcretizationTypeError`). "
        "Under `grad` the conversion would also drop the "
        "gradient. The `jax.numpy` function of the same name works on tracers."
    )
    example = "@jax.jit\ndef normalize(x):\n    return x / np.linalg.norm(x)\n"
    use_instead = "@jax.jit\ndef normalize(x):\n    return x / jnp.linalg.norm(x)\n"
    not_flagged = (
        "NumPy on static values (`np.prod(x.shape)`, `np.zeros(3)`, `np.float32` as a dtype), the "
        "shape and dtype helpers (`np.shape`, `np.ndim`, `np.size`, `np.result_type`, `np.dtype`, "
        "`np.iinfo`, `np.finfo`, `np.issubdtype`, `np.promote_types`, `np.can_cast`), the NumPy functions "
        "that slice a traced array or hand it to its own method when their other arguments are static "
        "(`np.split(x, 3, axis=-1)`, `np.array_split`, `np.sum(x, axis=0)`, `np.reshape`, `np.swapaxes`, "
        "`np.flip`...: checked under `jax.jit` with jax 0.10.2), `jax.vmap(np.sum)` and `jax.grad(np.sum)` "
        "(which call `x.sum()`), `math.prod` and `math.sumprod` (they multiply with `*` and convert nothing: "
        "`math.prod(xs, start=x)` of tracers is a traced product), SciPy's result containers (`OdeResult(t=ts, "
        "y=ys)`, `OptimizeResult`: dicts that keep what they are given), NumPy outside traced functions, and NumPy "
        "in the "
        "body of a `try` whose "
        "handler catches the error (`except TypeError:`, `except Exception:`, or the jax error by name: each "
        "is a TypeError), a concrete-only check that jit skips on purpose."
        " Nor code of a function whose every trace starts in a `try` that catches this error and does not "
        "raise again (a lesson's failing first attempt, `try: jax.jit(f)(x) except Exception as e: print(e)`)."
    )
    verify = "`--verify` traces the function and expects `TracerArrayConversionError` at this line."
    fixable = True
    fix_safety = (
        "For a `numpy` function that `jax.numpy` also has (`np.linalg.norm` -> `jnp.linalg.norm`, "
        "spelled through the file's own alias). Safe in a function decorated with a transform (or nested in "
        "one), whose code only ever runs traced: the original raises, and the `jax.numpy` function computes "
        "the same result on the traced value. Unsafe in a helper that a traced caller passes tracers to, in "
        "a function wrapped by a call (`jax.jit(f)`, `jax.grad(loss)`) and under `custom_jvp`/`custom_vjp`: "
        "called directly with NumPy arrays, the function returned NumPy results (float64 by default) and "
        "would return JAX arrays (float32). A NumPy function given to a transform (`jax.jit(np.cumsum)` -> "
        "`jax.jit(jnp.cumsum)`) is safe: the transformed function raised on every call. Not fixed: calls with "
        "`out=`, `scipy` and `math` functions, lists given to `np.shape` or `jnp.ndim`, traced section counts "
        "and axes."
    )

    _NAMESPACES = ("numpy.", "scipy.", "math.")

    def visit_Call(self, node: cst.Call) -> None:
        self._transformed(node)
        if self.facts.catches(NUMPY_CONVERSION_ERRORS):
            return  # `try: int(np.asarray(n)) ... except TypeError:`: the error is caught, the code goes on
        qualified = self.names.qualified(node.func)
        defaulted = qualified is None and self.facts.defaulted_module_function(node.func)
        qualified = qualified or defaulted or None
        if qualified in LIST_THROUGH_NUMPY and node.args and isinstance(node.args[0].value, (cst.List, cst.Tuple)):
            found = _traced_within(self, node.args[0].value)
            if found is not None:
                self._report_list(node, *found)
            return
        if qualified is None or not qualified.startswith(self._NAMESPACES) or qualified in MATH_BY_OPERATORS:
            return  # (`math.prod` multiplies with `*`: a traced product)
        if qualified in STORES_AS_GIVEN:
            return  # `OdeResult(t=ts, y=ys)`: a dict that holds the tracers as they are
        if qualified.startswith("numpy.random."):
            return  # JAX204 stateful-rng-in-traced covers NumPy's random state
        for index, arg in enumerate(node.args):
            if arg.star:
                return
            literal = isinstance(arg.value, (cst.List, cst.Tuple))
            found = _traced_within(self, arg.value) if isinstance(arg.value, (cst.List, cst.Tuple)) else None
            value = found[1] if found else self.facts.value_of(arg.value)
            if value.kind is not Kind.TRACED:
                continue
            if qualified.startswith("math.") and not (value.staged or value.differentiated):
                continue
            if qualified in ARITHMETIC_ARGUMENTS and argument(node, *ARITHMETIC_ARGUMENTS[qualified]) is arg.value:
                continue  # `np.fft.fftfreq(n, d)` divides by a traced `d` with its operators: a traced result
            held_list = not literal and value.is_sequence  # a name holding a list or tuple of tracers
            if qualified in READS_SHAPE_OR_DTYPE:
                if literal or held_list:
                    self._report_list(node, found[0] if found else arg.value, value)
                    return
                continue
            if not literal and not held_list and qualified in TAKES_TRACED_ARRAY:
                if self._array_argument(index, arg) or not value.staged:
                    continue
                self._report_static(node, arg.value, value)
                return
            operand = found[0] if found else arg.value
            short = qualified.split(".", 1)[1]
            fix = f"`jnp.{short}`" if qualified.startswith("numpy.") else "the `jax.numpy`/`jax.scipy` equivalent"
            if held_list and qualified.startswith("numpy.") and short not in TAKE_SEQUENCES:
                fix = f"`jnp.{short}(jnp.stack({code(operand)}))`"
            if defaulted:  # `xnp.stack` of `xnp=np` that a traced call leaves out: that call must pass `jnp`
                module = code(cast(cst.Attribute, node.func).value)
                fix = f"`jnp.{short}`: a traced call leaves `{module}` to its default, NumPy; pass `{module}=jnp` there"
            error = "ConcretizationTypeError" if qualified.startswith("math.") else "TracerArrayConversionError"
            error = "TypeError" if qualified in RAISES_TYPE_ERROR else error
            self.report(
                node,
                lambda line_of: (
                    f"`{code(node.func)}()` on a traced value raises {error}: "
                    f"`{code(operand)}` is traced ({value.describe(code(operand), line_of)}); use {fix}"
                ),
                None if held_list or defaulted else self._jax_numpy(node, qualified),
                because=value,
            )  # (`jnp.mean(a_list)` raises TypeError)
            return

    @staticmethod
    def _array_argument(index: int, arg: cst.Arg) -> bool:
        """The array a NumPy function works on: its first argument, or one of its names given by keyword."""
        return arg.keyword.value in ARRAY_KEYWORDS if arg.keyword is not None else index == 0

    def _report_static(self, node: cst.Call, operand: cst.BaseExpression, value: Value) -> None:
        hint = static_hint(self, value, operand)  # now: it reads the function around this point
        self.report(
            node,
            lambda line_of: (
                f"`{code(node.func)}()` takes a traced array but needs its other arguments concrete, and raises a "
                f"ConcretizationTypeError (or TracerIntegerConversionError): `{code(operand)}` is traced "
                f"({value.describe(code(operand), line_of)}); pass a static value{hint}"
            ),
            because=value,
        )

    def _report_list(self, node: cst.Call, operand: cst.BaseExpression, value: Value) -> None:
        self.report(
            node,
            lambda line_of: (
                f"`{code(node.func)}()` of a Python list reads its shape through NumPy, which raises "
                f"TracerArrayConversionError: `{code(operand)}` is traced ({value.describe(code(operand), line_of)}); "
                f"use `len(...)`, or stack the arrays first (`jnp.stack`)"
            ),
            because=value,
        )

    def _transformed(self, node: cst.Call) -> None:
        """`jax.jit(np.cumsum)`, `jax.vmap(np.linalg.norm)`: a NumPy function given to a transform."""
        for target, transform in self.facts.transformed_by(node):
            qualified = self.names.qualified(target) or ""
            if not qualified.startswith("numpy.") or qualified.startswith("numpy.random."):
                continue
            if transform.name in WEAKLY_REFERENCING:
                error = "raises TypeError when called: a NumPy function cannot be weakly referenced"
            elif qualified in READS_SHAPE_OR_DTYPE or qualified in TAKES_TRACED_ARRAY:
                continue
            else:
                error = "converts the tracers it is given and raises TracerArrayConversionError"
            short = qualified.split(".", 1)[1]
            self.report(
                target,
                lambda line_of, error=error, short=short, transform=transform: (  # type: ignore[misc]  # mypy cannot infer a lambda whose extra parameters have defaults
                    f"`{transform.name}` of the NumPy function `{code(target)}` {error}; "
                    f"transform `jnp.{short}` instead"
                ),
                self._jax_numpy_target(target, qualified),
            )

    def _jax_numpy(self, node: cst.Call, qualified: str) -> FixPlan | None:
        """`np.f(x)` -> `jnp.f(x)` when jax.numpy has `f` (and no `out=`, which jax.numpy refuses)."""
        short = qualified.split(".", 1)[1]
        if not qualified.startswith("numpy.") or short not in _jax_numpy_names():
            return None
        if any(arg.keyword is not None and arg.keyword.value == "out" for arg in node.args):
            return None
        return self.rename(node.func, JAX_NUMPY + short, SAFE if only_traced(self) else UNSAFE)

    def _jax_numpy_target(self, target: cst.BaseExpression, qualified: str) -> FixPlan | None:
        """`jax.jit(np.cumsum)` -> `jax.jit(jnp.cumsum)`: the original fails on every call."""
        short = qualified.split(".", 1)[1]
        if short not in _jax_numpy_names():
            return None
        return self.rename(target, JAX_NUMPY + short, SAFE)


def _traced_within(rule: Rule, expr: cst.List | cst.Tuple) -> tuple[cst.BaseExpression, Value] | None:
    """A traced element of a list or tuple literal (nested ones too), with its value."""
    for element in expr.elements:
        item = element.value
        value = rule.facts.value_of(item)
        if value.kind is Kind.TRACED and not isinstance(item, (cst.List, cst.Tuple)):
            return item, value
        if isinstance(item, (cst.List, cst.Tuple)):
            found = _traced_within(rule, item)
            if found is not None:
                return found
    return None


@lru_cache(maxsize=1)
def _jax_numpy_names() -> frozenset[str]:
    """What jax.numpy shares with NumPy (data/jax_numpy_names.txt), read the first time a fix needs it."""
    text = (Path(__file__).resolve().parents[2] / "data" / "jax_numpy_names.txt").read_text(encoding="utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))
