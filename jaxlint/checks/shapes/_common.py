"""What several JAX4xx rules share: reading shape arguments and indices, and hints for static values."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.bindings import parameter_names
from jaxlint.analysis.calls import arguments
from jaxlint.analysis.values import Kind, Value
from jaxlint.checks.base import Rule
from jaxlint.model.shapes import REPEAT
from jaxlint.model.transforms import LOOP_BODIES, MAPS


def call_arguments(call: cst.Call) -> tuple[list[cst.BaseExpression], dict[str, cst.BaseExpression]] | None:
    """Positional and keyword arguments, or None when `**kwargs` may hold any keyword."""
    given = arguments(call)
    return None if given.double_starred else (given.positional, given.keywords)


def static_hint(rule: Rule, value: Value, operand: cst.BaseExpression, mask: bool = True) -> str | None:
    """How to give JAX a Python value instead of the tracer, when `operand` is plain arithmetic on a
    traced parameter (`n`, `n * 2`, `max_len - n`); None when it is computed from array data.
    A vmapped or loop argument cannot be static: then the hint is a mask (if `mask`)."""
    tracer = value.tracer
    if tracer is None or not could_be_static(rule, operand, tracer.param, tracer.function):
        return None
    param, transform = tracer.param, tracer.transform.name
    if tracer.caller is not None:
        return f"pass a static Python value for `{param}` from `{tracer.caller}`"
    if rule.facts.takes_static_argnames(transform):
        return f"mark `{param}` static with `static_argnames=('{param}',)`"
    if transform in MAPS or transform in LOOP_BODIES:
        if not mask:
            return None
        each = "example" if transform in MAPS else "iteration"
        return (
            f"`{param}` changes with each {each} of `{transform}`: use a static maximum size and a mask "
            f"(`jnp.arange(max_size) < {param}`)"
        )
    return f"make `{param}` a static Python value"


def could_be_static(rule: Rule, expr: cst.BaseExpression, param: str, function: str) -> bool:
    """Whether a static `param` of `function` would make `expr` a Python value: `expr` is plain arithmetic on
    it (`n`, `n * 2 > 0`), and the function never reads an attribute of it (`n.sum()`, `n.shape`), which
    makes it an array: unhashable, so jax rejects it as a static argument."""
    return _plain(rule, expr, param) and not _attribute_read(rule, param, function)


def _attribute_read(rule: Rule, param: str, function: str) -> bool:
    """Whether `function` (around this point) reads an attribute of its parameter `param`; True when the
    function is not found."""
    for node in reversed(rule.facts.chain):
        if isinstance(node, cst.FunctionDef) and node.name.value == function and param in parameter_names(node.params):
            finder = _AttributeOf(param)
            node.visit(finder)
            return finder.found
    return True


class _AttributeOf(cst.CSTVisitor):
    """Finds `name.attribute` in the code it visits."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.found = False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.found = self.found or (isinstance(node.value, cst.Name) and node.value.value == self.name)
        return not self.found


def _plain(rule: Rule, expr: cst.BaseExpression, param: str) -> bool:
    """Arithmetic whose only traced operands are the parameter itself or pieces of it (`h, w = dims`)."""
    if isinstance(expr, cst.BinaryOperation):
        return _plain(rule, expr.left, param) and _plain(rule, expr.right, param)
    if isinstance(expr, cst.UnaryOperation):
        return _plain(rule, expr.expression, param)
    if isinstance(expr, cst.Comparison):
        return _plain(rule, expr.left, param) and all(_plain(rule, c.comparator, param) for c in expr.comparisons)
    if isinstance(expr, cst.Name) and expr.value == param:
        return True
    value = rule.facts.value_of(expr)
    if value.kind is not Kind.TRACED:
        return True
    # A name unpacked from the parameter (`h, w = dims`); any computation makes an array instead.
    return isinstance(expr, cst.Name) and value.pytree_part and value.tracer is not None and value.tracer.param == param


def is_call_to(rule: Rule, node: cst.Call, method: str) -> bool:
    """`x.<method>(...)` on a known JAX array (or tracer)."""
    func = node.func
    if type(func) is not cst.Attribute or func.attr.value != method:
        return False
    return rule.facts.value_of(func.value).is_array


def repeats_of(rule: Rule, node: cst.Call) -> tuple[cst.BaseExpression, Value] | None:
    """The staged traced `repeats` of `jnp.repeat(x, r)` / `x.repeat(r)` without `total_repeat_length=`."""
    arguments = call_arguments(node)
    if arguments is None or "total_repeat_length" in arguments[1]:
        return None
    positional, keywords = arguments
    if rule.names.qualified(node.func) == REPEAT:
        repeats = positional[1] if len(positional) > 1 else keywords.get("repeats")
    elif is_call_to(rule, node, "repeat"):
        repeats = positional[0] if positional else keywords.get("repeats")
    else:
        return None
    if repeats is None:
        return None
    value = rule.facts.value_of(repeats)
    return (repeats, value) if value.staged else None


def maybe_array(rule: Rule, expr: cst.BaseExpression) -> bool:
    """A JAX array, or unknown; not a shape, a Python sequence or a NumPy array (JAX304's ground)."""
    held = rule.facts.value_of(expr)
    return not held.is_known or held.is_array


def indexed(node: cst.Subscript) -> tuple[cst.BaseExpression, bool]:
    """The array a subscript indexes, and whether it is the `x.at[...]` of a functional update."""
    base = node.value
    if type(base) is cst.Attribute and base.attr.value == "at":
        return base.value, True
    return base, False


def sequence_index(rule: Rule, index: cst.BaseExpression) -> str | None:
    """What a JAX array rejects as an index, written out: "list" for a list display or comprehension, "`range`"
    for a call of the builtin `range` (JAX405)."""
    if type(index) in (cst.List, cst.ListComp):
        return "list"
    return "`range`" if type(index) is cst.Call and rule.builtin(index.func, {"range"}) else None
