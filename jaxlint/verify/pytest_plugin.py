"""The pytest plugin `--verify=run` loads with `-p jaxlint.verify.pytest_plugin` for a `pytest ...` run
command: the project's tests run under the same checkers and observers as the verify worker, and each
exception a test or its collection raises is an event. Not registered as an entry point: it is active
only when jaxlint starts pytest (the job comes from $JAXLINT_VERIFY_JOB)."""

from __future__ import annotations

import json
import os

from jaxlint.verify.events import EventLog

_events: EventLog | None = None
_project = None
_custom_prng = True


def pytest_configure(config) -> None:
    global _events, _project, _custom_prng
    path = os.environ.get("JAXLINT_VERIFY_JOB")
    if not path:
        return
    from jaxlint.verify.observe import Observer, Project  # jax only when jaxlint started this pytest

    with open(path, encoding="utf-8") as handle:
        job = json.load(handle)
    _events, _project = EventLog(job["events"]), Project([job["project_root"]])
    _custom_prng = job.get("custom_prng", True)
    Observer(_project, _events).install(custom_prng=_custom_prng, shape_changes=False)  # tests pick their shapes


def pytest_exception_interact(node, call, report) -> None:
    if _events is None or _project is None or call.excinfo is None:  # (both set by the same call)
        return
    from jaxlint.verify.observe import describe

    _events.emit(
        "error", phase="test", test=node.nodeid, custom_prng=_custom_prng, **describe(call.excinfo.value, _project)
    )


def pytest_unconfigure(config) -> None:
    if _events is not None:
        _events.emit("done")
