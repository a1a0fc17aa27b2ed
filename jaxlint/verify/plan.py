"""Which files to import and which functions to trace, from the static findings (no jax here).

Every file that imports jax is imported (an import that raises is evidence too). A file is imported under
its package name (found by walking up `__init__.py`); a file using relative imports in a folder without
`__init__.py` gets its name from the project root (namespace packages). A finding belongs to the
top-level function (or method) around it: that function is traced, with arguments read from the
source when nothing better was recorded (arguments.py: annotations, calls built from literals).
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, field

from jaxlint.diagnostics import Diagnostic
from jaxlint.verify import arguments
from jaxlint.verify.errors import CONFIRMABLE

# Importing any of these imports jax.
JAX_PACKAGES = frozenset({"jax", "jaxlib", "flax", "optax", "equinox", "haiku", "chex", "orbax"})


@dataclass
class FilePlan:
    path: str
    module: str
    sys_path: list[str]  # folders that go on sys.path, first wins
    findings: list[Diagnostic] = field(default_factory=list)
    owners: dict[int, str] = field(default_factory=dict)  # finding row -> enclosing top-level function
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)  # function -> (first, last) line
    defs: dict[str, tuple[int, int]] = field(default_factory=dict)  # function -> (row, col) of its `def`
    probes: list[tuple[int, str]] = field(default_factory=list)  # JAX801 rows and the name as written
    main_block: tuple[int, int] | None = None  # the lines of `if __name__ == "__main__":`, which imports skip
    annotated: dict[str, dict[str, dict]] = field(default_factory=dict)  # function -> parameter -> form
    calls: dict[str, list[dict]] = field(default_factory=dict)  # module-level name -> calls built from literals

    def owner_of(self, row: int) -> str | None:
        return next((name for name, (first, last) in self.spans.items() if first <= row <= last), None)


def module_name(path: str, project_root: str, tree: ast.Module | None = None) -> tuple[str, list[str]]:
    """(dotted module name, folders to put on sys.path) for a source file."""
    folder, name = os.path.split(os.path.abspath(path))
    parts = [os.path.splitext(name)[0]]
    top = folder
    while os.path.isfile(os.path.join(top, "__init__.py")):
        top, package = os.path.split(top)
        parts.insert(0, package)
    relative = tree is not None and any(isinstance(node, ast.ImportFrom) and node.level for node in ast.walk(tree))
    root = os.path.abspath(project_root)
    if relative and top == folder and folder.startswith(root + os.sep):
        parts = [*os.path.relpath(folder, root).split(os.sep), parts[0]]  # namespace packages from the root
        top = root
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()  # a package is imported under its own name, once
    if not all(part.isidentifier() for part in parts):  # `model.fixed.py`: no import statement names it
        parts = ["jaxlint_verify_" + re.sub(r"\W", "_", "_".join(parts))]
    return ".".join(parts), list(dict.fromkeys([top, folder, root]))


def imports_jax(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        names = (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else ([node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else [])
        )
        if any(n.split(".")[0] in JAX_PACKAGES for n in names):
            return True
    return False


def functions(tree: ast.Module) -> list[tuple[int, int, str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(first line with decorators, last line, qualified name, node) of each top-level function and method."""
    spans = []
    for node in tree.body:
        members = (
            [(node, "")] if not isinstance(node, ast.ClassDef) else [(member, node.name + ".") for member in node.body]
        )
        for member, prefix in members:
            if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([member.lineno, *(d.lineno for d in member.decorator_list)])
                spans.append((first, member.end_lineno or member.lineno, prefix + member.name, member))
    return spans


def main_block(tree: ast.Module) -> tuple[int, int] | None:
    for node in tree.body:
        test = node.test if isinstance(node, ast.If) else None
        if (
            isinstance(test, ast.Compare)
            and isinstance(test.left, ast.Name)
            and test.left.id == "__name__"
            and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
        ):
            return node.lineno, node.end_lineno or node.lineno
    return None


def plan_file(
    path: str, source: str, findings: list[Diagnostic], project_root: str, traced: bool = False
) -> FilePlan | None:
    """The plan for a file that imports jax (None for any other file). Arguments are read from the
    source for a file whose functions are traced (`traced`, or a finding tracing can confirm)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None  # valid for libcst (a newer Python), not for this interpreter: it cannot be imported here
    if not imports_jax(tree):
        return None
    module, sys_path = module_name(path, project_root, tree)
    plan = FilePlan(path, module, sys_path, findings)
    spans = functions(tree)
    plan.spans = {name: (first, last) for first, last, name, _ in spans}
    plan.defs = {name: (node.lineno, node.col_offset + 1) for _, _, name, node in spans}
    plan.main_block = main_block(tree)
    if traced or wants_tracing(findings):
        plan.annotated = {
            name: found for _, _, name, node in spans if "." not in name and (found := arguments.annotations(node))
        }
        plan.calls = arguments.call_sites(tree, arguments.module_names(tree))
    lines = source.splitlines()
    for finding in findings:
        owner = plan.owner_of(finding.row)
        if owner:
            plan.owners[finding.row] = owner
        if finding.code == "JAX801" and finding.row == finding.end_row and finding.row <= len(lines):
            line = lines[finding.row - 1]
            after = line[finding.end_col - 1 :].lstrip()
            if not (after.startswith("=") and not after.startswith("==")):  # (a removed keyword is no name to look up)
                plan.probes.append((finding.row, line[finding.col - 1 : finding.end_col - 1]))
    return plan


def wants_tracing(findings: list[Diagnostic]) -> bool:
    return any(d.code in CONFIRMABLE for d in findings)
