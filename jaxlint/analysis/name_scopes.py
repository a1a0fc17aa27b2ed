"""Import scopes alone, for a walk whose rules ask nothing of the value analysis."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.bindings import parameter_names, rebound_names
from jaxlint.analysis.module_aliases import module_aliases
from jaxlint.analysis.names import Names


class NameScopes:
    """The scopes of a walk, for rules that resolve names and ask nothing else (the value tracker does
    the same as part of its work): a traversal participant whose `names` rules read."""

    keys = None  # no key flow either: the rule context's keys view is never asked

    def __init__(self, module: cst.Module, package: str | None = None) -> None:
        self.names = Names(module, package, module_aliases(module, package))

    def visit_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        self.names.enter_function(node.body.body, parameter_names(node.params), rebound_names(node.body.body))

    def leave_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        self.names.leave_function()

    def visit_Lambda_body(self, node: cst.Lambda) -> None:
        self.names.enter_function((), parameter_names(node.params))

    def leave_Lambda_body(self, node: cst.Lambda) -> None:
        self.names.leave_function()
