"""jaxlint/checks/ holds one rule per file, named by its code and name, inside its family's package."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import jaxlint.checks
from jaxlint.checks import ALL_RULES
from jaxlint.checks.base import Rule

CHECKS = Path(jaxlint.checks.__file__).parent
# A rule's family is named by the hundreds digit of its code.
FAMILIES = {"0": "meta", "1": "mutation", "2": "randomness", "3": "tracers", "4": "shapes", "5": "compilation",
            "6": "transforms", "7": "dtypes", "8": "api"}


def _rule_files() -> list[Path]:
    return sorted(path for path in CHECKS.glob("*/*.py") if not path.name.startswith("_"))


def _rules_defined(path: Path) -> list[str]:
    """The classes in `path` that give a rule code: the rules it defines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.name for node in tree.body if isinstance(node, ast.ClassDef)
            and any(isinstance(item, ast.Assign) and any(getattr(t, "id", None) == "code" for t in item.targets)
                    for item in node.body)]


@pytest.mark.parametrize("path", _rule_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_rule_file_holds_one_rule(path: Path) -> None:
    assert len(_rules_defined(path)) == 1, f"{path.name} defines {_rules_defined(path)}"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_a_rule_file_is_named_by_code_and_name_in_its_family(rule: type[Rule]) -> None:
    path = Path(inspect.getfile(rule))
    expected = CHECKS / FAMILIES[rule.code[3]] / f"{rule.code.lower()}_{rule.name.replace('-', '_')}.py"
    assert path == expected


def test_only_packages_and_base_at_the_top() -> None:
    assert {path.name for path in CHECKS.glob("*.py")} == {"__init__.py", "base.py"}
    assert {path.name for path in CHECKS.iterdir() if path.is_dir() and path.name != "__pycache__"} == set(
        FAMILIES.values())


def _checks_imports(path: Path) -> list[str]:
    """The jaxlint.checks modules `path` imports."""
    return [node.module for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("jaxlint.checks")]


@pytest.mark.parametrize("path", sorted(CHECKS.glob("*/*.py")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_import_of_another_familys_rules(path: Path) -> None:
    """A rule file reaches another family only through its own family's _common.py, which may use
    another family's _common.py; neither imports another family's rule files."""
    family = path.parent.name
    for module in _checks_imports(path):
        parts = module.split(".")
        if module == "jaxlint.checks.base" or len(parts) < 3 or parts[2] == family:
            continue
        assert path.name == "_common.py" and parts[3:] == ["_common"], f"{path.name} imports {module}"
