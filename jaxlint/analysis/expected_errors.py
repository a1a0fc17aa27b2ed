"""Blocks that expect an error: code in `with pytest.raises(...)` is a test of that very error, and code in a `try`
whose handler catches it (and does not raise again) shows the error on purpose (a book's `try: jnp.sum([1, 2])
except TypeError as e: print(e)`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

if TYPE_CHECKING:

    class _Mixin:
        """What the mixin uses of the Rule it comes before (checks/base.py, a higher layer)."""

        names: Any
        facts: Any

        def report(self, node: cst.CSTNode, message: Any, fix: Any = None, because: Any = None) -> None: ...
else:
    _Mixin = object


def expects_error(node: cst.With, names) -> bool:
    """`with self.assertRaises(...)`, `with pytest.raises(...)`: the code inside is meant to fail."""
    for item in node.items:
        call = item.item
        if not isinstance(call, cst.Call):
            continue
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value.startswith("assertRaises"):
            return True
        if names.qualified(func) == "pytest.raises":
            return True
    return False


def caught_errors(node: cst.Try | cst.TryStar, names) -> frozenset[str]:
    """The exception classes a `try`'s handlers name (qualified, or a builtin's own name; a bare `except:` names
    none)."""
    return frozenset(name for handler in node.handlers for name in _named(handler, names))


def shown_errors(node: cst.Try | cst.TryStar, names) -> frozenset[str]:
    """The exception classes a `try`'s handlers catch and keep (a bare `except:` catches `BaseException`); a handler
    that raises again keeps nothing."""
    found: set[str] = set()
    for handler in node.handlers:
        if not any(
            isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], cst.Raise)
            for statement in handler.body.body
        ):
            found |= _named(handler, names) if handler.type is not None else {"BaseException"}
    return frozenset(found)


def _named(handler: cst.ExceptHandler | cst.ExceptStarHandler, names) -> set[str]:
    """The classes an `except` clause names: qualified, or a builtin's own name (`TypeError`)."""
    if handler.type is None:
        return set()
    kinds = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
    found = set()
    for kind in kinds:
        expr = kind.value if isinstance(kind, cst.BaseElement) else kind
        qualified = names.qualified(expr) or (expr.value if isinstance(expr, cst.Name) else None)
        if qualified is not None:
            found.add(qualified)
    return found


class ExpectedErrors(_Mixin):
    """Leaves out findings inside blocks that expect an error (a test of that very error, or a `try` of the function
    around that catches it and shows it: the analysis follows those, Context.shows). Mix in before Rule; `raises`
    names the error a finding predicts and its base classes."""

    raises: frozenset[str] = frozenset()
    _expecting = 0

    def visit_With(self, node: cst.With) -> None:
        if expects_error(node, self.names):
            self._expecting += 1

    def leave_With(self, node: cst.With) -> None:
        if expects_error(node, self.names):
            self._expecting -= 1

    def report(self, node, message, fix=None, because=None) -> None:
        if not self._expecting and not (self.raises and self.facts.shows(self.raises)):
            super().report(node, message, fix, because)
