"""jaxlint's modules import only from their own layer and the layers below.

From the bottom up (a module's layer is its package's, else its own in TOP_LEVEL):

    0 base      jaxlint/__init__.py, diagnostics, traversal, syntax, files, cells, suggest, rule_index:
                plain data types, constants and reading text, that every layer uses
    1 model     model/: what jaxlint knows about JAX, as tables
    2 analysis  analysis/: what the code does (names, values, traced scopes, the cross-module interface)
    3 checks    checks/: the rules
    4 lint      lint (the engine), edits, export, fix, noqa: one file's findings and fixes
    5 runner    runner, results, project, connected, cache, config, verify_config, selection, discovery,
                notebooks, notebook_outputs: many files, their settings and the project they make up
    6 front     cli, __main__, catalog, flake8_plugin, report/, server/, verify/: what users run
"""

from __future__ import annotations

import ast
from pathlib import Path

import jaxlint

PACKAGE = Path(jaxlint.__file__).parent

LAYERS = ("base", "model", "analysis", "checks", "lint", "runner", "front")
PACKAGES = {"model": "model", "analysis": "analysis", "checks": "checks", "report": "front", "server": "front",
            "verify": "front"}
TOP_LEVEL = {
    "__init__": "base", "diagnostics": "base", "traversal": "base", "syntax": "base", "files": "base",
    "cells": "base", "suggest": "base", "rule_index": "base",
    "lint": "lint", "edits": "lint", "export": "lint", "fix": "lint", "noqa": "lint",
    "runner": "runner", "results": "runner", "project": "runner", "connected": "runner", "cache": "runner",
    "config": "runner", "verify_config": "runner", "selection": "runner", "discovery": "runner",
    "notebooks": "runner", "notebook_outputs": "runner", "gitignore": "runner",
    "cli": "front", "__main__": "front", "catalog": "front", "flake8_plugin": "front",
}


def layer(module: str) -> int:
    """The layer of a module named `jaxlint.a.b` (or `jaxlint`)."""
    parts = module.split(".")[1:] or ["__init__"]
    name = PACKAGES.get(parts[0]) if len(parts) > 1 or parts[0] in PACKAGES else TOP_LEVEL[parts[0]]
    return LAYERS.index(name)


def imports(path: Path, module: str) -> list[str]:
    """The jaxlint modules a module imports, anywhere in it (a lazy import counts too)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[:len(package.split(".")) - node.level + 1], *([base] if base else [])])
            found.append(base)
    return [name for name in found if name == "jaxlint" or name.startswith("jaxlint.")]


def modules() -> list[tuple[Path, str]]:
    return [(path, ".".join(("jaxlint", *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")
             or "jaxlint") for path in sorted(PACKAGE.rglob("*.py"))]


def test_every_top_level_module_has_a_layer() -> None:
    top = {path.stem for path in PACKAGE.glob("*.py")}
    assert top == set(TOP_LEVEL)


def test_no_module_imports_from_a_higher_layer() -> None:
    upward = [f"{module} ({LAYERS[layer(module)]}) imports {imported} ({LAYERS[layer(imported)]})"
              for path, module in modules() for imported in imports(path, module) if layer(imported) > layer(module)]
    assert upward == []
