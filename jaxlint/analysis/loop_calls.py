"""The calls a module makes in its loops, outside any trace, of functions of the other modules of its project:
each iteration runs the function again (what JAX501 and JAX510 need to know of a function called from elsewhere)."""

from __future__ import annotations

from typing import Callable, cast

import libcst as cst

from jaxlint.analysis.names import Names
from jaxlint.traversal import branches

# (node types are tested with `type(...)`: an isinstance against a libcst class runs ABCMeta's check in Python)
_COMPREHENSIONS = frozenset({cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp})
_LOOPS = frozenset({cst.For, cst.While})


def looped_calls(
    module: cst.Module, names: Names, in_project: Callable[[str | None], bool], traced: Callable[[cst.CSTNode], bool]
) -> list[tuple[cst.Call, str, str]]:
    """Each call in a loop of a function of another module of the project: (call, qualified target, the name of
    the function holding the loop, "" at module level). Calls inside a traced function (`traced`) run once per
    trace, and are left out. Read in place (libcst's own visit rebuilds every node: on a large module that cost
    as much as the rest of the analysis)."""
    found: list[tuple[cst.Call, str, str]] = []

    def walk(node: cst.CSTNode, holder: str, loops: int, in_trace: bool) -> None:
        kind = type(node)
        if kind is cst.FunctionDef or kind is cst.Lambda:
            holder = cast(cst.FunctionDef, node).name.value if kind is cst.FunctionDef else "<lambda>"
            loops, in_trace = 0, in_trace or traced(node)
        elif kind is cst.Call and loops and not in_trace:
            qualified = names.qualified(cast(cst.Call, node).func)
            if qualified is not None and in_project(qualified):
                found.append((cast(cst.Call, node), qualified, holder))
        body = cast("cst.For | cst.While", node).body if kind in _LOOPS else None
        inner = loops + 1 if kind in _COMPREHENSIONS else loops
        for child in branches(node):  # (no token is looked at)
            walk(child, holder, inner + (child is body), in_trace)

    walk(module, "", 0, False)
    return found
