"""JAX601 across modules: `jax.grad` of a loss function that another module of the project defines.

fixtures/project_grad/ is a package whose loss functions live in losses.py and are differentiated in
train.py; its files hold their expected findings inline.
"""

from __future__ import annotations

from pathlib import Path

from test_project import found
from test_fixtures import expected_messages

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "fixtures" / "project_grad"


def expected() -> list[tuple[str, int, int, str, str | None]]:
    return sorted((str(path.relative_to(ROOT)), line, col, code, text) for path in PROJECT.rglob("*.py")
                  for line, col, code, text in expected_messages(path.read_text("utf-8")))


def test_grad_of_a_loss_from_another_module_that_returns_a_container() -> None:
    findings = found(ROOT, "fixtures/project_grad")
    actual = sorted((f["filename"], f["location"]["row"], f["location"]["column"], f["code"]) for f in findings)
    assert actual == [(name, line, col, code) for name, line, col, code, _ in expected()]
    messages = {(f["filename"], f["location"]["row"], f["code"]): f["message"] for f in findings}
    for name, line, _, code, text in expected():
        assert text is None or text in messages[(name, line, code)], (name, line, code, text)


def test_each_module_alone_gets_its_findings_from_the_other() -> None:
    train = "fixtures/project_grad/trainer/train.py"
    rows = sorted(f["location"]["row"] for f in found(ROOT, train) if f["code"] == "JAX601")
    assert rows == [12, 16, 17]
    losses = "fixtures/project_grad/trainer/losses.py"
    assert [(f["location"]["row"], f["code"]) for f in found(ROOT, losses)] == [(35, "JAX605")]
