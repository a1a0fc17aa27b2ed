"""What several JAX5xx rules share: how messages name a jitted callee and how a function is traced."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

import libcst as cst

from jaxlint.analysis.callees import Argument, JittedCallee
from jaxlint.analysis.repetition import Repeat, RepeatedCalls
from jaxlint.analysis.traced import TracedFunction
from jaxlint.checks.base import CalleeRule, code
from jaxlint.traversal import children
from jaxlint.checks.tracers._common import debug_print_fix  # noqa: F401 (JAX509 fixes a print as JAX306 does)


def compile_count_confirms(times: str, because: str, runs: str = "a script or the tests under `--verify=run`") -> str:
    """A recompilation rule's page: how `--verify`'s compile count (verify/recompiles.py) confirms it."""
    return (
        "`--verify` counts every compile of a jitted function at the line that calls it, with jax's reason "
        "(`jax_explain_cache_misses`), and confirms when the function at this line is compiled at every call of "
        f"one line, {times} or more, because {because}. The loop must run: module-level code under `--verify`, "
        f"{runs}."
    )


def option_text(callee: JittedCallee, *options: str) -> str:
    return ", ".join(f"{option}={code(callee.options[option])}" for option in options if callee.gives(option))


def static_arguments(found: tuple[JittedCallee, list[Argument]] | None) -> Iterator[tuple[JittedCallee, Argument]]:
    """The arguments in static positions, from `jitted_arguments`' answer for a call."""
    if found is not None:
        callee, arguments = found
        yield from ((callee, argument) for argument in arguments if argument.static)


def static_position(callee: JittedCallee, argument: Argument, call: cst.Call) -> str:
    """`static argument `shape` of `pad_to` (static_argnums=1)`, for a message."""
    options = option_text(callee, "static_argnums", "static_argnames", "static_broadcasted_argnums")
    param = f" `{argument.param}`" if argument.param else ""
    return f"static argument{param} of `{callee_name(call)}` ({options})"


def callee_name(call: cst.Call) -> str:
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else "the jitted function"


def how_traced(scope: TracedFunction, line_of) -> str:
    """`staged by `jax.jit` at line 9`, or `called from `body` at line 31, traced by `jax.lax.scan``."""
    trace = scope.trace
    if trace is None:
        return "traced"
    if scope.transforms:
        return f"staged by `{trace.name}` at {trace.where(line_of)}"
    caller = (
        scope.entries[0].caller if scope.entries else next((t.caller for t in scope.traced.values() if t.caller), None)
    )
    origin = f" from `{caller}`" if caller else ""
    return f"called{origin} at {trace.where(line_of)}, traced by `{trace.name}`"


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


def returns(function: cst.FunctionDef) -> list[cst.Return]:
    """The `return` statements of a def's own body (nested defs and classes left out)."""
    found: list[cst.Return] = []

    def walk(node: cst.CSTNode) -> None:
        for child in children(node):
            if isinstance(child, cst.Return):
                found.append(child)
            elif not isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                walk(child)

    walk(function.body)
    return found


def reads(node: cst.CSTNode, name: str) -> int:
    """How many times `name` is read in `node` (where an assignment or a def binds it left out)."""
    if isinstance(node, cst.Name):
        return int(node.value == name)
    if isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Name):
        return 0
    skipped = node.name if isinstance(node, cst.FunctionDef) else None
    return sum(reads(child, name) for child in children(node) if child is not skipped)


def _holds(node: cst.CSTNode, target: cst.CSTNode) -> bool:
    return node is target or any(_holds(child, target) for child in children(node))
