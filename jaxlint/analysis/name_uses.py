"""How often names are used in a module, outside import statements."""

from __future__ import annotations

from collections import Counter

import libcst as cst


def name_uses(module: cst.Module, names: set[str]) -> Counter[str]:
    """How often each of `names` is used outside import statements. Counted only when needed: a
    rule hooking every name would make the single traversal visit every token of every file."""
    uses: Counter[str] = Counter()

    class Uses(cst.CSTVisitor):
        def visit_Import(self, node: cst.Import) -> bool:
            return False

        def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
            return False

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)  # `jax.ops.index`: the attribute's own name is not a use of `index`
            return False

        def visit_Name(self, node: cst.Name) -> None:
            if node.value in names:
                uses[node.value] += 1

    module.visit(Uses())
    return uses
