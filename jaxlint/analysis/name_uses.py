"""How often names are used in a module, outside import statements."""

from __future__ import annotations

from collections import Counter
from typing import AbstractSet, cast

import libcst as cst

from jaxlint.analysis.module_memo import ModuleMemo
from jaxlint.traversal import TOKENS_BUT_NAMES, branches


def name_uses(module: cst.CSTNode, names: AbstractSet[str] | None = None) -> Counter[str]:
    """How often each of `names` (every name: None) is used outside import statements. Counted only when
    needed: a rule hooking every name would make the single traversal visit every token of every file."""
    uses: Counter[str] = Counter()
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Name:
            if names is None or cast(cst.Name, node).value in names:
                uses[cast(cst.Name, node).value] += 1
        elif kind is cst.Attribute:
            stack.append(cast(cst.Attribute, node).value)  # `jax.ops.index`: not a use of `index`
        elif kind is not cst.Import and kind is not cst.ImportFrom:
            stack.extend(branches(node, TOKENS_BUT_NAMES))
    return uses


# Every name's uses in one module, counted once however many rounds ask (its syntax alone decides them).
module_name_uses = ModuleMemo(name_uses)
