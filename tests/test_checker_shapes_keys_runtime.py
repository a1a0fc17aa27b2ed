"""The `keys_*` checker-shape fixtures run with real jax: jaxlint cannot claim a key-reuse that jax does not see
(tests/checker_shapes.py says how; the `leaks_*` ones are tests/test_checker_shapes_leaks_runtime.py's)."""

from __future__ import annotations

import pytest

from checker_shapes import SHAPES, misjudged, unmarked


def test_every_program_has_its_marks() -> None:
    """A bug marks its line (one line: the static fixture says where jaxlint must report it); a twin marks none."""
    assert unmarked("keys_") == {}


def test_every_fixture_is_run_by_one_of_the_two_files() -> None:
    assert {path.stem.split("_")[0] for path in SHAPES.glob("*.py")} == {"keys", "leaks"}


@pytest.mark.slow
def test_jax_rejects_every_bug_and_accepts_every_twin() -> None:
    pytest.importorskip("jax")
    assert misjudged("keys_") == {}
