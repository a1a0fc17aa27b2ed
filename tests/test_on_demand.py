"""The value analysis is built only for the rules that ask it something (issue 11: a run with only the
JAX8xx rules selected does not build the traced-value domain). Counted by a subclass of the real
tracker that records each one built; the findings are the real ones."""

from __future__ import annotations

import pytest

import jaxlint.lint
from jaxlint.analysis.tracker import ValueTracker
from jaxlint.lint import LintOptions, lint_source

UPGRADE = frozenset({"JAX801", "JAX802"})
SOURCE = (
    "import jax\n"
    "import jax.numpy as jnp\n\n\n"
    "@jax.jit\n"
    "def step(tree, x):\n"
    "    print(x)\n"
    "    return jax.tree_map(lambda leaf: leaf * 2, tree)\n"
)


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[ValueTracker]:
    trackers: list[ValueTracker] = []

    class Counted(ValueTracker):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            trackers.append(self)

    monkeypatch.setattr(jaxlint.lint, "ValueTracker", Counted)
    return trackers


def test_only_the_upgrade_rules_check_a_file_without_the_value_analysis(built: list[ValueTracker]) -> None:
    [found] = lint_source(SOURCE, "step.py", LintOptions(UPGRADE))
    assert (found.row, found.col, found.code) == (8, 12, "JAX801")
    assert built == []


def test_the_default_rules_build_it(built: list[ValueTracker]) -> None:
    found = lint_source(SOURCE, "step.py", LintOptions(frozenset({"JAX306", *UPGRADE})))
    assert [(d.row, d.code) for d in found] == [(7, "JAX306"), (8, "JAX801")]
    assert built != []


def test_a_removed_array_attribute_asks_whether_its_object_is_an_array(built: list[ValueTracker]) -> None:
    source = "import jax.numpy as jnp\n\nx = jnp.zeros(3)\nbuffer = x.device_buffer\nparts = 'a b'.split()\n"
    [found] = lint_source(source, "old.py", LintOptions(UPGRADE))
    assert (found.row, found.code) == (4, "JAX801")
    assert "`x.device_buffer` was removed in jax" in found.message
    assert built != []


DONATING = (
    "from functools import partial\n\n"
    "import jax\n\n\n"
    "@partial(jax.jit, donate_argnums=0)\n"
    "def update(params, grads):\n"
    "    return params - grads\n\n\n"
    "def train(params, grads):\n"
    "    new = update(params, grads)\n"
    "    print(params)\n"
    "    return new\n"
)


def test_donated_buffers_are_followed_only_for_a_rule_that_asks(built: list[ValueTracker]) -> None:
    [found] = lint_source(DONATING, "train.py", LintOptions(frozenset({"JAX504", "JAX101"})))
    assert (found.row, found.col, found.code) == (13, 11, "JAX504")
    assert built and all(tracker.donations in tracker.flow.domains for tracker in built)
    built.clear()
    assert lint_source(DONATING, "train.py", LintOptions(frozenset({"JAX101"}))) == []
    assert built and all(
        tracker.donations is None
        and tracker.flow.domains == (tracker, tracker.keys, tracker.nones, tracker.recorder.reaching)
        for tracker in built
    )


def test_a_rule_that_asks_about_donations_without_saying_so_is_told_what_to_set(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from jaxlint.checks.compilation.jax504_donated_buffer_reuse import DonatedBufferReuse

    monkeypatch.setattr(DonatedBufferReuse, "needs_donations", False)
    with pytest.raises(RuntimeError, match="needs_donations = True"):
        lint_source(DONATING, "train.py", LintOptions(frozenset({"JAX504"})))
