"""A literal PRNG seed inside a jitted function is deliberate in tests: JAX203 stays quiet there."""

from __future__ import annotations

import pytest

from jaxlint.analysis.context import is_test_file
from jaxlint.lint import lint_source

SOURCE = """\
import jax


@jax.jit
def step(x):
    key = jax.random.key(0)
    return x + jax.random.normal(key, x.shape)
"""


@pytest.mark.parametrize("name", ["tests/model.py", "pkg/test_model.py", "model_test.py", "conftest.py"])
def test_literal_seed_is_not_flagged_in_test_files(name: str) -> None:
    assert is_test_file(name)
    assert lint_source(SOURCE, name, frozenset({"JAX203"})) == []


@pytest.mark.parametrize("name", ["train.py", "pkg/testing_utils.py", "contest.py"])
def test_literal_seed_is_flagged_elsewhere(name: str) -> None:
    assert not is_test_file(name)
    assert [(d.row, d.col, d.code) for d in lint_source(SOURCE, name, frozenset({"JAX203"}))] == [
        (6, 11, "JAX203")
    ]
