"""The user-report fixtures run with real jax: none can claim a bug that jax does not show, or a fix that fails.

fixtures/user_reports/ holds real users' bugs (issue threads, fix commits, Q&A; each file names its source),
each as the user wrote it, with its corrected version: the module-level code above `def bug()` is the report,
`bug()` runs it, and the code after it, with `fixed()`, is the correction. `EXPECT` says what jax does with the
bug: the name of the error it raises, or `misbehaves` (`bug()` returns True: the silent wrong result; `fixed()`
returns False), `prints tracer` (a `print` shows a tracer), `recompiles` (a second run compiles again), `leaks`
(under `jax.checking_leaks()`, jax reports a leaked tracer). One subprocess (JAX_PLATFORMS=cpu,
`jax_debug_key_reuse` on) runs every `bug()` and `fixed()`; each fix must run without an error and without the
misbehaviour.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from helpers import run_with_jax

REPORTS = Path(__file__).resolve().parents[1] / "fixtures" / "user_reports"
_MARK = re.compile(r"#\s*expect(?:-miss)?:")
SILENT = ("misbehaves", "prints tracer", "recompiles")
_TRACER = re.compile(r"Traced<|Tracer\(")

SCRIPT = r'''
import contextlib, importlib, io, json, sys
import jax

sys.path.insert(0, sys.argv[1])
jax.config.update("jax_debug_key_reuse", True)
compiles = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kwargs: compiles.append(event) if event.endswith("backend_compile_duration") else None)


def run(function, expect):
    buffer = io.StringIO()
    outcome = {"error": None, "message": "", "result": None}
    leaks = jax.checking_leaks() if expect == "leaks" else contextlib.nullcontext()
    with contextlib.redirect_stdout(buffer), leaks:
        try:
            value = function()
            jax.block_until_ready(value)
            jax.effects_barrier()
            outcome["result"] = value is True
        except Exception as error:
            outcome["error"] = [cls.__name__ for cls in type(error).__mro__]
            outcome["message"] = str(error)[:300]
    outcome["stdout"] = buffer.getvalue()
    return outcome


results = {}
for name, expect in json.loads(sys.argv[2]).items():
    module = importlib.import_module(name)
    results[name] = {}
    for side in ("bug", "fixed"):
        outcome = run(getattr(module, side), expect)
        if expect == "recompiles":
            before = len(compiles)
            run(getattr(module, side), expect)
            outcome["recompiles"] = len(compiles) - before
        results[name][side] = outcome
print(json.dumps(results))
'''


def declared(path: Path) -> tuple[str | None, list[int], int | None]:
    """A report's EXPECT, its marked lines, and the line of `def bug`."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    expect = next((node.value.value for node in tree.body if isinstance(node, ast.Assign)
                   and [getattr(t, "id", None) for t in node.targets] == ["EXPECT"]
                   and isinstance(node.value, ast.Constant)), None)
    bug_line = next((node.lineno for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "bug"),
                    None)
    marked = [number for number, line in enumerate(source.splitlines(), 1) if _MARK.search(line)]
    return expect, marked, bug_line


def reports() -> list[Path]:
    return sorted(REPORTS.glob("*.py"))


def test_every_report_says_what_it_is() -> None:
    """A source, a claim, the bug's lines marked in the report (above `bug()`), nothing marked in the fix."""
    assert len(reports()) >= 20
    for path in reports():
        expect, marked, bug_line = declared(path)
        assert expect, f"{path.name}: no EXPECT"
        assert "Source: https://" in path.read_text(encoding="utf-8"), f"{path.name}: no source"
        assert bug_line and marked and max(marked) < bug_line, f"{path.name}: marks {marked}, bug() at {bug_line}"


@pytest.fixture(scope="module")
def outcomes() -> dict[str, dict]:
    pytest.importorskip("jax")
    listed = {path.stem: declared(path)[0] for path in reports()}
    return run_with_jax(SCRIPT, REPORTS, listed)


def _wrong(expect: str, bug: dict, fixed: dict) -> str | None:
    """What jax did that the report does not say, or None."""
    if fixed["error"]:
        return f"the fix raised {fixed['error'][0]}: {fixed['message']}"
    if expect == "leaks":
        leaked = bug["error"] and ("UnexpectedTracerError" in bug["error"] or bug["message"].startswith("Leaked"))
        return None if leaked else f"the bug raised {bug['error']}, not a leak: {bug['message']}"
    if expect not in SILENT:
        return None if bug["error"] and expect in bug["error"] else f"the bug raised {bug['error']}, not {expect}"
    if bug["error"]:
        return f"the bug raised {bug['error'][0]}: {bug['message']}"
    shown = {"misbehaves": (bug["result"], fixed["result"]),
             "prints tracer": (bool(_TRACER.search(bug["stdout"])), bool(_TRACER.search(fixed["stdout"]))),
             "recompiles": (bug.get("recompiles", 0) > 0, fixed.get("recompiles", 0) > 0)}[expect]
    return None if shown == (True, False) else f"{expect}: bug {shown[0]}, fix {shown[1]}"


@pytest.mark.slow
def test_jax_shows_every_bug_and_accepts_every_fix(outcomes: dict[str, dict]) -> None:
    wrong = {path.stem: why for path in reports()
             if (why := _wrong(declared(path)[0], outcomes[path.stem]["bug"], outcomes[path.stem]["fixed"]))}
    assert wrong == {}
