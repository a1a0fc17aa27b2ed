"""The names an expression reads, outside nested functions."""

from __future__ import annotations

import libcst as cst


class NameReads(cst.CSTVisitor):
    """The names an expression or block reads, outside nested functions (which run only if called)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def visit_Name(self, node: cst.Name) -> None:
        self.names.append(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # `a.b` reads `a`, not `b`
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)  # `f(k=v)` reads `v`, not `k`
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False
