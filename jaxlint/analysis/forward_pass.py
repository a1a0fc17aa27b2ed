"""The methods a class's `__call__` runs through `self`: with it, a layer's forward pass.

A flax, haiku or equinox layer runs its `__call__` at every step; the helpers it calls as `self.helper(...)`, and
those they call in turn, run with it, so what they do (draw from a key made from a literal) happens at every step too.
"""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.module_memo import ModuleMemo
from jaxlint.traversal import in_order

_FORWARD = "__call__"


def _find(module: cst.Module) -> dict[cst.ClassDef, frozenset[str]]:
    found: dict[cst.ClassDef, frozenset[str]] = {}
    for node, _ in in_order(module):
        if type(node) is cst.ClassDef:
            cls = node
            methods = {s.name.value: s for s in cls.body.body if type(s) is cst.FunctionDef}
            if _FORWARD in methods:
                found[cls] = _reached(methods)
    return found


def _reached(methods: dict[str, cst.FunctionDef]) -> frozenset[str]:
    """The methods `__call__` calls through `self`, directly or through one another."""
    reached, pending = {_FORWARD}, [_FORWARD]
    while pending:
        for node, _ in in_order(methods[pending.pop()].body):
            if type(node) is not cst.Call:
                continue
            func = node.func
            if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self":
                name = func.attr.value
                if name in methods and name not in reached:
                    reached.add(name)
                    pending.append(name)
    return frozenset(reached)


forward_methods = ModuleMemo(_find)
