"""The calls a module makes in its loops, outside any trace, of functions of the other modules of its project:
each iteration runs the function again (what JAX501 and JAX510 need to know of a function called from elsewhere)."""

from __future__ import annotations

from typing import Callable

import libcst as cst

from jaxlint.analysis.names import Names


def looped_calls(
    module: cst.Module, names: Names, in_project: Callable[[str | None], bool], traced: Callable[[cst.CSTNode], bool]
) -> list[tuple[cst.Call, str, str]]:
    """Each call in a loop of a function of another module of the project: (call, qualified target, the name of
    the function holding the loop, "" at module level). Calls inside a traced function (`traced`) run once per
    trace, and are left out."""
    found: list[tuple[cst.Call, str, str]] = []

    class _Loops(cst.CSTVisitor):
        def __init__(self) -> None:
            self.holders: list[list] = [["", 0, False]]  # each: its name, the loops open in it, traced

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            self.holders.append([node.name.value, 0, self.holders[-1][2] or traced(node)])

        def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
            self.holders.pop()

        def visit_Lambda(self, node: cst.Lambda) -> None:
            self.holders.append(["<lambda>", 0, self.holders[-1][2] or traced(node)])

        def leave_Lambda(self, node: cst.Lambda) -> None:
            self.holders.pop()

        def _enter(self, node: cst.CSTNode) -> None:
            self.holders[-1][1] += 1

        def _leave(self, node: cst.CSTNode) -> None:
            self.holders[-1][1] -= 1

        def _leave_comprehension(self, original_node: cst.CSTNode) -> None:
            self.holders[-1][1] -= 1

        visit_For_body = visit_While_body = _enter
        leave_For_body = leave_While_body = _leave
        visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _enter
        leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = _leave_comprehension

        def visit_Call(self, node: cst.Call) -> None:
            name, loops, in_trace = self.holders[-1]
            if loops and not in_trace:
                qualified = names.qualified(node.func)
                if qualified is not None and in_project(qualified):
                    found.append((node, qualified, name))

    module.visit(_Loops())
    return found
