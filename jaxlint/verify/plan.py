"""Which files to import and which functions to trace, from the static findings (no jax here).

Each file is imported under its package name (found by walking up `__init__.py`), never as `__main__`.
A finding belongs to the top-level function (or method) around it: that function is traced unless a
transformed function of the module already traces through it.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field

from jaxlint.diagnostics import Diagnostic
from jaxlint.verify.errors import CONFIRMABLE


@dataclass
class FilePlan:
    path: str
    module: str
    root: str  # the folder that goes on sys.path
    findings: list[Diagnostic] = field(default_factory=list)
    owners: dict[int, str] = field(default_factory=dict)  # finding row -> enclosing top-level function
    defs: dict[str, tuple[int, int]] = field(default_factory=dict)  # function -> (row, col) of its `def`


def module_name(path: str) -> tuple[str, str]:
    """(dotted module name, folder to put on sys.path) for a source file."""
    folder, name = os.path.split(os.path.abspath(path))
    parts = [os.path.splitext(name)[0]]
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        folder, package = os.path.split(folder)
        parts.insert(0, package)
    return ".".join(parts), folder


def functions(source: str) -> list[tuple[int, int, str, ast.AST]]:
    """(first line with decorators, last line, qualified name, node) of each top-level function and method."""
    spans = []
    for node in ast.parse(source).body:
        members = [(node, "")] if not isinstance(node, ast.ClassDef) else [
            (member, node.name + ".") for member in node.body]
        for member, prefix in members:
            if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([member.lineno, *(d.lineno for d in member.decorator_list)])
                spans.append((first, member.end_lineno or member.lineno, prefix + member.name, member))
    return spans


def plan_file(path: str, source: str, findings: list[Diagnostic]) -> FilePlan:
    module, root = module_name(path)
    plan = FilePlan(path, module, root, findings)
    spans = functions(source)
    plan.defs = {name: (node.lineno, node.col_offset + 1) for _, _, name, node in spans}
    for finding in findings:
        for first, last, name, _ in spans:
            if first <= finding.row <= last:
                plan.owners[finding.row] = name
    return plan


def wants_tracing(findings: list[Diagnostic]) -> bool:
    return any(d.code in CONFIRMABLE for d in findings)
