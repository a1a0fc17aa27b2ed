"""The `leaks_*` checker-shape fixtures run with real jax: jaxlint cannot claim a leak that jax does not see
(tests/checker_shapes.py says how; the `keys_*` ones are tests/test_checker_shapes_keys_runtime.py's)."""

from __future__ import annotations

import pytest

from checker_shapes import misjudged, unmarked


def test_every_program_has_its_marks() -> None:
    """A bug marks its line (one line: the static fixture says where jaxlint must report it); a twin marks none."""
    assert unmarked("leaks_") == {}


@pytest.mark.slow
def test_jax_rejects_every_bug_and_accepts_every_twin() -> None:
    pytest.importorskip("jax")
    assert misjudged("leaks_") == {}
