"""Which bindings of a name reach the current point of the scope that binds it: what its own code sees there.

Python runs a scope's statements in order (a module's top to bottom, a notebook's cells one after another): a call
made by one of them sees the binding that reaches it, not one made later. After `loss_fn = lambda x: x**2`,
`jax.grad(loss_fn)(1.0)` differentiates the lambda, even when a `def loss_fn` comes further down. Where an `if`
or a `try` binds a name on some paths only, every binding that may reach is kept. A function body that reads a
module's name runs later, when called: that read is not this domain's (scopes.py resolves it after the walk, to the
last binding).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from jaxlint.analysis.flow import Domain, State

Candidates = frozenset[object]


@dataclass(frozen=True, eq=False)
class Alias:
    """`name = lambda ...`, `name = jax.jit(f)`, `name = partial(f, cfg)`: calling `name` calls `target` (seen from
    `chain`), its first `bound` parameters and `bound_names` given (each assignment is a binding of its own);
    `wrapper`: the transform's call that made it (`jax.jit(f)`), through which every call of `name` goes."""

    chain: tuple[cst.CSTNode, ...]
    target: cst.BaseExpression
    bound: int
    bound_names: frozenset[str]
    wrapper: cst.Call | None = None
    bound_values: tuple[tuple[str, cst.BaseExpression], ...] = ()  # of `bound_names`, what a partial gives each


OTHER = object()  # a binding the analysis does not follow: another assignment, an import, a rebinding in a `try`


class ReachingBindings(Domain):
    """Per open scope, the followed bindings (a def, a class, an Alias) of each name that may reach the current
    point; OTHER among them when something else may have bound it there."""

    def __init__(self) -> None:
        self._frames: list[dict[str, Candidates]] = [{}]

    def bind(self, name: str, binding: object) -> None:
        """`name` is bound here, in the current scope."""
        self._frames[-1][name] = frozenset((binding,))

    def reaching(self, name: str) -> Candidates:
        """The bindings of `name` that may reach this point of its scope (none: not bound yet)."""
        return self._frames[-1].get(name, frozenset())

    def snapshot(self) -> State:
        return dict(self._frames[-1])

    def restore(self, state: State) -> None:
        self._frames[-1] = dict(state)

    def join(self, a: State, b: State) -> State:
        # (a name one path leaves unbound keeps the other's bindings: a call there would raise NameError, not run)
        joined = dict(a)
        for name, found in b.items():
            joined[name] = joined[name] | found if name in joined else found
        return joined

    def enter_scope(self, node: cst.CSTNode) -> None:
        # A comprehension runs where it is written, with its scope's bindings; a def, lambda or class body has its own.
        scoped = type(node) in (cst.FunctionDef, cst.Lambda, cst.ClassDef)
        self._frames.append({} if scoped else dict(self._frames[-1]))

    def exit_scope(self, node: cst.CSTNode) -> None:
        self._frames.pop()

    def unsure(self, names: set[str]) -> None:
        frame = self._frames[-1]
        for name in names & frame.keys():
            frame[name] = frame[name] | {OTHER}
