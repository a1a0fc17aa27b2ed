"""JAX101 in-place-update: Item assignment on a JAX array, which is immutable."""

from __future__ import annotations

import functools
from typing import Callable, Iterator, Sequence

import libcst as cst

from jaxlint.checks.base import FixPlan, Rule, code
from jaxlint.checks.mutation._common import declaration_needed, rebinds_here, sequence_index
from jaxlint.diagnostics import SAFE, UNSAFE
from jaxlint.model.functions import TYPE_ERRORS


_UPDATE_METHOD = {
    cst.AddAssign: "add",
    cst.SubtractAssign: "subtract",
    cst.MultiplyAssign: "multiply",
    cst.DivideAssign: "divide",
    cst.PowerAssign: "power",
}


class InPlaceUpdate(Rule):
    code = "JAX101"
    name = "in-place-update"
    summary = "Item assignment on a JAX array, which is immutable"
    what_it_does = (
        "Flags `x[i] = v` and `x[i] op= v` when `x` is known to be a JAX array: bound from a "
        "`jax.numpy`, `jax.random`, `jax.nn` or `jax.lax` call, derived from one by arithmetic, "
        "indexing or an array method, annotated `jax.Array` (or `jnp.ndarray`, or a jaxtyping "
        "`Float[Array, ...]`), or a traced parameter of a `jit`, `vmap`, `grad` or other transformed function."
    )
    why_bad = (
        "JAX arrays are immutable. Item assignment raises `TypeError: JAX arrays are immutable and do "
        "not support in-place item assignment` at run time, often deep inside a jitted function. "
        "The functional form `x.at[i].set(v)` returns an updated copy, which XLA performs in place "
        "when it can."
    )
    example = "import jax.numpy as jnp\n\nx = jnp.zeros(3)\nx[0] = 1.0\nx[1] += 2.0\n"
    use_instead = "import jax.numpy as jnp\n\nx = jnp.zeros(3)\nx = x.at[0].set(1.0)\nx = x.at[1].add(2.0)\n"
    not_flagged = (
        "NumPy arrays, lists, dicts and any object jaxlint cannot show to be a JAX array (for example "
        "`np.zeros(3)`, the result of `jax.device_get`, an attribute such as `self.buf`, or a name rebound "
        "to a NumPy array). Parameters of `grad` that are not differentiated (not in `argnums`) and "
        "`vmap` parameters mapped with `in_axes=None` are not tracers and are not flagged. The parameters "
        "of a Pallas kernel (given to `pallas_call`, `run_scoped` or `core_map`) are mutable refs, whatever "
        "their annotations: `o_ref[...] = v` is how a kernel stores. In a module that makes refs (`jax.new_ref`), a "
        "traced parameter (or a part of one) whose structure no call shows: jit takes refs as arguments. A part unpacked from a pytree of "
        "tracers (`parts, total = carry` in a `lax.scan` body) is as often a Python list, where "
        "`parts[0] = v` is ordinary Python. An update in a `try` whose handler catches a `TypeError` (`except TypeError`, `except Exception`; a "
        "tutorial showing the error: `try: x[0] = 1 except TypeError: traceback.print_exc()`)."
    )
    verify = "`--verify` traces the function and expects the `TypeError` at this line."

    fixable = True
    fix_safety = (
        "Safe, when the array is a plain name known to hold a JAX array (not a traced argument that may be "
        "a list or another pytree) and the statement assigns one subscript: `x[i] = v` becomes "
        "`x = x.at[i].set(v)`, and `+=`, `-=`, `*=`, `/=`, `**=` become `.add`, `.subtract`, `.multiply`, "
        "`.divide`, `.power`. The original statement raises, so no working code changes meaning. Unsafe "
        "when `x` is a traced argument, a loop carry or unpacked from one: a Python list passed through "
        "`jit` or carried through `lax.fori_loop`/`scan` supports item assignment and has no `.at`. No fix "
        "when `x` is a global or a closure variable of the function (assigning it would make it local: "
        "`UnboundLocalError`) or the statement is in a class body."
    )

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            for subscript, value in _subscripts(target.target, node.value):
                whole = len(node.targets) == 1 and subscript is target.target
                self._check(subscript, "set", value, statement=node if whole else None)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Subscript):
            method = _UPDATE_METHOD.get(type(node.operator))
            self._check(node.target, method, node.value, node.operator, statement=node)

    def _check(
        self,
        target: cst.Subscript,
        method: str | None,
        value: cst.BaseExpression | None,
        operator: cst.BaseAugOp | None = None,
        statement: cst.CSTNode | None = None,
    ) -> None:
        held = self.facts.value_of(target.value)
        if not held.is_array or self.facts.catches(TYPE_ERRORS):
            return
        if held.container and not _array_index(target.slice, self.facts.value_of):
            return  # a pytree argument may be a dict or list: `params["w"] = ...` is fine
        if held.pytree_part and not self.facts.array_only_index(target.slice):
            return  # `parts, total = carry`: `parts` is as often a Python list, where `parts[0] = v` works
        root, elements = _array_chain(target, self.facts.value_of)
        base = code(root)
        index = code(cst.Subscript(value=cst.Name("_"), slice=elements))[1:]
        # `[[0, 1]]`, `[range(n)]`: `.at` rejects them as a read does (JAX405): an array of indices, and no fix
        sequence = (
            len(elements) == 1 and type(only := elements[0].slice) is cst.Index and sequence_index(self, only.value)
        )
        if sequence:
            index = f"[jnp.array({index[1:-1]})]"
        if method is not None:
            # (an item of a value unpacked into several targets that the statement does not write out: `...`)
            fix = f"`{base} = {base}.at{index}.{method}({_argument_text(value) if value is not None else '...'})`"
        else:
            assert operator is not None and value is not None  # an augmented assignment: `x[i] += v`
            op = code(operator).strip()[:-1]
            fix = f"`{base} = {base}.at{index}.set({base}{index} {op} {_operand_text(value)})`"
        plan = None
        if (
            statement is not None
            and method is not None
            and value is not None
            and isinstance(target.value, cst.Name)
            and rebinds_here(self, target.value.value)
            and not sequence
        ):
            # A traced argument or carry may be a list (`acc[0] = v` works on it; `.at` does not).
            applicability = UNSAFE if held.container else SAFE
            plan = FixPlan(f"use {fix}", ((statement, _functional_update(target, method, value)),), applicability)
        if isinstance(target.value, cst.Name):
            fix += declaration_needed(self, target.value.value)
        report = functools.partial(
            self.report,
            target,
            lambda line_of: (
                f"in-place update of a JAX array raises TypeError ({held.describe(base, line_of)}); use {fix}"
            ),
            plan,
            because=held,
        )
        if held.container or held.pytree_part:
            # a pytree whose structure no call shows: a ref, if the module makes any, or an instance of a class whose
            # `__setitem__` the project defines (a pytree class)
            self._unless_refs.append(report)
        else:
            report()

    def visit_Module(self, node: cst.Module) -> None:
        self._unless_refs: list[Callable[[], None]] = []

    def leave_Module(self, node: cst.Module) -> None:
        if self._unless_refs and not self.facts.makes_refs and not self.facts.item_setters:
            for report in self._unless_refs:
                report()


def _bare(value: cst.BaseExpression) -> bool:
    """A value that needs parentheses as a call argument: `x[0] = 1, 2`, `x[0] = yield v`."""
    return isinstance(value, (cst.Tuple, cst.Yield)) and not value.lpar


def _argument_text(value: cst.BaseExpression) -> str:
    """The value as a message writes it as the argument of `.set(...)`."""
    return f"({code(value)})" if _bare(value) and code(value) != "..." else code(value)


def _operand_text(value: cst.BaseExpression) -> str:
    """The value as a message writes it as the right operand of a binary operator."""
    atoms = (
        cst.Name,
        cst.Attribute,
        cst.Subscript,
        cst.Call,
        cst.Integer,
        cst.Float,
        cst.Imaginary,
        cst.SimpleString,
        cst.List,
        cst.Dict,
        cst.Set,
    )
    text = code(value)
    return text if isinstance(value, atoms) or value.lpar or text == "..." else f"({text})"


def _functional_update(target: cst.Subscript, method: str, value: cst.BaseExpression) -> tuple:
    """`x = x.at[i].method(value)`, the index and the value copied as they were written."""
    return (
        target.value,
        " = ",
        target.value,
        ".at",
        (target.lbracket, target.rbracket),
        f".{method}(",
        *(("(", value, ")") if _bare(value) else (value,)),
        ")",
    )


def _array_chain(target: cst.Subscript, value_of) -> tuple[cst.BaseExpression, Sequence[cst.SubscriptElement]]:
    """The array an update writes into, with the whole index: `a` and `[0, 1]` of `a[0][1] = v` when `a` is an
    array and the inner index picks one row by an integer (then `a[0][1]` is `a[0, 1]`, and `a[0] = a[0].at[1]...`
    would assign into `a` again); the subscripted value and the index as written otherwise."""
    elements: list[cst.SubscriptElement] = list(target.slice)
    inner = target.value
    while (
        type(inner) is cst.Subscript
        and len(inner.slice) == 1
        and type(index := inner.slice[0].slice) is cst.Index
        and _integer(index.value, value_of)
        and (held := value_of(inner.value)).is_array
        and not held.container
        and not held.pytree_part
    ):
        elements = [cst.SubscriptElement(index), *elements]
        inner = inner.value
    if inner is target.value:
        return inner, target.slice
    return inner, [element.with_changes(comma=cst.MaybeSentinel.DEFAULT) for element in elements]


def _integer(value: cst.BaseExpression, value_of) -> bool:
    """An integer literal (`0`, `-1`) or a Python int the analysis knows (`i` of `range`)."""
    if type(value) is cst.UnaryOperation and type(value.operator) is cst.Minus:
        value = value.expression
    return type(value) is cst.Integer or value_of(value).number == "int"


def _array_index(elements, value_of) -> bool:
    """An index only an array takes: integers, slices, `...`, `None`, arrays; not a key such as a string."""
    for element in elements:
        index = element.slice
        if isinstance(index, cst.Slice):
            continue
        value = index.value
        held = value_of(value)
        if held.is_array and not held.container:
            continue
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
            value = value.expression
        if not isinstance(value, (cst.Integer, cst.Ellipsis)) and not (
            isinstance(value, cst.Name) and value.value == "None"
        ):
            return False
    return True


def _subscripts(
    target: cst.BaseExpression, value: cst.BaseExpression | None
) -> Iterator[tuple[cst.Subscript, cst.BaseExpression | None]]:
    """The subscripts an assignment's target assigns, each with the value it gets: its item of a tuple or list display
    unpacked into it (`u[i], v[i] = 0.0, 1.0`), or None when that is not written there (`a[i], b[i] = f()`)."""
    if type(target) is cst.Subscript:
        yield target, value
    elif type(target) is cst.Tuple or type(target) is cst.List:
        items = _unpacked(value, len(target.elements))
        for index, element in enumerate(target.elements):
            yield from _subscripts(element.value, items[index] if items is not None else None)


def _unpacked(value: cst.BaseExpression | None, count: int) -> list[cst.BaseExpression] | None:
    """The items of a tuple or list display of `count` items, none starred."""
    if not isinstance(value, (cst.Tuple, cst.List)) or len(value.elements) != count:
        return None
    if any(type(element) is cst.StarredElement for element in value.elements):
        return None
    return [element.value for element in value.elements]
