"""JAX1xx: JAX arrays are immutable."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.arrays import functional_update_receiver
from jaxlint.analysis.bindings import declared_outer, mentioned_names, parameter_names, rebound_names, statements
from jaxlint.analysis.scopes import assigned_values
from jaxlint.analysis.values import Kind, Value
from jaxlint.checks.base import FixPlan, Rule, code
from jaxlint.diagnostics import SAFE, UNSAFE
from jaxlint.model.functions import IN_PLACE_UPDATE_ERRORS

_UPDATE_METHOD = {
    cst.AddAssign: "add",
    cst.SubtractAssign: "subtract",
    cst.MultiplyAssign: "multiply",
    cst.DivideAssign: "divide",
    cst.PowerAssign: "power",
}
_REMOVED_INDEX_OPS = {
    "jax.ops.index_update": "set",
    "jax.ops.index_add": "add",
    "jax.ops.index_mul": "multiply",
    "jax.ops.index_min": "min",
    "jax.ops.index_max": "max",
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
    example = (
        "import jax.numpy as jnp\n\n"
        "x = jnp.zeros(3)\n"
        "x[0] = 1.0\n"
        "x[1] += 2.0\n"
    )
    use_instead = (
        "import jax.numpy as jnp\n\n"
        "x = jnp.zeros(3)\n"
        "x = x.at[0].set(1.0)\n"
        "x = x.at[1].add(2.0)\n"
    )
    not_flagged = (
        "NumPy arrays, lists, dicts and any object jaxlint cannot show to be a JAX array (for example "
        "`np.zeros(3)`, the result of `jax.device_get`, an attribute such as `self.buf`, or a name rebound "
        "to a NumPy array). Parameters of `grad` that are not differentiated (not in `argnums`) and "
        "`vmap` parameters mapped with `in_axes=None` are not tracers and are not flagged. The parameters "
        "of a Pallas kernel (given to `pallas_call`, `run_scoped` or `core_map`) are mutable refs, whatever "
        "their annotations: `o_ref[...] = v` is how a kernel stores. A part unpacked from a pytree of "
        "tracers (`parts, total = carry` in a `lax.scan` body) is as often a Python list, where "
        "`parts[0] = v` is ordinary Python. An update in a `try` whose handler catches `TypeError` (a "
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
            for subscript in _subscripts(target.target):
                whole = len(node.targets) == 1 and subscript is target.target
                self._check(subscript, "set", node.value, statement=node if whole else None)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Subscript):
            method = _UPDATE_METHOD.get(type(node.operator))
            self._check(node.target, method, node.value, node.operator, statement=node)

    def _check(self, target: cst.Subscript, method: str | None, value: cst.BaseExpression,
               operator: cst.BaseAugOp | None = None, statement: cst.CSTNode | None = None) -> None:
        held = self.facts.value_of(target.value)
        if not held.is_array or self.facts.catches(IN_PLACE_UPDATE_ERRORS):
            return
        if held.container and not _array_index(target.slice, self.facts.value_of):
            return  # a pytree argument may be a dict or list: `params["w"] = ...` is fine
        if held.pytree_part and not _no_container_index(target.slice, self.facts.value_of):
            return  # `parts, total = carry`: `parts` is as often a Python list, where `parts[0] = v` works
        base = code(target.value)
        index = code(cst.Subscript(value=cst.Name("_"), slice=target.slice))[1:]
        if method is not None:
            fix = f"`{base} = {base}.at{index}.{method}({_argument_text(value)})`"
        else:
            op = code(operator).strip()[:-1]
            fix = f"`{base} = {base}.at{index}.set({base}{index} {op} {_operand_text(value)})`"
        plan = None
        if (statement is not None and method is not None and isinstance(target.value, cst.Name)
                and rebinds_here(self, target.value.value)):
            # A traced argument or carry may be a list (`acc[0] = v` works on it; `.at` does not).
            applicability = UNSAFE if held.container else SAFE
            plan = FixPlan(f"use {fix}", ((statement, _functional_update(target, method, value)),), applicability)
        if isinstance(target.value, cst.Name):
            fix += declaration_needed(self, target.value.value)
        self.report(target, lambda line_of: (
            f"in-place update of a JAX array raises TypeError ({held.describe(base, line_of)}); use {fix}"
        ), plan)


def rebinds_here(rule: Rule, name: str) -> bool:
    """Whether `name = ...` at this point rebinds the variable a read of `name` here sees: at module
    level, or in a function that binds `name` itself (a parameter, an assignment, a `global` or
    `nonlocal` declaration). Elsewhere the assignment would make a global or closure variable local to
    the function (`UnboundLocalError` on every read before it), or bind a class attribute."""
    scope = rule.facts.chain[-1]
    return isinstance(scope, cst.Module) or isinstance(scope, cst.FunctionDef) and _binds(scope, name)


def declaration_needed(rule: Rule, name: str) -> str:
    """For a message: `(after `global x`)` when assigning `name` in this function needs that declaration."""
    chain = rule.facts.chain
    if rebinds_here(rule, name) or not isinstance(chain[-1], cst.FunctionDef):
        return ""
    outer = next((f for f in reversed(chain[:-1]) if isinstance(f, cst.FunctionDef) and _binds(f, name)), None)
    return f" (after `{'global' if outer is None else 'nonlocal'} {name}`)"


def _binds(function: cst.FunctionDef, name: str) -> bool:
    body = function.body
    return name in parameter_names(function.params) or name in rebound_names(body) or name in declared_outer(body)


def _bare(value: cst.BaseExpression) -> bool:
    """A value that needs parentheses as a call argument: `x[0] = 1, 2`, `x[0] = yield v`."""
    return isinstance(value, (cst.Tuple, cst.Yield)) and not value.lpar


def _argument_text(value: cst.BaseExpression) -> str:
    """The value as a message writes it as the argument of `.set(...)`."""
    return f"({code(value)})" if _bare(value) and code(value) != "..." else code(value)


def _operand_text(value: cst.BaseExpression) -> str:
    """The value as a message writes it as the right operand of a binary operator."""
    atoms = (cst.Name, cst.Attribute, cst.Subscript, cst.Call, cst.Integer, cst.Float, cst.Imaginary,
             cst.SimpleString, cst.List, cst.Dict, cst.Set)
    text = code(value)
    return text if isinstance(value, atoms) or value.lpar or text == "..." else f"({text})"


def _functional_update(target: cst.Subscript, method: str, value: cst.BaseExpression) -> tuple:
    """`x = x.at[i].method(value)`, the index and the value copied as they were written."""
    return (target.value, " = ", target.value, ".at", (target.lbracket, target.rbracket), f".{method}(",
            *(("(", value, ")") if _bare(value) else (value,)), ")")


def _no_container_index(elements, value_of) -> bool:
    """An index that no list, tuple or dict a pytree holds takes in an item assignment, only an array: several
    positions (`w[0, 0]`), `None`, `...`, or an array."""
    if len(elements) > 1:
        return True
    index = elements[0].slice
    if isinstance(index, cst.Slice):
        return False  # `xs[1:] = ...` assigns a slice of a list
    held = value_of(index.value)
    return isinstance(index.value, cst.Ellipsis) or (isinstance(index.value, cst.Name) and index.value.value == "None") \
        or (held.is_array and not held.container)


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


def _subscripts(target: cst.BaseExpression):
    if isinstance(target, cst.Subscript):
        yield target
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _subscripts(element.value)


class DiscardedFunctionalUpdate(Rule):
    code = "JAX102"
    name = "discarded-functional-update"
    summary = "The result of `x.at[i].set(v)` (or another functional update) is thrown away"
    what_it_does = (
        "Flags an expression statement `x.at[...].set(...)` (also `add`, `subtract`, `multiply`, "
        "`divide`, `power`, `min`, `max`, `apply`) whose result is not used, and the removed "
        "`jax.ops.index_update(...)` family used the same way."
    )
    why_bad = (
        "A functional update returns a new array and leaves `x` unchanged. Written as a statement it "
        "does nothing, silently: no error, just the old values."
    )
    example = (
        "import jax.numpy as jnp\n\n"
        "x = jnp.zeros(3)\n"
        "x.at[0].set(1.0)\n"
    )
    use_instead = (
        "import jax.numpy as jnp\n\n"
        "x = jnp.zeros(3)\n"
        "x = x.at[0].set(1.0)\n"
    )
    not_flagged = (
        "Updates whose result is assigned, returned, passed on or used in any expression; writes through a "
        "mutable `jax.Ref` (`jax.new_ref(...)`, or a Pallas kernel's `o_ref`, named `*ref`), where "
        "`.at[...].set(...)` is an in-place write that returns `None`."
    )
    verify = "Not confirmed by `--verify`: the statement runs without error, which is the bug."
    fixable = True
    fix_safety = (
        "Unsafe: for a plain name, `x.at[i].set(v)` becomes `x = x.at[i].set(v)`. The statement did "
        "nothing before, so assigning the result changes what the code computes (that is the point, but "
        "review it). No fix when `x` is a global or a closure variable of the function (assigning it would "
        "make it local: `UnboundLocalError`) or the statement is in a class body."
    )

    def _is_ref(self, receiver: cst.BaseExpression) -> bool:
        """A `jax.Ref` (or a Pallas kernel's `x_ref`): its `.at[...].set(...)` writes in place."""
        if self.facts.value_of(receiver).kind is Kind.REF:
            return True
        name = receiver.attr.value if isinstance(receiver, cst.Attribute) else getattr(receiver, "value", "")
        return isinstance(name, str) and name.lower().endswith("ref")

    def _rebinds(self, receiver: cst.BaseExpression) -> bool:
        return isinstance(receiver, cst.Name) and rebinds_here(self, receiver.value)

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if not isinstance(call, cst.Call):
            return
        receiver = functional_update_receiver(call)
        if receiver is not None and not self._is_ref(receiver):
            method = call.func.attr.value
            assign = f"{code(receiver)} = {code(call, 60)}"
            declaration = declaration_needed(self, receiver.value) if isinstance(receiver, cst.Name) else ""
            self.report(call, (
                f"the result of `.at[...].{method}(...)` is discarded: JAX arrays are immutable, so "
                f"`{code(receiver)}` is unchanged; assign it: `{assign}`{declaration}"
            ), _assign_back(node, receiver, assign) if self._rebinds(receiver) else None)
            return
        qualified = self.names.qualified(call.func)
        if qualified in _REMOVED_INDEX_OPS:
            self.report(call, (
                f"the result of `{qualified}(...)` is discarded: it returns a new array and leaves its "
                f"operand unchanged; assign it: `x = x.at[idx].{_REMOVED_INDEX_OPS[qualified]}(v)`"
            ))


def _assign_back(statement: cst.Expr, receiver: cst.BaseExpression, assign: str) -> FixPlan | None:
    """`x.at[i].set(v)` -> `x = x.at[i].set(v)`, for a plain-name receiver."""
    if not isinstance(receiver, cst.Name):
        return None
    return FixPlan(f"assign the result: `{assign}`", ((statement, (receiver, " = ", statement.value)),), UNSAFE)


class AugmentedAssignNotInPlace(Rule):
    code = "JAX103"
    name = "augmented-assign-not-in-place"
    summary = "`b += v` on a JAX array expected to update another name or a list (a NumPy habit)"
    what_it_does = (
        "Flags an augmented assignment (`+=`, `-=`, `*=`...) to a name holding a JAX array when its new value "
        "is visibly lost and an in-place update was meant: `b = a` then `b += 1` where `b` is never read again "
        "but `a` is (code written for NumPy, where `b += 1` changes `a` too); and `for p in params: p -= lr * g` "
        "(also over `zip(...)` and `enumerate(...)`) over a list or tuple known to hold JAX arrays, where `p` is "
        "not read again in the loop body, so nothing is written back."
    )
    why_bad = (
        "JAX arrays are immutable: `b += 1` computes a new array and binds it to `b` alone. With NumPy it "
        "updates the array in place, which every other name for it sees. Measured on jax 0.10.2: after "
        "`a = jnp.zeros(2); b = a; b += 1`, `a` is still `[0. 0.]`; after `for p in params: p -= 0.5` over a list "
        "of two `jnp.ones(2)`, `params` still holds ones. Nothing raises. See [The Sharp Bits: in-place updates]"
        "(https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#in-place-updates)."
    )
    example = (
        "import jax\n"
        "import jax.numpy as jnp\n\n\n"
        "def sgd(params, grads, lr=0.1):\n"
        "    params = [jnp.asarray(p) for p in params]\n"
        "    for p, g in zip(params, grads):\n"
        "        p -= lr * g\n"
        "    return params\n"
    )
    use_instead = (
        "import jax\n"
        "import jax.numpy as jnp\n\n\n"
        "def sgd(params, grads, lr=0.1):\n"
        "    params = [jnp.asarray(p) for p in params]\n"
        "    return [p - lr * g for p, g in zip(params, grads)]  # or jax.tree.map(...)\n"
    )
    not_flagged = (
        "Names jaxlint cannot show to hold JAX arrays (NumPy arrays are updated in place: the code is right "
        "there); `b += 1` when `b` is read afterwards (the new value is used) or `a` is not (nothing expected "
        "it to change); loops whose variable is read after the update (`new.append(p)`, `params[i] = p`); "
        "updates inside nested blocks of a function (only the function's own top-level statements are followed)."
    )
    fix_safety = (
        "No automatic fix: the intended target (`a`, or a rebuilt list) is a choice; the message shows "
        "`params = [p - v for p in params]` or `jax.tree.map`."
    )
    verify = "Not confirmed by `--verify` yet."

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if not isinstance(node.target, cst.Name):
            return
        name = node.target.value
        held = self.facts.value_of(node.target)
        if not held.is_array or held.container or self.facts.is_global(name) \
                or self.facts.is_nonlocal(name):
            return
        before, after = _around(_block_of(self.facts.chain[-1]), node)
        if before is None:
            return
        for statement in reversed(before):
            if isinstance(statement, cst.Assign) and len(statement.targets) == 1 \
                    and isinstance(statement.targets[0].target, cst.Name) \
                    and statement.targets[0].target.value == name:
                self._check_alias(node, statement, before[before.index(statement) + 1:], after)
                return
            if name in rebound_names([statement]):
                return

    def _check_alias(self, node: cst.AugAssign, alias: cst.Assign, between: list, after: list) -> None:
        source = alias.value
        if not isinstance(source, cst.Name) or source.value == node.target.value:
            return
        if source.value in rebound_names(between):
            return
        later = frozenset().union(*map(mentioned_names, after))
        if node.target.value in later or source.value not in later:
            return
        b, a, op = node.target.value, source.value, code(node.operator).strip()[:-1]
        self.report(node, lambda line_of: (
            f"`{b} {op}= ...` binds a new array to `{b}` alone: `{a}` (bound to `{b}` at line {line_of(alias)}) "
            f"is unchanged and `{b}` is not read again; JAX arrays are immutable (NumPy would have updated `{a}` "
            f"in place); write `{a} = {a} {op} ...`"
        ))

    def visit_For(self, node: cst.For) -> None:
        for name, iterable in _loop_sources(node):
            if not self._holds_arrays(iterable):
                continue
            body = list(statements(node.body))
            for index, statement in enumerate(body):
                if isinstance(statement, cst.AugAssign) and isinstance(statement.target, cst.Name) \
                        and statement.target.value == name:
                    later = frozenset().union(*map(mentioned_names, body[index + 1:]))
                    if name not in later:
                        self._report_loop(statement, name, iterable)
                    break

    def _report_loop(self, node: cst.AugAssign, name: str, iterable: cst.BaseExpression) -> None:
        op = code(node.operator).strip()[:-1]
        items = code(iterable)
        rebuilt = f"[{name} {op} ... for {name} in {items}]"
        if isinstance(iterable, cst.Name):
            rebuilt = f"{items} = {rebuilt}"
        self.report(node, (
            f"`{name} {op}= ...` binds a new array to the loop variable `{name}` and drops it: `{items}` is "
            f"unchanged (JAX arrays are immutable; NumPy would have updated its arrays in place); build the new "
            f"values instead: `{rebuilt}`, or `jax.tree.map`"
        ))

    def _holds_arrays(self, iterable: cst.BaseExpression) -> bool:
        """A list or tuple whose elements are known JAX arrays (a traced pytree argument included)."""
        held = self.facts.value_of(iterable)
        if held.kind is Kind.TRACED and held.container and not held.pytree_part:
            return True
        if isinstance(iterable, (cst.List, cst.Tuple)):
            return self._array_elements(iterable)
        if not isinstance(iterable, cst.Name):
            return False
        block = _block_of(self.facts.chain[-1])
        bound = assigned_values(block, iterable.value) if block is not None else []
        return bool(bound) and all(value is not None and self._array_elements(value) for value in bound)

    def _array_elements(self, value: cst.BaseExpression) -> bool:
        if isinstance(value, (cst.List, cst.Tuple)):
            return bool(value.elements) and all(
                not isinstance(e, cst.StarredElement) and _is_array(self.facts.value_of(e.value))
                for e in value.elements)
        if isinstance(value, cst.ListComp):
            return _is_array(self.facts.value_of(value.elt))
        return False


def _is_array(value: Value) -> bool:
    return value.is_array and not value.container


def _block_of(scope: cst.CSTNode) -> list | None:
    """The top-level statements of a function or module (None for a lambda or class)."""
    if isinstance(scope, cst.Module):
        return list(statements(scope.body))
    if isinstance(scope, cst.FunctionDef):
        return list(statements(scope.body))
    return None


def _around(block: list | None, node: cst.CSTNode) -> tuple[list | None, list]:
    """The statements of `block` before and after `node`; (None, []) when it is not one of them."""
    if block is None:
        return None, []
    for index, statement in enumerate(block):
        if statement is node:
            return block[:index], block[index + 1:]
    return None, []


def _loop_sources(node: cst.For):
    """(loop variable, the sequence its values come from): `for p in params`, `for p, g in zip(params,
    grads)`, `for i, p in enumerate(params)`."""
    target, iterable = node.target, node.iter
    if isinstance(target, cst.Name):
        yield target.value, iterable
        return
    if not (isinstance(target, (cst.Tuple, cst.List)) and isinstance(iterable, cst.Call)
            and isinstance(iterable.func, cst.Name) and iterable.func.value in ("zip", "enumerate")):
        return
    sources = [arg.value for arg in iterable.args if arg.keyword is None and not arg.star]
    if iterable.func.value == "enumerate":
        sources = [None, *sources[:1]]
    for element, source in zip(target.elements, sources):
        if isinstance(element.value, cst.Name) and source is not None:
            yield element.value.value, source
