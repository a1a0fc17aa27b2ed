"""Item assignment on a pytree whose structure no call shows, in a project that defines a pytree class with
`__setitem__` (jorbit's DoubleDouble, first look round 71): `b[idx, :] = v` may be that method, in any module.

fixtures/project_setters/orbits/ defines the class in one module and assigns items of a scan carry in another;
fixtures/project/junctions/config.py defines a `__setitem__` on a class that is no pytree, and the project's
JAX101 findings on carries stay (test_project.py).
"""

from __future__ import annotations

from pathlib import Path

from test_project import found

ROOT = Path(__file__).resolve().parents[1]
INTEGRATE = "fixtures/project_setters/orbits/integrate.py"


def test_a_pytree_class_with_setitem_in_another_module_silences_item_assignment_on_a_carry() -> None:
    assert found(ROOT, "fixtures/project_setters") == []


def test_the_module_alone_reads_the_class_from_the_module_that_defines_it() -> None:
    assert found(ROOT, INTEGRATE) == []


def test_without_the_class_the_same_assignment_is_flagged(tmp_path: Path) -> None:
    package = tmp_path / "orbits"
    package.mkdir()
    (package / "__init__.py").write_text("", "utf-8")
    text = (ROOT / INTEGRATE).read_text("utf-8").replace("from orbits.doubledouble import DoubleDouble\n", "")
    (package / "integrate.py").write_text(text, "utf-8")
    findings = found(tmp_path, "orbits")
    assert [(f["filename"], f["location"]["row"], f["code"]) for f in findings] == [
        ("orbits/integrate.py", 12, "JAX101")
    ]
