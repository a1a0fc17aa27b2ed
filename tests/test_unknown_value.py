"""The rule context never answers None for a value: what the analysis does not know is the explicit
`UNKNOWN`, of which every question a rule asks (`staged`, `is_array`, `kind is Kind.TRACED`...) answers
no, so a rule cannot crash on a forgotten None check. Probed by a real rule run in the real analysis
(it is put in place of the rule list, as test_on_demand counts trackers): it reports, for each
argument of `probe(...)`, what `value_of`, `staged_value` and `traced_in` give there."""

from __future__ import annotations

import libcst as cst
import pytest

import jaxlint.lint
from jaxlint.analysis.values import UNKNOWN, Kind, Value
from jaxlint.checks.base import Rule
from jaxlint.lint import LintOptions, lint_source


class Probe(Rule):
    code = "PROBE"

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "probe":
            expr = node.args[0].value
            answers = (self.facts.value_of(expr), self.facts.staged_value(expr),
                       self.facts.traced_in(expr, staged=True))
            # `.kind` of None would raise here, and the test would fail on it.
            self.report(expr, " ".join(answer.kind.value for answer in answers))


@pytest.fixture
def probed(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(jaxlint.lint, "ALL_RULES", [Probe])

    def run(source: str) -> list[tuple[int, int, str]]:
        return [(d.row, d.col, d.message) for d in lint_source(source, "probe.py", LintOptions(frozenset({"PROBE"})))]
    return run


SOURCE = """\
import jax
import jax.numpy as jnp
from elsewhere import helper


@jax.jit
def step(x, config):
    probe(undefined_name)
    probe(helper(x))
    probe(config.learning_rate)
    probe(x[0].device)
    probe(x)
    probe(x.shape)
    probe(f"loss {x}")


probe(jnp.zeros(3))
probe(helper(1))
probe(jnp.zeros(3).unknown_attribute)
"""


def test_unknown_names_calls_and_attributes_give_the_unknown_value(probed) -> None:
    assert probed(SOURCE) == [
        (8, 11, "unknown unknown unknown"),  # a name bound nowhere
        (9, 11, "unknown unknown unknown"),  # a call of a function of another package
        (10, 11, "unknown unknown unknown"),  # an attribute the analysis knows nothing of
        (11, 11, "unknown unknown unknown"),
        (12, 11, "traced traced traced"),  # known values are answered as before
        (13, 11, "static unknown unknown"),  # known, but not a staged tracer: those queries find none
        (14, 11, "static unknown traced"),  # a string (static) showing a tracer
        (17, 7, "array unknown unknown"),
        (18, 7, "unknown unknown unknown"),
        (19, 7, "unknown unknown unknown"),
    ]


def test_every_question_about_the_unknown_value_answers_no() -> None:
    assert isinstance(UNKNOWN, Value) and UNKNOWN.kind is Kind.UNKNOWN
    assert not UNKNOWN.is_known
    assert not (UNKNOWN.is_array or UNKNOWN.is_tracer or UNKNOWN.staged or UNKNOWN.differentiated
                or UNKNOWN.abstract or UNKNOWN.container or UNKNOWN.boolean or UNKNOWN.numpy)
    assert UNKNOWN.tracer is None
    assert all(Value(kind).is_known for kind in Kind if kind is not Kind.UNKNOWN)
