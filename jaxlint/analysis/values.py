"""What an expression holds: a JAX array, a tracer, a static Python value, or unknown.

Rules fire only on what is known: a silent miss is better than a false alarm, and `--verify`
exists for the rest. Tracers come from the parameters of traced functions (traced.py) and spread
through arithmetic, comparisons, indexing, `jnp`/`lax`/`jax.random` calls and array methods, into the
Python containers that hold them and out again (iterating, indexing, unpacking), and through the
builtins that compute with them (`sum`, `abs`, `pow`, `round`).

Inside the analysis None stands for unknown (what `join` and the flow state give); the rule context
hands rules the explicit `UNKNOWN` instead, of which every question (`value.staged`, `value.is_array`,
`value.kind is Kind.TRACED`) answers no: a rule asks one question and never checks for None.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from collections.abc import Iterable, Sequence
from typing import Callable, TypeGuard, cast

import libcst as cst

from jaxlint.diagnostics import Evidence

from jaxlint.analysis import arrays
from jaxlint.analysis.dtype_tests import named_kind
from jaxlint.analysis.names import Names
from jaxlint.analysis.traced import TransformTable, Tracer
from jaxlint.model.functions import (
    ARITHMETIC_BUILTINS,
    ARRAY_METHODS,
    ARRAY_PROPERTIES,
    BOOLEAN_FUNCTIONS,
    CONTAINER_ALSO_METHODS,
    COLLECTIVES,
    CONSTANT_COLLECTIVES,
    COUNTING_BUILTINS,
    DTYPE_KEEPING_METHODS,
    TRUTH_METHODS,
    HOST_ARRAY_METHODS,
    REF_FACTORIES,
    STATIC_ATTRIBUTES,
    STATIC_BUILTINS,
)
from jaxlint.model.dtypes import (
    ARANGE,
    COUNTING,
    COUNTING_METHODS,
    DTYPE_KINDS,
    DTYPE_POSITION,
    FLOAT_MAKERS,
    FROM_VALUES,
    KIND_KEEPING,
    KIND_ORDER,
    METHOD_RESULT_KINDS,
    RESULT_KINDS,
)
from jaxlint.model.transforms import GRADIENT_WITH_VALUE, GRADIENTS, TREE_LEAF_LISTS
from jaxlint.model.numpy_boundary import MATH_BY_OPERATORS


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
    # For an array or a tracer: the kind of its dtype ("bool", "int", "float", "complex"), when the code shows it
    # (a comparison is "bool", `jnp.arange(3)` "int", `x.mean()` "float"); None: not known.
    dtype: str | None = None
    numpy: bool = False  # a host value that is a NumPy array: `jnp.asarray` of it holds the same numbers
    # Unpacked from a pytree of tracers (`parts, total = carry`): as often a Python list as an array.
    pytree_part: bool = False
    # For a Python dict, list or tuple the analysis saw built: what iterating and indexing it give. A container
    # holding no tracer yet (`metrics = {}`) keeps its items too, so filling it later is followed; its kind is
    # HOST for a list or tuple and UNKNOWN for a dict (rules know nothing of a dict of Python values).
    contents: Contents | None = None
    # An instance of a class of the project, made by calling it (`scaler = Scaler(s)`): its ClassDef when the
    # class is in this module, its qualified name (`pkg.model.Scaler`) when in another. The kind stays UNKNOWN:
    # rules know nothing of it; the analysis follows its method calls (`scaler.apply(x)`).
    instance: object = None
    # For a pytree of tracers whose class the module defines as a pytree (a NamedTuple, a registered
    # dataclass): that ClassDef, whose fields (analysis/pytrees.py) say what `value.field` holds.
    pytree: cst.ClassDef | None = None
    # For a static Python number: "int", "bool" or "float" (a literal, `len(...)`, arithmetic on them); jax
    # gives a Python int the integer dtype wherever it flows (`jax.grad(f)(n)` rejects it).
    number: str | None = None
    # For an instance of a class of this module: the attributes its `__init__` sets, with what each holds.
    attributes: tuple[tuple[str, "Value | None"], ...] = ()

    @property
    def boolean(self) -> bool:
        """An array of booleans: a comparison, `~m`, `jnp.isnan(x)`."""
        return self.dtype == "bool"

    @property
    def dtype_kind(self) -> str | None:
        """The kind of dtype jax gives the value: an array's, or a Python number's (`3` becomes an int32)."""
        return self.number if self.kind is Kind.STATIC else self.dtype

    @property
    def staged_constant(self) -> bool:
        """A tracer the trace itself computed (`jnp`/`lax` under a transform that traces to a jaxpr) from values
        known before it: `jnp.array(x.shape).prod()` is a tracer too, so no shape and no `if`."""
        return self.kind is Kind.TRACED and self.tracer is not None and self.tracer.computed

    @property
    def is_known(self) -> bool:
        """The analysis knows what the expression holds."""
        return self.kind is not Kind.UNKNOWN

    @property
    def is_array(self) -> bool:
        """A JAX array or a tracer (or a pytree of them); not a Python container the analysis saw built."""
        return self.kind in (Kind.ARRAY, Kind.TRACED) and self.contents is None

    @property
    def is_sequence(self) -> bool:
        """A Python list or tuple (of tracers or not), which only Python integers index."""
        if self.contents is not None:
            return self.contents.kind != "dict"
        return self.kind is Kind.HOST and not self.numpy

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

    def evidence(self, row_of: Callable[[cst.CSTNode], int]) -> tuple[Evidence, ...]:
        """Why the value is a tracer, step by step (nothing for a value that is not one)."""
        return self.tracer.evidence(row_of) if self.kind is Kind.TRACED and self.tracer is not None else ()

    def describe(self, subject: str, line_of: Callable[[cst.CSTNode], int]) -> str:
        """Why `subject`, holding this value, is an array or a tracer: for a message."""
        if self.staged_constant and self.tracer is not None:
            trace = self.tracer.transform
            return (
                f"`{subject}` is computed with `jax.numpy`/`jax.lax` inside `{self.tracer.function}`, which "
                f"`{trace.name}` traces to a jaxpr at {trace.where(line_of)}: every result there is a tracer, "
                f"even one computed from static values"
            )
        if self.tracer is not None:
            return self.tracer.describe(line_of)
        return f"`{subject}` holds a JAX array"


@dataclass(frozen=True)
class Contents:
    """What a Python container holds: one built by a display (`[a, b]`, `(x, 3)`, `{"loss": l}`), a
    comprehension, `dict(...)`, `.items()`/`.values()` or `jax.tree.leaves`, and filled later
    (`metrics["loss"] = loss`, `losses.append(loss)`)."""

    kind: str  # "dict", "list" or "tuple"
    # What iterating it gives (for a dict, what `.values()` gives): its first traced item; None when none is.
    element: Value | None
    items: tuple[Value | None, ...] | None = None  # item by item, when known (None: every item is `element`)
    # A dict's keys, in the order of `items`: literals, `_NOT_LITERAL` for others and for `**other`.
    keys: tuple[object, ...] | None = None

    @property
    def uniform(self) -> bool:
        """Every item is traced (an empty container too): indexing it with any key gives a tracer."""
        if self.items is None:
            return self.element is not None and self.element.kind is Kind.TRACED
        return all(item is not None and item.kind is Kind.TRACED for item in self.items)

    def item(self, key: object) -> Value | None:
        """What `container[key]` gives for a literal `key`."""
        if self.items is None:
            return self.element
        if self.kind == "dict":
            # The last entry with the key wins; a key the display does not show may come from `**other`.
            found = [item for known, item in zip(self.keys or (), self.items) if known == key]
            return found[-1] if found else None
        if isinstance(key, int) and not isinstance(key, bool) and -len(self.items) <= key < len(self.items):
            return self.items[key]
        return None


ARRAY = Value(Kind.ARRAY)
STATIC = Value(Kind.STATIC)
INT = Value(Kind.STATIC, number="int")
FLOAT = Value(Kind.STATIC, number="float")
BOOL = Value(Kind.STATIC, number="bool")
HOST = Value(Kind.HOST)
NUMPY_ARRAY = Value(Kind.HOST, numpy=True)
REF = Value(Kind.REF)
UNKNOWN = Value(Kind.UNKNOWN)

_STRINGS: frozenset[type] = frozenset({cst.SimpleString, cst.FormattedString, cst.ConcatenatedString})
_LITERALS = _STRINGS | {cst.Integer, cst.Float, cst.Imaginary}
_BITWISE = frozenset({cst.BitAnd, cst.BitOr, cst.BitXor})
_NOT_LITERAL = object()


def holding(
    kind: str,
    element: Value | None,
    items: tuple[Value | None, ...] | None = None,
    keys: tuple[object, ...] | None = None,
) -> Value | None:
    """A Python container whose items include the traced `element`; None when `element` is not traced."""
    if element is None or element.kind is not Kind.TRACED:
        return None
    return Value(Kind.TRACED, element.tracer, container=True, contents=Contents(kind, element, items, keys))


# Beyond this many items a container's items are not followed one by one (a long table of constants, a list
# appended to line after line), so that each change stays cheap.
_MOST_ITEMS = 256


def built(kind: str, items: tuple[Value | None, ...], keys: tuple[object, ...] | None = None) -> Value | None:
    """A container with these items: of tracers when one is traced, else a Python container whose items are
    followed, so that filling it later (`metrics["loss"] = loss`) is seen."""
    traced = _first_traced(items)
    if len(items) > _MOST_ITEMS:
        if traced is not None:
            return holding(kind, traced) if all(_traced(item) for item in items) else None
        return None if kind == "dict" else HOST
    if traced is not None:
        return holding(kind, traced, items, keys)
    return Value(Kind.UNKNOWN if kind == "dict" else Kind.HOST, contents=Contents(kind, None, items, keys))


def unknown_contents(container: Value) -> Value | None:
    """A container changed in a way the analysis does not follow: a Python list or tuple still, when it held
    no tracer; else unknown."""
    contents = container.contents
    assert contents is not None  # every caller passes a container whose contents the analysis follows
    if container.kind is Kind.HOST and contents.kind != "dict":
        return HOST
    return None


def _traced(value: Value | None) -> TypeGuard[Value]:
    return value is not None and value.kind is Kind.TRACED


def _first_traced(values: Iterable[Value | None]) -> Value | None:
    return next((value for value in values if value is not None and value.kind is Kind.TRACED), None)


def _tuple_of(items: list[Value | None]) -> Value | None:
    return holding("tuple", _first_traced(items), tuple(items))


def elements(value: Value | None) -> Value | None:
    """What iterating over `value` gives: a container's items (a dict's static keys), an array's rows."""
    if value is None:
        return None
    if value.contents is not None:
        return STATIC if value.contents.kind == "dict" else value.contents.element
    return value if value.is_tracer or value.numpy else None  # (a NumPy array's rows are NumPy arrays)


def _unpacked(value: Value | None, count: int, starred: bool) -> list[Value | None]:
    """What each of `count` targets gets from unpacking `value`."""
    if value is None:
        return [None] * count
    contents = value.contents
    if contents is not None:
        if contents.kind != "dict" and contents.items is not None and len(contents.items) == count and not starred:
            return list(contents.items)
        return [elements(value)] * count
    if value.kind is Kind.TRACED:
        # Unpacking a tracer (or a pytree of them) gives tracers, or lists and tuples of them.
        return [replace(value, pytree_part=True) if value.container else value] * count
    if value.kind is Kind.ARRAY and not value.container and not value.numpy:
        return [value] * count  # a jax array's rows: jax arrays of its dtype
    if value.kind is Kind.REF:
        return [value] * count  # a kernel's pytree of refs (`q_smem, o_smem = scratch`): refs
    return [None] * count


def bound_names(target: cst.BaseExpression, value: Value | None) -> list[tuple[str, Value | None]]:
    """The names an assignment or loop target binds, each with what it gets of `value` (None: unknown);
    attributes and subscripts bind no name."""
    if isinstance(target, cst.Name):
        return [(target.value, value)]
    if isinstance(target, (cst.Tuple, cst.List)):
        starred = any(type(element) is cst.StarredElement for element in target.elements)
        parts = _unpacked(value, len(target.elements), starred)
        bound: list[tuple[str, Value | None]] = []
        for element, part in zip(target.elements, parts):
            bound += bound_names(element.value, None if type(element) is cst.StarredElement else part)
        return bound
    if isinstance(target, cst.StarredElement):
        return bound_names(target.value, None)
    return []


# Methods of dicts and lists that only read them; any other may change what they hold.
_READING_METHODS = frozenset({"items", "values", "keys", "get", "copy", "index", "count"})


def stored(container: Value, index: Sequence[cst.SubscriptElement], value: Value | None) -> Value | None:
    """What a container holds after `container[index] = value`; None when unknown."""
    contents = container.contents
    assert contents is not None  # every caller passes a container whose contents the analysis follows
    element = index[0].slice if len(index) == 1 else None
    if not isinstance(element, cst.Index) or contents.kind == "tuple":
        return unknown_contents(container)  # a slice assigned, or `pair[0] = v` (a TypeError)
    key = _literal(element.value)
    if contents.items is None or key is _NOT_LITERAL or contents.keys is None and contents.kind == "dict":
        # Under a key not followed: a container of tracers stays one when the item stored is traced too.
        if contents.uniform and _traced(value):
            return holding(contents.kind, contents.element or value)
        return unknown_contents(container)
    items, keys = list(contents.items), contents.keys
    if contents.kind == "dict" and keys is not None:  # (a dict's keys are known here: see above)
        if key in keys:  # (the last entry with a key is the one a lookup finds)
            items[len(keys) - 1 - keys[::-1].index(key)] = value
        else:
            items, keys = [*items, value], (*keys, key)
    elif isinstance(key, int) and -len(items) <= key < len(items):
        items[key] = value
    else:
        return unknown_contents(container)
    return built(contents.kind, tuple(items), keys)


def after_method(
    container: Value, call: cst.Call, value_of: Callable[[cst.BaseExpression], Value | None]
) -> Value | None:
    """What a container holds after `container.method(...)`: `append`, `extend`, `insert`, `update`,
    `setdefault` and `clear` are followed; another method that may change it makes its items unknown."""
    contents = container.contents
    assert contents is not None  # every caller passes a container whose contents the analysis follows
    method = cast(cst.Attribute, call.func).attr.value  # (called for `container.method(...)` only)
    if method in _READING_METHODS or contents.kind == "tuple":
        return container
    if any(arg.star for arg in call.args):
        return unknown_contents(container)
    given = [arg.value for arg in call.args if arg.keyword is None]
    named: list[tuple[object, Value | None]] = [
        (arg.keyword.value, value_of(arg.value)) for arg in call.args if arg.keyword is not None
    ]
    if method == "clear" and not call.args:
        return built(contents.kind, (), () if contents.kind == "dict" else None)
    if contents.kind == "list" and not named:
        if method == "append" and len(given) == 1:
            return _extended(container, contents, (value_of(given[0]),))
        if method == "extend" and len(given) == 1:
            return _extended(container, contents, _items_of(value_of(given[0])), elements(value_of(given[0])))
        if method == "insert" and len(given) == 2:
            position, value = _literal(given[0]), value_of(given[1])
            if contents.items is None or not isinstance(position, int):
                return _extended(container, contents, None, value)
            items = list(contents.items)
            items.insert(position, value)
            return built("list", tuple(items))
    if contents.kind == "dict" and method == "update" and len(given) <= 1:
        other = value_of(given[0]) if given else None
        if given and (other is None or other.contents is None or other.contents.kind != "dict"):
            return unknown_contents(container)
        # (`other` is None exactly when nothing is given)
        return _merged(container, contents, other.contents if other is not None else None, named)
    if contents.kind == "dict" and method == "setdefault" and 1 <= len(given) <= 2 and not named:
        key = _literal(given[0])
        if contents.items is not None and contents.keys is not None and key in contents.keys:
            return container  # the key is there: nothing changes
        default = value_of(given[1]) if len(given) == 2 else STATIC
        if key is _NOT_LITERAL or _NOT_LITERAL in (contents.keys or ()) or (default and default.contents):
            # `**other` may hold the key; a container given as the default is changed through what it returns.
            return unknown_contents(container)
        return _merged(container, contents, None, [(key, default)])
    return unknown_contents(container)


# Methods that add items to a list or dict.
_ADDING_METHODS = frozenset({"append", "extend", "insert", "update", "setdefault"})


def pytree_after(held: Value, method: str | None, added: list[Value | None]) -> Value | None:
    """A pytree of tracers of unknown shape (a traced argument, a helper's result) after `held[k] = v`
    (`method` None) or a method adding items: still one when every value added is traced; else unknown,
    since `batch["step"] = 0` makes `batch["step"]` a Python int."""
    if method is not None and method not in _ADDING_METHODS:
        return held
    if all(_traced(value) and (value.contents is None or value.contents.uniform) for value in added):
        return held
    return None


def _items_of(value: Value | None) -> tuple[Value | None, ...] | None:
    """The items iterating over `value` gives one by one, when known: a list's or tuple's, a dict's keys."""
    contents = value.contents if value is not None else None
    if contents is None or contents.items is None:
        return None
    return (STATIC,) * len(contents.items) if contents.kind == "dict" else contents.items


def _extended(
    container: Value, contents: Contents, added: tuple[Value | None, ...] | None, element: Value | None = None
) -> Value | None:
    """A list (`container`, holding `contents`) with `added` items after its own (None: an unknown number of
    items like `element`)."""
    if added is not None and contents.items is not None:
        return built("list", contents.items + added)
    if contents.uniform:
        new = _first_traced(added) if added is not None else element
        if new is not None and (added is None or all(_traced(item) for item in added)) and _traced(new):
            return holding("list", contents.element or new)  # every item traced, how many unknown
    return unknown_contents(container)


def _merged(
    container: Value, contents: Contents, other: Contents | None, named: Sequence[tuple[object, Value | None]]
) -> Value | None:
    """A dict (`container`, holding `contents`) after `update(other, **named)` or `|= other`: the other's
    entries replace or follow its own."""
    pairs = list(named)
    if other is not None:
        if other.items is None or other.keys is None:  # keys unknown: only every value traced is known
            if contents.uniform and other.uniform and all(_traced(v) for _, v in pairs):
                return holding("dict", contents.element or other.element)
            return unknown_contents(container)
        pairs = [*zip(other.keys, other.items), *pairs]
    if contents.items is None or contents.keys is None:
        if contents.uniform and all(_traced(value) for _, value in pairs):
            return holding("dict", contents.element)
        return unknown_contents(container)
    items, keys = list(contents.items), list(contents.keys)
    for key, value in pairs:
        if key is not _NOT_LITERAL and key in keys:
            items[len(keys) - 1 - keys[::-1].index(key)] = value
        else:
            items.append(value)
            keys.append(key)
    return built("dict", tuple(items), tuple(keys))


def _concatenated(left: Value | None, right: Value | None, operator: cst.BaseBinaryOp) -> Value | None:
    """`xs + ys`, `xs * 2`, `a | b` where one operand is a Python container the analysis follows: item by
    item when both are known; else a container of tracers when every item on both sides is traced."""
    kind = type(operator)
    if left is None or right is None or kind not in (cst.Add, cst.Multiply, cst.BitOr):
        return None
    first, second = left.contents, right.contents
    # A list or tuple of Python values on one side, and no tracer on the other: a list or tuple of no tracer.
    host = HOST if Kind.HOST in (left.kind, right.kind) and Kind.TRACED not in (left.kind, right.kind) else None
    if kind is cst.Multiply:  # `xs * n`: the items repeated
        repeated = first or second
        assert repeated is not None  # the caller passes a container on one side at least
        return holding(repeated.kind, repeated.element) if repeated.uniform else host
    if first is None or second is None or first.kind != second.kind or (kind is cst.BitOr) != (first.kind == "dict"):
        return None
    if first.kind == "dict":
        return _merged(left, first, second, [])
    if first.items is not None and second.items is not None:
        return built(first.kind, first.items + second.items)
    if first.uniform and second.uniform:
        return holding(first.kind, first.element or second.element)
    return host


def _literal(expr: cst.BaseExpression) -> object:
    """The value of an integer or string literal (`0`, `-1`, `"loss"`), else `_NOT_LITERAL`."""
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    if (
        isinstance(expr, cst.UnaryOperation)
        and isinstance(expr.operator, cst.Minus)
        and isinstance(expr.expression, cst.Integer)
    ):
        return -int(expr.expression.evaluated_value)
    if isinstance(expr, cst.SimpleString):
        return expr.evaluated_value
    return _NOT_LITERAL


def join(a: Value | None, b: Value | None) -> Value | None:
    """The fact that holds whichever of two bindings reached here."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    if a.contents is not None or b.contents is not None:
        joined = _joined_containers(a, b)
        if joined is None and a.kind is b.kind is Kind.HOST:
            return HOST
        return joined
    if a.kind is b.kind is Kind.TRACED:
        return replace(
            a,
            container=a.container or b.container,
            dtype=a.dtype if a.dtype == b.dtype else None,
            pytree_part=a.pytree_part or b.pytree_part,
        )
    if a.is_array and b.is_array:
        return ARRAY
    if a.kind is b.kind is Kind.HOST:
        return HOST
    return None


def _joined_containers(a: Value, b: Value) -> Value | None:
    """Two values, one at least a container the analysis saw built: item by item when both were built alike;
    else a container of tracers only when neither holds a static item (an empty one holds none: a list
    filled in a loop holds tracers after it, however many), which a pytree of unknown shape would read as
    traced."""
    first, second = a.contents, b.contents
    if first is not None and second is not None:
        if first.kind != second.kind:
            return None
        if (
            first.items is not None
            and second.items is not None
            and len(first.items) == len(second.items)
            and first.keys == second.keys
        ):
            return built(first.kind, tuple(join(x, y) for x, y in zip(first.items, second.items)), first.keys)
        if first.uniform and second.uniform:
            return holding(first.kind, join(first.element, second.element) or first.element or second.element)
        return None
    if a.kind is b.kind is Kind.TRACED and all(contents is None or contents.uniform for contents in (first, second)):
        return replace(a, container=True, pytree_part=a.pytree_part or b.pytree_part, contents=None)
    return None


# Python's arithmetic on numbers: which give an int from two ints (`/` gives a float), and a float from a float.
_INT_OPERATORS = frozenset({cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo, cst.Power})


def _number_result(left: str, right: str, operator: cst.BaseBinaryOp) -> Value:
    """A static number computed from two (`n * 2`, `len(xs) - 1`): an int when both are ints or booleans and the
    operator keeps integers; a float when either is a float; else a number of unknown kind."""
    if "float" in (left, right):
        return FLOAT if type(operator) in _INT_OPERATORS | {cst.Divide} else STATIC
    if type(operator) in _INT_OPERATORS:
        return INT  # (`2 ** -1` is a float: rare enough in a differentiated position to leave)
    return FLOAT if type(operator) is cst.Divide else STATIC


def _combined(operands: list[Value | None]) -> Value | None:
    """What `*` and `+` of the operands give (`sum`, `math.prod`); None when one is a container: `sum(lists, [])`
    concatenates lists."""
    if any(operand is not None and operand.container for operand in operands):
        return None
    return _derived(operands)


def _derived(operands: list[Value | None], *, dtype: str | None = None) -> Value | None:
    """An array computed from operands, of dtype kind `dtype`: traced when one is (named after a traced argument
    rather than after a value the trace computed), then certainly an array, not a pytree."""
    traced = [operand for operand in operands if operand is not None and operand.kind is Kind.TRACED]
    if traced:
        origin = next((operand for operand in traced if not operand.staged_constant), traced[0])
        return Value(Kind.TRACED, _differentiated_too(origin.tracer, traced), container=False, dtype=dtype)
    if any(operand is not None and operand.is_array for operand in operands):
        return Value(Kind.ARRAY, dtype=dtype)
    return None


def _differentiated_too(tracer: Tracer | None, traced: list[Value]) -> Tracer | None:
    """The tracer of a result, differentiated by every gradient transform that differentiates one of its operands: a
    jit's batch times the parameters `jax.grad` traces is differentiated by that grad (`batch["x"] @ params`)."""
    if tracer is None:
        return None
    more = [
        name
        for operand in traced
        if operand.tracer is not None and operand.tracer is not tracer and operand.tracer.transform.differentiates
        for name in (operand.tracer.transform.name, *operand.tracer.differentiated_by)
        if name in GRADIENTS and name != tracer.transform.name and name not in tracer.differentiated_by
    ]
    return replace(tracer, differentiated_by=(*tracer.differentiated_by, *dict.fromkeys(more))) if more else tracer


def promoted(operands: Sequence[Value | None]) -> str | None:
    """The dtype kind of arithmetic on the operands, by JAX's promotion (a Python number counts by its kind)."""
    kinds = [operand.dtype_kind if operand is not None else None for operand in operands]
    if None in kinds or any(kind not in KIND_ORDER for kind in kinds):
        return None
    return max(cast("list[str]", kinds), key=KIND_ORDER.index) if kinds else None


def transformed_result(arguments: list[Value | None], called: str | None = None) -> Value | None:
    """What a call of a transformed function gives where what the function returns is not followed
    (`jax.value_and_grad(f)(params, x)`): tracers in, a pytree of tracers out (`called`: the name it was called by)."""
    traced = next((a for a in arguments if a is not None and a.kind is Kind.TRACED), None)
    if traced is None:
        return None
    tracer = traced.tracer
    return Value(Kind.TRACED, replace(tracer, returned_by=called) if tracer and called else tracer, container=True)


def same_structure(tree: Value | None, leaf: Value | None) -> Value | None:
    """A Python list, tuple or dict shaped as `tree` is, holding what `leaf` stands for at each of its leaves: what
    `jax.grad` gives for a container argument, what `jax.tree.map` gives for a container. An item whose structure is
    not known gives a pytree of such leaves, its structure not known. None unless `tree` is a container the analysis
    saw built."""
    if tree is None or leaf is None or tree.contents is None:
        return None
    contents = tree.contents
    if contents.items is None:
        element = _shaped(contents.element, leaf)
        return holding(contents.kind, element) or Value(Kind.HOST, contents=Contents(contents.kind, None))
    return built(contents.kind, tuple(_shaped(item, leaf) for item in contents.items), contents.keys)


def _shaped(item: Value | None, leaf: Value) -> Value | None:
    """What stands at `item`'s place in a tree shaped as the one holding it, each leaf `leaf` (same_structure)."""
    if item is not None and item.contents is not None:
        return same_structure(item, leaf)
    if item is None or item.container or item.kind is Kind.UNKNOWN:
        return replace(leaf, container=True) if leaf.kind is Kind.TRACED else None
    return leaf


def derivative(transform: cst.Call, names: Names, arguments: list[Value | None]) -> Value | None:
    """What a function made by `jax.grad` or `jax.value_and_grad` (the call `transform`) gives for these arguments,
    when the argument it differentiates is a Python container the analysis saw built: the gradient in its structure
    (a list for a list), with the value and the aux where the options ask for them; else None."""
    with_value = GRADIENT_WITH_VALUE.get(names.qualified(transform.func) or "")
    traced = transformed_result(arguments)
    if with_value is None or traced is None:
        return None
    if any(arg.star for arg in transform.args):
        return None
    positional = [arg.value for arg in transform.args if arg.keyword is None]
    options = {arg.keyword.value: arg.value for arg in transform.args if arg.keyword is not None}
    argnums = options.get("argnums", positional[1] if len(positional) > 1 else None)
    if len(positional) > 2:
        return None  # `has_aux` given by position: not known
    if argnums is not None and type(argnums) is not cst.Integer:
        return None  # several arguments, or not a literal: a tuple of gradients, or not known
    at = int(argnums.value) if argnums is not None else 0
    aux = options.get("has_aux")
    if aux is not None and not (type(aux) is cst.Name and aux.value in ("True", "False")):
        return None
    has_aux = aux is not None and aux.value == "True"
    gradient = same_structure(arguments[at] if at < len(arguments) else None, leaf_of(traced))
    if gradient is None:
        return None
    value = built("tuple", (None, None)) if has_aux else leaf_of(traced)
    if with_value:
        return built("tuple", (value, gradient))
    return built("tuple", (gradient, None)) if has_aux else gradient


def _argument_itself(expr: cst.BaseExpression, value: Value) -> bool:
    """`expr` names the traced argument its value comes from (`batch`, not a result computed from it)."""
    tracer = value.tracer
    if not value.container or tracer is None or not isinstance(expr, cst.Name):
        return False
    return tracer.param == expr.value and not (tracer.path or tracer.computed or tracer.returned_by)


def leaf_of(tree: Value) -> Value:
    """One leaf of a pytree of tracers, as `jax.tree.map` hands it to its function: a tracer, not a pytree."""
    return replace(tree, container=False, contents=None, pytree=None, pytree_part=False)


def _literal_key(index: Sequence[cst.SubscriptElement]) -> str | None:
    """The key or index a subscript writes as one literal (`"x"`, `0`), as the source spells it."""
    if len(index) != 1 or not isinstance(index[0].slice, cst.Index):
        return None
    key = index[0].slice.value
    return key.value if isinstance(key, (cst.SimpleString, cst.Integer)) else None


def _string_index(index: Sequence[cst.SubscriptElement]) -> bool:
    """`x["name"]`: one string literal, the index of a dict, never of an array."""
    return len(index) == 1 and isinstance(index[0].slice, cst.Index) and type(index[0].slice.value) in STRING_LITERALS


_COMPUTING_BUILTINS = ARITHMETIC_BUILTINS | {"sum", "list", "tuple", "dict"}
_COMPUTED = frozenset({cst.BinaryOperation, cst.UnaryOperation, cst.Comparison})
STRING_LITERALS = frozenset({cst.SimpleString, cst.ConcatenatedString, cst.FormattedString})


class Evaluator:
    """Evaluates expressions against the facts known for names at the current point."""

    def __init__(
        self,
        names: Names,
        lookup: Callable[[str], Value | None],
        table: TransformTable,
        returned: Callable[[cst.Call, list[Value | None]], Value | None] = lambda call, args: None,
        staged: Callable[[], Tracer | None] = lambda: None,
        fields: Callable[[cst.ClassDef], dict | None] = lambda cls: None,
        carried: Callable[[cst.Call, Tracer], Value | None] = lambda call, tracer: None,
        foreign: Callable[[cst.BaseExpression], bool] = lambda expr: False,
        container_on_self: Callable[[str], str | None] = lambda attribute: None,
    ) -> None:
        self.names = names
        self._lookup = lookup
        self._table = table
        self._returned = returned  # what a call of one of the module's own functions gives
        # The tracer an array computed at the current point is, when a transform traces it to a jaxpr; else None.
        self._staged = staged
        self._fields = fields  # the fields of a pytree class (analysis/pytrees.py), None when not one
        self._carried = carried  # what a lax loop gives back under a trace, when its carry's structure is known
        # Whether an expression names an object of a library not known to hold numbers or arrays (NUMERIC_PACKAGES) nor
        # of the project: as an operand it may decide what an operator gives (`jnp.zeros(3) * u.kpc`).
        self._foreign = foreign
        # The kind of Python container ("list", "tuple", "dict") `self.attribute` here holds in every instance of the
        # method's class, if it holds one.
        self._container_on_self = container_on_self
        # `Class.attr` (qualified) for each attribute read of an instance of another module's class, whatever it
        # held: only those attributes of Imported.containers can change what the analysis finds.
        self.read_containers: set[str] = set()
        # A comprehension's variables while its element is evaluated from outside it (`sum(g for g in gs)`).
        self._bound: dict[str, Value | None] = {}

    def value_of(self, expr: cst.BaseExpression) -> Value | None:
        """The known fact about `expr`, or None when unknown."""
        # Every assignment and return asks: node types are tested with `type(...)`, since an isinstance
        # against a libcst class runs ABCMeta's check in Python (libcst's concrete types have no subclasses).
        # (mypy does not narrow on `type(...) is`: a `cast` says which node each branch has.)
        kind = type(expr)
        if kind is cst.Name:
            name = cast(cst.Name, expr).value
            if self._bound and name in self._bound:
                return self._bound[name]
            found = self._lookup(name)
            if found is None and name in ("True", "False") and self.names.qualified(expr) is None:
                return BOOL
            return found
        if kind is cst.Call:
            return self._staging(self._call(cast(cst.Call, expr)))
        if kind is cst.Subscript:
            subscript = cast(cst.Subscript, expr)
            base = self.value_of(subscript.value)
            if base is not None and base.contents is not None:
                return self._item(base, base.contents, subscript.slice)
            if base is not None and base.tracer is not None and _argument_itself(subscript.value, base):
                key = _literal_key(subscript.slice)
                if key is not None:  # `batch["x"]`, `args[0]`: one item of a pytree argument
                    return replace(base, tracer=base.tracer.item(key))
            if base is not None and base.numpy and self._static_index(subscript.slice):
                return base  # a row or an element of a NumPy array, taken on the host: NumPy too
            if base is not None and base.kind is Kind.ARRAY and not base.container and _string_index(subscript.slice):
                return None  # a concrete array indexed by a string raises TypeError: there is no value
            return self._staging(base) if base is not None and base.is_array else None
        if kind is cst.Attribute:
            return self._staging(self._attribute(cast(cst.Attribute, expr)))
        if kind in _COMPUTED:
            return self._staging(self._computed(expr, kind))
        if kind is cst.IfExp:
            choice = cast(cst.IfExp, expr)
            return join(self.value_of(choice.body), self.value_of(choice.orelse))
        if kind is cst.NamedExpr:
            return self.value_of(cast(cst.NamedExpr, expr).value)
        if kind is cst.Integer:
            return INT
        if kind is cst.Float:
            return FLOAT
        if kind in _LITERALS:
            return STATIC
        if kind is cst.Tuple or kind is cst.List:
            # A tuple or list holding a tracer is a container of tracers (`shape = (n, 3)`), else a host value.
            return self._sequence(cast("cst.Tuple | cst.List", expr)) or HOST
        if kind is cst.Dict:
            return self._dict(cast(cst.Dict, expr))
        if kind is cst.ListComp:
            listed = cast(cst.ListComp, expr)
            element = self._comprehended(listed, listed.elt)
            # A list whatever its items: of tracers when one is, else a Python list of items known or not.
            return holding("list", element) or Value(Kind.HOST, contents=Contents("list", None))
        if kind is cst.DictComp:
            mapped = cast(cst.DictComp, expr)
            return holding("dict", self._comprehended(mapped, mapped.value))
        return None  # a set of tracers raises TypeError (unhashable); a generator prints as one

    def _static_index(self, index: Sequence[cst.SubscriptElement]) -> bool:
        """Whether every part of an index is a known value that no trace holds (`grid[0]`, `table[1:, i]` with a
        Python int `i`)."""
        parts: list[cst.BaseExpression | None] = []
        for element in index:
            if isinstance(element.slice, cst.Index):
                parts.append(element.slice.value)
            elif isinstance(element.slice, cst.Slice):
                parts += [element.slice.lower, element.slice.upper, element.slice.step]
            else:
                return False
        values = [self.value_of(part) for part in parts if part is not None]
        return all(value is not None and value.kind is not Kind.TRACED and not value.is_array for value in values)

    def _staging(self, value: Value | None) -> Value | None:
        """A JAX array computed where a transform traces to a jaxpr is a tracer, even from constants: with
        omnistaging every `jnp`/`lax` operation there, and every operation on a concrete array, is staged."""
        if value is None or value.kind is not Kind.ARRAY:
            return value
        tracer = self._staged()
        if tracer is None:
            return value
        return Value(Kind.TRACED, tracer, container=False, dtype=value.dtype)

    def _computed(self, expr: cst.BaseExpression, kind: type) -> Value | None:
        """Arithmetic, unary operators and comparisons."""
        if kind is cst.BinaryOperation:
            operation = cast(cst.BinaryOperation, expr)
            if type(operation.left) in _STRINGS:
                return None  # `"%d" % x` formats a string
            left, right = self.value_of(operation.left), self.value_of(operation.right)
            if not any(side is not None and side.kind is Kind.TRACED for side in (left, right)) and (
                (left is None and self._foreign(operation.left)) or (right is None and self._foreign(operation.right))
            ):
                return None  # `jnp.zeros(3) * u.kpc`: the unit's `__rmul__` makes an astropy Quantity
            if any(side is not None and side.contents is not None for side in (left, right)):
                return _concatenated(left, right, operation.operator)
            if left is not None and right is not None and left.number and right.number:
                return _number_result(left.number, right.number, operation.operator)
            dtype = promoted([left, right])
            if type(operation.operator) is cst.Divide and dtype in ("bool", "int"):
                dtype = "float"  # true division
            return _derived([left, right], dtype=dtype)
        if kind is cst.UnaryOperation:
            unary = cast(cst.UnaryOperation, expr)
            if type(unary.operator) is cst.Not:
                return None
            operand = self.value_of(unary.expression)
            if operand is not None and operand.number in ("int", "float") and type(unary.operator) is not cst.BitInvert:
                return operand  # `-3`, `+n`
            if operand is None or not operand.is_array:
                return None
            return _derived([operand], dtype=operand.dtype)
        return self._comparison(cast(cst.Comparison, expr))

    def iterated(self, expr: cst.BaseExpression) -> Value | None:
        """What one iteration over `expr` gives (`for target in expr`), or None when unknown."""
        if isinstance(expr, (cst.GeneratorExp, cst.ListComp)):
            return self._comprehended(expr, expr.elt)
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and self.names.qualified(expr.func) is None:
            given = [arg.value for arg in expr.args if arg.keyword is None]
            if any(arg.star for arg in expr.args) or not given:
                return None
            if expr.func.value == "enumerate":
                return _tuple_of([STATIC, self.iterated(given[0])])
            if expr.func.value == "zip":
                return _tuple_of([self.iterated(arg) for arg in given])
            if expr.func.value in ("reversed", "iter", "list", "tuple") and len(given) == 1:
                return self.iterated(given[0])
            if expr.func.value == "map" and len(given) >= 2:
                return self._mapped(given[0], [self.iterated(arg) for arg in given[1:]])
        return elements(self.value_of(expr))

    def _mapped(self, function: cst.BaseExpression, items: list[Value | None]) -> Value | None:
        """What `map(function, ...)` gives of one item of each iterable: a lambda's body with its parameters
        bound to them, or the array a `jax.numpy`/`jax.lax` function computes."""
        if isinstance(function, cst.Lambda):
            params = function.params
            if params.posonly_params or params.star_arg or len(params.params) != len(items):
                return None
            outer = self._bound
            self._bound = {**outer, **{param.name.value: item for param, item in zip(params.params, items)}}
            try:
                return self.value_of(function.body)
            finally:
                self._bound = outer
        if arrays.produces_array(cst.Call(func=function), self.names):
            return _derived(items)
        return None

    def _sequence(self, expr: cst.Tuple | cst.List) -> Value | None:
        items: list[Value | None] = []
        starred: list[Value | None] = []
        complete = True
        for element in expr.elements:
            if type(element) is cst.StarredElement:
                known = _items_of(self.value_of(element.value))  # `[*losses, loss]`: its items, when known
                if known is None:
                    complete = False
                    starred.append(self.iterated(element.value))
                else:
                    items += known
            else:
                items.append(self.value_of(element.value))
        kind = "tuple" if type(expr) is cst.Tuple else "list"
        if complete:
            return built(kind, tuple(items))
        # Items at places not known: of tracers only when every part is (`(self, *values)` of a pytree and what
        # `getattr` gave may hold a static field).
        parts = items + starred
        return holding(kind, parts[0]) if parts and all(_traced(part) for part in parts) else None

    def _dict(self, expr: cst.Dict) -> Value | None:
        items: list[Value | None] = []
        keys: list[object] = []
        for element in expr.elements:
            if isinstance(element, cst.StarredDictElement):  # `**other`: what its values hold, under unknown keys
                items.append(self._dict_values(self.value_of(element.value)))
                keys.append(_NOT_LITERAL)
            else:
                items.append(self.value_of(element.value))
                keys.append(_literal(cast(cst.DictElement, element).key))  # (the other kind of element)
        return built("dict", tuple(items), tuple(keys))

    def _item(self, base: Value, contents: Contents, index: Sequence[cst.SubscriptElement]) -> Value | None:
        """An item of a container (`base`, holding `contents`): `pair[0]`, `metrics["loss"]`, `xs[i]`, `xs[1:]`."""
        if len(index) != 1:
            return None
        part = index[0].slice
        if isinstance(part, cst.Slice):
            return self._sliced(base, contents, part)
        key = _literal(cast(cst.Index, part).value)  # (a subscript's element is an Index or a Slice)
        if key is not _NOT_LITERAL:
            return contents.item(key)
        return contents.element if contents.uniform else None

    @staticmethod
    def _sliced(base: Value, contents: Contents, part: cst.Slice) -> Value | None:
        """`xs[1:]`, `xs[::-1]` of a container (`base`, holding `contents`): the items it keeps when the bounds
        are literals, else every item traced or a Python list or tuple."""
        if contents.kind == "dict":
            return None
        bounds = [None if bound is None else _literal(bound) for bound in (part.lower, part.upper, part.step)]
        if (
            contents.items is not None
            and all(bound is None or type(bound) is int for bound in bounds)
            and bounds[2] != 0
        ):
            return built(contents.kind, contents.items[slice(*cast("list[int | None]", bounds))])
        if contents.uniform:
            return holding(contents.kind, contents.element)
        return unknown_contents(base)

    def _comprehended(self, comprehension: cst.BaseComp, element: cst.BaseExpression) -> Value | None:
        """What `element` holds in a comprehension, its variables bound to what they iterate over."""
        outer = self._bound
        self._bound = dict(outer)
        try:
            clause: cst.CompFor | None = comprehension.for_in
            while clause is not None:
                self._bound.update(bound_names(clause.target, self.iterated(clause.iter)))
                clause = clause.inner_for_in
            return self.value_of(element)
        finally:
            self._bound = outer

    @staticmethod
    def _dict_values(value: Value | None) -> Value | None:
        """What `.values()` gives of `value`: a dict's items, or parts of a pytree of tracers."""
        if value is None or value.kind is not Kind.TRACED or not value.container:
            return None
        if value.contents is None:
            return replace(value, pytree_part=True)
        return value.contents.element if value.contents.kind == "dict" else None

    def _leaves(self, call: cst.Call, with_path: bool, with_treedef: bool) -> Value | None:
        """`jax.tree.leaves(tree)` of a pytree of tracers: a Python list (its `len` is static) of tracers."""
        tree = self.value_of(call.args[0].value)
        if tree is None or tree.kind is not Kind.TRACED:
            return None
        if len(call.args) > 1:  # `is_leaf=` may stop at subtrees: a leaf is then a pytree of tracers
            leaf = replace(tree, container=True, pytree_part=True, contents=None)
        else:
            leaf = replace(tree, container=False, pytree_part=False, contents=None)
        listed = holding("list", _tuple_of([STATIC, leaf]) if with_path else leaf)
        return _tuple_of([listed, None]) if with_treedef else listed

    def _builtin(self, call: cst.Call) -> Value | None:
        """What `sum`, `abs`, `pow`, `round`, `list`, `tuple` and `dict` give of tracers; None otherwise."""
        name = cast(cst.Name, call.func).value  # (called for a builtin's name only)
        if any(arg.star for arg in call.args):
            return None
        given = [arg.value for arg in call.args if arg.keyword is None]
        if name == "dict" and not given:  # `dict()`, `dict(loss=loss, step=0)`
            items = tuple(self.value_of(arg.value) for arg in call.args)
            # (every argument is a keyword one here: none is starred, none given by position)
            return built("dict", items, tuple(cast(cst.Name, arg.keyword).value for arg in call.args))
        if name in ("list", "tuple") and not call.args:
            return built(name, ())
        if len(given) != len(call.args) or not given:
            return None
        if name in ("list", "tuple") and len(given) == 1:
            known = _items_of(self.value_of(given[0]))  # a copy: `list(losses)`, `tuple(parts)`
            return built(name, known) if known is not None else holding(name, self.iterated(given[0]))
        if name == "dict" and len(given) == 1:
            copied = self.value_of(given[0])  # `dict(metrics)`: a copy
            contents = copied.contents if copied is not None else None
            if contents is None or contents.kind != "dict":
                return None
            return (
                holding("dict", contents.element)
                if contents.items is None
                else built("dict", contents.items, contents.keys)
            )
        if name == "sum" and len(given) <= 2:
            operands = [self.iterated(given[0]), *(self.value_of(arg) for arg in given[1:])]
        elif name in ARITHMETIC_BUILTINS and len(given) <= 2:
            operands = [self.value_of(arg) for arg in given]
        else:
            return None
        return _combined(operands)

    def _by_operators(self, call: cst.Call) -> Value | None:
        """What `math.prod(xs, start=s)` and `math.sumprod(p, q)` give: they multiply (and add) their items with
        `*` and `+`, so of tracers a tracer, as `sum` gives (model/numpy_boundary.MATH_BY_OPERATORS)."""
        if any(arg.star for arg in call.args):
            return None
        operands = [
            self.iterated(arg.value) if arg.keyword is None else self.value_of(arg.value)  # `start=`: one operand
            for arg in call.args
        ]
        return _combined(operands)

    def _attribute(self, expr: cst.Attribute) -> Value | None:
        if type(expr.value) is cst.Name and expr.value.value == "self":
            stored_here = self._lookup(f"self.{expr.attr.value}")  # `self.a1` after `self.a1 = a1` in this function
            if stored_here is not None:
                return stored_here
        base = self.value_of(expr.value)
        if base is not None and type(base.instance) is str:
            self.read_containers.add(f"{base.instance}.{expr.attr.value}")
        if base is not None and base.attributes:
            return dict(base.attributes).get(expr.attr.value)  # `Wrapper(x).value`: what `__init__` set
        receiver = base is None or (base.kind is Kind.STATIC and base.number is None)  # (a static `self` too)
        if receiver and type(expr.value) is cst.Name and expr.value.value == "self":
            kind = self._container_on_self(expr.attr.value)
            return (
                None
                if kind is None
                else Value(Kind.UNKNOWN if kind == "dict" else Kind.HOST, contents=Contents(kind, None))
            )
        if base is None or not base.is_array:
            return None
        if base.kind is Kind.TRACED and base.pytree is not None and base.tracer is not None:
            return self._field(base.pytree, base.tracer, expr.attr.value)
        if expr.attr.value in STATIC_ATTRIBUTES:
            return STATIC
        if expr.attr.value in ARRAY_PROPERTIES:
            return _derived([base])
        return None

    def _method_kind(self, base: Value, call: cst.Call) -> str | None:
        """The dtype kind an array method gives, by JAX's dtype rules."""
        method = cast(cst.Attribute, call.func).attr.value  # (called for `array.method(...)` only)
        if method in TRUTH_METHODS:
            return "bool"
        if method == "astype":
            return named_kind(call.args[0].value, self.names) if call.args else None
        if method in METHOD_RESULT_KINDS:
            return METHOD_RESULT_KINDS[method]
        if method in COUNTING_METHODS:
            return "int" if base.dtype == "bool" else base.dtype
        return base.dtype if method in DTYPE_KEEPING_METHODS else None

    def _result_kind(self, call: cst.Call, qualified: str | None, arguments: list[Value | None]) -> str | None:
        """The dtype kind a jax function's array result has, when its name, a dtype it is given or its arguments'
        kinds tell."""
        if qualified is None:
            return None
        position = DTYPE_POSITION.get(qualified)
        for index, arg in enumerate(call.args):
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword == "dtype" or (keyword is None and index == position):
                return named_kind(arg.value, self.names)
        if qualified in DTYPE_KINDS:
            return DTYPE_KINDS[qualified]  # `jnp.int32(3)`
        if qualified in BOOLEAN_FUNCTIONS:
            return "bool"
        if qualified in RESULT_KINDS:
            return RESULT_KINDS[qualified]
        if qualified in FLOAT_MAKERS:
            return "float"
        first = arguments[0] if arguments else None
        if qualified in KIND_KEEPING or qualified in FROM_VALUES:
            return first.dtype_kind if first is not None else None
        if qualified in COUNTING and first is not None:
            return "int" if first.dtype_kind == "bool" else first.dtype_kind
        if qualified == ARANGE:
            return promoted([argument for argument, arg in zip(arguments, call.args) if arg.keyword is None])
        return None

    def _field(self, pytree: cst.ClassDef, tracer: Tracer, name: str) -> Value | None:
        """A field of a pytree of tracers (of `tracer`) of a known class (`pytree`): its static fields are Python
        values, its children tracers (one array, or a subtree); anything else (a method, a property) unknown."""
        fields = self._fields(pytree)
        field = fields.get(name) if fields else None
        if field is None:
            return None
        if field.static:
            return STATIC
        if tracer.filtered and (field.number or not field.leaf and field.cls is None):
            return None  # a filtering transform traces array leaves only: a number, a callable, a layer unknown
        return Value(
            Kind.TRACED, tracer.field(name), container=not field.leaf, pytree_part=not field.leaf, pytree=field.cls
        )

    def _comparison(self, expr: cst.Comparison) -> Value | None:
        operators = [target.operator for target in expr.comparisons]
        if any(type(op) is cst.Is or type(op) is cst.IsNot for op in operators):
            return STATIC  # identity: `x is None`
        if any(type(op) is cst.In or type(op) is cst.NotIn for op in operators) or len(operators) > 1:
            return None
        right = expr.comparisons[0].comparator
        if any(type(side) is cst.Name and side.value == "None" for side in (expr.left, right)):
            return None
        if type(operators[0]) in (cst.Equal, cst.NotEqual) and any(
            type(side) in STRING_LITERALS for side in (expr.left, right)
        ):
            # An array's `==` defers to a string, and Python falls back to identity: a Python bool, traced or not.
            return STATIC
        sides = [self.value_of(expr.left), self.value_of(right)]
        if any(side is not None and side.contents is not None for side in sides):
            return None  # `metrics == {}`: Python compares the containers first (lengths, identity)
        return _derived(sides, dtype="bool")

    def _call(self, call: cst.Call) -> Value | None:
        func = call.func
        if type(func) is cst.Name and func.value in STATIC_BUILTINS and self.names.qualified(func) is None:
            return INT if func.value in COUNTING_BUILTINS else STATIC
        if type(func) is cst.Name and func.value in _COMPUTING_BUILTINS and self.names.qualified(func) is None:
            return self._builtin(call)
        if type(func) is cst.Attribute and func.attr.value == "get" and call.args and not call.args[0].star:
            # `batch.get("x")`: what `batch["x"]` gives, of a pytree of tracers (a dict's `get`)
            held = self.value_of(func.value)
            if held is not None and held.kind is Kind.TRACED and held.container and held.contents is None:
                return replace(held, pytree_part=True)
            if held is not None and held.contents is not None and held.contents.kind == "dict":
                key = _literal(call.args[0].value)  # a key the dict shows: its item
                return held.contents.item(key) if key in (held.contents.keys or ()) else None
        if type(func) is cst.Attribute and func.attr.value in ("items", "values") and not call.args:
            element = self._dict_values(self.value_of(func.value))
            return holding("list", element if func.attr.value == "values" else _tuple_of([STATIC, element]))
        listing = TREE_LEAF_LISTS.get(self.names.qualified(func) or "")
        if listing is not None and call.args and not call.args[0].keyword and not call.args[0].star:
            return self._leaves(call, *listing)
        arguments = [self.value_of(arg.value) for arg in call.args]
        if type(func) is cst.Call and self.names.qualified(func.func) in self._table.all:
            return derivative(func, self.names, arguments) or transformed_result(arguments)
        if arrays.produces_host_array(call, self.names):
            return NUMPY_ARRAY
        if self.names.qualified(func) in REF_FACTORIES:
            return REF
        qualified_call = self.names.qualified(func)
        if qualified_call in MATH_BY_OPERATORS:
            return self._by_operators(call)
        if qualified_call in CONSTANT_COLLECTIVES and arguments and arguments[0] is not None and arguments[0].number:
            return arguments[0]  # `lax.psum(1, axis)`: the axis size, a Python int
        if arrays.produces_pytree(call, self.names):
            # `carry, ys = lax.scan(...)`, `jnp.split(x, 2)`: arrays in a pytree, tracers under a trace.
            traced = next((a for a in arguments if a is not None and a.kind is Kind.TRACED and a.tracer), None)
            if traced is not None and qualified_call not in COLLECTIVES:  # computed from a tracer: tracers
                tracer: Tracer | None = traced.tracer
            else:
                tracer = self._staged()
            if tracer is None:
                return None
            return self._carried(call, tracer) or Value(Kind.TRACED, tracer, container=True)
        if arrays.produces_array(call, self.names):
            qualified = self.names.qualified(func)
            dtype = self._result_kind(call, qualified, arguments)
            return _derived(arguments, dtype=dtype) or Value(Kind.ARRAY, dtype=dtype)
        receiver = arrays.functional_update_receiver(call)
        if receiver is not None:
            return _derived([self.value_of(receiver)]) or ARRAY
        if type(func) is cst.Attribute and func.attr.value in ARRAY_METHODS:
            base = self.value_of(func.value)
            if base is not None and base.pytree is not None:
                # An instance of a pytree class (a NamedTuple, a registered dataclass) is no array: `mask.take(...)`
                # runs the class's own method, whose summary says what it gives.
                return self._returned(call, arguments)
            if base is not None and base.numpy and func.attr.value in HOST_ARRAY_METHODS:
                return NUMPY_ARRAY
            if base is not None and base.is_array and base.container and func.attr.value in CONTAINER_ALSO_METHODS:
                return base if CONTAINER_ALSO_METHODS[func.attr.value] == "same" and not call.args else None
            if base is not None and base.is_array:
                return _derived([base], dtype=self._method_kind(base, call))
        return self._returned(call, arguments)
