"""The flow engine drives any domain through Python's control flow: here a domain written only for this test,
"the names bound on every path", which the engine must join at the right points without knowing it."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from jaxlint.analysis.bindings import target_names
from jaxlint.analysis.flow import Domain, Flow
from jaxlint.traversal import Traversal


class BoundOnEveryPath(Domain):
    """A name is bound here when every path to here binds it; `seen()` records the names at each call."""

    def __init__(self) -> None:
        self.bound: frozenset[str] = frozenset()
        self.seen: list[frozenset[str]] = []
        self.scopes: list[frozenset[str]] = []

    def snapshot(self) -> frozenset[str]:
        return self.bound

    def restore(self, state: frozenset[str]) -> None:
        self.bound = state

    def join(self, a: frozenset[str], b: frozenset[str]) -> frozenset[str]:
        return a & b

    def enter_scope(self, node: cst.CSTNode) -> None:
        self.scopes.append(self.bound)
        self.bound = frozenset()

    def exit_scope(self, node: cst.CSTNode) -> None:
        self.bound = self.scopes.pop()

    def leave_Assign(self, node: cst.Assign) -> None:
        self.bound |= {name for target in node.targets for name in target_names(target.target)}

    def leave_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.bound |= set(target_names(node.target))

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "seen":
            self.seen.append(self.bound)


def bound_at_seen(source: str) -> list[set[str]]:
    domain = BoundOnEveryPath()
    flow = Flow((domain,))
    Traversal((flow, domain), (domain, flow)).walk(cst.parse_module(textwrap.dedent(source)))
    return [set(names) for names in domain.seen]


@pytest.mark.parametrize("source, expected", [
    ("""
     def f(c):
         if c:
             x = 1
         else:
             x = 2
         seen()
     """, [{"x"}]),
    ("""
     def f(c):
         if c:
             x = 1
         elif c > 1:
             x = 2
         seen()
     """, [set()]),
    ("""
     def f(c):
         if c:
             x = 1
         elif c > 1:
             x = 2
         else:
             return
         seen()
     """, [{"x"}]),
    ("""
     def f(mode):
         match mode:
             case 1:
                 x = 1
             case _:
                 x = 2
         seen()
     """, [{"x"}]),
    ("""
     def f(mode):
         match mode:
             case 1:
                 x = 1
             case _ if mode:
                 x = 2
         seen()
     """, [set()]),
    ("""
     def f(items):
         for item in items:
             x = 1
             break
         seen()
     """, [set()]),  # no iteration at all
    ("""
     def f(items):
         while True:
             x = 1
             if items:
                 y = 2
                 break
         seen()
     """, [{"x", "y"}]),
    ("""
     def f(items):
         for item in items:
             if item:
                 x = 1
                 break
         else:
             x = 2
         seen()
     """, [{"x"}]),
    ("""
     def f(items):
         for item in items:
             if item:
                 continue
             x = 1
             seen()
         seen()
     """, [{"x"}, set()]),
    ("""
     def f():
         try:
             x = 1
         except ValueError:
             raise
         seen()
     """, [{"x"}]),
    ("""
     def f():
         try:
             x = 1
         except ValueError:
             pass
         else:
             y = 2
         seen()
     """, [set()]),
    ("""
     def f():
         try:
             x = 1
         except ValueError:
             x = 2
         finally:
             seen()
         seen()
     """, [{"x"}, {"x"}]),
    ("""
     def f(c):
         y = (x := 1) if c else 2
         seen()
     """, [{"y"}]),  # the walrus binds in one arm only
    ("""
     def f(c):
         y = (x := 1) if c else (x := 2)
         seen()
     """, [{"x", "y"}]),
])
def test_the_engine_joins_the_paths_that_reach_each_point(source: str, expected: list[set[str]]) -> None:
    assert bound_at_seen(source) == expected


def test_a_scope_starts_and_ends_with_its_own_facts() -> None:
    source = """
    a = 1
    def f():
        b = 2
        seen()
    class C:
        seen()
    seen()
    """
    assert bound_at_seen(source) == [{"b"}, set(), {"a"}]


class LoopBack(BoundOnEveryPath):
    """Records the states each For or While body may run again from."""

    def __init__(self) -> None:
        super().__init__()
        self.again: list[list[set[str]]] = []

    def next_iteration(self, node: cst.CSTNode, states: list[frozenset[str]]) -> None:
        self.again.append([set(state) for state in states])


@pytest.mark.parametrize("source, expected", [
    ("""
     def f(items):
         for item in items:
             x = 1
             if item:
                 y = 2
                 continue
             if item > 1:
                 break
             z = 3
     """, [[{"x", "z"}, {"x", "y"}]]),  # the end of the body, then each `continue`; not the `break`
    ("""
     def f(items):
         while items:
             if items:
                 a = 1
                 continue
             return
     """, [[{"a"}]]),  # no path reaches the end of the body
    ("""
     def f(items):
         for item in items:
             while item:
                 b = 1
             c = 2
     """, [[{"b"}], [{"c"}]]),  # the inner loop first; after it, `b` is bound on no path that skips it
])
def test_the_engine_gives_the_states_a_loop_body_runs_again_from(source: str, expected) -> None:
    domain = LoopBack()
    flow = Flow((domain,))
    Traversal((flow, domain), (domain, flow)).walk(cst.parse_module(textwrap.dedent(source)))
    assert domain.again == expected
