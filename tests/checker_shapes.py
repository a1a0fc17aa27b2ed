"""What the two checker-shape test files share. The fixtures run with real jax: they cannot claim a reuse or a leak
that jax does not see.

fixtures/analysis/checker_shapes/ holds programs in the shapes JAX's own key-reuse and leak checkers are tested
on: each top-level `bug_*` function is one program, with the helpers above it, and its `# expect:` or
`# expect-miss:` comment marks the line of the bug; each `twin_*` is its correct version. One subprocess
(JAX_PLATFORMS=cpu) per test file runs its modules (the `keys_*` ones, the `leaks_*` ones: two files, which the
suite's two workers run side by side): a `keys_*` program under `jax_debug_key_reuse`, a `leaks_*` one under
`jax.checking_leaks()`. A key bug raises KeyReuseError; where jax's eager check names the line (it raises at
the call given a consumed key, run as it is or under `jax.disable_jit()`), the marked line is in the traceback
(a reuse inside a trace, jax reports without a line). A leak bug raises jax's leak error or
UnexpectedTracerError, or leaves a new tracer alive after it returns (jax does not check `grad` traces for
leaks; such a tracer raises UnexpectedTracerError when used); a twin raises nothing and leaves no tracer alive.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from helpers import run_with_jax

SHAPES = Path(__file__).resolve().parents[1] / "fixtures" / "analysis" / "checker_shapes"
_MARK = re.compile(r"#\s*expect(?:-miss)?:.*\b(JAX201|JAX202|JAX308)\b")

SCRIPT = r'''
import gc, importlib, json, sys, traceback
import jax

sys.path.insert(0, sys.argv[1])
jax.config.update("jax_debug_key_reuse", True)


def live_tracers():
    gc.collect()
    return {id(o) for o in gc.get_objects() if isinstance(o, jax.core.Tracer)}


def attempt(function, filename):
    try:
        result = function()
        jax.block_until_ready(result)
        return result, None
    except Exception as error:
        lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__) if frame.filename == filename]
        return None, {"error": [cls.__name__ for cls in type(error).__mro__], "message": str(error)[:300],
                      "lines": lines}


results = {}
for module_name, names in json.loads(sys.argv[2]).items():
    module = importlib.import_module(module_name)
    for name in names:
        before = live_tracers()
        if module_name.startswith("leaks_"):
            with jax.checking_leaks():
                result, failure = attempt(getattr(module, name), module.__file__)
        else:
            result, failure = attempt(getattr(module, name), module.__file__)
        outcome = failure or {"error": None, "lines": []}
        outcome["new_tracers"] = len(live_tracers() - before)
        if failure and module_name.startswith("keys_"):
            with jax.disable_jit():
                _, eager = attempt(getattr(module, name), module.__file__)
            # jax's eager check raises at the call that passes a consumed key: there, it names the line.
            outcome["located"] = any(run and run["message"].startswith("Previously-consumed") for run in (failure, eager))
            outcome["lines"] += eager["lines"] if eager else []
        del result
        results[f"{module_name}.{name}"] = outcome
print(json.dumps(results))
'''


def programs(path: Path) -> dict[str, set[int]]:
    """Each `bug_*`/`twin_*` function of a fixture, with the lines its block (from the previous program on) marks
    as the bug's."""
    source = path.read_text(encoding="utf-8")
    marked = {number for number, line in enumerate(source.splitlines(), 1) if _MARK.search(line)}
    found, start = {}, 1
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith(("bug_", "twin_")):
            found[node.name] = {line for line in marked if start <= line <= node.end_lineno}
            start = node.end_lineno + 1
    return found


def all_programs(prefix: str) -> dict[str, dict[str, set[int]]]:
    """The programs of the fixture modules whose names start with `prefix`, by module."""
    return {path.stem: programs(path) for path in sorted(SHAPES.glob(f"{prefix}*.py"))}


def outcomes(prefix: str) -> dict[str, dict]:
    """What jax did with each program of the `prefix` modules, by `module.name`: one subprocess runs them all."""
    listed = {module: list(found) for module, found in all_programs(prefix).items()}
    return run_with_jax(SCRIPT, SHAPES, listed)


def _wrong(module: str, name: str, marked: set[int], outcome: dict) -> str | None:
    """What jax did that the fixture does not say, or None."""
    error = outcome["error"]
    if name.startswith("twin_"):
        if error:
            return f"the twin raised {error[0]}: {outcome['message']}"
        return "the twin left a tracer alive" if outcome["new_tracers"] else None
    if module.startswith("keys_"):
        if not error or "KeyReuseError" not in error:
            return f"raised {error and error[0]}, not KeyReuseError"
        if not outcome["located"] or marked & set(outcome["lines"]):
            return None
        return f"jax reports lines {outcome['lines']}, not {marked}"
    if error and ("UnexpectedTracerError" in error or outcome["message"].startswith("Leaked trace")):
        return None
    if error:
        return f"raised {error[0]}: {outcome['message']}"
    return None if outcome["new_tracers"] else "no tracer outlived the trace"


def unmarked(prefix: str) -> dict[str, set[int]]:
    """The programs of the `prefix` modules whose marks are wrong: a bug marks one line, a twin none."""
    return {f"{module}.{name}": lines for module, found in all_programs(prefix).items() for name, lines in found.items()
            if len(lines) != (1 if name.startswith("bug_") else 0)}


def misjudged(prefix: str) -> dict[str, str]:
    """The programs of the `prefix` modules that jax runs otherwise than their fixture says, with what it did."""
    done = outcomes(prefix)
    return {f"{module}.{name}": why for module, found in all_programs(prefix).items() for name, marked in found.items()
            if (why := _wrong(module, name, marked, done[f"{module}.{name}"]))}
