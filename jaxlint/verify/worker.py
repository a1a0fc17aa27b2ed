"""One file, in its own process: import the module, trace its functions with real jax, write what happened.

`python -m jaxlint.verify.worker JOB RESULT` reads the job (JSON) and writes the result (JSON) to the
file RESULT, never to stdout: the user's module may print anything, and the parent keeps its stdout for
the report. This is the only jaxlint module that imports jax.
"""

from __future__ import annotations

import builtins
import fnmatch
import functools
import importlib
import inspect
import json
import logging
import os
import re
import sys
import traceback
import warnings
from typing import Any, Callable

import jax
import jax.numpy as jnp

from jaxlint.verify.errors import is_jax_error

# Arguments tried in turn when nothing says what a parameter holds: float scalars, int scalars (counts and
# indices), then vectors, then matrices.
FALLBACKS = (((), "float32"), ((), "int32"), ((8,), "float32"), ((8, 8), "float32"))
_SPEC = re.compile(r"^(?P<dtype>[a-z]+\d*)\[(?P<dims>[\d, ]*)\]$")
_DTYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64", "i8": "int8",
           "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "u32": "uint32", "bool": "bool",
           "c64": "complex64"}
_SCALAR_ANNOTATIONS = {int: "int32", float: "float32", bool: "bool", "int": "int32", "float": "float32",
                       "bool": "bool"}


class NeedsData(Exception):
    """No argument can be built for a parameter: the reason is shown as `unverified: ...`."""


class Observations:
    """What tracing printed: the user-file lines on the stack when a tracer reached print, logging or
    jax.debug.print's format string."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.lines: dict[str, set[int]] = {"print": set(), "debug-print": set()}

    def record(self, kind: str) -> None:
        frame = sys._getframe(2)
        while frame is not None:
            if os.path.realpath(frame.f_code.co_filename) == self.filename:
                self.lines[kind].add(frame.f_lineno)
            frame = frame.f_back

    def install(self) -> None:
        real_print, real_log, real_debug_print = builtins.print, logging.Logger._log, jax.debug.print

        def print_(*args, **kwargs):
            if any(isinstance(a, jax.core.Tracer) for a in args):
                self.record("print")
            return real_print(*args, **kwargs)

        def log(logger, level, msg, args, *rest, **kwargs):
            values = (msg, *(args if isinstance(args, tuple) else (args,)))
            if any(isinstance(a, jax.core.Tracer) for a in values):
                self.record("print")
            return real_log(logger, level, msg, args, *rest, **kwargs)

        def debug_print(fmt, *args, **kwargs):
            if "Traced<" in str(fmt) or "Tracer(" in str(fmt):
                self.record("debug-print")
            return real_debug_print(fmt, *args, **kwargs)

        builtins.print, logging.Logger._log, jax.debug.print = print_, log, debug_print


def user_frames(error: BaseException, filename: str) -> list[list[int]]:
    """[line, column] of each frame in the user's file, outermost first, through the exception's causes
    (jax attaches the stack of the operation that failed as the cause)."""
    frames: list[list[int]] = []
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        for frame in traceback.extract_tb(error.__traceback__):
            if os.path.realpath(frame.filename) == filename and frame.lineno:
                frames.append([frame.lineno, (frame.colno or 0) + 1])
        error = error.__cause__ or error.__context__
    return frames


def describe(error: BaseException, filename: str) -> dict[str, Any]:
    message = str(error).strip().splitlines()
    return {
        "classes": [cls.__name__ for cls in type(error).__mro__],
        "message": message[0] if message else "",
        "frames": user_frames(error, filename),
    }


def array_spec(text: str) -> jax.ShapeDtypeStruct | None:
    match = _SPEC.match(text.strip())
    if match is None or match["dtype"] not in _DTYPES:
        return None
    dims = tuple(int(d) for d in match["dims"].replace(" ", "").split(",") if d)
    return jax.ShapeDtypeStruct(dims, jnp.dtype(_DTYPES[match["dtype"]]))


def example_value(value: Any) -> Any:
    """A config example: `"f32[8,3]"` is an abstract array, `"key"` a typed PRNG key, the rest as given."""
    if isinstance(value, str):
        if value == "key":
            return jax.random.key(0)
        spec = array_spec(value)
        if spec is not None:
            return spec
    return value


class Target:
    """A function to trace: how it is called (a jit object's own `.trace`, or `jax.eval_shape`)."""

    def __init__(self, name: str, obj: Callable, staged: bool) -> None:
        self.name = name
        self.function = inspect.unwrap(obj)
        self.jit = obj if hasattr(obj, "trace") and hasattr(obj, "_jit_info") else None
        self.staged = staged
        info = getattr(self.jit, "_jit_info", None)
        params = list(inspect.signature(self.function).parameters)
        self.static = set(getattr(info, "static_argnames", ()) or ()) | {
            params[i] for i in (getattr(info, "static_argnums", ()) or ()) if i < len(params)}

    def arguments(self, fallback: tuple[tuple[int, ...], str], examples: dict[str, Any], key_names: list[str]):
        positional, keywords = [], {}
        for param in inspect.signature(self.function).parameters.values():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            if param.name in examples:
                value = example_value(examples[param.name])
            elif param.default is not param.empty:
                continue  # called without it: jax never traces a default
            elif param.name in self.static:
                raise NeedsData(f"needs concrete data: static parameter `{param.name}` has no example")
            elif any(fnmatch.fnmatchcase(param.name, glob) for glob in key_names):
                value = jax.random.key(0)
            elif param.annotation in _SCALAR_ANNOTATIONS:
                value = jax.ShapeDtypeStruct((), jnp.dtype(_SCALAR_ANNOTATIONS[param.annotation]))
            else:
                value = jax.ShapeDtypeStruct(*fallback)
            if param.kind == param.KEYWORD_ONLY:
                keywords[param.name] = value
            else:
                positional.append(value)
        return positional, keywords

    def trace(self, positional: list[Any], keywords: dict[str, Any]) -> None:
        if self.jit is not None:
            self.jit.trace(*positional, **keywords)
            return
        static = {k: v for k, v in keywords.items() if not isinstance(v, jax.ShapeDtypeStruct)}
        traced = {k: v for k, v in keywords.items() if k not in static}
        jax.eval_shape(functools.partial(self.function, **static), *positional, **traced)


def trace(target: Target, examples: dict[str, Any], key_names: list[str], filename: str) -> dict[str, Any]:
    """Trace one function, trying larger fallback shapes while the failure is our guess, not jax's verdict."""
    outcome: dict[str, Any] = {"target": target.function.__qualname__, "staged": target.staged,
                               "line": target.function.__code__.co_firstlineno}
    for fallback in FALLBACKS:
        try:
            positional, keywords = target.arguments(fallback, examples, key_names)
        except NeedsData as reason:
            return {**outcome, "status": "unbuildable", "reason": str(reason)}
        try:
            with jax.checking_leaks(), jax.debug_key_reuse(True):
                target.trace(positional, keywords)
        except SystemExit as exit_:
            return {**outcome, "status": "unbuildable", "reason": f"called sys.exit({exit_.code})"}
        except Exception as error:
            outcome.update(status="error", error=describe(error, filename))
            if is_jax_error(outcome["error"]["classes"], outcome["error"]["message"]):
                return outcome
            continue
        return {**outcome, "status": "ok"}
    return outcome


def targets(module, filename: str, owners: list[str]) -> tuple[list[Target], dict[str, str]]:
    """Transformed callables of the module (jit objects, vmapped or grad functions defined in it), then
    the plain functions that hold findings. Also why an owner cannot be traced."""
    found, skipped, seen = [], {}, set()
    for name, obj in vars(module).items():
        if not callable(obj) or not hasattr(obj, "__wrapped__"):
            continue
        function = inspect.unwrap(obj)
        code = getattr(function, "__code__", None)
        if code is None or os.path.realpath(code.co_filename) != filename or code in seen:
            continue
        seen.add(code)
        found.append(Target(name, obj, staged=hasattr(obj, "_jit_info")))
    for owner in owners:
        obj = module
        for part in owner.split("."):
            obj = getattr(obj, part, None)
        if "." in owner:
            skipped[owner] = "a method: tracing it needs an instance"
        elif obj is None or not callable(obj):
            skipped[owner] = f"`{owner}` is not a module attribute after import"
        elif getattr(inspect.unwrap(obj), "__code__", None) not in seen:
            seen.add(inspect.unwrap(obj).__code__)
            found.append(Target(owner, obj, staged=False))
    return found, skipped


def run(job: dict[str, Any]) -> dict[str, Any]:
    filename = os.path.realpath(job["path"])
    jax.config.update("jax_traceback_filtering", "off")
    warnings.filterwarnings("error", message=r"Explicitly requested dtype .* is not available")
    observations = Observations(filename)
    observations.install()
    sys.path.insert(0, job["root"])
    try:
        module = importlib.import_module(job["module"])
    except SystemExit as exit_:
        return {"import_error": {"classes": ["SystemExit"], "message": f"sys.exit({exit_.code})", "frames": []}}
    except BaseException as error:  # anything the module raises, even KeyboardInterrupt
        return {"import_error": describe(error, filename)}
    found, skipped = targets(module, filename, job["owners"])
    def examples(target: Target) -> dict[str, Any]:
        """Config examples, under the module attribute's name or the function's own."""
        for name in (target.name, target.function.__qualname__):
            if f"{job['module']}:{name}" in job["examples"]:
                return job["examples"][f"{job['module']}:{name}"]
        return {}

    outcomes = [trace(t, examples(t), job["key_names"], filename) for t in found]
    return {"outcomes": outcomes, "skipped": skipped,
            "observed": {kind: sorted(lines) for kind, lines in observations.lines.items()}}


def main(argv: list[str]) -> int:
    job_path, result_path = argv
    with open(job_path, encoding="utf-8") as handle:
        job = json.load(handle)
    result = run(job)
    partial_path = result_path + ".partial"
    with open(partial_path, "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    os.replace(partial_path, result_path)  # the parent never reads half a result
    return 0


if __name__ == "__main__":
    # Skip interpreter shutdown: threads or atexit hooks the module left behind must not hold the worker.
    os._exit(main(sys.argv[1:]))
