"""What the rules that ask whether code runs again and again share: the loops around a point, and which defs of
the module a loop runs, directly or through other defs."""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from jaxlint.analysis.repetition import Repeat, RepeatedCalls
from jaxlint.checks.base import CalleeRule
from jaxlint.traversal import children


_CACHES = frozenset({"functools.cache", "functools.lru_cache"})


class LoopRule(CalleeRule):
    """A rule that asks whether code runs again and again: the loops around the point visited, and which defs of
    the module are called in a loop, directly or through other defs (`self.repeated`, complete at `leave_Module`).
    A call inside a traced function runs once per trace, so it repeats nothing; nor does a call of a def cached
    by `functools.cache`."""

    follows_calls: ClassVar[bool] = True  # False: the rule asks only for the loops around a point

    def visit_Module(self, node: cst.Module) -> None:
        self.repeated = RepeatedCalls()
        self._holders: list[tuple[cst.CSTNode, list[cst.CSTNode]]] = [(node, [])]  # each with its loops open here

    def _enter_holder(self, node: cst.CSTNode) -> None:
        self._holders.append((node, []))

    def _leave_holder(self, node: cst.CSTNode) -> None:
        self._holders.pop()

    visit_FunctionDef_body = visit_Lambda_body = _enter_holder
    leave_FunctionDef_body = leave_Lambda_body = _leave_holder

    def _enter_loop(self, node: cst.CSTNode) -> None:
        self._holders[-1][1].append(node)

    def _leave_loop(self, node: cst.CSTNode) -> None:
        self._holders[-1][1].pop()

    visit_For_body = visit_While_body = _enter_loop
    leave_For_body = leave_While_body = _leave_loop
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _enter_loop
    leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = _leave_loop

    @property
    def holder(self) -> cst.CSTNode:
        """The def, lambda or module whose body is being visited."""
        return self._holders[-1][0]

    @property
    def loop(self) -> cst.CSTNode | None:
        """The innermost loop around this point in the body of `holder`."""
        loops = self._holders[-1][1]
        return loops[-1] if loops else None

    def visit_Call(self, node: cst.Call) -> None:
        if not self.follows_calls or self.facts.traced_scope is not None:
            return
        function = self.facts.called_def(node)
        if function is not None and not self.cached(function):
            self.repeated.called(function, node, self.holder, self.loop)

    def repeat(self, function: cst.FunctionDef) -> Repeat | None:
        """A loop of this module or another that runs `function` again and again, with the calls on the way."""
        return self.repeated.repeat(function, self.facts.looped_elsewhere)

    def made_here(self, name: cst.Name) -> cst.Call | None:
        """The call a name is bound to, once, when that binding runs each time this point does: in the function
        visited, and inside its innermost loop around this point when there is one."""
        found = self.facts.binding(name)
        if found is None or not isinstance(found[0], cst.Call) or found[1][-1] is not self.holder:
            return None
        return found[0] if self.loop is None or _holds(self.loop, found[0]) else None

    def cached(self, function: cst.FunctionDef) -> bool:
        for decorator in function.decorators:
            expr = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
            if self.names.qualified(expr) in _CACHES:
                return True
        return False


def _holds(node: cst.CSTNode, target: cst.CSTNode) -> bool:
    return node is target or any(_holds(child, target) for child in children(node))
