"""What JAX101 and JAX102 share: whether a fix must rebind a name, and what that needs."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.bindings import declared_outer, parameter_names, rebound_names
from jaxlint.checks.base import Rule
from jaxlint.checks.shapes._common import sequence_index  # noqa: F401 (JAX101 leaves a list index to JAX405)


def rebinds_here(rule: Rule, name: str) -> bool:
    """Whether `name = ...` at this point rebinds the variable a read of `name` here sees: at module
    level, or in a function that binds `name` itself (a parameter, an assignment, a `global` or
    `nonlocal` declaration). Elsewhere the assignment would make a global or closure variable local to
    the function (`UnboundLocalError` on every read before it), or bind a class attribute."""
    scope = rule.facts.chain[-1]
    return isinstance(scope, cst.Module) or isinstance(scope, cst.FunctionDef) and _binds(scope, name)


def declaration_needed(rule: Rule, name: str) -> str:
    """For a message: `(after `global x`)` when assigning `name` in this function needs that declaration."""
    chain = rule.facts.chain
    if rebinds_here(rule, name) or not isinstance(chain[-1], cst.FunctionDef):
        return ""
    outer = next((f for f in reversed(chain[:-1]) if isinstance(f, cst.FunctionDef) and _binds(f, name)), None)
    return f" (after `{'global' if outer is None else 'nonlocal'} {name}`)"


def _binds(function: cst.FunctionDef, name: str) -> bool:
    body = function.body
    return name in parameter_names(function.params) or name in rebound_names(body) or name in declared_outer(body)
