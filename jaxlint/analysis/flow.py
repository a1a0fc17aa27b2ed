"""Python's control flow, followed once for every analysis domain (traced values, PRNG keys...).

The engine is one visitor of the single lint traversal: its visit hooks run before the domains' and
the rules', its leave hooks after. It knows where paths split and meet (if/elif/else, `a if c else b`,
match, for/while/else, try/except/else/finally, comprehensions), where they end (`break` reaches the
code after its loop, `continue` the next iteration, `return` and `raise` nothing after), and which
scopes open and close (functions, lambdas, class bodies, comprehensions). A domain only says what its
facts are (`Domain`): the engine snapshots, restores and joins them at the right points.

A loop body is followed once, from the state before the loop: it sees the facts of its first iteration
(a finding that holds there is real), and the loop's exit joins every iteration count.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, cast

import libcst as cst

from jaxlint.analysis.bindings import comprehension_targets, is_wildcard, rebound_names, statements, target_names

State = Any  # what a domain knows at one point of one scope; opaque to the engine
Paths = list  # one State per domain, None where no path reaches the point


class Domain:
    """What the flow engine asks of an analysis domain. Only the three state operations are required."""

    sees_next_iteration = False
    """Whether the code after an `if ...: continue` sees the `continue` path (it runs next in the next
    iteration): for facts that must hold in every iteration, not only in the first."""

    for_loops_run = False
    """Whether the code after a `for` loop sees only the paths through its body, as if every iterable had an item:
    for facts that a loop which never runs would only make unsure (a loop over a model's layers runs)."""

    def snapshot(self) -> State:
        """A copy of the current scope's facts, which later bindings leave unchanged."""
        raise NotImplementedError

    def restore(self, state: State) -> None:
        """Make `state` the current scope's facts."""
        raise NotImplementedError

    def join(self, a: State, b: State) -> State:
        """The facts that hold whichever of two paths reached here."""
        raise NotImplementedError

    def enter_scope(self, node: cst.CSTNode) -> None:
        """A FunctionDef or Lambda body, a ClassDef body or a comprehension begins."""

    def exit_scope(self, node: cst.CSTNode) -> None:
        """The scope `enter_scope(node)` began ends."""

    def enter_loop(self, node: cst.CSTNode, rebound: set[str]) -> None:
        """A loop body (a For, While or comprehension) begins; `rebound` are the names it may rebind."""

    def exit_loop(self, node: cst.CSTNode) -> None:
        """The loop body `enter_loop(node)` began ends."""

    def next_iteration(self, node: cst.For | cst.While, states: list[State]) -> None:
        """Before `exit_loop(node)`: the states in which the body of a For or While may run again (at the end
        of the body and at each `continue`, where paths reach them), for facts the next iteration reads."""

    def unsure(self, names: set[str]) -> None:
        """`names` may hold any value bound to them in a region whose entry point is unknown (a handler or
        `finally` may start anywhere in a `try`)."""

    def declare_outer(self, names: list[str], is_global: bool) -> None:
        """The current function declares `names` global (or nonlocal)."""

    def enter_branch(self, test: cst.BaseExpression, truth: bool) -> None:
        """A branch of an `if` (or an arm of `a if test else b`) begins, taken when `test` is `truth` (what the
        test tells about a name)."""

    def leave_branch(self, branch: cst.BaseSuite | cst.If | cst.Else | None, only_way_on: bool = False) -> None:
        """The branch `enter_branch` began ends (`branch`: its block, an `elif`, an `else`, or None: no `else`, or
        an arm of a conditional expression); `only_way_on` when the other branch's paths all ended (`if
        isinstance(x, T): return`): what the test told this branch holds after the `if` too."""


@dataclass
class _Loop:
    node: cst.CSTNode
    before: Paths
    blocks: int  # how many blocks of the scope were open when the body began
    breaks: list[Paths] = field(default_factory=list)
    continues: list[Paths] = field(default_factory=list)


@dataclass
class _ScopeState:
    """The engine's facts about one scope."""

    dead: list[bool]  # per domain: no path reaches the current point (after `return`, `break`...)
    loops: list[_Loop] = field(default_factory=list)
    blocks: list[bool] = field(default_factory=list)  # per open block: it ends by leaving its loop or scope
    # A def or lambda written where no path goes (after a `raise` or `return` in its block): it is never made,
    # so nothing in it ever runs.
    never_made: bool = False


@dataclass
class _Try:
    rebound: set[str]
    before: Paths
    body: Paths | None = None  # at the end of the body
    normal: Paths | None = None  # at the end of `else` (or of the body when there is none)
    handled: list[Paths] = field(default_factory=list)  # at the end of each handler
    merged: bool = False


_LEAVING = (cst.Break, cst.Return, cst.Raise)
_JUMPS = frozenset({cst.Break, cst.Continue, cst.Return, cst.Raise})


def _ends_by_leaving(body: cst.BaseSuite) -> bool:
    """Whether a block's path ends at a `break`, `return` or `raise` of its own: the first jump among its
    statements is one (what follows is dead code: a debugging `raise` before the rest of a loop's body)."""
    for statement in statements(body):
        if type(statement) in _JUMPS:
            return isinstance(statement, _LEAVING)
    return False


def has_items(iterable: cst.BaseExpression) -> bool:
    """Whether a `for` loop over `iterable` runs its body: a tuple, list or set display with an item, `range` of
    int literals that is not empty, or `enumerate`/`reversed`/`zip` of such."""
    if isinstance(iterable, (cst.Tuple, cst.List, cst.Set)):
        return any(not isinstance(element, cst.StarredElement) for element in iterable.elements)
    if not isinstance(iterable, cst.Call) or not isinstance(iterable.func, cst.Name):
        return False
    args = iterable.args
    if (
        iterable.func.value == "range"
        and 1 <= len(args) <= 2
        and all(isinstance(arg.value, cst.Integer) and arg.keyword is None and not arg.star for arg in args)
    ):
        bounds = [int(cast(cst.Integer, arg.value).evaluated_value) for arg in args]
        return (bounds[-1] > 0) if len(bounds) == 1 else bounds[1] > bounds[0]
    if iterable.func.value in ("enumerate", "reversed") and args and not args[0].star and args[0].keyword is None:
        return has_items(args[0].value)
    if iterable.func.value == "zip" and args:
        return all(not arg.star and arg.keyword is None and has_items(arg.value) for arg in args)
    return False


def _runs_forever(node: cst.While) -> bool:
    """`while True:`: the loop ends only by `break`, `return` or `raise`."""
    return isinstance(node.test, cst.Name) and node.test.value == "True"


def _try_rebound(node: cst.Try | cst.TryStar) -> set[str]:
    rebound = rebound_names(node.body)
    for part in (*node.handlers, node.orelse):
        if part is not None:
            rebound |= rebound_names(part.body)
            if getattr(part, "name", None) is not None:
                rebound.update(target_names(part.name.name))
    return rebound


class Flow:
    """Drives `domains` through the control flow of the module being traversed."""

    def __init__(
        self,
        domains: Iterable[Domain],
        fixed_truth: Callable[[cst.BaseExpression], bool | None] | None = None,
        never_returns: Callable[[cst.Call], bool] | None = None,
    ) -> None:
        self.domains = tuple(domains)
        # The truth Python fixes for an `if` test before anything runs (decided_tests.py): the branch the other way
        # is reached by no path.
        self._fixed_truth = fixed_truth
        # Whether a call never returns (`sys.exit(1)`): the statements after it in its block are reached by no path.
        self._never_returns = never_returns
        # The statements no path reaches (after a `return`, `raise` or `exit()`, in a branch Python's own test
        # rules out, in a def never made): nothing in them ever runs. (Nested ones too: each is asked once.)
        self.unreached: list[cst.CSTNode] = []
        self._decided: list[bool | None] = []  # per open `if` statement: its test's fixed truth
        self._frames = [self._new_frame()]
        self._branches: list[list] = []  # per open if / conditional expression / match: the states in it
        self._exits: list[list[Paths]] = []  # per open For or While statement: the states its breaks left
        self._tries: list[_Try] = []
        self._outermost: set[cst.CompFor] = set()

    def _new_frame(self) -> _ScopeState:
        return _ScopeState([False] * len(self.domains))

    # ------------------------------------------------------------------ queries

    def reaches(self, domain: Domain) -> bool:
        """Whether some path reaches the current point in `domain` (not after `return`, `break`...)."""
        return not self._frame.dead[self.domains.index(domain)]

    def runs(self, domain: Domain) -> bool:
        """Whether the current point can run: some path reaches it in `domain`, and the functions around it are
        made (a def after a `raise` or `return` never is)."""
        return not self._frame.never_made and self.reaches(domain)

    def leaves_loop(self) -> bool:
        """Whether the current point sits in a block that leaves the innermost loop (or the scope) when it
        ends, by `break`, `return` or `raise`: what happens there happens once, not in every iteration."""
        frame = self._frames[-1]
        start = frame.loops[-1].blocks if frame.loops else 0
        return any(frame.blocks[start:])

    # ------------------------------------------------------------------ states

    @property
    def _frame(self) -> _ScopeState:
        return self._frames[-1]

    def _snapshot(self) -> Paths:
        """Every domain's state (None for a domain no path reaches the current point in)."""
        dead = self._frame.dead
        return [None if dead[i] else domain.snapshot() for i, domain in enumerate(self.domains)]

    def _restore(self, states: Paths) -> None:
        for i, (domain, state) in enumerate(zip(self.domains, states)):
            if state is not None:
                domain.restore(state)
            self._frame.dead[i] = state is None

    def _merge(self, paths: list[Paths]) -> None:
        """Continue from whichever of `paths` reached here, in each domain."""
        joined: Paths = []
        for i, domain in enumerate(self.domains):
            reached = [states[i] for states in paths if states[i] is not None]
            state = reached[0] if reached else None
            for other in reached[1:]:
                state = domain.join(state, other)
            joined.append(state)
        self._restore(joined)

    def _note_statement(self, node: cst.CSTNode) -> None:
        """Record a statement no path reaches, in the domains that follow paths as they run (not those that see a
        `continue` reach the next iteration's code)."""
        frame = self._frame
        if frame.never_made or all(
            dead for dead, domain in zip(frame.dead, self.domains) if not domain.sees_next_iteration
        ):
            self.unreached.append(node)

    def _end_path(self, keep: bool = False) -> None:
        """No path continues from here (but in the domains that follow a `continue` into the next iteration,
        when `keep`)."""
        dead = self._frame.dead
        for i, domain in enumerate(self.domains):
            dead[i] = dead[i] or not (keep and domain.sees_next_iteration)

    # ------------------------------------------------------------------ blocks

    def _open_block(self, body: cst.BaseSuite) -> None:
        self._frame.blocks.append(_ends_by_leaving(body))

    def _close_block(self) -> None:
        self._frame.blocks.pop()

    def _leave_line(self, node: cst.SimpleStatementLine | cst.SimpleStatementSuite) -> None:
        """A jump sends the state where the jump goes, and the path ends: the statements after it in its
        block (dead code, such as what follows a debugging `raise`) are reached by no path. (Hooked on the
        line: a hook on `Break` itself would make the walk descend into every token.)"""
        for jump in node.body:
            if type(jump) in _JUMPS:
                break
            if type(jump) is cst.Expr and self._ends_program(jump.value):
                self._end_path()  # `sys.exit(1)`, `exit()`: like a `raise` of SystemExit
                return
        else:
            return
        frame = self._frame
        if isinstance(jump, (cst.Break, cst.Continue)) and frame.loops:
            loop = frame.loops[-1]
            (loop.breaks if isinstance(jump, cst.Break) else loop.continues).append(self._snapshot())
        self._end_path(keep=isinstance(jump, cst.Continue))

    leave_SimpleStatementLine = leave_SimpleStatementSuite = _leave_line

    def _ends_program(self, expr: cst.BaseExpression) -> bool:
        return type(expr) is cst.Call and self._never_returns is not None and self._never_returns(expr)

    # Every statement is asked whether a path reaches it (the compound ones whose visits do more call it there).
    visit_SimpleStatementLine = visit_If = visit_For = visit_With = visit_FunctionDef = visit_ClassDef = _note_statement

    # ------------------------------------------------------------------ scopes

    def _enter_scope(self, node: cst.CSTNode) -> None:
        outer = self._frame
        frame = self._new_frame()
        frame.never_made = outer.never_made or (bool(outer.dead) and all(outer.dead))
        self._frames.append(frame)
        for domain in self.domains:
            domain.enter_scope(node)

    def _exit_scope(self, node: cst.CSTNode) -> None:
        for domain in self.domains:
            domain.exit_scope(node)
        self._frames.pop()

    def visit_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        self._enter_scope(node)

    def leave_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        self._exit_scope(node)

    visit_Lambda_body, leave_Lambda_body = visit_FunctionDef_body, leave_FunctionDef_body
    visit_ClassDef_body, leave_ClassDef_body = visit_FunctionDef_body, leave_FunctionDef_body

    def visit_Global(self, node: cst.Global) -> None:
        for domain in self.domains:
            domain.declare_outer([item.name.value for item in node.names], True)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        for domain in self.domains:
            domain.declare_outer([item.name.value for item in node.names], False)

    def _enter_comprehension(self, node: cst.BaseComp) -> None:
        # The element is visited first, then the clauses: all of it runs in the loop but the first iterable.
        self._enter_scope(node)
        self._outermost.add(node.for_in)
        self._frame.loops.append(_Loop(node, [], 0))
        self._enter_loop(node, comprehension_targets(node))

    def _leave_comprehension(self, node: cst.BaseComp) -> None:
        self._exit_loop(node)
        self._exit_scope(node)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _enter_comprehension
    leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = _leave_comprehension

    def visit_CompFor_iter(self, node: cst.CompFor) -> None:
        if node in self._outermost:  # evaluated once, before the loop starts
            for domain in self.domains:
                domain.exit_loop(self._frame.loops[-1].node)

    def leave_CompFor_iter(self, node: cst.CompFor) -> None:
        if node in self._outermost:
            self._outermost.discard(node)
            loop = self._frame.loops[-1].node
            self._enter_loop(loop, comprehension_targets(cast(cst.BaseComp, loop)))  # its CompFor's comprehension

    def _enter_loop(self, node: cst.CSTNode, rebound: set[str]) -> None:
        for domain in self.domains:
            domain.enter_loop(node, rebound)

    def _exit_loop(self, node: cst.CSTNode) -> None:
        for domain in self.domains:
            domain.exit_loop(node)

    # ------------------------------------------------------------------ branches

    def visit_If_body(self, node: cst.If) -> None:
        self._branches.append([self._snapshot()])
        self._open_block(node.body)
        decided = self._fixed_truth(node.test) if self._fixed_truth is not None else None
        self._decided.append(decided)
        for domain in self.domains:
            domain.enter_branch(node.test, True)
        if decided is False:
            self._end_path()

    def leave_If_body(self, node: cst.If) -> None:
        for domain in self.domains:
            domain.leave_branch(node.body)
        self._close_block()
        before = self._branches[-1][0]
        self._branches[-1].append(self._snapshot())
        self._restore(before)
        for domain in self.domains:
            domain.enter_branch(node.test, False)
        if self._decided.pop() is True:
            self._end_path()

    def leave_If(self, node: cst.If) -> None:
        _, after_body = self._branches.pop()
        for domain, body_state in zip(self.domains, after_body):
            domain.leave_branch(node.orelse, only_way_on=body_state is None)
        self._merge([after_body, self._snapshot()])  # the `else` (or no `else`: the state before)

    def visit_Else_body(self, node: cst.Else) -> None:
        self._open_block(node.body)

    def leave_Else_body(self, node: cst.Else) -> None:
        self._close_block()

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._branches.append([self._snapshot()])

    def visit_IfExp_body(self, node: cst.IfExp) -> None:
        for domain in self.domains:
            domain.enter_branch(node.test, True)

    def leave_IfExp_body(self, node: cst.IfExp) -> None:
        # `a if c else b`: the body is visited first; the test and the other arm start where it did.
        for domain in self.domains:
            domain.leave_branch(None)
        before = self._branches[-1][0]
        self._branches[-1].append(self._snapshot())
        self._restore(before)

    def visit_IfExp_orelse(self, node: cst.IfExp) -> None:
        for domain in self.domains:
            domain.enter_branch(node.test, False)

    def leave_IfExp_orelse(self, node: cst.IfExp) -> None:
        for domain in self.domains:
            domain.leave_branch(None)

    def leave_IfExp(self, node: cst.IfExp) -> None:
        _, after_body = self._branches.pop()
        self._merge([after_body, self._snapshot()])

    def visit_Match(self, node: cst.Match) -> None:
        self._note_statement(node)
        self._branches.append([self._snapshot()])

    def visit_MatchCase(self, node: cst.MatchCase) -> None:
        self._restore(self._branches[-1][0])  # each case starts from the state before the match

    def visit_MatchCase_body(self, node: cst.MatchCase) -> None:
        self._open_block(node.body)

    def leave_MatchCase_body(self, node: cst.MatchCase) -> None:
        self._close_block()

    def leave_MatchCase(self, node: cst.MatchCase) -> None:
        self._branches[-1].append(self._snapshot())

    def leave_Match(self, node: cst.Match) -> None:
        before, *ends = self._branches.pop()
        last = node.cases[-1] if node.cases else None
        if last is None or last.guard is not None or not is_wildcard(last.pattern):
            ends.append(before)  # no case matched
        self._merge(ends)

    def visit_With_body(self, node: cst.With) -> None:
        self._open_block(node.body)

    def leave_With_body(self, node: cst.With) -> None:
        self._close_block()

    # ------------------------------------------------------------------ loops

    def _begin_loop(self, node: cst.For | cst.While, rebound: set[str]) -> None:
        frame = self._frame
        frame.loops.append(_Loop(node, self._snapshot(), len(frame.blocks)))
        self._enter_loop(node, rebound)

    def _end_loop_body(self, node: cst.For | cst.While) -> None:
        """After the body: the `else` and the code after start from any number of iterations (none too)."""
        self._close_block()
        loop = self._frame.loops.pop()
        self._exits.append(loop.breaks)
        for i, domain in enumerate(self.domains):
            ends = [] if self._frame.dead[i] else [domain.snapshot()]
            domain.next_iteration(node, ends + [states[i] for states in loop.continues if states[i] is not None])
        self._exit_loop(node)
        if isinstance(node, cst.While) and _runs_forever(node):
            self._end_path()
        elif isinstance(node, cst.For):
            through = [self._snapshot(), *loop.continues]
            self._merge(through if has_items(node.iter) else [self._skipped(loop.before, through), *through])
        else:
            self._merge([loop.before, self._snapshot(), *loop.continues])

    def _skipped(self, before: Paths, through: list[Paths]) -> Paths:
        """The state after a `for` loop whose body never ran, in the domains that see such a path: all but those
        that take the loop to run when a path leads through its body (`for_loops_run`)."""
        return [
            None if domain.for_loops_run and any(states[i] is not None for states in through) else state
            for i, (domain, state) in enumerate(zip(self.domains, before))
        ]

    def _end_loop(self, node: cst.For | cst.While) -> None:
        self._merge([self._snapshot(), *self._exits.pop()])

    def visit_For_body(self, node: cst.For) -> None:
        self._begin_loop(node, rebound_names(node.body) | set(target_names(node.target)))
        self._open_block(node.body)

    def leave_For_body(self, node: cst.For) -> None:
        self._end_loop_body(node)

    def leave_For(self, node: cst.For) -> None:
        self._end_loop(node)

    def visit_While(self, node: cst.While) -> None:
        self._note_statement(node)
        self._begin_loop(node, rebound_names(node.body))  # the test runs in every iteration

    def visit_While_body(self, node: cst.While) -> None:
        self._open_block(node.body)

    def leave_While_body(self, node: cst.While) -> None:
        self._end_loop_body(node)

    def leave_While(self, node: cst.While) -> None:
        self._end_loop(node)

    # ------------------------------------------------------------------ try

    def visit_Try(self, node: cst.Try | cst.TryStar) -> None:
        self._note_statement(node)
        rebound = _try_rebound(node)
        for domain in self.domains:
            domain.unsure(rebound)
        self._tries.append(_Try(rebound, self._snapshot()))

    def visit_Try_body(self, node: cst.Try | cst.TryStar) -> None:
        self._open_block(node.body)

    def leave_Try_body(self, node: cst.Try | cst.TryStar) -> None:
        self._close_block()
        self._tries[-1].body = self._tries[-1].normal = self._snapshot()

    def visit_ExceptHandler_body(self, node: cst.ExceptHandler | cst.ExceptStarHandler) -> None:
        # A handler may run before the body did anything (and what it did before raising is unsure).
        self._restore(self._tries[-1].before)
        self._open_block(node.body)

    def leave_ExceptHandler_body(self, node: cst.ExceptHandler | cst.ExceptStarHandler) -> None:
        self._close_block()
        self._tries[-1].handled.append(self._snapshot())

    # libcst calls the hooks of a field that holds None too: a `try` without `else` or `finally` has them.

    def visit_Try_orelse(self, node: cst.Try | cst.TryStar) -> None:
        if node.orelse is not None:
            self._restore(cast(Paths, self._tries[-1].body))  # set when the body was left

    def leave_Try_orelse(self, node: cst.Try | cst.TryStar) -> None:
        if node.orelse is not None:
            self._tries[-1].normal = self._snapshot()

    def _merge_try(self) -> None:
        """Where the body (with its `else`) and the handlers meet: at `finally`, or after the statement."""
        attempt = self._tries[-1]
        if not attempt.merged:
            attempt.merged = True
            self._merge([cast(Paths, attempt.normal), *attempt.handled])  # set when the body was left

    def visit_Try_finalbody(self, node: cst.Try | cst.TryStar) -> None:
        if node.finalbody is None:
            return
        self._merge_try()
        # `finally` also runs when the body raised anywhere.
        for domain in self.domains:
            domain.unsure(self._tries[-1].rebound)

    def visit_Finally_body(self, node: cst.Finally) -> None:
        self._open_block(node.body)

    def leave_Finally_body(self, node: cst.Finally) -> None:
        self._close_block()

    def leave_Try(self, node: cst.Try | cst.TryStar) -> None:
        self._merge_try()
        self._tries.pop()

    visit_TryStar, leave_TryStar = visit_Try, leave_Try
    visit_TryStar_body, leave_TryStar_body = visit_Try_body, leave_Try_body
    visit_TryStar_orelse, leave_TryStar_orelse = visit_Try_orelse, leave_Try_orelse
    visit_TryStar_finalbody = visit_Try_finalbody
    visit_ExceptStarHandler_body, leave_ExceptStarHandler_body = visit_ExceptHandler_body, leave_ExceptHandler_body
