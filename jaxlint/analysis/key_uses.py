"""How each PRNG key made with `jax.random.PRNGKey` is used: as a key, or as data (its raw uint32 words)."""

from __future__ import annotations

from typing import cast

import libcst as cst

from jaxlint.analysis.calls import argument
from jaxlint.model.keys import DERIVED_KEYS, KEY_DATA_MODULES, KEY_FROM_DATA, LEGACY_KEY

# Builtins that read a legacy key's data as numbers.
_DATA_BUILTINS = frozenset(
    {"int", "float", "complex", "bool", "len", "list", "tuple", "iter", "bytes", "sorted", "sum", "min", "max"}
)


class KeyUses(cst.CSTVisitor):
    """Whether a legacy key, or a key derived from it, is used as `uint32` data anywhere in a module.

    A typed key behaves differently there: `key[0]` raises, `key.shape` is `()`, `split(key).shape`
    is `(n,)`, NumPy refuses it. Names are followed through the whole module regardless of scope (a
    name used as data anywhere counts), and into the parameters of the module's functions that a key
    is passed to, so the answer errs towards "used as data".
    """

    def __init__(self, names) -> None:
        self._names = names
        self._stack: list[cst.CSTNode] = []
        self._uses: dict[str, list[tuple[cst.CSTNode, ...]]] = {}  # name -> each use and the nodes around it
        self._makers: dict[cst.Call, tuple[cst.CSTNode, ...]] = {}  # PRNGKey call -> it and the nodes around it
        self._bindings: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []  # (target, value)
        self._functions: dict[str, list[cst.FunctionDef]] = {}
        self._calls: list[cst.Call] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self._stack.append(node)
        if isinstance(node, cst.Name):
            self._uses.setdefault(node.value, []).append(self._around())
        elif isinstance(node, cst.Call) and self._names.qualified(node.func) == LEGACY_KEY:
            self._makers[node] = self._around()
        elif isinstance(node, cst.Assign):
            self._bindings += [(target.target, node.value) for target in node.targets]
        elif isinstance(node, (cst.AnnAssign, cst.NamedExpr)) and node.value is not None:
            self._bindings.append((node.target, node.value))
        elif isinstance(node, (cst.For, cst.CompFor)):  # the loop variable: an item of the iterable
            item = cst.Subscript(node.iter, [cst.SubscriptElement(cst.Index(cst.Integer("0")))])
            self._bindings.append((node.target, item))
        elif isinstance(node, cst.FunctionDef):
            self._functions.setdefault(node.name.value, []).append(node)
        if isinstance(node, cst.Call) and isinstance(node.func, (cst.Name, cst.Attribute)):
            self._calls.append(node)
        return True

    def leave_Module(self, original_node: cst.Module) -> None:
        """Calls of the module's functions bind their parameters (`f(key)`, `self.f(key)`, by name too)."""
        for call in self._calls:
            func = call.func
            name = func.value if isinstance(func, cst.Name) else cast(cst.Attribute, func).attr.value
            for function in self._functions.get(name, ()):
                params = [p.name.value for p in (*function.params.posonly_params, *function.params.params)]
                if isinstance(call.func, cst.Attribute) and params[:1] in (["self"], ["cls"]):
                    params = params[1:]
                for position, arg in enumerate(call.args):
                    if arg.star:
                        break
                    param = (
                        arg.keyword.value
                        if arg.keyword is not None
                        else (params[position] if position < len(params) else None)
                    )
                    if param is not None:
                        self._bindings.append((cst.Name(param), arg.value))

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self._stack.pop()
        super().on_leave(original_node)

    def _around(self) -> tuple[cst.CSTNode, ...]:
        """The node being visited and up to four nodes around it, innermost first."""
        return tuple(reversed(self._stack[-5:]))

    def used_as_data(self, call: cst.Call) -> bool:
        if _as_data("single", self._makers.get(call, (call,)), self._names):
            return True
        return any(
            _as_data(kind, around, self._names)
            for name, kind in self._family(call).items()
            for around in self._uses.get(name, ())
        )

    def _family(self, call: cst.Call) -> dict[str, str]:
        """The names bound to the key `call` makes or to keys derived from it: "single" or "array"."""
        family: dict[str, str] = {}

        def kind_of(value: cst.BaseExpression) -> str | None:
            if value is call:
                return "single"
            if isinstance(value, cst.Name):
                return family.get(value.value)
            if isinstance(value, cst.Subscript) and kind_of(value.value) == "array":
                return "single"
            if isinstance(value, cst.Call):
                derived = DERIVED_KEYS.get(self._names.qualified(value.func) or "")
                key = argument(value, 0, "key")
                if derived is not None and key is not None and kind_of(key) is not None:
                    return derived
            return None

        changed = True
        while changed:
            changed = False
            for target, value in self._bindings:
                kind = kind_of(value)
                if isinstance(target, (cst.Tuple, cst.List)):
                    if kind != "array":
                        continue  # unpacking one key is using it as data (`_as_data` says so)
                    items = [
                        (e.value.value, "array") if isinstance(e.value, cst.StarredElement) else (e.value, "single")
                        for e in target.elements
                    ]
                else:
                    items = [(target, kind)] if kind is not None else []
                for item, item_kind in items:
                    if isinstance(item, cst.Name) and family.get(item.value) not in (item_kind, "single"):
                        family[item.value] = item_kind
                        changed = True
        return family


def _as_data(kind: str, around: tuple[cst.CSTNode, ...], names) -> bool:
    """Whether a use of a key (`kind` "single", or "array" for a key array) treats it as `uint32` data;
    `around` is the use and the nodes around it, innermost first."""
    node, parent, outer = (*around, None, None)[:3]
    if isinstance(parent, cst.Element) and isinstance(outer, (cst.List, cst.Tuple)):
        return _as_data("array", around[2:], names)  # `jnp.stack([key, other])`
    if isinstance(parent, cst.Subscript) and parent.value is node:
        nested = isinstance(outer, (cst.Subscript, cst.Attribute)) and outer.value is parent
        return kind == "single" or len(parent.slice) > 1 or nested
    if isinstance(parent, cst.Attribute):
        return parent.value is node
    if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.AugAssign)):
        return True
    if isinstance(parent, cst.Comparison):
        return not all(isinstance(t.operator, (cst.Is, cst.IsNot)) for t in parent.comparisons)
    if isinstance(parent, cst.ComparisonTarget):
        return not isinstance(parent.operator, (cst.Is, cst.IsNot))
    if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is node:
        return kind == "single"
    if isinstance(parent, cst.Assign) and parent.value is node:
        return kind == "single" and any(isinstance(t.target, (cst.Tuple, cst.List)) for t in parent.targets)
    if isinstance(parent, cst.Arg) and isinstance(outer, cst.Call):
        qualified = names.qualified(outer.func)
        builtin = isinstance(outer.func, cst.Name) and outer.func.value in _DATA_BUILTINS and qualified is None
        return builtin or qualified in KEY_FROM_DATA or (qualified or "").startswith(KEY_DATA_MODULES)
    return False
