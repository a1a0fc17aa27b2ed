"""The shape every rule has: identity, documentation, and visitor methods.

A rule is one class. Its `visit_<Node>` / `leave_<Node>` methods (libcst node names, and
`visit_<Node>_<field>` for a field) run in the single traversal of a file; `self.facts` (the rule
context, analysis/context.py) answers what the analysis knows there, `self.names` resolves imports, and
`self.report(node, message)` records a finding; `self.report(node, message, fix=FixPlan(...))` offers a
fix for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import AbstractSet, Callable, ClassVar, Optional, Union

import libcst as cst

from jaxlint.analysis.callees import Argument, JittedCallee
from jaxlint.analysis.context import Context
from jaxlint.analysis.repetition import Repeat, RepeatedCalls
from jaxlint.analysis.values import Value
from jaxlint.diagnostics import SAFE
from jaxlint.model.apis import IMPORTED_WITH_JAX
from jaxlint.model.functions import CATCH_ALL, TRACE_ERRORS
from jaxlint.traversal import children

# A message, or a function building it once line numbers are known (positions are computed lazily).
Message = Union[str, Callable[[Callable[[cst.CSTNode], int]], str]]


# A piece of a fix's new code: text, an original node copied as written (with its parentheses), the
# original text from the start of one node to the end of another, or a new node (rendered by libcst;
# prefer original nodes inside it as pieces, since libcst renders them without their block's indentation).
Piece = Union[str, cst.CSTNode, tuple[cst.CSTNode, cst.CSTNode]]


@dataclass(frozen=True)
class FixPlan:
    """A fix as a rule sees it: put new code in place of nodes. lint.py turns it into positioned edits.

    New code is text, or pieces that copy original code verbatim (comments, line breaks and
    indentation inside it included). `imports` names modules the new code uses under their own name
    (`"jax"` for `jax.tree.map`); `import jax` is added once when the module does not bind that name.
    """

    message: str
    replacements: tuple[tuple[cst.CSTNode, Union[str, cst.CSTNode, tuple[Piece, ...]]], ...]
    applicability: str = SAFE
    imports: tuple[str, ...] = ()


# A rule's report: its code, the node, the message, the fix, and the value whose facts are the evidence.
Reporter = Callable[[str, cst.CSTNode, Message, Optional[FixPlan], Optional[Value]], None]

_EMPTY = cst.Module(body=[])


def source(node: cst.CSTNode) -> str:
    """A node's code as written (without the indentation of the block around it)."""
    return _EMPTY.code_for_node(node)


def code(node: cst.CSTNode, limit: int = 40) -> str:
    """Source text of a node for a message, on one line; when longer than `limit`, a call by what it calls
    (`jax.lax.scan(...)`), else `...`."""
    text = " ".join(source(node).split())
    if len(text) <= limit:
        return text
    if type(node) is cst.Call and len(called := code(node.func, limit - 5)) <= limit - 5 and called != "...":
        return f"{called}(...)"
    return "..."


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    default_enabled: ClassVar[bool] = True
    fixable: ClassVar[bool] = False

    # Documentation, rendered into rules/<code>.md and by `jaxlint rule`.
    what_it_does: ClassVar[str]
    why_bad: ClassVar[str]
    example: ClassVar[str] = ""
    use_instead: ClassVar[str] = ""
    not_flagged: ClassVar[str] = ""
    fix_safety: ClassVar[str] = "No automatic fix."
    verify: ClassVar[str] = "Not confirmed by `--verify` yet."

    needs_donations: ClassVar[bool] = False
    """Whether the rule asks `self.facts.donations`: the donated-buffer domain is followed only then."""

    about_running: ClassVar[bool] = True
    """Whether a finding says what the code does when it runs: none is reported in code no path reaches (after a
    `return`, `raise` or `sys.exit()`, in a branch Python's own test rules out), as pyright reports nothing there.
    A rule about what the text spells (a removed API) reports it there too."""

    trace_error: ClassVar[str | None] = None
    """The error (model/functions.py TRACE_ERRORS) a finding inside a traced function predicts while jax traces it:
    none is reported where every trace of that function starts in a `try` that catches it and shows it, nor in the
    body of a `try` whose handler names that error's class (not a catch-all: CATCH_ALL) and does not raise again
    (`try: float(om) ... except TypeError: pass`, a check meant for eager calls: the trace goes on in the handler)."""

    @classmethod
    def needs_values(cls, source: str) -> bool:
        """Whether checking `source` asks the value analysis (`self.facts`) anything. Building it is most
        of a file's analysis: a file whose enabled rules need only `self.names` is checked without it."""
        return True

    def __init__(self, facts: Context, reporter: Reporter) -> None:
        self.facts = facts
        self.names = facts.names
        self._reporter = reporter

    def report(
        self, node: cst.CSTNode, message: Message, fix: FixPlan | None = None, because: Value | None = None
    ) -> None:
        """Report a finding at `node`; `because`: the value the finding is about, whose facts are its evidence."""
        if self.trace_error is not None:
            errors = TRACE_ERRORS[self.trace_error]
            if self.facts.trace_shown(errors, because) or self.facts.shows(errors - CATCH_ALL):
                return
        self._reporter(self.code, node, message, fix, because)

    def builtin(self, func: cst.BaseExpression, names: AbstractSet[str]) -> str | None:
        """The builtin of `names` a call's function names (not shadowed by an import), or None."""
        return self.names.builtin(func, names)

    def spell(self, qualified: str) -> tuple[str, tuple[str, ...]] | None:
        """Code naming `qualified` here and the imports it needs: `jnp.minimum` through the file's own
        alias, else `jax.numpy.minimum` with `import jax` (when that loads its module); None when a
        local hides `jax` or `import jax` would not load the module."""
        spelled = self.names.spelling(qualified)
        if spelled is not None:
            return spelled, ()
        top, module = qualified.partition(".")[0], qualified.rpartition(".")[0]
        if not self.names.free(top) or (module != top and module not in IMPORTED_WITH_JAX):
            return None
        return qualified, (top,)

    def respell(self, node: cst.CSTNode, qualified: str) -> tuple[str, tuple[str, ...]] | None:
        """`qualified` in the spelling of the name `node` replaces: its own prefix when that names a
        module above `qualified` (`jax.random.PRNGKey` -> `jax.random.key`, `j.tree_map` ->
        `j.tree.map`), else as `spell` gives it."""
        prefix = node.value if isinstance(node, cst.Attribute) else None
        while prefix is not None:
            bound = self.names.qualified(prefix)
            if bound and qualified.startswith(bound + "."):
                return source(prefix) + qualified[len(bound) :], ()
            prefix = prefix.value if isinstance(prefix, cst.Attribute) else None
        return self.spell(qualified)

    def rename(self, node: cst.CSTNode, qualified: str, applicability: str = SAFE) -> FixPlan | None:
        """A fix putting `qualified`, as `respell` writes it, in place of `node`."""
        respelled = self.respell(node, qualified)
        if respelled is None:
            return None
        name, imports = respelled
        return FixPlan(f"use `{name}`", ((node, name),), applicability, imports)


class CalleeRule(Rule):
    """A rule that asks which calls call a jitted callable."""

    def jitted_arguments(self, call: cst.Call) -> tuple[JittedCallee, list[Argument]] | None:
        callee = self.facts.jitted(call)
        if callee is None:
            return None
        return callee, callee.arguments(call, self.facts.target_version)


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
        if function is not None:
            self.runs(node, function)

    def runs(self, call: cst.Call, function: cst.FunctionDef) -> None:
        """`call`, at this point, runs `function` (a def cached by `functools.cache` runs once: not recorded)."""
        if not self.cached(function):
            self.repeated.called(function, call, self.holder, self.loop)

    def repeat(self, function: cst.FunctionDef, point: cst.CSTNode | None = None) -> Repeat | None:
        """A loop of this module or another that runs `function` again and again, with the calls on the way (that
        run `point` of it, when given)."""
        return self.repeated.repeat(function, self.facts.looped_elsewhere, point)

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
