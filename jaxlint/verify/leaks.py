"""Where a leaked tracer was stored: what holds it (found by walking the garbage collector's referrers up
to a module global) and the line of the user's code that wrote into that holder (found in the module's
source). No jax here: the observer passes the tracers in.

A leak surfaces where jax checks for it (the end of a trace, `remat(g)()`, `return outer(x)(3.)`) or
where a leaked tracer is used later; the bug is the store, so that is where the finding goes.
"""

from __future__ import annotations

import ast
import functools
import gc
import sys
import types
from dataclasses import dataclass
from typing import Any

MUTATORS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "add",
        "update",
        "appendleft",
        "extendleft",
        "setdefault",
        "__setitem__",
        "put",
        "push",
    }
)
MAX_DEPTH = 8
MAX_VISITED = 200


@dataclass
class Holder:
    """`module.NAME` followed by `path` (`[0]`, `.last`, `['k']`) holds the tracer."""

    module: types.ModuleType
    name: str
    path: list[str]

    @property
    def attribute(self) -> str:
        """The first attribute on the way from the global to the tracer ("" when none)."""
        return next((p[1:] for p in self.path if p.startswith(".")), "")

    def text(self) -> str:
        return self.name + "".join(self.path)


def _modules_by_dict() -> dict[int, types.ModuleType]:
    return {
        id(vars(m)): m for m in list(sys.modules.values()) if isinstance(m, types.ModuleType) and hasattr(m, "__dict__")
    }


def holder(obj: Any, ignore: set[int]) -> Holder | None:
    """The module global through which `obj` is reachable: the shortest chain of referrers (lists,
    tuples, dicts, attributes) up to a module's namespace, breadth first; frames and the lists jax
    and jaxlint hold it in while checking lead nowhere and are passed over."""
    modules = _modules_by_dict()
    queue: list[tuple[Any, list[str]]] = [(obj, [])]
    seen = set(ignore) | {id(queue)}
    visited = 0
    while queue and visited < MAX_VISITED:
        child, path = queue.pop(0)
        visited += 1
        parents = [r for r in gc.get_referrers(child) if id(r) not in seen and not isinstance(r, types.FrameType)]
        seen.add(id(parents))
        for parent in parents:
            if isinstance(parent, dict) and id(parent) in modules:
                name = next((k for k, v in parent.items() if v is child and isinstance(k, str)), None)
                if name is not None and not name.startswith("__"):
                    return Holder(modules[id(parent)], name, path)
        if len(path) >= MAX_DEPTH:
            continue
        for parent in parents:
            step = _step(parent, child, seen)
            if step is not None and id(step[1]) not in seen:
                seen.add(id(step[1]))
                queue.append((step[1], [step[0], *path]))
    return None


def _step(parent: Any, child: Any, ignore: set[int]) -> tuple[str, Any] | None:
    """How `parent` holds `child`, and the object to walk up from next."""
    if isinstance(parent, dict):
        key = next((k for k, v in parent.items() if v is child), None)
        if key is None:
            return None
        owners = [
            r
            for r in gc.get_referrers(parent)
            if id(r) not in ignore
            and (
                getattr(r, "__dict__", None) is parent  # an instance's attributes
                or (isinstance(r, type) and isinstance(key, str) and vars(r).get(key) is child)
            )
        ]  # a class's
        if owners and isinstance(key, str):
            return f".{key}", owners[0]
        return f"[{key!r}]", parent
    if isinstance(parent, (list, tuple)) or type(parent).__name__ == "deque":
        index = next((i for i, v in enumerate(parent) if v is child), None)
        return (f"[{index}]", parent) if index is not None else None
    return None


@functools.lru_cache(maxsize=64)
def _tree(path: str) -> ast.Module | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return None


def _root(node: ast.AST) -> tuple[str, list[str]]:
    """The name an expression chain starts from, and the attributes along it, outermost first."""
    attrs: list[str] = []
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        if isinstance(node, ast.Attribute):
            attrs.insert(0, node.attr)
        node = node.func if isinstance(node, ast.Call) else node.value
    return (node.id if isinstance(node, ast.Name) else ""), attrs


def _writes(function: ast.AST, name: str, attribute: str) -> list[tuple[int, int]]:
    """Lines in `function` (and the functions nested in it) that write into the global `name`."""
    global_names = {n for node in ast.walk(function) if isinstance(node, ast.Global) for n in node.names}
    lines = []
    for node in ast.walk(function):
        if not isinstance(node, (ast.stmt, ast.expr)):
            continue
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in MUTATORS:
                targets = [func.value]
            elif isinstance(func, ast.Name) and func.id == "setattr" and node.args:
                targets = [ast.Attribute(value=node.args[0], attr=_literal(node.args[1:2]) or attribute)]
        for target in targets:
            for part in ast.walk(target) if isinstance(target, (ast.Tuple, ast.List)) else [target]:
                root, attrs = _root(part)
                if root != name:
                    continue
                if isinstance(part, ast.Name) and not isinstance(node, ast.Call) and name not in global_names:
                    continue  # a local of the same name
                if attribute and attrs and attrs[0] != attribute:
                    continue
                lines.append((node.lineno, node.col_offset + 1))
    return lines


def _literal(args: list[ast.expr]) -> str:
    return args[0].value if args and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str) else ""


def store_line(found: Holder, near: int | None = None) -> tuple[str, int, int] | None:
    """(file, line, column) of the write into the holder: in the module that holds it, in a function, the one
    in the function around line `near` (the function jax was tracing) first."""
    path = getattr(found.module, "__file__", None)
    tree = _tree(path) if path else None
    if tree is None or path is None:
        return None
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    lines: list[tuple[bool, int, int]] = []
    for function in functions:
        last = getattr(function, "end_lineno", function.lineno) or function.lineno
        around = near is not None and function.lineno <= near <= last
        lines += [(not around, *at) for at in _writes(function, found.name, found.attribute)]
    return (path, *min(lines)[1:]) if lines else None
