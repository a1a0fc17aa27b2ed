"""Which functions of a module are traced, learned while traversing it.

A traversal records every transform application (`jax.jit(f)`, `lax.scan(body, ...)`) and every
call that passes a tracer into a function of the same module. Both may name a function defined
further down, so they are resolved after the traversal; lint.py traverses again until nothing new
is learned (a helper of a helper needs one more round).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import libcst as cst

from jaxlint.analysis.traced import Signature, Tracer, Transform
from jaxlint.analysis.values import Kind, Value

Chain = tuple[cst.CSTNode, ...]  # the enclosing module, classes, functions and lambdas


@dataclass
class ScopeFacts:
    """Transforms applied to each function (or lambda) node, and tracers passed into its parameters."""

    applied: dict[cst.CSTNode, list[Transform]] = field(default_factory=dict)
    passed: dict[cst.CSTNode, dict[str, Tracer]] = field(default_factory=dict)


@dataclass(frozen=True)
class _TracedCall:
    chain: Chain
    func: cst.BaseExpression
    positional: tuple[Value | None, ...]
    keywords: tuple[tuple[str, Value], ...]
    node: cst.Call
    caller: str


class ScopeRecorder:
    def __init__(self) -> None:
        self._defs: dict[tuple[int, str], cst.FunctionDef] = {}
        self._applications: list[tuple[Chain, cst.BaseExpression, Transform]] = []
        self._calls: list[_TracedCall] = []

    def define(self, scope: cst.CSTNode, function: cst.FunctionDef) -> None:
        self._defs[(id(scope), function.name.value)] = function

    def apply(self, chain: Chain, target: cst.BaseExpression, transform: Transform) -> None:
        self._applications.append((chain, target, transform))

    def traced_call(self, chain: Chain, call: cst.Call, values: list[Value | None], caller: str) -> None:
        positional: list[Value | None] = []
        keywords: list[tuple[str, Value]] = []
        for arg, value in zip(call.args, values):
            if arg.star:
                break
            if arg.keyword is None:
                positional.append(value)
            elif value is not None:
                keywords.append((arg.keyword.value, value))
        self._calls.append(_TracedCall(chain, call.func, tuple(positional), tuple(keywords), call, caller))

    def _resolve(self, chain: Chain, expr: cst.BaseExpression) -> tuple[cst.CSTNode | None, int]:
        """The function node an expression names, and how many leading parameters are bound (self)."""
        if isinstance(expr, cst.Lambda):
            return expr, 0
        if isinstance(expr, cst.Name):
            for depth, scope in enumerate(reversed(chain)):
                # A class body's names are not visible from the functions inside it.
                if isinstance(scope, cst.ClassDef) and depth > 0:
                    continue
                found = self._defs.get((id(scope), expr.value))
                if found is not None:
                    return found, 0
            return None, 0
        if (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name)
                and expr.value.value in ("self", "cls")):
            for outer, inner in zip(reversed(chain[:-1]), reversed(chain)):
                if isinstance(inner, cst.FunctionDef) and isinstance(outer, cst.ClassDef):
                    found = self._defs.get((id(outer), expr.attr.value))
                    return found, 1 if found is not None else 0
        return None, 0

    def facts(self) -> ScopeFacts:
        facts = ScopeFacts()
        for chain, target, transform in self._applications:
            node, bound = self._resolve(chain, target)
            if node is not None:
                applied = replace(transform, bound=transform.bound + bound)
                facts.applied.setdefault(node, []).append(applied)
        for call in self._calls:
            node, bound = self._resolve(call.chain, call.func)
            if not isinstance(node, cst.FunctionDef):
                continue
            signature = Signature.of(node.params)
            params = dict(zip(signature.positional[bound:], call.positional))
            params.update((k, v) for k, v in call.keywords if k in signature.all)
            for param, value in params.items():
                if value is None or value.kind is not Kind.TRACED or value.tracer is None:
                    continue
                passed = facts.passed.setdefault(node, {})
                if param not in passed:
                    via = Transform(value.tracer.transform.name, call.node, value.tracer.staged)
                    passed[param] = Tracer(node.name.value, param, via, call.caller, value.container)
        return facts
