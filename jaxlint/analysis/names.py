"""Qualified names from a module's imports: `jnp.zeros` -> `jax.numpy.zeros`.

Rules speak in qualified names, never in spellings. Imports are collected per scope
(module, then each function) with a shallow scan of the scope's statements, so an
import below a function still counts inside it, as at run time.
"""

from __future__ import annotations

from typing import AbstractSet, Iterable, Iterator, Sequence, cast

import libcst as cst

from jaxlint.analysis.interface import absolute_module
from jaxlint.traversal import node_types

_NESTED_BLOCKS = frozenset({cst.If, cst.For, cst.While, cst.With, cst.Try, cst.TryStar})
# Node types are tested with `type(...)` here: every rule asks for names, and an isinstance against a
# libcst class runs ABCMeta's check in Python (libcst's concrete node types have no subclasses).
_SMALL_STATEMENTS = node_types(cst.BaseSmallStatement)


def dotted(expr: cst.BaseExpression) -> str | None:
    """`a.b.c` as a string, or None when `expr` is not a plain dotted name."""
    kind = type(expr)
    if kind is cst.Name:
        return cast(cst.Name, expr).value
    if kind is cst.Attribute:
        attribute = cast(cst.Attribute, expr)
        base = dotted(attribute.value)
        return None if base is None else f"{base}.{attribute.attr.value}"
    return None


def _scope_statements(body: Iterable[cst.CSTNode], handlers: bool = True) -> Iterator[cst.CSTNode]:
    """Small statements of one scope, entering blocks (`except` handlers unless `handlers` is False) but not
    nested defs or classes."""
    for statement in body:
        kind = type(statement)
        if kind is cst.SimpleStatementLine:
            yield from cast(cst.SimpleStatementLine, statement).body
        elif kind in _SMALL_STATEMENTS:
            yield statement
        elif kind in _NESTED_BLOCKS:
            yield from _scope_statements(_block_bodies(statement, handlers), handlers)


def _block_bodies(block: cst.CSTNode, handlers: bool = True) -> Iterator[cst.CSTNode]:
    parts = [getattr(block, "body", None), getattr(block, "orelse", None), getattr(block, "finalbody", None)]
    if handlers:
        parts.extend(getattr(block, "handlers", ()))
    for part in parts:
        while part is not None:
            inner = getattr(part, "body", None)
            if type(inner) is cst.IndentedBlock or type(inner) is cst.SimpleStatementSuite:
                yield from inner.body
            elif isinstance(inner, (list, tuple)):
                yield from inner
            # `elif` chains hang off If.orelse as nested If nodes.
            part = part.orelse if type(part) is cst.If else None


def _absolute(statement: cst.ImportFrom, package: str | None) -> str | None:
    """The module a `from ... import` names, relative imports resolved against `package`."""
    module = dotted(statement.module) if statement.module is not None else None
    return absolute_module(len(statement.relative), module, package)


def scope_imports(body: Iterable[cst.CSTNode], package: str | None = None) -> dict[str, str]:
    """Local name -> qualified name for every import statement of one scope; relative imports too
    when the module's `package` is known."""
    return dict(_imports(_scope_statements(body), package))


def import_bound_names(statement: cst.Import | cst.ImportFrom) -> list[str]:
    """The local names an import statement binds, whatever module they come from (a relative import's too):
    `import a.b` binds `a`, `from .m import f as g` binds `g` (a star import binds names no one can list)."""
    if type(statement) is cst.ImportFrom and isinstance(statement.names, cst.ImportStar):
        return []
    bound = []
    for alias in cast("Sequence[cst.ImportAlias]", statement.names):
        local = dotted(alias.asname.name) if alias.asname is not None else dotted(alias.name)
        if local:
            bound.append(local.split(".")[0] if alias.asname is None and type(statement) is cst.Import else local)
    return bound


def resolved_imports(body: Iterable[cst.CSTNode], package: str | None = None) -> dict[str, str | None]:
    """As scope_imports, but None for a name the scope's imports bind to different modules (`import jax.numpy as
    np`, later `import numpy as np`): a function reads a global when it runs, so which module it gets depends on
    when it is called. An import in an `except` handler is a fallback (`except ImportError: import numpy as
    jnp`): the analysis takes the import of the `try` to work."""
    bound: dict[str, str | None] = {}
    for local, qualified in _imports(_scope_statements(body, handlers=False), package):
        bound[local] = qualified if bound.get(local, qualified) == qualified else None
    for local, qualified in _imports(_scope_statements(body), package):
        bound.setdefault(local, qualified)  # bound in a handler alone
    return bound


def _imports(statements: Iterable[cst.CSTNode], package: str | None) -> Iterator[tuple[str, str]]:
    """(local name, qualified name) for each name the import statements among `statements` bind."""
    for statement in statements:
        if type(statement) is cst.Import:
            for alias in statement.names:
                module = dotted(alias.name)
                if module is None:
                    continue
                if alias.asname is not None:
                    local = dotted(alias.asname.name)
                    if local:
                        yield local, module
                else:
                    top = module.split(".")[0]
                    yield top, top
        elif type(statement) is cst.ImportFrom:
            module = _absolute(statement, package)
            if module is None or isinstance(statement.names, cst.ImportStar):
                continue
            for alias in statement.names:
                name = dotted(alias.name)
                if name is None:
                    continue
                local = dotted(alias.asname.name) if alias.asname else name
                if local:
                    yield local, f"{module}.{name}"


class Names:
    """Resolves names in the scope being visited. `None` marks a local that shadows an import."""

    def __init__(self, module: cst.Module, package: str | None = None, aliases: dict[str, str] | None = None) -> None:
        self._package = package  # the module's package, for relative imports; None: not known
        # Module-level aliases of imported names (module_aliases.py): `partial = functools.partial`.
        self.aliases = aliases or {}
        self._scopes: list[dict[str, str | None]] = [{**resolved_imports(module.body, package), **self.aliases}]
        # Answers for the current scopes, by node identity (libcst's __hash__ is slow Python):
        # every rule asks about the same call's function again. Keeping the nodes asked about keeps
        # their ids unique.
        self._answers: dict[int, str | None] = {}
        self._asked: list[cst.CSTNode] = []

    def enter_function(self, body: Iterable[cst.CSTNode], params: Iterable[str], rebound: Iterable[str] = ()) -> None:
        """`rebound`: the names the function binds itself, which hide a module-level import or alias of the name in
        all of its body and the functions nested in it (`def softmax` inside a method hides `from .utils import
        softmax`); its own imports name what they import."""
        scope: dict[str, str | None] = {name: None for name in params}
        scope.update((name, None) for name in rebound)
        scope.update(resolved_imports(body, self._package))
        self._scopes.append(scope)
        self._answers, self._asked = {}, []

    def leave_function(self) -> None:
        self._scopes.pop()
        self._answers, self._asked = {}, []

    def builtin(self, func: cst.BaseExpression, among: AbstractSet[str]) -> str | None:
        """The builtin of `among` that `func` names (`staticmethod`, `list`), not shadowed by an import; else None."""
        if type(func) is cst.Name and func.value in among and self.qualified(func) is None:
            return func.value
        return None

    def qualified(self, expr: cst.BaseExpression) -> str | None:
        """The qualified name `expr` refers to, or None when it is not an imported name."""
        try:  # (asked about 2 million times on the five benchmark libraries: the answer is usually known)
            return self._answers[id(expr)]
        except KeyError:
            spelled = dotted(expr)
            self._asked.append(expr)
            answer = self._answers[id(expr)] = None if spelled is None else self._resolve(spelled)
            return answer

    def _resolve(self, spelled: str) -> str | None:
        head, _, rest = spelled.partition(".")
        for scope in reversed(self._scopes):
            if head in scope:
                target = scope[head]
                if target is None:
                    return None
                return f"{target}.{rest}" if rest else target
        return None

    def spelling(self, qualified: str) -> str | None:
        """The shortest name for `qualified` that this scope's imports give (`jnp.minimum`), or None."""
        candidates = sorted(
            (
                local + qualified[len(target) :]
                for scope in self._scopes
                for local, target in scope.items()
                if target and (qualified == target or qualified.startswith(target + "."))
            ),
            key=len,
        )
        return next((spelled for spelled in candidates if self._resolve(spelled) == qualified), None)

    def free(self, name: str) -> bool:
        """Whether no scope binds `name` to anything but the module of that name (so `import name` works)."""
        return all(scope.get(name, name) == name for scope in self._scopes)
