"""The single walk over a module that feeds every hook of the tracker and the rules.

libcst's own `module.visit(visitor)` rebuilds (and revalidates) every node it passes, even for a
read-only visitor, and calls the visitor for every whitespace and operator token: measured on the
precision corpus that is about four fifths of the time jaxlint spends per file. This walk calls exactly
the hooks `module.visit` would call, in the same order, but reads the children in place, dispatches
through tables built once per node type, and does not descend into tokens (names, literals,
whitespace, operators) when nothing hooks any of them.
"""

from __future__ import annotations

import collections.abc
import functools
import inspect
import sys
import typing
from collections import defaultdict
from typing import Callable, Iterable

import libcst as cst
from libcst._nodes import op, whitespace

Hook = Callable[[cst.CSTNode], None]

# Tokens that hold no name, literal or statement: whitespace, operators, brackets (`in_order` leaves them out).
LAYOUT: frozenset[type] = frozenset(
    cls
    for module in (op, whitespace)
    for _, cls in inspect.getmembers(module, inspect.isclass)
    if issubclass(cls, cst.CSTNode) and not inspect.isabstract(cls) and cls.__module__ == module.__name__
) | {
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
}
# Nodes whose whole subtree is tokens: they hold only other nodes of this set, or none.
TOKENS: frozenset[type] = LAYOUT | {
    cst.Name,
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.SimpleString,
    cst.Ellipsis,
    cst.Pass,
    cst.Break,
    cst.Continue,
    cst.ImportStar,
}


class _FieldOrder(cst.CSTVisitor):
    """The fields of one node in the order libcst visits them (its children are not entered)."""

    def __init__(self, parent: cst.CSTNode) -> None:
        self.parent = parent
        self.fields: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return node is self.parent

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        self.fields.append(attribute)


# libcst visits the format spec of these only when there is one: their fields depend on the node.
_PLANNED_PER_NODE = frozenset({"FormattedStringExpression", "TemplatedStringExpression"})
_ORDERS: dict[type, tuple[str, ...]] = {}


def _field_order(node: cst.CSTNode) -> tuple[str, ...]:
    recorder = _FieldOrder(node)
    node.visit(recorder)
    return tuple(recorder.fields)


def _order(node: cst.CSTNode) -> tuple[str, ...]:
    order = _ORDERS.get(type(node))
    if order is None:  # (an empty order is known too: whitespace and tokens have no children)
        order = _field_order(node)
        if type(node).__name__ not in _PLANNED_PER_NODE:
            _ORDERS[type(node)] = order
    return order


def in_order(node: cst.CSTNode, ancestors: tuple[cst.CSTNode, ...] = (), skip: tuple[type, ...] = ()):
    """`node` and everything inside it in source order but layout tokens (whitespace, operators, brackets), each
    with the nodes around it; nothing inside a node of a `skip` type (a nested function's body, say) but that
    node itself. (A stack, not recursion: a
    generator per level makes every yield climb the whole depth.)"""
    stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(node, ancestors)]
    while stack:
        current, above = stack.pop()
        yield current, above
        if type(current) not in skip:
            inner = branches(current, LAYOUT)
            if inner:
                around = (*above, current)
                stack.extend((child, around) for child in reversed(inner))


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """`node.children`, read in place: libcst's property rebuilds (and revalidates) the node to list them."""
    found = []
    for name in _order(node):
        value = getattr(node, name)
        kind = type(value)  # a node, a sequence of nodes, None or MaybeSentinel (as in `walk`)
        if kind is tuple or kind is list:
            found.extend(value)
        elif value is not None and kind is not cst.MaybeSentinel:
            found.append(value)
    return found


# The tokens a walk looking for names (and for no other token) leaves out.
TOKENS_BUT_NAMES: frozenset[type] = TOKENS - {cst.Name}
_BRANCH_FIELDS: dict[tuple[type, frozenset[type]], tuple[str, ...]] = {}


def branches(node: cst.CSTNode, dropped: frozenset[type] = TOKENS) -> list[cst.CSTNode]:
    """`children(node)` without the nodes of the `dropped` types (tokens: whitespace, operators, names,
    literals), and without reading the fields that hold nothing else: a walk that looks for no token reads
    about a third of the fields `children` reads."""
    kind = type(node)
    fields = _BRANCH_FIELDS.get((kind, dropped))
    if fields is None:
        fields = tuple(name for name in _order(node) if not _holds_only(kind, name, dropped))
        if kind.__name__ not in _PLANNED_PER_NODE:
            _BRANCH_FIELDS[(kind, dropped)] = fields
    found: list[cst.CSTNode] = []
    for name in fields:
        value = getattr(node, name)
        value_kind = type(value)  # as in `children`
        if value_kind is tuple or value_kind is list:
            found.extend(child for child in value if type(child) not in dropped)
        elif value is not None and value_kind is not cst.MaybeSentinel and value_kind not in dropped:
            found.append(value)
    return found


def _holds_tokens_only(node_type: type, field: str) -> bool:
    """Whether a field holds tokens or nothing, whatever the node (by its type annotation): a walk that
    skips tokens need not read it."""
    return _holds_only(node_type, field, TOKENS)


@functools.cache
def _holds_only(node_type: type, field: str, kinds: frozenset[type]) -> bool:
    """Whether a field holds nodes of `kinds` or nothing, whatever the node (by its type annotation)."""
    return all(
        kind in kinds or kind is type(None) or kind is cst.MaybeSentinel
        for kind in _leaf_types(_annotations(node_type)[field])
    )


@functools.cache
def _annotations(node_type: type) -> dict[str, object]:
    return typing.get_type_hints(node_type)


def _leaf_types(annotation: object) -> Iterable[object]:
    """The types an annotation admits: unions and sequences opened, node base classes as their concrete
    node types."""
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin in (collections.abc.Sequence, list, tuple):
        return [
            kind
            for argument in typing.get_args(annotation)
            if argument is not Ellipsis
            for kind in _leaf_types(argument)
        ]
    if isinstance(annotation, type) and issubclass(annotation, cst.CSTNode):
        return node_types(annotation)
    return [annotation]


@functools.cache
def node_types(base: type) -> frozenset[type]:
    """The concrete node types that are `base`s: `type(node) in node_types(cst.BaseExpression)` is a set
    lookup, where an isinstance against a libcst class runs ABCMeta's check in Python (libcst replaces
    each class by a copy with slots: the copy is the one its module names)."""
    found = set() if inspect.isabstract(base) else {base}
    subclasses: list[type] = base.__subclasses__()
    for sub in subclasses:
        if getattr(sys.modules[sub.__module__], sub.__name__, sub) is sub:
            found |= node_types(sub)
    return frozenset(found)


@functools.cache
def _hook_names(handler: type, prefix: str) -> tuple[str, ...]:
    return tuple(attribute for attribute in dir(handler) if attribute.startswith(prefix))


class Traversal:
    """Visit hooks run in the order of `visitors`, leave hooks in the order of `leavers`."""

    def __init__(self, visitors: Iterable[object], leavers: Iterable[object]) -> None:
        self._visitors, self._leavers = list(visitors), list(leavers)
        self._muted: frozenset[int] = frozenset()
        self._tables()
        hooked = {name.split("_", 1)[0] for name in (*self._visit, *self._leave)}
        self._skipped = frozenset() if hooked & {cls.__name__ for cls in TOKENS} else TOKENS
        self._plans: dict[type, tuple] = {}
        self._built: list[tuple] = []  # every plan made, the per-node ones too: mute() edits them

    def _tables(self) -> None:
        self._visit: dict[str, list[Hook]] = defaultdict(list)
        self._leave: dict[str, list[Hook]] = defaultdict(list)
        for table, prefix, handlers in (
            (self._visit, "visit_", self._visitors),
            (self._leave, "leave_", self._leavers),
        ):
            for handler in handlers:
                if id(handler) in self._muted:
                    continue
                # (mypy deems classes unhashable; they hash)
                for attribute in _hook_names(type(handler), prefix):  # type: ignore[arg-type]
                    table[attribute[len(prefix) :]].append(getattr(handler, attribute))

    @property
    def muted(self) -> bool:
        return bool(self._muted)

    def mute(self, handlers: Iterable[object]) -> None:
        """Call no hook of `handlers` from now on, the leave hooks of the nodes being walked included (a
        round of the analysis whose rules' reports will not be used). Safe from inside a hook."""
        self._muted |= {id(handler) for handler in handlers}
        self._tables()
        self._plans = {}
        for visits, fields, leaves in self._built:
            for hooks in (visits, leaves, *(hooks for _, before, after in fields for hooks in (before, after))):
                # replaced in place, not removed: a loop over this list may be running (its index must hold)
                hooks[:] = [_quiet if id(getattr(hook, "__self__", None)) in self._muted else hook for hook in hooks]

    def walk(self, node: cst.CSTNode) -> None:
        plan = self._plans.get(type(node)) or self._plan(node)
        visits, fields, leaves = plan
        for hook in visits:
            hook(node)
        skipped = self._skipped
        for name, before, after in fields:
            if before:  # (rarely: a test of emptiness costs less than a loop over nothing)
                for hook in before:
                    hook(node)
            value = getattr(node, name)
            kind = type(value)  # a node, a sequence of nodes, None or MaybeSentinel: no ABC isinstance, it is slow
            if kind is tuple or kind is list:
                for child in value:
                    if type(child) not in skipped:
                        self.walk(child)
            elif value is not None and kind is not cst.MaybeSentinel and kind not in skipped:
                self.walk(value)
            if after:
                for hook in after:
                    hook(node)
        for hook in leaves:
            hook(node)

    def _plan(self, node: cst.CSTNode) -> tuple:
        """What to call for a node of this type: its hooks, and its fields in visiting order with theirs."""
        kind = type(node).__name__
        order = _order(node)
        fields = tuple(
            (name, list(self._visit.get(f"{kind}_{name}", ())), list(self._leave.get(f"{kind}_{name}", ())))
            for name in order
        )
        if self._skipped:  # nothing below a field of tokens would be walked: unless it is hooked, not read
            fields = tuple(
                field for field in fields if field[1] or field[2] or not _holds_tokens_only(type(node), field[0])
            )
        plan = (list(self._visit.get(kind, ())), fields, list(self._leave.get(kind, ())))
        self._built.append(plan)
        if kind not in _PLANNED_PER_NODE:
            self._plans[type(node)] = plan
        return plan


def _quiet(node: cst.CSTNode) -> None:
    """A muted hook."""
