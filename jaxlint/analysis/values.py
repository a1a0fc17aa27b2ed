"""What an expression holds: a JAX array, a tracer, a static Python value, or unknown.

Rules fire only on what is known: a silent miss is better than a false alarm, and `--verify`
exists for the rest. Tracers come from the parameters of traced functions (traced.py) and spread
through arithmetic, comparisons, indexing, `jnp`/`lax`/`jax.random` calls and array methods.

Inside the analysis None stands for unknown (what `join` and the flow state give); the rule context
hands rules the explicit `UNKNOWN` instead, of which every question (`value.staged`, `value.is_array`,
`value.kind is Kind.TRACED`) answers no: a rule asks one question and never checks for None.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Callable

import libcst as cst

from jaxlint.analysis import arrays
from jaxlint.analysis.names import Names
from jaxlint.analysis.traced import TransformTable, Tracer
from jaxlint.model.functions import (
    ARRAY_METHODS, ARRAY_PROPERTIES, BOOLEAN_FUNCTIONS, HOST_ARRAY_METHODS, REF_FACTORIES, STATIC_ATTRIBUTES,
    STATIC_BUILTINS,
)


class Kind(enum.Enum):
    STATIC = "static"  # a Python value known before tracing: a literal, a shape, a static argument
    HOST = "host"  # a Python list or tuple, or a NumPy array: indexed with Python integers only
    ARRAY = "array"  # a JAX array, concrete
    TRACED = "traced"  # a tracer, or a pytree of them
    REF = "ref"  # a mutable `jax.Ref`: `ref[i] = v` and `ref.at[i].set(v)` write in place
    UNKNOWN = "unknown"  # the analysis does not know: every question about it answers no


@dataclass(frozen=True)
class Value:
    kind: Kind
    tracer: Tracer | None = None  # for a traced value: the parameter it comes from
    # A traced parameter may be a pytree (a tuple or dict of tracers): its truth value is fine.
    container: bool = False
    boolean: bool = False  # an array of booleans: a comparison, `~m`, `jnp.isnan(x)`
    numpy: bool = False  # a host value that is a NumPy array: `jnp.asarray` of it holds the same numbers
    # Unpacked from a pytree of tracers (`parts, total = carry`): as often a Python list as an array.
    pytree_part: bool = False
    # A JAX array computed by `jnp`/`lax` where a transform traces to a jaxpr (`jit`, lax bodies), from
    # static values only: it is a tracer too (`jnp.array(x.shape).prod()`), so it cannot be a shape.
    staged_constant: bool = False
    # An instance of a class of the project, made by calling it (`scaler = Scaler(s)`): its ClassDef when the
    # class is in this module, its qualified name (`pkg.model.Scaler`) when in another. The kind stays UNKNOWN:
    # rules know nothing of it; the analysis follows its method calls (`scaler.apply(x)`).
    instance: object = None

    @property
    def is_known(self) -> bool:
        """The analysis knows what the expression holds."""
        return self.kind is not Kind.UNKNOWN

    @property
    def is_array(self) -> bool:
        """A JAX array or a tracer."""
        return self.kind in (Kind.ARRAY, Kind.TRACED)

    @property
    def is_tracer(self) -> bool:
        """A tracer (not a pytree of them), whichever transform made it."""
        return self.kind is Kind.TRACED and not self.container

    @property
    def staged(self) -> bool:
        """A traced value under jit/vmap/lax: abstract, so `bool()`, `int()` and shapes fail on it."""
        return self.kind is Kind.TRACED and self.tracer is not None and self.tracer.staged

    @property
    def differentiated(self) -> bool:
        """A tracer of a gradient transform alone: `float()`, `math.*` and NumPy still fail on it."""
        return self.kind is Kind.TRACED and self.tracer is not None and self.tracer.differentiated

    @property
    def abstract(self) -> bool:
        """A staged tracer that is certainly an array, not a pytree: the value JAX3xx/JAX4xx rules need."""
        return self.staged and not self.container

    def describe(self, subject: str, line_of: Callable[[cst.CSTNode], int]) -> str:
        """Why `subject`, holding this value, is an array or a tracer: for a message."""
        if self.tracer is not None:
            return self.tracer.describe(line_of)
        if self.staged_constant:
            return (f"`{subject}` is computed with `jax.numpy`/`jax.lax` inside a function traced to a jaxpr "
                    f"(jit, a lax body), where every result is traced, even one computed from static values")
        return f"`{subject}` holds a JAX array"


ARRAY = Value(Kind.ARRAY)
STATIC = Value(Kind.STATIC)
HOST = Value(Kind.HOST)
NUMPY_ARRAY = Value(Kind.HOST, numpy=True)
REF = Value(Kind.REF)
UNKNOWN = Value(Kind.UNKNOWN)

_STRINGS = (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)


def join(a: Value | None, b: Value | None) -> Value | None:
    """The fact that holds whichever of two bindings reached here."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    if a.kind is b.kind is Kind.TRACED:
        return replace(a, container=a.container or b.container, boolean=a.boolean and b.boolean,
                       pytree_part=a.pytree_part or b.pytree_part)
    if a.is_array and b.is_array:
        return ARRAY
    if a.kind is b.kind is Kind.HOST:
        return HOST
    return None


def _derived(operands: list[Value | None], *, boolean: bool = False) -> Value | None:
    """An array computed from operands: traced when one is, then certainly an array, not a pytree."""
    for operand in operands:
        if operand is not None and operand.kind is Kind.TRACED:
            return Value(Kind.TRACED, operand.tracer, container=False, boolean=boolean)
    if any(operand is not None and operand.is_array for operand in operands):
        staged = any(operand is not None and operand.staged_constant for operand in operands)
        return Value(Kind.ARRAY, boolean=boolean, staged_constant=staged)
    return None


class Evaluator:
    """Evaluates expressions against the facts known for names at the current point."""

    def __init__(self, names: Names, lookup: Callable[[str], Value | None], table: TransformTable,
                 returned: Callable[[cst.Call, list[Value | None]], Value | None] = lambda call, args: None,
                 staged: Callable[[], bool] = lambda: False) -> None:
        self.names = names
        self._lookup = lookup
        self._table = table
        self._returned = returned  # what a call of one of the module's own functions gives
        self._staged = staged  # whether the current point runs while a transform traces it to a jaxpr

    def value_of(self, expr: cst.BaseExpression) -> Value | None:
        """The known fact about `expr`, or None when unknown."""
        if isinstance(expr, cst.Name):
            return self._lookup(expr.value)
        if isinstance(expr, cst.Call):
            return self._call(expr)
        if isinstance(expr, cst.Subscript):
            base = self.value_of(expr.value)
            return base if base is not None and base.is_array else None
        if isinstance(expr, cst.Attribute):
            return self._attribute(expr)
        if isinstance(expr, cst.BinaryOperation):
            if isinstance(expr.left, _STRINGS):
                return None  # `"%d" % x` formats a string
            left, right = self.value_of(expr.left), self.value_of(expr.right)
            bitwise = isinstance(expr.operator, (cst.BitAnd, cst.BitOr, cst.BitXor))
            both_boolean = all(v is not None and v.boolean for v in (left, right) if v and v.is_array)
            return _derived([left, right], boolean=bitwise and both_boolean)
        if isinstance(expr, cst.UnaryOperation):
            if isinstance(expr.operator, cst.Not):
                return None
            operand = self.value_of(expr.expression)
            if operand is None or not operand.is_array:
                return None
            return _derived([operand], boolean=isinstance(expr.operator, cst.BitInvert) and operand.boolean)
        if isinstance(expr, cst.Comparison):
            return self._comparison(expr)
        if isinstance(expr, cst.IfExp):
            return join(self.value_of(expr.body), self.value_of(expr.orelse))
        if isinstance(expr, cst.NamedExpr):
            return self.value_of(expr.value)
        if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, *_STRINGS)):
            return STATIC
        if isinstance(expr, cst.Tuple):
            # A tuple holding a tracer is a pytree of tracers (`shape = (n, 3)`), else a host value.
            items = (self.value_of(e.value) for e in expr.elements if not isinstance(e, cst.StarredElement))
            traced = next((v for v in items if v is not None and v.kind is Kind.TRACED), None)
            return Value(Kind.TRACED, traced.tracer, container=True) if traced else HOST
        if isinstance(expr, cst.List):
            return HOST  # a mutable Python list, whatever it holds: `out[1] = ...` is fine
        return None

    def _attribute(self, expr: cst.Attribute) -> Value | None:
        base = self.value_of(expr.value)
        if base is None or not base.is_array:
            return None
        if expr.attr.value in STATIC_ATTRIBUTES:
            return STATIC
        if expr.attr.value in ARRAY_PROPERTIES:
            return _derived([base])
        return None

    def _comparison(self, expr: cst.Comparison) -> Value | None:
        operators = [target.operator for target in expr.comparisons]
        if any(isinstance(op, (cst.Is, cst.IsNot)) for op in operators):
            return STATIC  # identity: `x is None`
        if any(isinstance(op, (cst.In, cst.NotIn)) for op in operators) or len(operators) > 1:
            return None
        right = expr.comparisons[0].comparator
        if any(isinstance(side, cst.Name) and side.value == "None" for side in (expr.left, right)):
            return None
        return _derived([self.value_of(expr.left), self.value_of(right)], boolean=True)

    def _call(self, call: cst.Call) -> Value | None:
        func = call.func
        if isinstance(func, cst.Name) and func.value in STATIC_BUILTINS and self.names.qualified(func) is None:
            return STATIC
        arguments = [self.value_of(arg.value) for arg in call.args]
        if isinstance(func, cst.Call) and self.names.qualified(func.func) in self._table.all:
            # `jax.value_and_grad(f)(params, x)`: tracers in, a pytree of tracers out.
            traced = next((a for a in arguments if a is not None and a.kind is Kind.TRACED), None)
            return Value(Kind.TRACED, traced.tracer, container=True) if traced else None
        if arrays.produces_host_array(call, self.names):
            return NUMPY_ARRAY
        if self.names.qualified(func) in REF_FACTORIES:
            return REF
        if arrays.produces_array(call, self.names):
            qualified = self.names.qualified(func)
            made = _derived(arguments, boolean=qualified in BOOLEAN_FUNCTIONS) or ARRAY
            if made.kind is Kind.ARRAY and not made.staged_constant and self._staged():
                made = replace(made, staged_constant=True)
            return made
        receiver = arrays.functional_update_receiver(call)
        if receiver is not None:
            return _derived([self.value_of(receiver)]) or ARRAY
        if isinstance(func, cst.Attribute) and func.attr.value in ARRAY_METHODS:
            base = self.value_of(func.value)
            if base is not None and base.numpy and func.attr.value in HOST_ARRAY_METHODS:
                return NUMPY_ARRAY
            if base is not None and base.is_array:
                reduced_truth = func.attr.value in ("all", "any")
                return _derived([base], boolean=reduced_truth or (base.boolean and func.attr.value != "astype"))
        return self._returned(call, arguments)
