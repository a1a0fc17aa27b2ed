"""JAX3xx: tracers reaching Python, which needs concrete values."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import libcst as cst

from jaxlint.model.axes import FUNCTION_AXES, METHOD_AXES, traced_axis_error
from jaxlint.model.functions import BOOL_CONVERSION_ERRORS
from jaxlint.model.numpy_boundary import (
    ARRAY_KEYWORDS, LIST_THROUGH_NUMPY, READS_SHAPE_OR_DTYPE, TAKE_SEQUENCES, TAKES_TRACED_ARRAY,
    WEAKLY_REFERENCING,
)
from jaxlint.model.transforms import LAX_OPERANDS, LOOP_BODIES, RUN_AS_GIVEN
from jaxlint.analysis.bindings import mentioned_names, rebound_names
from jaxlint.analysis.values import Kind, Value
from jaxlint.checks.base import FixPlan, Rule, code
from jaxlint.checks.printing import debug_print_fix, placeholders_fix
from jaxlint.diagnostics import SAFE, UNSAFE
from jaxlint.traversal import in_order


def static_hint(rule: Rule, value: Value) -> str:
    """How to make the value static, when the fix is a jit argument spec."""
    tracer = value.tracer
    if (tracer is not None and tracer.caller is None and not tracer.computed and not tracer.path
            and rule.facts.takes_static_argnames(tracer.transform.name)):
        return f", or mark `{tracer.param}` static with `static_argnames=('{tracer.param}',)`"
    return ""


def only_traced(rule: Rule) -> bool:
    """Whether the code here runs only while a transform traces it, so that a fix may assume its traced
    values are tracers: it is in a function decorated with a transform (whose name then calls the
    transformed function; its results are arrays, so the functions nested in it cannot escape), or in
    a lambda written as a transform's argument. Not in a helper that traced code passes tracers to, nor
    in a function wrapped by a call (`jax.jit(f)`): those may also be called with NumPy arrays or numbers."""
    scope, node = rule.facts.traced_scope, rule.facts.traced_node
    if scope is None:
        return False
    for function in rule.facts.chain:
        if not isinstance(function, cst.FunctionDef):
            continue
        for decorator in function.decorators:
            transform = rule.facts.decorator_transform(decorator)
            if transform is not None and transform.name not in RUN_AS_GIVEN:
                return True
    return isinstance(node, cst.Lambda) and any(
        isinstance(t.node, cst.Call) and t.name not in RUN_AS_GIVEN and _written_in(node, t.node)
        for t in scope.transforms)


def _written_in(function: cst.Lambda, call: cst.Call) -> bool:
    """`lax.fori_loop(0, n, lambda i, x: ..., x)`, `lax.switch(i, [lambda: ...])`: the lambda is an argument."""
    for arg in call.args:
        items = arg.value.elements if isinstance(arg.value, (cst.List, cst.Tuple)) else [arg.value]
        if any((item.value if isinstance(item, cst.BaseElement) else item) is function for item in items):
            return True
    return False


class PythonControlFlowOnTracer(Rule):
    code = "JAX301"
    name = "python-control-flow-on-tracer"
    summary = "Python `if`, `while`, `assert` or a conditional expression on a traced value"
    what_it_does = (
        "Flags `if`, `elif`, `while`, `assert`, `a if cond else b` and comprehension `if` clauses whose "
        "condition is a traced value inside a jitted (or vmapped, pmapped, lax-body) function: a comparison "
        "or arithmetic on a traced argument, a `jnp` result computed from one, and the same in helper "
        "functions called with traced arguments. A flag (a parameter defaulting to `True` or `False`) of a "
        "function decorated with `jax.jit` counts as traced when it is not static and a call in the module "
        "passes it, by position or by keyword: `jit` traces every argument it is given."
    )
    why_bad = (
        "Under `jit`, arguments are abstract tracers: their values are unknown while Python runs the function "
        "once to trace it, so Python cannot decide which branch to take. JAX raises "
        "`TracerBoolConversionError` (a `ConcretizationTypeError`), usually far from the jit call."
    )
    example = (
        "@jax.jit\n"
        "def relu(x):\n"
        "    if x > 0:\n"
        "        return x\n"
        "    return 0.0\n"
    )
    use_instead = (
        "@jax.jit\n"
        "def relu(x):\n"
        "    return jnp.where(x > 0, x, 0.0)\n\n\n"
        "# or, when the condition is a configuration value, make it static:\n"
        "@partial(jax.jit, static_argnames=('training',))\n"
        "def step(x, training):\n"
        "    if training:\n"
        "        x = dropout(x)\n"
        "    return x\n"
    )
    not_flagged = (
        "Conditions on static values: shapes (`x.shape[0] > 2`, `x.ndim`), `len(x)`, `x is None`, "
        "`isinstance(...)`, static arguments, literals and module constants. The truth value of a bare "
        "argument (`if params:`), which may be a pytree of tracers whose truth value is fine. Flags that "
        "no call passes (they keep their Python default), and flags of functions wrapped by a call "
        "(`jax.jit(f)`), whose plain name may also be called without `jit`. Functions "
        "under `grad` alone, whose tracers carry concrete values and support Python control flow. "
        "Code outside traced functions, and code in a `try` whose handler catches "
        "`jax.errors.ConcretizationTypeError` (or `TracerBoolConversionError`): it expects the error."
    )
    verify = "`--verify` traces the function and expects `TracerBoolConversionError` at this line."

    def _check(self, test: cst.BaseExpression, keyword: str, remedy: str) -> None:
        if self.facts.catches(BOOL_CONVERSION_ERRORS):
            return
        if isinstance(test, cst.BooleanOperation):
            # `if a and b` asks for the truth of `b` too; JAX302 reports a traced `a`.
            left = self.facts.value_of(test.left)
            if left.abstract:
                return
            test, value = test.right, self.facts.right_operand(test)
        else:
            value = self.facts.value_of(test)
        if not value.abstract:
            return
        self.report(test, lambda line_of: (
            f"Python `{keyword}` on a traced value raises TracerBoolConversionError: `{code(test)}` is "
            f"traced ({value.describe(code(test), line_of)}); use {remedy}{static_hint(self, value)}"
        ))

    def visit_If(self, node: cst.If) -> None:
        self._check(node.test, "if", "`jnp.where` or `lax.cond`")

    def visit_While(self, node: cst.While) -> None:
        self._check(node.test, "while", "`lax.while_loop`")

    def visit_Assert(self, node: cst.Assert) -> None:
        self._check(node.test, "assert", "`checkify.check` or `jax.debug.callback`")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._check(node.test, "if", "`jnp.where` or `lax.cond`")

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self._check(node.test, "if", "`jnp.where` with a mask")


class PythonLogicOnTracer(Rule):
    code = "JAX302"
    name = "python-logic-on-tracer"
    summary = "`and`/`or`/`not`, `bool()`, builtin `min`/`max`/`any`/`all` on a traced value"
    what_it_does = (
        "Flags Python's boolean operators and the builtins that compare or test truth values when they get "
        "a traced value inside a jitted (or vmapped, lax-body) function: `a and b`, `a or b`, `not a`, "
        "`bool(a)`, `min(a, b)`, `max(a, b)`, `any(a)`, `all(a)`, and `min`/`max`/`any`/`all` of a list, tuple "
        "or generator of tracers (`any(jnp.isnan(g).any() for g in leaves)`)."
    )
    why_bad = (
        "Each of these asks Python for a concrete `True` or `False` (or compares with `<`) and a tracer has "
        "no concrete value: JAX raises `TracerBoolConversionError`. The `jnp` functions work element-wise "
        "on tracers instead."
    )
    example = (
        "@jax.jit\n"
        "def clip_grad(g, limit):\n"
        "    too_big = g > limit\n"
        "    if too_big and not jnp.isnan(g):\n"
        "        g = limit\n"
        "    return max(g, -limit)\n"
    )
    use_instead = (
        "@jax.jit\n"
        "def clip_grad(g, limit):\n"
        "    too_big = (g > limit) & ~jnp.isnan(g)\n"
        "    g = jnp.where(too_big, limit, g)\n"
        "    return jnp.maximum(g, -limit)\n"
    )
    not_flagged = (
        "Operands that are static or unknown, bare arguments (possibly pytrees), `jnp.logical_and`, "
        "`jnp.minimum`, `jnp.any`, functions under `grad` alone, and code in a `try` whose handler catches "
        "`jax.errors.ConcretizationTypeError` (or `TracerBoolConversionError`)."
    )
    verify = "`--verify` traces the function and expects `TracerBoolConversionError` at this line."
    fixable = True
    fix_safety = (
        "For builtin `min`/`max` of exactly two operands: `jnp.minimum`/`jnp.maximum` compute the "
        "same value (spelled through the file's own `jax.numpy` alias, else `jax.numpy` with `import jax` "
        "added). Safe in a function decorated with a transform (or nested in one), whose code only ever runs "
        "traced, where the original raises. Unsafe in a helper that a traced caller passes tracers to, or a "
        "function wrapped by a call (`jax.jit(f)`): called directly with Python numbers, `max` returns a "
        "Python number and `jnp.maximum` a JAX array. Other forms have no automatic fix."
    )

    _REPLACEMENTS = {"min": "jnp.minimum", "max": "jnp.maximum", "any": "jnp.any", "all": "jnp.all",
                     "bool": "a `jnp` boolean array"}

    def _report(self, node: cst.CSTNode, what: str, operand: cst.BaseExpression, value: Value,
                remedy: str, fix: FixPlan | None = None) -> None:
        if self.facts.catches(BOOL_CONVERSION_ERRORS):
            return
        self.report(node, lambda line_of: (
            f"{what} on a traced value raises TracerBoolConversionError: `{code(operand)}` is traced "
            f"({value.describe(code(operand), line_of)}); use {remedy}{static_hint(self, value)}"
        ), fix)

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        # `a and b` asks for the truth of `a`; `b` is returned as it is.
        value = self.facts.value_of(node.left)
        if value.abstract:
            operator = "and" if isinstance(node.operator, cst.And) else "or"
            remedy = "`&`" if operator == "and" else "`|`"
            self._report(node, f"Python `{operator}`", node.left, value,
                         f"{remedy} (or `jnp.logical_{operator}`)")

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not):
            value = self.facts.value_of(node.expression)
            if value.abstract:
                self._report(node, "Python `not`", node.expression, value, "`~` (or `jnp.logical_not`)")

    def visit_Call(self, node: cst.Call) -> None:
        builtin = self.builtin(node.func, set(self._REPLACEMENTS))
        if builtin is None:
            return
        for arg in node.args:
            if arg.keyword is not None:
                continue
            value = self.facts.value_of(arg.value)
            if value.abstract:
                self._report(node, f"builtin `{builtin}()`", arg.value, value,
                             f"`{self._REPLACEMENTS[builtin]}`", self._elementwise(node, builtin))
                return
        if builtin != "bool" and len(node.args) == 1 and not node.args[0].star:
            # `any(jnp.isnan(g).any() for g in leaves)`, `max(losses)`: the truth or order of each tracer.
            operand = node.args[0].value
            element = self.facts.iterated(operand)
            if element.abstract:
                if isinstance(operand, (cst.GeneratorExp, cst.ListComp)):
                    operand = operand.elt
                self._report(node, f"builtin `{builtin}()`", operand, element, f"`jnp.{builtin}(jnp.stack([...]))`")

    def _elementwise(self, node: cst.Call, builtin: str) -> FixPlan | None:
        """`min(a, b)` -> `jnp.minimum(a, b)`: the same value for two operands, computed in JAX."""
        if builtin not in ("min", "max") or len(node.args) != 2 or any(a.keyword or a.star for a in node.args):
            return None
        return self.rename(node.func, f"jax.numpy.{builtin}imum", SAFE if only_traced(self) else UNSAFE)


class TracerConcretization(Rule):
    code = "JAX303"
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
    example = (
        "@jax.jit\n"
        "def scale(x, factor):\n"
        "    return x * float(factor)\n"
    )
    use_instead = (
        "@jax.jit\n"
        "def scale(x, factor):\n"
        "    return x * factor.astype(x.dtype)\n"
    )
    not_flagged = (
        "Conversions of static values: `int(x.shape[0])`, `float(learning_rate)` of a static argument, "
        "`len(x)`. `jnp.float32(x)` and `x.astype(...)`, which stay arrays. Under `grad` alone (no `jit`), "
        "`int()`, `.item()` and `.tolist()` see the value and work; `float()` and `complex()` still raise "
        "`ConcretizationTypeError` (jax 0.10), and are flagged."
    )
    verify = "`--verify` traces the function and expects `ConcretizationTypeError` at this line."

    _CONVERSIONS = {"int", "float", "complex"}
    _METHODS = {"item", "tolist"}
    _STATIC_KEYWORDS = {"axis", "k"}  # `num=` is a size: JAX401

    def _report(self, node: cst.CSTNode, what: str, operand: cst.BaseExpression, value: Value,
                error: str = "ConcretizationTypeError", remedy: str = "keep it an array (`.astype(...)`)") -> None:
        self.report(node, lambda line_of: (
            f"{what} needs a concrete value and raises {error}: `{code(operand)}` is traced "
            f"({value.describe(code(operand), line_of)}); {remedy}{static_hint(self, value)}"
        ))

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        builtin = self.builtin(func, self._CONVERSIONS)
        positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
        if (builtin or self.names.qualified(func) == "operator.index") and len(positional) == 1:
            value = self.facts.value_of(positional[0])
            # Under grad alone, `int()` sees the value but `float()` and `complex()` raise.
            grad_fails = builtin in ("float", "complex") and value.differentiated
            if value.staged or grad_fails:
                self._report(node, f"`{code(func)}()`", positional[0], value)
            return
        if isinstance(func, cst.Attribute) and func.attr.value in self._METHODS and not node.args:
            value = self.facts.value_of(func.value)
            if value.staged:
                self._report(node, f"`.{func.attr.value}()`", func.value, value)
            return
        qualified = self.names.qualified(func) or ""
        method = self._array_method(func)
        if not qualified.startswith(("jax.numpy.", "jax.lax.")) and method is None:
            return
        error = traced_axis_error(qualified, method)
        axis = FUNCTION_AXES.get(qualified) or METHOD_AXES.get(method or "")
        if axis is not None and not any(arg.star for arg in node.args[:axis[0] + 1]):
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
        if not isinstance(func, cst.Attribute) or func.attr.value not in METHOD_AXES:
            return None
        receiver = self.facts.value_of(func.value)
        return func.attr.value if receiver.is_array else None

    def _static_argument(self, arg: cst.Arg, what: str, error: str) -> bool:
        """Report a traced axis (or `k`); whether one was reported."""
        value = self.facts.value_of(arg.value)
        if not value.staged:
            return False
        self._report(arg, f"`{what}`" if arg.keyword is None else f"`{what}=`", arg.value, value, error,
                     "pass a Python int")
        return True


class TracerAsPythonIndex(Rule):
    code = "JAX304"
    name = "tracer-as-python-index"
    summary = "`range()` of a traced value, or a traced index into a list, tuple or NumPy array"
    what_it_does = (
        "Flags a traced value used where Python needs an integer inside a jitted (or vmapped, lax-body) "
        "function: `range(n)`, and indexing a Python list or tuple or a NumPy array (`table[i]`) with a "
        "traced index, in any position for a NumPy array (`table[i, :]`, `table[:, j]`)."
    )
    why_bad = (
        "Python's `range` and sequence indexing call `__index__`, which a tracer cannot answer: JAX raises "
        "`TracerIntegerConversionError`; indexing a NumPy array with a tracer raises "
        "`TracerArrayConversionError`. Loop with `lax.fori_loop`, or index a `jnp` array instead."
    )
    example = (
        "@jax.jit\n"
        "def power(x, n):\n"
        "    out = x\n"
        "    for _ in range(n - 1):\n"
        "        out = out * x\n"
        "    return out\n"
    )
    use_instead = (
        "@jax.jit\n"
        "def power(x, n):\n"
        "    return lax.fori_loop(1, n, lambda _, out: out * x, x)\n\n\n"
        "# or, when n is a configuration value:\n"
        "@partial(jax.jit, static_argnames=('n',))\n"
        "def power(x, n):\n"
        "    ...\n"
    )
    not_flagged = (
        "`range(x.shape[0])`, `range(len(xs))` and other static bounds; indexing a `jnp` array with a "
        "tracer (`x[i]` is a dynamic index, which JAX supports); functions under `grad` alone."
    )
    verify = "`--verify` traces the function and expects `TracerIntegerConversionError` at this line."
    fixable = True
    fix_safety = (
        "When the indexed value is a NumPy array (built by `np.array`, `np.zeros` and the like): "
        "`table[i]` becomes `jnp.asarray(table)[i]`, the same numbers indexed in JAX. Safe in a function "
        "decorated with a transform (or nested in one), whose code only ever runs traced; unsafe in a "
        "helper that a traced caller passes tracers to, or a function wrapped by a call (`jax.jit(f)`), "
        "which may also be called with a Python integer and then returns a JAX array instead of a NumPy "
        "value. Lists, tuples and `range()` have no automatic fix: a list may hold objects that are not "
        "numbers."
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.builtin(node.func, {"range"}) is None:
            return
        for arg in node.args:
            value = self.facts.value_of(arg.value)
            if value.staged:
                self.report(node, lambda line_of: (
                    f"`range()` of a traced value raises TracerIntegerConversionError: `{code(arg.value)}` "
                    f"is traced ({value.describe(code(arg.value), line_of)}); loop with `lax.fori_loop`"
                    f"{static_hint(self, value)}"
                ))
                return

    def visit_Subscript(self, node: cst.Subscript) -> None:
        base = self.facts.value_of(node.value)
        literal = isinstance(node.value, (cst.List, cst.Tuple))
        if not literal and base.kind is not Kind.HOST and not base.is_sequence:
            return
        numpy = base.numpy
        if len(node.slice) != 1 and not numpy:
            return  # `seq[i, j]` on a list or tuple raises TypeError whatever `i` is
        for element in node.slice:
            index = element.slice
            if not isinstance(index, cst.Index):
                continue
            value = self.facts.value_of(index.value)
            if value.staged:
                self._report(node, index.value, value, numpy)
                return

    def _report(self, node: cst.Subscript, index: cst.BaseExpression, value: Value, numpy: bool) -> None:
        if numpy:
            what = "indexing a NumPy array with a traced value raises TracerArrayConversionError"
        else:
            what = "indexing a Python sequence with a traced value raises TracerIntegerConversionError"
        self.report(node, lambda line_of: (
            f"{what}: `{code(index)}` is traced ({value.describe(code(index), line_of)}); index a "
            f"`jnp.asarray(...)` instead{static_hint(self, value)}"
        ), self._on_device(node) if numpy else None)

    def _on_device(self, node: cst.Subscript) -> FixPlan | None:
        """`table[i]` -> `jnp.asarray(table)[i]` for a NumPy array: the same numbers, indexed in JAX."""
        spelled = self.spell("jax.numpy.asarray")
        if spelled is None:
            return None
        name, imports = spelled
        new = (f"{name}(", node.value, ")", (node.lbracket, node.rbracket))
        return FixPlan(f"index `{name}(...)`", ((node, new),), SAFE if only_traced(self) else UNSAFE, imports)


class NumpyOnTracer(Rule):
    code = "JAX305"
    name = "numpy-on-tracer"
    summary = "A NumPy, SciPy or `math` function called on a traced value"
    what_it_does = (
        "Flags `np.<function>(x)`, `np.asarray(x)`, `np.float32(x)`, `scipy.<...>(x)` and `math.<function>(x)` "
        "when an argument is a traced value inside a transformed function (jit, vmap, grad, lax bodies), "
        "with `import numpy as np`, `import numpy as onp`, `from numpy import ...` alike; a list or tuple "
        "holding traced values given to NumPy (`np.asarray([x, y])`, `np.shape([x, y])`) or to `jnp.ndim`, "
        "`jnp.shape` and `jnp.size` (which read a list's shape through NumPy); a traced section count or "
        "axis given to the NumPy functions that otherwise work on tracers (`np.split(x, n)`, "
        "`np.sum(x, axis)`); and a NumPy function given to a transform (`jax.jit(np.cumsum)`, "
        "`jax.vmap(np.linalg.norm)`)."
    )
    why_bad = (
        "NumPy needs concrete data: converting a tracer raises `TracerArrayConversionError` (and `math` "
        "functions raise `ConcretizationTypeError`). Under `grad` the conversion would also drop the "
        "gradient. The `jax.numpy` function of the same name works on tracers."
    )
    example = (
        "@jax.jit\n"
        "def normalize(x):\n"
        "    return x / np.linalg.norm(x)\n"
    )
    use_instead = (
        "@jax.jit\n"
        "def normalize(x):\n"
        "    return x / jnp.linalg.norm(x)\n"
    )
    not_flagged = (
        "NumPy on static values (`np.prod(x.shape)`, `np.zeros(3)`, `np.float32` as a dtype), the "
        "shape and dtype helpers (`np.shape`, `np.ndim`, `np.size`, `np.result_type`, `np.dtype`, "
        "`np.iinfo`, `np.finfo`, `np.issubdtype`, `np.promote_types`, `np.can_cast`), the NumPy functions "
        "that slice a traced array or hand it to its own method when their other arguments are static "
        "(`np.split(x, 3, axis=-1)`, `np.array_split`, `np.sum(x, axis=0)`, `np.reshape`, `np.swapaxes`, "
        "`np.flip`...: checked under `jax.jit` with jax 0.10.2), `jax.vmap(np.sum)` and `jax.grad(np.sum)` "
        "(which call `x.sum()`), and NumPy outside traced functions."
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
        qualified = self.names.qualified(node.func)
        if qualified in LIST_THROUGH_NUMPY and node.args and isinstance(node.args[0].value, (cst.List, cst.Tuple)):
            found = _traced_within(self, node.args[0].value)
            if found is not None:
                self._report_list(node, *found)
            return
        if qualified is None or not qualified.startswith(self._NAMESPACES):
            return
        if qualified.startswith("numpy.random."):
            return  # JAX204 stateful-rng-in-traced covers NumPy's random state
        for index, arg in enumerate(node.args):
            if arg.star:
                return
            literal = isinstance(arg.value, (cst.List, cst.Tuple))
            found = _traced_within(self, arg.value) if literal else None
            value = found[1] if found else self.facts.value_of(arg.value)
            if value.kind is not Kind.TRACED:
                continue
            if qualified.startswith("math.") and not (value.staged or value.differentiated):
                continue
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
            error = "ConcretizationTypeError" if qualified.startswith("math.") else "TracerArrayConversionError"
            self.report(node, lambda line_of: (
                f"`{code(node.func)}()` on a traced value raises {error}: "
                f"`{code(operand)}` is traced ({value.describe(code(operand), line_of)}); use {fix}"
            ), None if held_list else self._jax_numpy(node, qualified))  # (`jnp.mean(a_list)` raises TypeError)
            return

    @staticmethod
    def _array_argument(index: int, arg: cst.Arg) -> bool:
        """The array a NumPy function works on: its first argument, or one of its names given by keyword."""
        return arg.keyword.value in ARRAY_KEYWORDS if arg.keyword is not None else index == 0

    def _report_static(self, node: cst.Call, operand: cst.BaseExpression, value: Value) -> None:
        self.report(node, lambda line_of: (
            f"`{code(node.func)}()` takes a traced array but needs its other arguments concrete, and raises a "
            f"ConcretizationTypeError (or TracerIntegerConversionError): `{code(operand)}` is traced "
            f"({value.describe(code(operand), line_of)}); pass a static value{static_hint(self, value)}"
        ))

    def _report_list(self, node: cst.Call, operand: cst.BaseExpression, value: Value) -> None:
        self.report(node, lambda line_of: (
            f"`{code(node.func)}()` of a Python list reads its shape through NumPy, which raises "
            f"TracerArrayConversionError: `{code(operand)}` is traced ({value.describe(code(operand), line_of)}); "
            f"use `len(...)`, or stack the arrays first (`jnp.stack`)"
        ))

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
            self.report(target, lambda line_of, error=error, short=short, transform=transform: (
                f"`{transform.name}` of the NumPy function `{code(target)}` {error}; "
                f"transform `jnp.{short}` instead"
            ), self._jax_numpy_target(target, qualified))

    def _jax_numpy(self, node: cst.Call, qualified: str) -> FixPlan | None:
        """`np.f(x)` -> `jnp.f(x)` when jax.numpy has `f` (and no `out=`, which jax.numpy refuses)."""
        short = qualified.split(".", 1)[1]
        if not qualified.startswith("numpy.") or short not in _jax_numpy_names():
            return None
        if any(arg.keyword is not None and arg.keyword.value == "out" for arg in node.args):
            return None
        return self.rename(node.func, f"jax.numpy.{short}", SAFE if only_traced(self) else UNSAFE)

    def _jax_numpy_target(self, target: cst.BaseExpression, qualified: str) -> FixPlan | None:
        """`jax.jit(np.cumsum)` -> `jax.jit(jnp.cumsum)`: the original fails on every call."""
        short = qualified.split(".", 1)[1]
        if short not in _jax_numpy_names():
            return None
        return self.rename(target, f"jax.numpy.{short}", SAFE)


def _traced_within(rule: Rule, expr: cst.BaseExpression) -> tuple[cst.BaseExpression, Value] | None:
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
    text = (Path(__file__).resolve().parents[1] / "data" / "jax_numpy_names.txt").read_text(encoding="utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


class PrintInTraced(Rule):
    code = "JAX306"
    name = "print-in-traced"
    summary = "`print()` or `logging` of a traced value inside a jitted function"
    what_it_does = (
        "Flags `print(...)`, `logging.<level>(...)`, `logger.<level>(...)` (a module-level "
        "`logging.getLogger(...)`) and `absl.logging` calls that get a traced value (directly, inside a dict, "
        "list or tuple, in an f-string, through `%` or `.format`) inside a jitted (or vmapped, pmapped, "
        "lax-body) function."
    )
    why_bad = (
        "Python's `print` runs once, while JAX traces the function: it shows a tracer (`JitTracer(float32[3])` "
        "under jit, `VmapTracer(...)` under vmap) instead of the numbers, and never runs again on later calls, which hit the compiled cache. "
        "`jax.debug.print` is staged into the computation and prints the runtime values on every call."
    )
    example = (
        "def loss_fn(params, batch):\n"
        "    return jnp.mean((batch[\"x\"] @ params - batch[\"y\"]) ** 2)\n\n\n"
        "@jax.jit\n"
        "def step(params, batch):\n"
        "    loss = loss_fn(params, batch)\n"
        "    print(f\"loss = {loss}\")\n"
        "    return loss\n"
    )
    use_instead = (
        "def loss_fn(params, batch):\n"
        "    return jnp.mean((batch[\"x\"] @ params - batch[\"y\"]) ** 2)\n\n\n"
        "@jax.jit\n"
        "def step(params, batch):\n"
        "    loss = loss_fn(params, batch)\n"
        "    jax.debug.print(\"loss = {}\", loss)\n"
        "    return loss\n"
    )
    not_flagged = (
        "`print` of static values (shapes, dtypes, static arguments, strings), which is a common and "
        "deliberate way to see what is being traced; `jax.debug.print`; printing outside traced functions. "
        "Under `grad` alone (no `jit`) the print runs on every call but shows "
        "`GradTracer(primal=2.0, ...)` (jax 0.10): that is flagged too."
    )
    verify = "`--verify` traces the function with `print` recorded and confirms a tracer was printed."
    fixable = True
    fix_safety = (
        "Unsafe: `print(a, b)` becomes `jax.debug.print(\"{} {}\", a, b)` (string arguments kept as text, "
        "f-string fields, `%s`/`%r` of `%` formatting and the automatically numbered fields of `.format` "
        "turned into placeholders). The output now appears on every call, at run time, formatted by JAX, "
        "which is a change in behaviour. Calls with `sep=`, `end=`, `file=` or `*args`, other `%` conversions "
        "(`%d`, `%.3f`...), numbered or named `.format` fields, and logging calls, have no automatic fix."
    )

    _LEVELS = frozenset("debug info warning warn error exception critical fatal log".split())

    def visit_Module(self, node: cst.Module) -> None:
        self._loggers = set()
        for statement in node.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if (isinstance(small, cst.Assign) and isinstance(small.value, cst.Call)
                        and self.names.qualified(small.value.func) in ("logging.getLogger",
                                                                        "absl.logging.get_absl_logger")):
                    for target in small.targets:
                        if isinstance(target.target, cst.Name):
                            self._loggers.add(target.target.value)

    def _is_output(self, func: cst.BaseExpression) -> str | None:
        if self.builtin(func, {"print"}):
            return "print"
        qualified = self.names.qualified(func) or ""
        if qualified.startswith(("logging.", "absl.logging.")) and qualified.rsplit(".", 1)[1] in self._LEVELS:
            return qualified
        if (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                and func.value.value in self._loggers and func.attr.value in self._LEVELS):
            return code(func)
        return None

    def visit_Call(self, node: cst.Call) -> None:
        scope = self.facts.traced_scope
        if scope is None or not (scope.staged or scope.differentiated):
            return
        what = self._is_output(node.func)
        if what is None:
            return
        for arg in node.args:
            value = self.facts.traced_in(arg.value, staged=scope.staged)
            if value.kind is not Kind.TRACED:
                continue
            if scope.staged:
                shown = "runs once at trace time and shows a tracer (`JitTracer(...)`; `VmapTracer(...)` under vmap), not the numbers"
            else:
                shown = "under a gradient transform shows `GradTracer(primal=...)`, not the numbers"
            self.report(node, lambda line_of: (
                f"`{what}` of a traced value {shown}: `{code(arg.value)}` is traced "
                f"({value.describe(code(arg.value), line_of)}); use `jax.debug.print(\"... {{}}\", value)`"
            ), debug_print_fix(self, node) if what == "print" else None)
            return

class DebugPrintFstring(Rule):
    code = "JAX307"
    name = "debug-print-fstring"
    summary = "`jax.debug.print` given an f-string (or `%`/`.format`) that formats a traced value"
    what_it_does = (
        "Flags `jax.debug.print(f\"... {x}\")`, and the same with `%` or `.format`, when the formatted "
        "value is traced: the string is built in Python, at trace time."
    )
    why_bad = (
        "The f-string is evaluated before `jax.debug.print` sees it, so it formats the tracer's repr "
        "(`JitTracer(float32[])`) instead of the runtime value; recent JAX versions raise a "
        "`ValueError` when the braces left in the formatted text do not match the arguments. Pass the "
        "values as arguments and let `jax.debug.print` format them at run time."
    )
    example = (
        "@jax.jit\n"
        "def step(x):\n"
        "    jax.debug.print(f\"x = {x}\")\n"
        "    return x * 2\n"
    )
    use_instead = (
        "@jax.jit\n"
        "def step(x):\n"
        "    jax.debug.print(\"x = {}\", x)\n"
        "    return x * 2\n"
    )
    not_flagged = (
        "Format strings with `{}` placeholders and the values as arguments; f-strings that only format "
        "static values (`f\"step {name}: {{}}\"` with a static `name`)."
    )
    verify = ("`--verify` traces the function and confirms when `jax.debug.print` gets a format string "
              "that already holds a tracer repr.")
    fixable = True
    fix_safety = (
        "For an f-string: each field becomes a `{}` placeholder (keeping its `!r` and format spec) and "
        "its expression an argument, so `jax.debug.print` formats the runtime value. Safe when every field is "
        "a traced value and the function is decorated with a transform (or nested in one), so the original "
        "only ever printed tracers. Unsafe otherwise: `jax.debug.print` turns Python and NumPy numbers into "
        "JAX arrays, so a static float field, or any field in a helper also called outside `jit`, prints "
        "as float32 (`0.3333333432674408` instead of `0.3333333333333333`). Not fixed: `{x=}` fields, "
        "nested fields in a format spec, calls with more positional arguments, `%` and `.format`."
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.names.qualified(node.func) != "jax.debug.print" or not node.args:
            return
        template = node.args[0].value
        if isinstance(template, (cst.SimpleString, cst.ConcatenatedString)):
            return
        value = self.facts.traced_in(template, staged=False)
        if value.kind is Kind.TRACED:
            self.report(template, lambda line_of: (
                f"`jax.debug.print` gets a string already formatted at trace time, showing the tracer "
                f"instead of its value ({value.describe(code(template), line_of)}); pass the value as an "
                f"argument: `jax.debug.print(\"... {{}}\", value)`"
            ), placeholders_fix(node, template, self._all_traced(template) and only_traced(self)))

    def _all_traced(self, template: cst.BaseExpression) -> bool:
        """Whether every field of an f-string is a traced value (whose text was the tracer's repr)."""
        parts = getattr(template, "parts", ())
        values = [self.facts.value_of(p.expression) for p in parts if isinstance(p, cst.FormattedStringExpression)]
        return all(value.kind is Kind.TRACED for value in values)


class TracerLeak(Rule):
    code = "JAX308"
    name = "tracer-leak"
    summary = "A traced value stored outside the traced function: a global, a closure list, `self`"
    what_it_does = (
        "Flags a traced function (jitted, vmapped, or a lax body) that stores a traced value where it "
        "outlives the trace: assigning a `global` or `nonlocal` name, `outer.append/extend/insert(x)`, "
        "`outer[k] = x` on a container defined outside the traced "
        "function, or `self.attr = x` in a jitted method, alone or as a target of unpacking "
        "(`best_loss, best_params = loss, params`)."
    )
    why_bad = (
        "The stored object is a tracer that belongs to one trace. Using it after the trace ends raises "
        "`UnexpectedTracerError`, later and far from here; and the function stays impure, so the store "
        "happens once at trace time, not on every call. Return the value instead (or carry it through "
        "`lax.scan`), and keep state in explicit arguments."
    )
    example = (
        "losses = []\n\n\n"
        "def loss_fn(params, batch):\n"
        "    return jnp.mean((batch[\"x\"] @ params - batch[\"y\"]) ** 2)\n\n\n"
        "@jax.jit\n"
        "def step(params, batch):\n"
        "    loss = loss_fn(params, batch)\n"
        "    losses.append(loss)\n"
        "    return update(params, loss)\n"
    )
    use_instead = (
        "def loss_fn(params, batch):\n"
        "    return jnp.mean((batch[\"x\"] @ params - batch[\"y\"]) ** 2)\n\n\n"
        "@jax.jit\n"
        "def step(params, batch):\n"
        "    loss = loss_fn(params, batch)\n"
        "    return update(params, loss), loss\n\n\n"
        "params, loss = step(params, batch)\n"
        "losses.append(loss)\n"
    )
    not_flagged = (
        "Containers created inside the traced function (a list built and returned by the same trace), "
        "storing static values, `self` attributes in `flax.nnx` / `equinox` transformed methods (those "
        "transforms propagate module state), functions of imported modules named like list methods "
        "(`jnp.append`, `jnp.insert`: they return new arrays), items set in a list of the function around "
        "the traced one when that function only builds it and sets its items, and only the functions defined "
        "in it read it (an index list a `fori_loop` body fills anew at each call: nothing sees it after the "
        "trace), and code outside traced functions."
    )
    verify = ("`--verify` traces the function holding the finding under `jax.checking_leaks()` and "
              "confirms when jax reports the leak.")

    # Not `update` or `add`: `opt.update(grads, state)` is how optax is called.
    _STORE_METHODS = frozenset("append extend insert appendleft extendleft".split())

    def __init__(self, facts, reporter) -> None:
        super().__init__(facts, reporter)
        self._reported: cst.CSTNode | None = None

    def _report(self, node: cst.CSTNode, where: str, stored: cst.BaseExpression, value: Value) -> None:
        if self._reported is node:
            return  # `a, b = x, y` leaking both: one finding for the statement
        self._reported = node
        self.report(node, lambda line_of: (
            f"a traced value escapes into {where}: `{code(stored)}` is traced "
            f"({value.describe(code(stored), line_of)}); using it after the trace raises "
            f"UnexpectedTracerError: return it instead"
        ))

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._check_unpacked(target.target, node.value, node)

    def _check_unpacked(self, target: cst.BaseExpression, stored: cst.BaseExpression, node: cst.Assign) -> None:
        """`a, b = x, y` stores `x` in `a` and `y` in `b`; `a, b = pair` stores pieces of `pair` in both."""
        if isinstance(target, (cst.Tuple, cst.List)):
            items = [element.value for element in target.elements]
            if (isinstance(stored, (cst.Tuple, cst.List)) and len(stored.elements) == len(items)
                    and not any(isinstance(e, cst.StarredElement) for e in (*target.elements, *stored.elements))):
                for item, element in zip(items, stored.elements):
                    self._check_unpacked(item, element.value, node)
                return
            for item in items:
                self._check_unpacked(item, stored, node)
            return
        value = self.facts.staged_value(stored)
        if value.staged:
            self._check_target(target, node, value, stored)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        value = self.facts.staged_value(node.value)
        if value.staged:
            self._check_target(node.target, node, value, node.value)

    def _check_target(self, target: cst.BaseExpression, node: cst.Assign | cst.AugAssign, value: Value,
                      stored: cst.BaseExpression) -> None:
        if isinstance(target, cst.StarredElement):
            target = target.value
        if isinstance(target, cst.Name) and self.facts.is_global(target.value):
            self._report(node, f"the global `{target.value}`", stored, value)
        elif isinstance(target, cst.Name) and self.facts.is_nonlocal(target.value):
            if self.facts.outlives_trace(target.value):
                self._report(node, f"`{target.value}`, defined outside the traced function", stored, value)
        elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            if self.facts.outlives_trace(target.value.value) and not self._scratch(target.value.value):
                self._report(node, f"`{target.value.value}`, defined outside the traced function",
                             stored, value)
        elif (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
              and target.value.value == "self" and value.tracer is not None
              and value.tracer.transform.name.startswith("jax.")
              and self.facts.function is not None and self.facts.function.transforms):
            # Only a method jax traces itself: one merely called from a trace (`__init__` of an
            # object built inside it) may be storing on an object that lives inside the trace.
            self._report(node, f"`self.{target.attr.value}`", stored, value)

    def _scratch(self, name: str) -> bool:
        """A list of the function around the traced one that only the functions defined in it read: its own
        code only builds it and sets items (maxtext's `cache_locations` index list, filled anew by each
        `fori_loop` body). What the trace stores there is never seen after it."""
        traced = self.facts.trace_functions()
        owner = next((node for node in reversed(self.facts.chain) if isinstance(node, cst.FunctionDef)
                      and node not in traced and name in rebound_names(node.body)), None)
        if owner is None:
            return False
        outside_nested = in_order(owner.body, skip=(cst.FunctionDef, cst.Lambda))
        return all(_only_built((*around, node), name) for node, around in outside_nested
                   if type(node) is cst.Name and node.value == name)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                and func.attr.value in self._STORE_METHODS):
            return
        if self.names.qualified(func.value) is not None:
            return  # `jnp.append(x, v)`: a function of an imported module, which stores nothing
        for arg in node.args:
            value = self.facts.staged_value(arg.value)
            if value.staged and self.facts.outlives_trace(func.value.value):
                self._report(node, f"`{func.value.value}`, defined outside the traced function",
                             arg.value, value)
                return


def _only_built(use: tuple[cst.CSTNode, ...], name: str) -> bool:
    """Whether an occurrence binds the name (`xs = [...]`) or sets an item of it with a value that does not
    read it (`xs[0] = 0`)."""
    name_node, parent = use[-1], use[-2]
    if type(parent) is cst.AssignTarget:
        return True
    if type(parent) is cst.Subscript and parent.value is name_node and len(use) >= 3 and type(use[-3]) is cst.AssignTarget:
        statement = use[-4] if len(use) >= 4 else None
        return type(statement) is cst.Assign and name not in mentioned_names(statement.value)
    return False


_ITERATOR_BUILTINS = frozenset({"iter", "zip", "map", "filter", "enumerate", "reversed"})


class IteratorInTracedLoop(Rule):
    code = "JAX309"
    name = "iterator-in-traced-loop"
    summary = "`next(it)` in a `lax` loop body, or an iterator passed as a `lax` operand"
    what_it_does = (
        "Flags `next(it)` inside the body of `lax.fori_loop`, `lax.while_loop`, `lax.scan` or `lax.map` "
        "when `it` lives outside the body (a global or a variable of an enclosing function), and an "
        "iterator or generator (`iter(...)`, `zip(...)`, `map(...)`, `enumerate(...)`, a generator "
        "expression, or a name bound once, to one) passed as an operand of `lax.scan`, `lax.cond`, "
        "`lax.switch`, `lax.fori_loop`, `lax.while_loop` or `lax.map`."
    )
    why_bad = (
        "JAX calls a loop body once, to trace it, and compiles what it traced: `next(it)` runs once and its "
        "value is baked into every iteration, and the iterator advances by one item whatever the trip count "
        "(jax 0.10.2: a `fori_loop` of 5 iterations adding `next(it)` adds the first item 5 times). No error "
        "is raised. An iterator given as an operand is not a pytree of arrays: JAX raises `TypeError: "
        "Argument '<generator object ...>' of type <class 'generator'> is not a valid JAX type`."
    )
    example = (
        "batches = iter(dataset)\n\n\n"
        "def body(i, params):\n"
        "    batch = next(batches)\n"
        "    return params - 0.1 * jax.grad(loss)(params, batch)\n\n\n"
        "def train(params, steps):\n"
        "    return lax.fori_loop(0, steps, body, params)\n"
    )
    use_instead = (
        "def body(params, batch):\n"
        "    return params - 0.1 * jax.grad(loss)(params, batch), None\n\n\n"
        "def train(params, dataset, steps):\n"
        "    batches = jnp.stack([batch for _, batch in zip(range(steps), dataset)])\n"
        "    params, _ = lax.scan(body, params, batches)\n"
        "    return params\n"
    )
    not_flagged = (
        "`next` on an iterator created inside the body (it is created again at every trace); `next(it)` in "
        "a Python `for` loop of a jitted function, which runs once per unrolled iteration; iterators "
        "consumed outside `lax` calls (`jnp.stack(list(it))`); names bound more than once, or to "
        "something other than an iterator."
    )
    verify = ("`--verify` traces the function and expects the `TypeError` at an iterator operand; `next` in a "
              "loop body raises nothing, and is not confirmed.")

    def visit_Call(self, node: cst.Call) -> None:
        if self.builtin(node.func, {"next"}) is not None:
            self._check_next(node)
            return
        spec = LAX_OPERANDS.get(self.names.qualified(node.func) or "")
        if spec is None:
            return
        positions, words, rest = spec
        for index, arg in enumerate(node.args):
            if arg.star:
                return
            keyword = arg.keyword.value if arg.keyword is not None else None
            operand = keyword in words if keyword else (index in positions or (rest is not None and index >= rest))
            if operand and self._is_iterator(arg.value):
                self.report(arg, lambda line_of, arg=arg: (
                    f"`{code(node.func)}` gets an iterator as an operand and raises TypeError (not a valid JAX "
                    f"type): `{code(arg.value)}` is an iterator; pass arrays (`jnp.stack(list(...))`)"
                ))
                return

    def _check_next(self, node: cst.Call) -> None:
        scope = self.facts.traced_scope
        if scope is None or not node.args or not isinstance(node.args[0].value, cst.Name):
            return
        loop = next((t for t in scope.transforms if t.name in LOOP_BODIES), None)
        name = node.args[0].value.value
        if loop is None or not self.facts.outlives_trace(name):
            return
        self.report(node, lambda line_of: (
            f"`next({name})` in the body of `{loop.name}` ({loop.where(line_of)}) runs once, while JAX "
            f"traces the body: every iteration uses the same item and `{name}` advances once; pass the data "
            f"as arrays (stack it and give it to `lax.scan` as `xs`)"
        ))

    def _is_iterator(self, expr: cst.BaseExpression) -> bool:
        """An iterator expression, or a name bound once, to one."""
        if isinstance(expr, cst.GeneratorExp):
            return True
        if isinstance(expr, cst.Call):
            return self.builtin(expr.func, _ITERATOR_BUILTINS) is not None
        bound = self.facts.binding(expr) if isinstance(expr, cst.Name) else None
        return bound is not None and isinstance(bound[0], cst.BaseExpression) and self._is_iterator(bound[0])
