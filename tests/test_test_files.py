"""What is deliberate in tests: a literal PRNG seed inside a jitted function (JAX203), a naive `where` whose
gradient is NaN next to the stable version it is compared with (JAX605)."""

from __future__ import annotations

import pytest

from jaxlint.analysis.context import is_test_file
from jaxlint.lint import LintOptions, lint_source

SOURCE = """\
import jax


@jax.jit
def step(x):
    key = jax.random.key(0)
    return x + jax.random.normal(key, x.shape)


for batch in range(3):
    step(batch)
"""


@pytest.mark.parametrize(
    "name", ["tests/model.py", "pkg/test_model.py", "model_test.py", "conftest.py", "tests/test_demo.ipynb"]
)
def test_literal_seed_is_not_flagged_in_test_files(name: str) -> None:
    assert is_test_file(name)
    assert lint_source(SOURCE, name, LintOptions(frozenset({"JAX203"}))) == []


# (a notebook named `test_*` is a trial run, a training experiment: pytest collects no notebook)
@pytest.mark.parametrize("name", ["train.py", "pkg/testing_utils.py", "contest.py", "LIGO/test_toy_text.ipynb"])
def test_literal_seed_is_flagged_elsewhere(name: str) -> None:
    assert not is_test_file(name)
    assert [(d.row, d.col, d.code) for d in lint_source(SOURCE, name, LintOptions(frozenset({"JAX203"})))] == [
        (6, 11, "JAX203")
    ]


NAIVE_WHERE = """\
import jax
import jax.numpy as jnp


def log1mexp_naive(x):
    return jnp.where(x > -0.6931472, jnp.log(-jnp.expm1(x)), jnp.log1p(-jnp.exp(x)))


grad_naive = jax.grad(log1mexp_naive)(-1e-9)
"""


@pytest.mark.parametrize("name", ["tests/test_util.py", "test/test_distributions_util.py", "util_test.py"])
def test_a_naive_where_is_not_flagged_in_test_files(name: str) -> None:
    assert lint_source(NAIVE_WHERE, name, LintOptions(frozenset({"JAX605"}))) == []


def test_a_naive_where_is_flagged_elsewhere() -> None:
    found = lint_source(NAIVE_WHERE, "distributions/util.py", LintOptions(frozenset({"JAX605"})))
    assert [(d.row, d.col, d.code) for d in found] == [(6, 62, "JAX605")]
    assert found[0].message.startswith("`jnp.log1p(-jnp.exp(x))` in a branch of `jnp.where` guarded by `x > -0.6931472`")
