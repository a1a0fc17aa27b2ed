"""Which modules of a project the findings of some of its modules depend on, found without analysing them.

Modules tell each other facts only through calls (jaxlint/project.py): a traced caller passes tracers
to a callee in another module, and a caller learns what a callee returns. So a run on a few files of a
project (`jaxlint train.py`, pre-commit, the flake8 plugin in an editor) analyses only the modules
connected to them by calls: the modules that call them, transitively (their traced calls make the named
modules' helpers traced); every module that these and the named ones call, transitively (what a callee
returns decides which values are traced); and the modules whose imports re-export a callee on the way
(`pkg/__init__.py` for `from pkg import report`). The others cannot change the answer, and are not read
by the analysis. Python's own parser (in C) finds the calls, at a small part of the analysis's cost.
"""

from __future__ import annotations

import ast
from pathlib import Path

from jaxlint.analysis.interface import absolute_module

MAX_REEXPORTS = 8  # as project.imported_facts follows re-exports


class _Scan:
    """One module's calls of project names (qualified) and its module-level imports (its re-exports)."""

    def __init__(self, path: Path, name: str) -> None:
        self.calls: set[str] = set()
        self.reexports: dict[str, set[str]] = {}
        self.read = False  # syntax this Python cannot parse (the analysis may): it may call anything
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError, RecursionError, MemoryError, OSError):
            return
        self.read = True
        package = name if path.stem == "__init__" else name.rpartition(".")[0]
        bound: dict[str, set[str]] = {}  # every import anywhere: a superset of what each scope sees
        called: list[list[str]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                called.append(_dotted(node.func))
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for local, qualified in _imports(node, package):
                    bound.setdefault(local, set()).add(qualified)
        for statement in _module_level(tree.body):
            for local, qualified in _imports(statement, package):
                self.reexports.setdefault(local, set()).add(qualified)
        for parts in called:
            if parts:
                self.calls.update(".".join([target, *parts[1:]]) for target in bound.get(parts[0], ()))


def _imports(node: ast.AST, package: str) -> list[tuple[str, str]]:
    """The names an import statement binds, with what they are bound to (as analysis/names.py reads them)."""
    if isinstance(node, ast.Import):
        return [(alias.asname, alias.name) if alias.asname else (alias.name.split(".")[0],) * 2
                for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        module = absolute_module(node.level, node.module, package)
        if module is not None:
            return [(alias.asname or alias.name, f"{module}.{alias.name}") for alias in node.names
                    if alias.name != "*"]
    return []


def _module_level(body: list[ast.stmt]):
    """The statements of the module's own scope, inside `if`, `try`, `with`, `match` and loops too."""
    for statement in body:
        yield statement
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for child in ast.iter_child_nodes(statement):
            if isinstance(child, ast.stmt):
                yield from _module_level([child])
            elif isinstance(child, (ast.ExceptHandler, ast.match_case)):
                yield from _module_level(child.body)


def _dotted(expr: ast.expr) -> list[str]:
    """`a.b.c` as its parts, [] when the expression is not a plain dotted name."""
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return []
    parts.append(expr.id)
    return parts[::-1]


def connected(named: set[str], modules: dict[str, Path]) -> set[str]:
    """The modules of a project (by dotted name, with their files) whose analysis can change the
    findings of the `named` ones: these, their callers' closure and all that those call (see above)."""
    scans = {name: _Scan(path, name) for name, path in modules.items()}
    callees: dict[str, set[str]] = {name: set() for name in modules}

    def resolve(qualified: str, caller: str, depth: int = 0) -> None:
        """The modules a call of `qualified` may reach: the one it names, and where that re-exports it from."""
        module, _, name = qualified.rpartition(".")
        if module not in modules:
            return
        callees[caller].add(module)
        if name in scans[module].reexports and depth < MAX_REEXPORTS:
            for target in scans[module].reexports[name]:
                resolve(target, caller, depth + 1)

    for name, scan in scans.items():
        for qualified in scan.calls:
            resolve(qualified, name)
        if not scan.read:
            callees[name] = set(modules)
    callers: dict[str, set[str]] = {name: set() for name in modules}
    for name, found in callees.items():
        for callee in found - {name}:
            callers[callee].add(name)
    return _closure(_closure(named & modules.keys(), callers), callees)


def _closure(start: set[str], edges: dict[str, set[str]]) -> set[str]:
    found, todo = set(start), list(start)
    while todo:
        for other in edges[todo.pop()]:
            if other not in found:
                found.add(other)
                todo.append(other)
    return found
