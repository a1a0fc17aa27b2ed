"""jaxlint's walk calls the same hooks as libcst's `module.visit`, in the same order, on real code."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import libcst as cst
import pytest

from jaxlint.analysis.scopes import RoundFacts
from jaxlint.analysis.tracker import ValueTracker
from jaxlint.checks import ALL_RULES
from jaxlint.traversal import LAYOUT, TOKENS, Traversal, children, in_order

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted([*ROOT.glob("fixtures/**/*.py"), *ROOT.glob("jaxlint/analysis/*.py")])
EDGE_CASES = '''
from . import *
from .a import (b as c, d)
x = f"{a!r:>{width}} {b} {c:{d}x} {e=}"
y = [*a, *(b)] if (a := 1) else {**c}
@dec
async def g(a, /, b: int = 1, *c, d, **e) -> None:
    async with a as (b, c), d:
        yield from (await b)
    match x:
        case [1, *rest] | {"k": v, **kw} if v: pass
        case Point(x=0) as p: del p
    try:
        pass
    except* (E, F) as e:
        raise X from e
    else:
        lambda: (yield)
    finally:
        global q; nonlocal_ = 1  # comment
'''


def _all_hook_names() -> list[str]:
    """visit_/leave_ for every node type and every field of it."""
    names = []
    for cls in _node_classes(cst.CSTNode):
        for suffix in (cls.__name__, *(f"{cls.__name__}_{f.name}" for f in dataclasses.fields(cls))):
            names += [f"visit_{suffix}", f"leave_{suffix}"]
    return names


def _node_classes(base: type) -> set[type]:
    found = set()
    for sub in base.__subclasses__():
        found |= {sub} | _node_classes(sub)
    return found


def _recorder(hook_names: list[str], log: list) -> object:
    def hook(name: str):
        return lambda self, node: log.append((name, node))

    return type("Recorder", (), {name: hook(name) for name in hook_names})()


class _LibcstRecorder(cst.CSTVisitor):
    """What libcst's own traversal calls, as the hook names it would dispatch to."""

    def __init__(self, hook_names: set[str], log: list) -> None:
        self.names, self.log = hook_names, log

    def _record(self, name: str, node: cst.CSTNode) -> None:
        if name in self.names:
            self.log.append((name, node))

    def on_visit(self, node):
        self._record(f"visit_{type(node).__name__}", node)
        return True

    def on_leave(self, original_node):
        self._record(f"leave_{type(original_node).__name__}", original_node)

    def on_visit_attribute(self, node, attribute):
        self._record(f"visit_{type(node).__name__}_{attribute}", node)

    def on_leave_attribute(self, original_node, attribute):
        self._record(f"leave_{type(original_node).__name__}_{attribute}", original_node)


def _both_orders(module: cst.Module, hook_names: list[str]) -> tuple[list, list]:
    ours, theirs = [], []
    recorder = _recorder(hook_names, ours)
    Traversal([recorder], [recorder]).walk(module)
    module.visit(_LibcstRecorder(set(hook_names), theirs))
    return ours, theirs


def _jaxlint_hook_names() -> list[str]:
    module = cst.parse_module("")
    tracker = ValueTracker(module, RoundFacts())
    rules = [rule(tracker, lambda *report: None) for rule in ALL_RULES]
    return sorted({name for handler in (tracker.flow, tracker, tracker.keys, *rules) for name in dir(type(handler))
                   if name.startswith(("visit_", "leave_"))})


@pytest.mark.slow
def test_the_walk_calls_what_libcst_calls_in_the_same_order() -> None:
    """With every hook there is and with the hooks jaxlint has (each source parsed once for both)."""
    hook_sets = [_all_hook_names(), _jaxlint_hook_names()]
    for source in [EDGE_CASES, *(path.read_text(encoding="utf-8") for path in SOURCES)]:
        module = cst.parse_module(source)
        for hook_names in hook_sets:
            ours, theirs = _both_orders(module, hook_names)
            assert ours and len(ours) == len(theirs)
            assert all(a[0] == b[0] and a[1] is b[1] for a, b in zip(ours, theirs))


@pytest.mark.slow
def test_children_are_libcsts_children_read_in_place() -> None:
    module = cst.parse_module(EDGE_CASES + "".join(p.read_text(encoding="utf-8") for p in SOURCES[:20]))
    compared = []

    class Check(cst.CSTVisitor):
        def on_visit(self, node):
            ours, theirs = children(node), node.children
            assert len(ours) == len(theirs) and all(a is b for a, b in zip(ours, theirs)), node
            compared.append(node)
            return True

    module.visit(Check())
    assert len(compared) > 10_000


@pytest.mark.slow
def test_in_order_is_libcsts_visit_order_without_layout() -> None:
    """`in_order` gives what libcst visits, in its order, with each node's ancestors, but no layout token
    (whitespace, operators, brackets) and nothing below one; names and literals stay."""
    module = cst.parse_module(EDGE_CASES + "".join(p.read_text(encoding="utf-8") for p in SOURCES[:20]))
    theirs: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = []
    above: list[cst.CSTNode] = []

    class Record(cst.CSTVisitor):
        def on_visit(self, node):
            if type(node) in LAYOUT:
                return False
            theirs.append((node, tuple(above)))
            above.append(node)
            return True

        def on_leave(self, original_node):
            if type(original_node) not in LAYOUT:  # (libcst leaves the nodes it did not enter too)
                above.pop()

    module.visit(Record())
    ours = list(in_order(module))
    assert len(ours) == len(theirs) > 10_000
    assert all(a is b and len(x) == len(y) and all(p is q for p, q in zip(x, y))
               for (a, x), (b, y) in zip(ours, theirs))
    assert {cst.Name, cst.Integer, cst.SimpleString} <= {type(node) for node, _ in ours}


@pytest.mark.slow
def test_tokens_hold_only_tokens() -> None:
    """What the walk skips when nothing hooks a token has no other node below it."""
    module = cst.parse_module(EDGE_CASES + "".join(p.read_text(encoding="utf-8") for p in SOURCES[:20]))
    seen: set[type] = set()

    class Check(cst.CSTVisitor):
        def on_visit(self, node):
            seen.add(type(node))
            if type(node) in TOKENS:
                assert all(type(child) in TOKENS for child in node.children), node
            return True

    module.visit(Check())
    assert {cst.Name, cst.SimpleWhitespace, cst.Comma, cst.Integer} <= seen & TOKENS


def test_no_hook_on_tokens_so_the_walk_can_skip_them() -> None:
    """A single `visit_Name` anywhere makes every file's walk enter every token (about five times the
    calls): rules find names through the nodes that hold them instead."""
    from jaxlint.analysis.keys import KeyFlow
    from jaxlint.analysis.tracker import ValueTracker
    from jaxlint.checks import ALL_RULES
    from jaxlint.traversal import TOKENS

    tokens = {cls.__name__ for cls in TOKENS}
    hooked = {(handler.__name__, name) for handler in (*ALL_RULES, ValueTracker, KeyFlow) for name in dir(handler)
              if name.startswith(("visit_", "leave_")) and name.split("_")[1] in tokens}
    assert hooked == set()



def test_a_muted_handler_gets_no_hook_from_then_on_not_even_the_leaves_of_the_nodes_being_walked() -> None:
    # What a round of the analysis does when it learns that its rules' reports will not be used.
    module = cst.parse_module("def f(x):\n    y = g(x)\n    return [h(y) for _ in x]\n" + EDGE_CASES)
    hook_names = _all_hook_names()
    kept, muted, unmuted = [], [], []
    recorder, other = _recorder(hook_names, kept), _recorder(hook_names, muted)

    def mute_at_first_call(node: cst.Call) -> None:
        if not traversal.muted:
            traversal.mute([other])

    trigger = type("Trigger", (), {"visit_Call": lambda self, node: mute_at_first_call(node)})()
    traversal = Traversal([recorder, trigger, other], [other, trigger, recorder])
    traversal.walk(module)
    full = _recorder(hook_names, unmuted)
    Traversal([full], [full]).walk(module)
    first_call = next(i for i, (name, _) in enumerate(unmuted) if name == "visit_Call")
    assert [(n, id(x)) for n, x in kept] == [(n, id(x)) for n, x in unmuted]  # the others: every hook, in order
    assert [(n, id(x)) for n, x in muted] == [(n, id(x)) for n, x in unmuted[:first_call]]
