"""Fixtures shared by the tests; plain helpers and sample sources are in helpers.py."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from helpers import Outcome
from jaxlint.cli import main


@pytest.fixture
def bug_in(monkeypatch: pytest.MonkeyPatch) -> callable:
    """`bug_in("boom.py")`: checking files with that name raises, as a bug in jaxlint would.

    The message names the process that raised; pool workers forked after the call inherit the bug.
    With `kills=True` a worker checking it dies instead (the test's own process still only raises).
    """
    import jaxlint.lint

    real = jaxlint.lint.lint_module
    test_process = os.getpid()

    def arm(name: str, kills: bool = False) -> None:
        def lint_module(source: str, filename: str, *rest, **named):
            if filename.endswith(name):
                if kills and os.getpid() != test_process:
                    os._exit(70)
                raise RuntimeError(f"simulated bug in process {os.getpid()}")
            return real(source, filename, *rest, **named)

        monkeypatch.setattr(jaxlint.lint, "lint_module", lint_module)

    return arm


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> callable:
    """`jaxlint.cli.main` in-process, in tmp_path (or wherever the test chdirs; `cwd=` to run elsewhere).

    Returns the exit code, what it wrote to `out` plus stdout, and stderr.
    """
    monkeypatch.chdir(tmp_path)

    def call(*args: str, cwd: Path | None = None) -> Outcome:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        out = io.StringIO()
        capsys.readouterr()
        code = main(list(args), out=out)
        captured = capsys.readouterr()
        return Outcome(code, out.getvalue() + captured.out, captured.err)

    return call
