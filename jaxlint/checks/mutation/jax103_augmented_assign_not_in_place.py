"""JAX103 augmented-assign-not-in-place: `b += v` on a JAX array expected to update another name or a list (a NumPy
habit)."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.bindings import mentioned_names, rebound_names, statements
from jaxlint.analysis.scopes import assigned_values
from jaxlint.analysis.values import Kind, Value
from jaxlint.checks.base import Rule, code


class AugmentedAssignNotInPlace(Rule):
    code = "JAX103"
    name = "augmented-assign-not-in-place"
    summary = "`b += v` on a JAX array expected to update another name or a list (a NumPy habit)"
    what_it_does = (
        "Flags an augmented assignment (`+=`, `-=`, `*=`...) to a name holding a JAX array when its new value "
        "is visibly lost and an in-place update was meant: `b = a` then `b += 1` where `b` is never read again "
        "but `a` is (code written for NumPy, where `b += 1` changes `a` too); and `for p in params: p -= lr * g` "
        "(also over `zip(...)` and `enumerate(...)`) over a list or tuple known to hold JAX arrays (built in the "
        "function, or given by every call of it), where `p` is not read again in the loop body, so nothing is "
        "written back."
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
        if not held.is_array or held.container or self.facts.is_global(name) or self.facts.is_nonlocal(name):
            return
        before, after = _around(_block_of(self.facts.chain[-1]), node)
        if before is None:
            return
        for statement in reversed(before):
            if (
                isinstance(statement, cst.Assign)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0].target, cst.Name)
                and statement.targets[0].target.value == name
            ):
                self._check_alias(node, statement, before[before.index(statement) + 1 :], after)
                return
            if name in rebound_names([statement]):
                return

    def _check_alias(self, node: cst.AugAssign, alias: cst.Assign, between: list, after: list) -> None:
        source, target = alias.value, node.target
        assert isinstance(target, cst.Name)  # visit_AugAssign checks
        if not isinstance(source, cst.Name) or source.value == target.value:
            return
        if source.value in rebound_names(between):
            return
        later = frozenset().union(*map(mentioned_names, after))
        if target.value in later or source.value not in later:
            return
        b, a, op = target.value, source.value, code(node.operator).strip()[:-1]
        self.report(
            node,
            lambda line_of: (
                f"`{b} {op}= ...` binds a new array to `{b}` alone: `{a}` (bound to `{b}` at line {line_of(alias)}) "
                f"is unchanged and `{b}` is not read again; JAX arrays are immutable (NumPy would have updated `{a}` "
                f"in place); write `{a} = {a} {op} ...`"
            ),
        )

    def visit_For(self, node: cst.For) -> None:
        for name, iterable in _loop_sources(node):
            if not self._holds_arrays(iterable):
                continue
            body = list(statements(node.body))
            for index, statement in enumerate(body):
                if (
                    isinstance(statement, cst.AugAssign)
                    and isinstance(statement.target, cst.Name)
                    and statement.target.value == name
                ):
                    later = frozenset().union(*map(mentioned_names, body[index + 1 :]))
                    if name not in later:
                        self._report_loop(statement, name, iterable)
                    break

    def _report_loop(self, node: cst.AugAssign, name: str, iterable: cst.BaseExpression) -> None:
        op = code(node.operator).strip()[:-1]
        items = code(iterable)
        rebuilt = f"[{name} {op} ... for {name} in {items}]"
        if isinstance(iterable, cst.Name):
            rebuilt = f"{items} = {rebuilt}"
        self.report(
            node,
            (
                f"`{name} {op}= ...` binds a new array to the loop variable `{name}` and drops it: `{items}` is "
                f"unchanged (JAX arrays are immutable; NumPy would have updated its arrays in place); build the new "
                f"values instead: `{rebuilt}`, or `jax.tree.map`"
            ),
        )

    def _holds_arrays(self, iterable: cst.BaseExpression) -> bool:
        """A list or tuple whose elements are known JAX arrays (a traced pytree argument included)."""
        held = self.facts.value_of(iterable)
        if held.kind is Kind.TRACED and held.container and not held.pytree_part:
            return True
        contents = held.contents
        if contents is not None and contents.kind != "dict" and contents.items:
            if all(item is not None and _is_array(item) for item in contents.items):
                return True  # a list or tuple of arrays (every eager call gives the parameter one)
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
                for e in value.elements
            )
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
            return block[:index], block[index + 1 :]
    return None, []


def _loop_sources(node: cst.For):
    """(loop variable, the sequence its values come from): `for p in params`, `for p, g in zip(params,
    grads)`, `for i, p in enumerate(params)`."""
    target, iterable = node.target, node.iter
    if isinstance(target, cst.Name):
        yield target.value, iterable
        return
    if not (
        isinstance(target, (cst.Tuple, cst.List))
        and isinstance(iterable, cst.Call)
        and isinstance(iterable.func, cst.Name)
        and iterable.func.value in ("zip", "enumerate")
    ):
        return
    sources: list[cst.BaseExpression | None] = [
        arg.value for arg in iterable.args if arg.keyword is None and not arg.star
    ]
    if iterable.func.value == "enumerate":
        sources = [None, *sources[:1]]
    for element, source in zip(target.elements, sources):
        if isinstance(element.value, cst.Name) and source is not None:
            yield element.value.value, source
