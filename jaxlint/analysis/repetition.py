"""Which functions of a module run again and again: called in a loop, or by a function that is.

A rule that walks the module tells it each call of a def of the module that runs outside a trace (a call
inside a traced function runs once per trace), and the loop around the call; it answers, for a def, one
chain of calls from a loop down to it, to name in a message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import libcst as cst

# Beyond this many calls between the loop and the function, the chain is not followed.
_DEEPEST = 6


@dataclass(frozen=True)
class Repeat:
    """A loop that runs a function again and again, and the calls on the way."""

    loop: cst.CSTNode  # a for or while loop, or a comprehension
    holder: cst.CSTNode  # the def holding the loop, or the module
    path: tuple[tuple[cst.FunctionDef, cst.Call], ...]  # each def on the way from the loop, with the call running it

    def describe(self, line_of: Callable[[cst.CSTNode], int]) -> str:
        """`the loop at line 42 of `train` (`train` -> `step` at line 40 -> `helper` at line 33)`."""
        where = f" of `{self.holder.name.value}`" if isinstance(self.holder, cst.FunctionDef) else ""
        steps = " -> ".join(f"`{function.name.value}` at line {line_of(call)}" for function, call in self.path)
        start = f"`{self.holder.name.value}` -> " if isinstance(self.holder, cst.FunctionDef) else ""
        return f"the loop at line {line_of(self.loop)}{where} ({start}{steps})"


class RepeatedCalls:
    def __init__(self) -> None:
        # By the id of a def: the places calling it (the def or module holding the call, the call, its loop).
        self._callers: dict[int, list[tuple[cst.CSTNode, cst.Call, cst.CSTNode | None]]] = {}

    def called(self, function: cst.FunctionDef, call: cst.Call, holder: cst.CSTNode, loop: cst.CSTNode | None) -> None:
        """`call`, in `holder` (a def or the module) and in `loop` if any, runs `function`."""
        self._callers.setdefault(id(function), []).append((holder, call, loop))

    def repeat(self, function: cst.FunctionDef) -> Repeat | None:
        """The shortest chain of calls from a loop down to `function`, if the module shows one."""
        frontier: list[tuple[cst.FunctionDef, tuple[tuple[cst.FunctionDef, cst.Call], ...]]] = [(function, ())]
        seen = {id(function)}
        for _ in range(_DEEPEST):
            later = []
            for callee, path in frontier:
                for holder, call, loop in self._callers.get(id(callee), ()):
                    steps = ((callee, call), *path)
                    if loop is not None:
                        return Repeat(loop, holder, steps)
                    if isinstance(holder, cst.FunctionDef) and id(holder) not in seen:
                        seen.add(id(holder))
                        later.append((holder, steps))
            frontier = later
        return None
