"""JAX's API is known in one place, jaxlint/model/: rules and analyses name JAX functions through its tables.

The check parses every module under jaxlint/checks/ and jaxlint/analysis/ with `ast` and collects each string
constant that starts with "jax." (a qualified JAX name such as "jax.numpy.where", or a namespace prefix such
as "jax.lax."). Such a string is API knowledge, and belongs in a model module, unless it is text:

- a docstring (a string statement), or the value of a rule's documentation class attribute (what_it_does,
  why_bad, example, use_instead, not_flagged, fix_safety, verify, summary);
- a part of an f-string: f-strings are how messages are written (`f"use `jax.random.split`..."`);
- an argument of a `report(...)` call (`self.report(node, "...")`): the message itself.

Anything else -- a comparison, a table, a prefix for `startswith`, a name to spell in a fix -- is flagged.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "jaxlint"
SCANNED = ("checks", "analysis")

DOC_ATTRIBUTES = frozenset({
    "what_it_does", "why_bad", "example", "use_instead", "not_flagged", "fix_safety", "verify", "summary",
})



def _is_jax_name(value: object) -> bool:
    return isinstance(value, str) and value.startswith("jax.")


def _exempt_nodes(tree: ast.AST) -> set[int]:
    """ids of the nodes under which a "jax." string is text, not API knowledge."""
    exempt: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            exempt.add(id(node))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            exempt.add(id(node))  # a docstring
        elif isinstance(node, ast.ClassDef):
            for statement in node.body:
                targets = (statement.targets if isinstance(statement, ast.Assign) else
                           [statement.target] if isinstance(statement, ast.AnnAssign) else [])
                if any(isinstance(t, ast.Name) and t.id in DOC_ATTRIBUTES for t in targets):
                    exempt.add(id(statement))
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if name == "report":
                exempt.add(id(node))
    return exempt


def offenders(path: Path) -> list[tuple[int, str]]:
    """(line, literal) of each "jax." string constant in `path` that is not text."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    exempt = _exempt_nodes(tree)
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST) -> None:
        if id(node) in exempt:
            return
        if isinstance(node, ast.Constant) and _is_jax_name(node.value):
            found.append((node.lineno, node.value))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _scan() -> dict[tuple[str, str], list[int]]:
    seen: dict[tuple[str, str], list[int]] = {}
    for folder in SCANNED:
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            relative = path.relative_to(PACKAGE.parent).as_posix()
            for line, literal in offenders(path):
                seen.setdefault((relative, literal), []).append(line)
    return seen


def test_no_jax_names_outside_the_model():
    seen = _scan()
    unexpected = sorted(f"{path}:{lines[0]}: {literal!r}" for (path, literal), lines in seen.items())
    assert not unexpected, "JAX names outside jaxlint/model/ (move them to a model table):\n" + "\n".join(unexpected)


def test_the_rule_flags_what_it_should(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""A docstring naming jax.numpy.where."""\n'
        "class R:\n"
        '    summary = "jax.jit is fine here"\n'
        "    def visit(self, node, name):\n"
        '        self.report(node, "jax.vmap in a message")\n'
        '        message = f"use jax.random.split on {name}"\n'
        '        return name == "jax.lax.scan" or name.startswith("jax.")\n',
        encoding="utf-8",
    )
    assert [literal for _, literal in offenders(sample)] == ["jax.lax.scan", "jax."]
