"""Which names a statement or block binds: what control flow must forget or join."""

from __future__ import annotations

from typing import Iterable, Iterator, cast

import libcst as cst

from jaxlint.analysis.names import import_bound_names
from jaxlint.traversal import TOKENS, children, node_types


# These functions run for every statement of every function, in every round of the analysis: they test
# node types with `type(...)`, since an isinstance against a libcst class runs ABCMeta's check in Python
# (libcst's concrete node types have no subclasses).


def target_names(target: cst.BaseExpression) -> Iterator[str]:
    kind = type(target)
    if kind is cst.Name:
        yield cast(cst.Name, target).value
    elif kind is cst.Tuple or kind is cst.List:
        for element in cast("cst.Tuple | cst.List", target).elements:
            yield from target_names(element.value)
    elif kind is cst.StarredElement:
        yield from target_names(cast(cst.StarredElement, target).value)


def statements(body: cst.BaseSuite | Iterable[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    if type(body) is cst.IndentedBlock or type(body) is cst.SimpleStatementSuite:
        body = body.body
    for statement in cast("Iterable[cst.CSTNode]", body):  # the two kinds of BaseSuite are unwrapped
        if type(statement) is cst.SimpleStatementLine:
            yield from statement.body
        else:
            yield statement


_BLOCKS = frozenset({cst.For, cst.While, cst.If, cst.With, cst.Try, cst.TryStar})
COMPOUND = node_types(cst.BaseCompoundStatement)  # (`type(node) in COMPOUND`: no ABC isinstance)


def blocks(statement: cst.BaseCompoundStatement) -> list[cst.BaseSuite | list[cst.If]]:
    """The blocks of a compound statement: its body (a `match`'s cases), `except` handlers, `else` (an `elif`
    is a block of its own) and `finally`."""
    found: list[cst.BaseSuite | list[cst.If]] = (
        [case.body for case in statement.cases] if type(statement) is cst.Match else [statement.body]
    )
    found.extend(handler.body for handler in getattr(statement, "handlers", ()))
    for part in (getattr(statement, "orelse", None), getattr(statement, "finalbody", None)):
        if type(part) is cst.If:
            found.append([part])
        elif part is not None:
            found.append(part.body)
    return found


def rebound_names(body: cst.BaseSuite | Iterable[cst.CSTNode]) -> set[str]:
    """Names a block may rebind, not counting nested function and class bodies."""
    names: set[str] = set()
    for statement in statements(body):
        kind = type(statement)
        if kind is cst.Assign:
            for target in cast(cst.Assign, statement).targets:
                names.update(target_names(target.target))
        elif kind is cst.AugAssign or kind is cst.AnnAssign:
            names.update(target_names(cast("cst.AugAssign | cst.AnnAssign", statement).target))
        elif kind is cst.FunctionDef or kind is cst.ClassDef:
            names.add(cast("cst.FunctionDef | cst.ClassDef", statement).name.value)
        elif kind is cst.Import or kind is cst.ImportFrom:
            names.update(import_bound_names(cast("cst.Import | cst.ImportFrom", statement)))
        elif kind is cst.Del:
            names.update(target_names(cast(cst.Del, statement).target))
        elif kind is cst.Match:
            for case in cast(cst.Match, statement).cases:
                names |= pattern_names(case.pattern) | rebound_names(case.body)
        elif kind in _BLOCKS:
            if kind is cst.For:
                names.update(target_names(cast(cst.For, statement).target))
            if kind is cst.With:
                for item in cast(cst.With, statement).items:
                    if item.asname is not None:
                        names.update(target_names(item.asname.name))
            names |= rebound_names(cast(cst.BaseCompoundStatement, statement).body)
            for handler in getattr(statement, "handlers", ()):
                if handler.name is not None:
                    names.update(target_names(handler.name.name))
                names |= rebound_names(handler.body)
            for part in ("orelse", "finalbody"):
                block = getattr(statement, part, None)
                if type(block) is cst.If:
                    names |= rebound_names([block])
                elif block is not None:
                    names |= rebound_names(block.body)
    return names


def pattern_names(pattern: cst.MatchPattern) -> set[str]:
    """The names a `case` pattern captures (`case Point(x=px, y=0) as p:` binds `px` and `p`)."""
    names: set[str] = set()

    class Captures(cst.CSTVisitor):
        def visit_MatchAs(self, node: cst.MatchAs) -> None:
            if node.name is not None:
                names.add(node.name.value)

        def visit_MatchStar(self, node: cst.MatchStar) -> None:
            if node.name is not None:
                names.add(node.name.value)

        def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
            if node.rest is not None:
                names.add(node.rest.value)

    pattern.visit(Captures())
    return names


def is_wildcard(pattern: cst.MatchPattern) -> bool:
    """`case _:` or `case name:`: a pattern that always matches."""
    return isinstance(pattern, cst.MatchAs) and pattern.pattern is None


def ends_with(body: cst.BaseSuite, *kinds: type) -> bool:
    """True when a block's last statement is one of `kinds` (`cst.Return`, `cst.Break`...)."""
    last = list(statements(body))[-1:]
    return bool(last) and type(last[0]) in kinds


def terminates(body: cst.BaseSuite) -> bool:
    """True when a block always leaves by `return`, `raise`, `break` or `continue`: its last statement does, or
    is an `if` whose every branch (an `else` included) does."""
    last = list(statements(body))[-1:]
    if not last:
        return False
    statement = last[0]
    while type(statement) is cst.If:
        branch = statement
        if branch.orelse is None or not terminates(branch.body):
            return False
        if type(branch.orelse) is cst.Else:
            return terminates(branch.orelse.body)
        statement = branch.orelse  # `elif`
    return type(statement) in (cst.Return, cst.Raise, cst.Break, cst.Continue)


def parameter_names(params: cst.Parameters) -> list[str]:
    """Every parameter a function or lambda binds, `*args` and `**kwargs` included."""
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    stars = [p for p in (params.star_arg, params.star_kwarg) if type(p) is cst.Param]
    return [p.name.value for p in every + stars]


def declared_outer(body: cst.BaseSuite | Iterable[cst.CSTNode]) -> set[str]:
    """Names a function body declares `global` or `nonlocal` (not counting nested functions)."""
    found: set[str] = set()
    for statement in statements(body):
        if type(statement) is cst.Global or type(statement) is cst.Nonlocal:
            found.update(item.name.value for item in statement.names)
        elif type(statement) in _BLOCKS:
            for block in blocks(cast(cst.BaseCompoundStatement, statement)):
                found |= declared_outer(block)
    return found


def mentioned_names(node: cst.CSTNode) -> frozenset[str]:
    """Every name written in a node, nested functions included (attribute names and keywords too: an
    over-approximation, for "is this name used again?")."""
    found: set[str] = set()
    pending = [node]
    while pending:
        current = pending.pop()
        if type(current) is cst.Name:
            found.add(current.value)
        elif type(current) not in TOKENS:  # (no name below a token but itself)
            pending.extend(children(current))
    return frozenset(found)


def is_docstring(statement: cst.CSTNode) -> bool:
    """A statement that is only a string: a docstring where it comes first."""
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def method_of(cls: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    """The def a class's own body gives `name`, if one."""
    body = cls.body.body if type(cls.body) is cst.IndentedBlock else ()
    found = [s for s in body if type(s) is cst.FunctionDef and s.name.value == name]
    return found[0] if len(found) == 1 else None


def item_setter_classes(module: cst.Module) -> list[cst.ClassDef]:
    """The module-level classes that define `__setitem__`: `obj[i, :] = v` on an instance runs it."""
    return [
        statement
        for statement in module.body
        if type(statement) is cst.ClassDef and method_of(statement, "__setitem__") is not None
    ]


def is_property(function: cst.FunctionDef) -> bool:
    """`@property`, `@cached_property`, `@x.setter`: reading the attribute runs it, calling calls its result."""
    return any(
        _dotted_tail(d.decorator) in ("property", "cached_property", "setter", "getter", "deleter")
        for d in function.decorators
    )


def _dotted_tail(expr: cst.BaseExpression) -> str | None:
    return expr.value if isinstance(expr, cst.Name) else expr.attr.value if isinstance(expr, cst.Attribute) else None


def comprehension_targets(node: cst.BaseComp) -> set[str]:
    """The names a comprehension's `for` clauses bind: its own, whatever they shadow around it."""
    names: set[str] = set()
    clause: cst.CompFor | None = node.for_in
    while clause is not None:
        names.update(target_names(clause.target))
        clause = clause.inner_for_in
    return names


def string_indexed(subscript: cst.Subscript) -> bool:
    """`d["x"]`: a subscript by one string literal, which a mapping takes and no JAX array does."""
    index = subscript.slice[0].slice if len(subscript.slice) == 1 else None
    return isinstance(index, cst.Index) and isinstance(index.value, (cst.SimpleString, cst.ConcatenatedString))
