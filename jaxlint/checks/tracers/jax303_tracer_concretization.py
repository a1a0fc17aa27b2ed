"""JAX303 tracer-concretization: `int()`, `float()`, `.item()`, `.tolist()` or an `axis=` argument given a traced
value."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.values import Value
from jaxlint.checks.base import Rule, code
from jaxlint.checks.tracers._common import static_hint
from jaxlint.model.axes import FUNCTION_AXES, METHOD_AXES, traced_axis_error
from jaxlint.model.functions import CATCH_ALL, JAX_LAX, JAX_NUMPY, TRACE_ERRORS


class TracerConcretization(Rule):
    code = "JAX303"
    trace_error = "TypeError"
    name = "tracer-concretization"
    summary = "`int()`, `float()`, `.item()`, `.tolist()` or an `axis=` argument given a traced value"
    what_it_does = (
        "Flags conversions of a traced value to a Python number or list inside a jitted (or vmapped, "
        "lax-body) function: `int(x)`, `float(x)`, `complex(x)`, `operator.index(x)`, `x.item()`, "
        "`x.tolist()`, a traced value passed as `axis=` or `k=` to a `jax.numpy` or `jax.lax` "
        "function or an array method, and a traced axis given by position (`x.sum(a)`, `jnp.min(x, a)`, "
        "`jnp.take(x, i, a)`)."
    )
    why_bad = (
        "A tracer has no concrete value while the function is traced, so JAX raises "
        "`ConcretizationTypeError`. An axis must be a Python int while tracing: a traced one raises "
        "`ConcretizationTypeError`, `TracerIntegerConversionError` (`argmax`, `take`, `concatenate`) or a "
        "`ValueError` about non-hashable static arguments (`cumsum`, `sort`, `median`), by function (jax "
        "0.10.2). Keep the value as an array (`x.astype(jnp.int32)`), or make the argument static when it "
        "really is a configuration value."
    )
    example = "@jax.jit\ndef scale(x, factor):\n    return x * float(factor)\n"
    use_instead = "@jax.jit\ndef scale(x, factor):\n    return x * factor.astype(x.dtype)\n"
    not_flagged = (
        "Conversions of static values: `int(x.shape[0])`, `float(learning_rate)` of a static argument, "
        "`len(x)`. `jnp.float32(x)` and `x.astype(...)`, which stay arrays. Under `grad` alone (no `jit`), "
        "`int()`, `.item()` and `.tolist()` see the value and work; `float()` and `complex()` still raise "
        "`ConcretizationTypeError` (jax 0.10), and are flagged."
        " Nor code of a function whose every trace starts in a `try` that catches this error and does not "
        "raise again (a lesson's failing first attempt, `try: jax.jit(f)(x) except Exception as e: print(e)`)."
        " Nor a conversion in the body of a `try` whose handler names the error's class (`except TypeError:`, "
        "not a catch-all `except Exception:`) and does not raise again: a check meant for eager calls, which "
        "the trace skips."
    )
    verify = "`--verify` traces the function and expects `ConcretizationTypeError` at this line."

    _CONVERSIONS = {"int", "float", "complex"}
    _METHODS = {"item", "tolist"}
    _STATIC_KEYWORDS = {"axis", "k"}  # `num=` is a size: JAX401

    def _report(
        self,
        node: cst.CSTNode,
        what: str,
        operand: cst.BaseExpression,
        value: Value,
        error: str = "ConcretizationTypeError",
        remedy: str = "keep it an array (`.astype(...)`)",
    ) -> None:
        if error in TRACE_ERRORS and self.facts.shows(TRACE_ERRORS[error] - CATCH_ALL):
            return  # `except jax.errors.ConcretizationTypeError:` around `int(m)`: a check meant for eager calls
        hint = static_hint(self, value, operand)  # now: it reads the function around this point
        self.report(
            node,
            lambda line_of: (
                f"{what} needs a concrete value and raises {error}: `{code(operand)}` is traced "
                f"({value.describe(code(operand), line_of)}); {remedy}{hint}"
            ),
            because=value,
        )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        builtin = self.builtin(func, self._CONVERSIONS)
        positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
        if (builtin or self.names.qualified(func) == "operator.index") and len(positional) == 1:
            value = self.facts.value_of(positional[0])
            # Under grad alone, `int()` sees the value but `float()` and `complex()` raise.
            grad_fails = builtin in ("float", "complex") and value.differentiated
            if value.staged or grad_fails:
                # `operator.index` calls `__index__`, which raises jax's TracerIntegerConversionError instead.
                error = "ConcretizationTypeError" if builtin else "TracerIntegerConversionError"
                self._report(node, f"`{code(func)}()`", positional[0], value, error)
            return
        if type(func) is cst.Attribute and func.attr.value in self._METHODS and not node.args:
            value = self.facts.value_of(func.value)
            if value.staged:
                self._report(node, f"`.{func.attr.value}()`", func.value, value)
            return
        qualified = self.names.qualified(func) or ""
        method = self._array_method(func)
        if not qualified.startswith((JAX_NUMPY, JAX_LAX)) and method is None:
            return
        error = traced_axis_error(qualified, method)
        axis = FUNCTION_AXES.get(qualified) or METHOD_AXES.get(method or "")
        if axis is not None and not any(arg.star for arg in node.args[: axis[0] + 1]):
            given = [arg for arg in node.args if arg.keyword is None]
            if axis[0] < len(given):
                if self._static_argument(given[axis[0]], "axis", error):
                    return
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value in self._STATIC_KEYWORDS:
                if self._static_argument(arg, arg.keyword.value, error):
                    return

    def _array_method(self, func: cst.BaseExpression) -> str | None:
        """`sum` for `x.sum` when `x` is known to be a JAX array or a tracer."""
        if type(func) is not cst.Attribute or func.attr.value not in METHOD_AXES:
            return None
        receiver = self.facts.value_of(func.value)
        return func.attr.value if receiver.is_array else None

    def _static_argument(self, arg: cst.Arg, what: str, error: str) -> bool:
        """Report a traced axis (or `k`); whether one was reported."""
        value = self.facts.value_of(arg.value)
        if not value.staged:
            return False
        self._report(
            arg, f"`{what}`" if arg.keyword is None else f"`{what}=`", arg.value, value, error, "pass a Python int"
        )
        return True
