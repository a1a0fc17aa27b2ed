"""Which functions of a module run again and again: called in a loop, or by a function that is.

A rule that walks the module tells it each call of a def of the module that runs outside a trace (a call
inside a traced function runs once per trace), and the loop around the call; it answers, for a def, one
chain of calls from a loop down to it, to name in a message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, cast

import libcst as cst

from jaxlint.analysis.dead_branches import Guard, dead_branch, none_at_call, parameter_guards
from jaxlint.analysis.interface import Looped
from jaxlint.analysis.scopes import method_bound

# Beyond this many calls between the loop and the function, the chain is not followed.
_DEEPEST = 6


@dataclass(frozen=True)
class Repeat:
    """A loop that runs a function again and again, and the calls on the way."""

    function: cst.FunctionDef  # the function run again and again
    loop: cst.CSTNode | None  # a for or while loop, or a comprehension, of this module...
    holder: cst.CSTNode | None  # ...in this def or module
    path: tuple[tuple[cst.FunctionDef, cst.Call], ...]  # each def on the way from the loop, with the call running it
    elsewhere: Looped | None = None  # or the call in another module's loop that starts the path

    def describe(self, line_of: Callable[[cst.CSTNode], int]) -> str:
        """`the loop at line 42 of `train` (`train` -> `step` at line 40 -> `helper` at line 33)`, or `a loop of
        another module (`fit` at train.py:42 -> `step` -> `helper` at line 33)`."""
        steps = [f"`{function.name.value}` at line {line_of(call)}" for function, call in self.path]
        if self.elsewhere is not None:
            caller = f"`{self.elsewhere.caller}` at " if self.elsewhere.caller else ""
            called = f"`{self.elsewhere.target.rpartition('.')[2]}`"
            return f"a loop of another module ({' -> '.join([caller + self.elsewhere.where, called, *steps])})"
        holder = self.holder.name.value if isinstance(self.holder, cst.FunctionDef) else None
        where = f" of `{holder}`" if holder else ""
        start = [f"`{holder}`"] if holder else []
        return f"the loop at line {line_of(cast(cst.CSTNode, self.loop))}{where} ({' -> '.join([*start, *steps])})"


class RepeatedCalls:
    def __init__(self) -> None:
        # By the id of a def: the places calling it (the def or module holding the call, the call, its loop).
        self._callers: dict[int, list[tuple[cst.CSTNode, cst.Call, cst.CSTNode | None]]] = {}

    def called(self, function: cst.FunctionDef, call: cst.Call, holder: cst.CSTNode, loop: cst.CSTNode | None) -> None:
        """`call`, in `holder` (a def or the module) and in `loop` if any, runs `function`."""
        self._callers.setdefault(id(function), []).append((holder, call, loop))

    def repeat(
        self,
        function: cst.FunctionDef,
        elsewhere: Callable[[cst.FunctionDef], tuple[Looped, ...]],
        point: cst.CSTNode | None = None,
    ) -> Repeat | None:
        """The shortest chain of calls from a loop down to `function`, if the module shows one: a loop of this
        module, or a call in a loop of another (`elsewhere`: those of a def). With a `point` of `function`, only
        the calls of `function` that can run it: not those whose arguments answer a test of a parameter around it
        the other way (`compare(x, a)` never enters `if use_vmap_axis is not None:`)."""
        guards = parameter_guards(function).get(id(point), ()) if point is not None else ()
        frontier: list[tuple[cst.FunctionDef, tuple[tuple[cst.FunctionDef, cst.Call], ...]]] = [(function, ())]
        seen = {id(function)}
        for _ in range(_DEEPEST):
            later = []
            for callee, path in frontier:
                for holder, call, loop in self._callers.get(id(callee), ()):
                    if guards and callee is function and not _runs(function, call, guards):
                        continue
                    steps = ((callee, call), *path)
                    if loop is not None:
                        return Repeat(function, loop, holder, steps)
                    if isinstance(holder, cst.FunctionDef) and id(holder) not in seen:
                        seen.add(id(holder))
                        later.append((holder, steps))
                looped = elsewhere(callee)
                if looped:
                    return Repeat(function, None, None, path, looped[0])
            frontier = later
        return None


def _runs(function: cst.FunctionDef, call: cst.Call, guards: tuple[Guard, ...]) -> bool:
    """Whether a point of `function` inside `guards` can run when `call` calls it (through an instance when the
    call names an attribute)."""
    fixed = none_at_call(function, method_bound(function, type(call.func) is cst.Attribute), call, {})
    return not any(dead_branch(test, truth, fixed) for test, truth in guards)
