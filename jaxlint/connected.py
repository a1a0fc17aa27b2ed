"""Which modules of a project the findings of some of its modules depend on, found without analysing them.

Modules tell each other facts only through calls (jaxlint/project.py): a traced caller passes tracers
to a callee in another module, a caller learns what a callee returns, and a transform applied to another
module's function (a function passed to a call: `lax.scan(ops.body, ...)`) traces it there. So a run on
a few files of a project (`jaxlint train.py`, pre-commit, the flake8 plugin in an editor) analyses only
the modules connected to them by calls: the modules that call them (or pass their functions to a call),
transitively (their traced calls make the named modules' helpers traced); every module that these and
the named ones call, transitively (what a callee returns decides which values are traced); and the
modules whose imports re-export a callee on the way (`pkg/__init__.py` for `from pkg import report`);
and the modules that may tell the whole project a fact: that may turn on `jax_enable_x64`, or that may define a
pytree class with `__setitem__` (item assignment on a pytree of unknown structure). The others cannot
change the answer, and are not read by the analysis. Python's own parser (in C) finds the calls, at a
small part of the analysis's cost.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Iterator, TypeGuard, cast

from jaxlint import __version__
from jaxlint.analysis.interface import absolute_module
from jaxlint.cache import Cache, content_hash
from jaxlint.config import DEFAULT_MAX_FILE_SIZE

MAX_REEXPORTS = 8  # as project.imported_facts follows re-exports
# Text that every way of turning on x64 contains (analysis/x64.py): a module with none of it cannot.
X64_MENTIONS = (b"enable_x64", b"ENABLE_X64", b"x64_enabled")
SETITEM_MENTION = b"__setitem__"  # in every module that defines a class with `__setitem__`


def _scan(path: Path, name: str, cache: Cache | None, max_size: int) -> dict:
    """One module's calls of imported names and the imported names it passes to calls (qualified), its
    module-level imports (what it may re-export) and whether this Python could parse it, as JSON, cached
    by content. A file over `max_size` bytes is neither read here nor analysed (max-file-size): it calls
    nothing."""
    try:
        if path.stat().st_size > max_size:
            return {"calls": [], "reexports": {}, "read": True, "x64": False, "setitem": False}
        data = path.read_bytes()
    except OSError:
        return {"calls": [], "reexports": {}, "read": False, "x64": False, "setitem": False}
    key, digest = json.dumps(["calls and arguments", __version__, str(path), name]), content_hash(data)
    found = cache.get_value(key, digest) if cache is not None else None
    if not _well_formed(found):  # missing, or damaged: read again
        found = _calls_and_imports(data, name if path.stem == "__init__" else name.rpartition(".")[0])
        found["x64"] = any(mention in data for mention in X64_MENTIONS)
        found["setitem"] = SETITEM_MENTION in data
        if cache is not None:
            cache.put_value(key, digest, found)
    return found


def _well_formed(scan: dict | None) -> TypeGuard[dict]:
    return (
        isinstance(scan, dict)
        and isinstance(scan.get("read"), bool)
        and isinstance(scan.get("x64"), bool)
        and isinstance(scan.get("setitem"), bool)
        and isinstance(scan.get("calls"), list)
        and all(isinstance(call, str) for call in scan["calls"])
        and isinstance(scan.get("reexports"), dict)
        and all(
            isinstance(targets, list) and all(isinstance(t, str) for t in targets)
            for targets in scan["reexports"].values()
        )
    )


def _calls_and_imports(data: bytes, package: str) -> dict:
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {"calls": [], "reexports": {}, "read": False}  # the analysis may parse it: it may call anything
    bound: dict[str, set[str]] = {}  # every import anywhere: a superset of what each scope sees
    called: list[list[str]] = []
    for node in _calls_classes_imports(tree):
        kind = type(node)
        if kind is ast.Call:
            call = cast(ast.Call, node)
            called.append(_dotted(call.func))
            called.extend(_dotted(arg) for arg in (*call.args, *(keyword.value for keyword in call.keywords)))
        elif kind is ast.ClassDef:  # a subclass tells its base class which methods it overrides
            called.extend(_dotted(base) for base in cast(ast.ClassDef, node).bases)
        else:
            for local, qualified in _imports(node, package):
                bound.setdefault(local, set()).add(qualified)
    reexports: dict[str, list[str]] = {}
    for statement in _module_level(tree.body):
        for local, qualified in _imports(statement, package):
            reexports.setdefault(local, []).append(qualified)
    calls = {".".join([target, *parts[1:]]) for parts in called if parts for target in bound.get(parts[0], ())}
    return {"calls": sorted(calls), "reexports": reexports, "read": True}


_SOUGHT = frozenset({ast.Call, ast.ClassDef, ast.Import, ast.ImportFrom})


def _calls_classes_imports(tree: ast.AST) -> Iterator[ast.AST]:
    """The calls, classes and imports anywhere in the tree, in no particular order. `ast.walk` costs twice this
    walk (a generator of children for every node, tokens and contexts included); this one reads each node's
    fields in place, and never looks inside an import (its aliases hold nothing else)."""
    stack = [tree]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        node = pop()
        kind = type(node)
        if kind in _SOUGHT:
            yield node
            if kind is ast.Import or kind is ast.ImportFrom:
                continue
        for field in node._fields:
            value = getattr(node, field)
            if type(value) is list:
                extend(child for child in value if isinstance(child, ast.AST))
            elif isinstance(value, ast.AST):
                push(value)


def _imports(node: ast.AST, package: str) -> list[tuple[str, str]]:
    """The names an import statement binds, with what they are bound to (as analysis/names.py reads them)."""
    if isinstance(node, ast.Import):
        return [(alias.asname, alias.name) if alias.asname else (alias.name.split(".")[0],) * 2 for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        module = absolute_module(node.level, node.module, package)
        if module is not None:
            return [(alias.asname or alias.name, f"{module}.{alias.name}") for alias in node.names if alias.name != "*"]
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


def connected(
    named: set[str], modules: dict[str, Path], cache: Cache | None = None, max_size: int = DEFAULT_MAX_FILE_SIZE
) -> set[str]:
    """The modules of a project (by dotted name, with their files) whose analysis can change the
    findings of the `named` ones: these, their callers' closure and all that those call (see above).
    Files over `max_size` bytes are skipped by the run, and so here."""
    scans = {name: _scan(path, name, cache, max_size) for name, path in modules.items()}
    callees: dict[str, set[str]] = {name: set() for name in modules}

    def resolve(qualified: str, caller: str, depth: int = 0) -> None:
        """The modules a call of `qualified` may reach: the one it names, and where that re-exports it from."""
        module, _, name = qualified.rpartition(".")
        if module not in modules and module.rpartition(".")[0] in modules:
            module, _, name = module.rpartition(".")  # a method: `pkg.model.Stats.mean`
        if module not in modules:
            return
        callees[caller].add(module)
        if name in scans[module]["reexports"] and depth < MAX_REEXPORTS:
            for target in scans[module]["reexports"][name]:
                resolve(target, caller, depth + 1)

    for name, scan in scans.items():
        for qualified in scan["calls"]:
            resolve(qualified, name)
        if not scan["read"]:
            callees[name] = set(modules)
    callers: dict[str, set[str]] = {name: set() for name in modules}
    for name, found in callees.items():
        for callee in found - {name}:
            callers[callee].add(name)
    shared = {name for name, scan in scans.items() if scan["x64"] or scan["setitem"]}
    return _closure(_closure(named & modules.keys(), callers), callees) | shared


def _closure(start: set[str], edges: dict[str, set[str]]) -> set[str]:
    found, todo = set(start), list(start)
    while todo:
        for other in edges[todo.pop()]:
            if other not in found:
                found.add(other)
                todo.append(other)
    return found
