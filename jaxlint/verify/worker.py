"""One process, jax's checkers on: import a module (or run a script as `__main__`), then trace its
functions, writing each thing seen to an event log as it happens (events.py).

`worker.start()` (run.py starts it) reads the job (JSON, at $JAXLINT_VERIFY_JOB) and appends events to the
file the job names, never to stdout: the user's code may print anything, and the parent keeps its stdout for the report.
Only this module, observe.py and the pytest plugin import jax.
"""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import importlib
import importlib.util
import inspect
import json
import os
import re
import runpy
import sys
import types
from typing import Any, Callable

import jax
import jax.numpy as jnp

from jaxlint.verify.errors import is_jax_error
from jaxlint.verify.events import EventLog
from jaxlint.verify.observe import Observer, Project, abstract_key, concrete, describe

# Arguments tried in turn when nothing says what a parameter holds: float scalars, int scalars (counts and
# indices), then vectors, then matrices.
FALLBACKS = (((), "float32"), ((), "int32"), ((8,), "float32"), ((8, 8), "float32"))
_SPEC = re.compile(r"^(?P<dtype>[a-z]+\d*)\[(?P<dims>[\d, ]*)\]$")
_DTYPES = {
    "f16": "float16",
    "bf16": "bfloat16",
    "f32": "float32",
    "f64": "float64",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "u8": "uint8",
    "u32": "uint32",
    "bool": "bool",
    "c64": "complex64",
}
# A Python scalar annotation of a static parameter: the value traced with (a made-up one).
STATIC_SCALARS = {"int": 4, "float": 0.5, "bool": True}
SCALAR_DTYPES = {"int": "int32", "float": "float32", "bool": "bool"}
_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")


class NeedsData(Exception):
    """No argument can be built for a parameter: the reason is shown as `unverified: ...`."""


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
            return abstract_key()
        spec = array_spec(value)
        if spec is not None:
            return spec
    return value


def dtype(name: str) -> Any:
    return jax.dtypes.canonicalize_dtype(jnp.dtype(name))  # float64 is float32 without x64, as jax does


def build(form: dict[str, Any], static: bool, shape: tuple[int, ...]) -> Any:
    """The argument a form describes (arguments.py's and observe.abstract's forms); an array of unknown
    shape gets `shape`."""
    if "scalar" in form:
        kind = form["scalar"]
        return STATIC_SCALARS[kind] if static else jax.ShapeDtypeStruct((), dtype(SCALAR_DTYPES[kind]))
    if "unshaped" in form:
        return jax.ShapeDtypeStruct(shape, dtype(form["unshaped"]))
    if "array" in form:
        return jax.ShapeDtypeStruct(tuple(form["array"][0]), dtype(form["array"][1]))
    if "dict" in form:
        return {k: build(v, static, shape) for k, v in form["dict"].items()}
    if "list" in form or "tuple" in form:
        items = [build(v, static, shape) for v in (form["list"] if "list" in form else form["tuple"])]
        return items if "list" in form else tuple(items)
    return concrete(form)


def _unshaped(form: dict[str, Any]) -> bool:
    return (
        "unshaped" in form
        or any(_unshaped(v) for v in form.get("dict", {}).values())
        or any(_unshaped(v) for v in form.get("list", form.get("tuple", [])))
    )


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
            params[i] for i in (getattr(info, "static_argnums", ()) or ()) if i < len(params)
        }

    def arguments(
        self,
        fallback: tuple[tuple[int, ...], str],
        examples: dict[str, Any],
        key_names: list[str],
        annotated: dict[str, dict[str, Any]],
    ) -> tuple[list, dict, str, bool]:
        """(positional, keywords, where they came from, whether `fallback` shaped any of them). Where:
        "made-up" when a parameter had nothing to go by, else "annotations" when one was built from its
        annotation, else "examples" when the config gave one, else "given" (keys, or no parameters)."""
        positional, keywords, sources, varies = [], {}, set(), False
        for param in inspect.signature(self.function).parameters.values():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            if param.name in examples:
                value = example_value(examples[param.name])
                sources.add("examples")
            elif param.default is not param.empty:
                continue  # called without it: jax never traces a default
            elif param.name in annotated:
                form = annotated[param.name]
                value, varies = build(form, param.name in self.static, fallback[0]), varies or _unshaped(form)
                sources.add("annotations")
            elif param.name in self.static:
                raise NeedsData(f"needs concrete data: static parameter `{param.name}` has no example")
            elif any(fnmatch.fnmatchcase(param.name, glob) for glob in key_names):
                value = abstract_key()
            else:
                value, varies = jax.ShapeDtypeStruct(*fallback), True
                sources.add("made-up")
            if param.kind == param.KEYWORD_ONLY:
                keywords[param.name] = value
            else:
                positional.append(value)
        source = next((s for s in ("made-up", "annotations", "examples") if s in sources), "given")
        return positional, keywords, source, varies

    def trace(self, positional: list[Any], keywords: dict[str, Any]) -> None:
        with jax.checking_leaks():  # a trace only: cheap
            if self.jit is not None:
                self.jit.trace(*positional, **keywords)
                return
            static = {k: v for k, v in keywords.items() if not isinstance(v, jax.ShapeDtypeStruct)}
            traced = {k: v for k, v in keywords.items() if k not in static}
            jax.eval_shape(functools.partial(self.function, **static), *positional, **traced)


def _attempt(target: Target, positional: list, keywords: dict, project: Project) -> dict[str, Any]:
    try:
        target.trace(positional, keywords)
    except SystemExit as exit_:
        return {"status": "unbuildable", "reason": f"called sys.exit({exit_.code})"}
    except Exception as error:
        return {"status": "error", "error": describe(error, project)}
    return {"status": "ok"}


def _conclusive(result: dict[str, Any]) -> bool:
    """Traced, or stopped by jax's verdict on the code (any other error may be the arguments')."""
    return result["status"] == "ok" or (
        result["status"] == "error" and is_jax_error(result["error"]["classes"], result["error"]["message"])
    )


def candidates(
    target: Target,
    examples: dict[str, Any],
    key_names: list[str],
    annotated: dict[str, Any],
    calls: list[dict[str, Any]],
) -> tuple[list[tuple[dict[str, Any], list, dict]], str]:
    """The arguments to try, best first, each with where it came from: built from the config's
    examples and the annotations, then those of calls in the module, then annotations that give no
    shape (`jax.Array`) with shapes made up, then made-up ones (annotated parameters keep their
    annotations). Also why none could be built ("" when some could)."""
    built: list[tuple[dict[str, Any], list, dict]] = []
    reason, varies = "", False
    try:
        for fallback in FALLBACKS:
            positional, keywords, source, varies = target.arguments(fallback, examples, key_names, annotated)
            if not built or (positional, keywords) != (built[-1][1], built[-1][2]):  # an annotation's dtype wins
                built.append(({"arguments": source}, positional, keywords))
            if not varies:
                break  # nothing to vary: one try says it all
    except NeedsData as error:
        reason = str(error)
    read = [b for b in built if b[0]["arguments"] != "made-up"]
    first, shapeless = ([], read) if varies else (read, [])
    made_up = [b for b in built if b[0]["arguments"] == "made-up"]
    at_calls = []
    for call in calls:
        try:
            positional = [build(a, True, ()) for a in call["args"]]
            keywords = {k: build(v, True, ()) for k, v in call["kwargs"].items()}
            at_calls.append(({"arguments": "call", "call_line": call["line"]}, positional, keywords))
        except (TypeError, ValueError):
            continue  # a shape or dtype this jax cannot build: the call says nothing
    tries = [*first, *at_calls, *shapeless, *made_up]
    return tries, "" if tries else reason


def trace(
    target: Target,
    examples: dict[str, Any],
    recorded: list[dict],
    calls: list[dict],
    annotated: dict,
    key_names: list[str],
    project: Project,
) -> dict[str, Any]:
    """Trace one function: with the signatures a run recorded (real shapes), else with arguments from
    the config's examples and its annotations, then those of calls in its module, then made-up ones,
    stopping at the first that traces or that jax rejects (another error may be the arguments')."""
    outcome: dict[str, Any] = {
        "target": target.function.__qualname__,
        "staged": target.staged,
        "line": target.function.__code__.co_firstlineno,
        "file": project.file(target.function.__code__.co_filename),
    }
    traced = False
    for signature in recorded:
        args = [concrete(a) for a in signature["args"]]
        kwargs = {k: concrete(v) for k, v in signature["kwargs"].items()}
        result = _attempt(target, args, kwargs, project)
        if result["status"] == "error" and is_jax_error(result["error"]["classes"], result["error"]["message"]):
            return {**outcome, **result, "arguments": "recorded"}
        traced = traced or result["status"] == "ok"
    if traced:  # another error means the function changed since the run: the signature no longer fits
        return {**outcome, "status": "ok", "arguments": "recorded"}
    tries, reason = candidates(target, examples, key_names, annotated, calls)
    if not tries:
        return {**outcome, "status": "unbuildable", "reason": reason}
    first: dict[str, Any] = {}
    for source, positional, keywords in tries:
        result = {**source, **_attempt(target, positional, keywords, project)}
        if _conclusive(result):
            return {**outcome, **result}
        first = first or result  # the best arguments' error says most
    return {**outcome, **first}


def targets(
    module, project: Project, path: str, owners: list[str], everything: bool
) -> tuple[list[Target], dict[str, str]]:
    """Transformed callables of the module (jit objects, vmapped or grad functions defined in it) when
    `everything`, then the functions that hold findings. Also why an owner cannot be traced."""
    found, skipped, seen = [], {}, set()
    wanted = set(owners)
    for name, obj in vars(module).items():
        if not callable(obj) or not hasattr(obj, "__wrapped__"):
            continue
        function = inspect.unwrap(obj)
        code = getattr(function, "__code__", None)
        if code is None or project.file(code.co_filename) != path or code in seen:
            continue
        if everything or name in wanted or function.__qualname__ in wanted:
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


def load(path: str, name: str) -> Any:
    """Import the file at `path` as module `name`, by location: a user file named like a module that is
    already loaded (`random.py`) gets a private name instead of being mistaken for it."""
    existing = sys.modules.get(name)
    if existing is not None and os.path.realpath(getattr(existing, "__file__", "") or "") == path:
        return existing
    if existing is None and "." in name:
        importlib.import_module(name.rpartition(".")[0])  # the package first: relative imports need it
        existing = sys.modules.get(name)
        if existing is not None and os.path.realpath(getattr(existing, "__file__", "") or "") == path:
            return existing  # the package's __init__ imported it
    if existing is not None:
        name = "jaxlint_verify_" + name.replace(".", "_")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None  # a .py file
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def probe(module: Any, text: str) -> str:
    """Whether a dotted name (a removed API, as the user spelled it) exists in the installed jax."""
    head, *rest = text.split(".")
    obj = vars(module).get(head)
    if obj is None:
        return "unknown"
    for part in rest:
        try:
            obj = getattr(obj, part)
        except AttributeError:
            return "missing"
        except Exception:
            return "unknown"
    return "present"


def run(job: dict[str, Any], events: EventLog) -> None:
    project = Project([job["project_root"], *job["sys_path"]])
    path = os.path.realpath(job["path"])
    # JAXLINT_VERIFY_KEY_REUSE=0 turns jax's key-reuse checker off (to compare what the other checkers see)
    Observer(project, events).install(
        custom_prng=job.get("custom_prng", True),
        record=job["mode"] != "import",  # the signatures of a run are kept; an import's arguments are made up
        key_reuse=os.environ.get("JAXLINT_VERIFY_KEY_REUSE", "1") != "0",
    )
    for folder in reversed(job["sys_path"]):
        sys.path.insert(0, folder)
    sys.argv = list(job.get("argv") or [job["path"]])  # the module's own command line, not the worker's
    module: Any = None
    try:
        if job["mode"] == "run":  # then its flagged functions the run never reached are traced
            module = types.SimpleNamespace(**runpy.run_path(job["path"], run_name="__main__"))
        elif job["mode"] == "run-module":
            runpy.run_module(job["module"], run_name="__main__", alter_sys=True)
        else:
            module = load(path, job["module"])
    except SystemExit as exit_:
        if exit_.code not in (None, 0):
            events.emit("exit", code=exit_.code if isinstance(exit_.code, int) else str(exit_.code))
        return
    except BaseException as error:  # anything the code raises, even KeyboardInterrupt
        events.emit("error", phase=job["mode"], custom_prng=job.get("custom_prng", True), **describe(error, project))
        return
    if module is None:
        return
    for row, text in job.get("probes", []):
        if _DOTTED.match(text):
            events.emit("probe", row=row, text=text, status=probe(module, text), jax=jax.__version__)
    found, skipped = targets(module, project, path, job.get("owners", []), job.get("trace_all", False))
    for owner, reason in skipped.items():
        events.emit("skipped", owner=owner, reason=reason)
    for target in found:
        name = target.function.__qualname__
        examples: dict[str, Any] = next(
            (
                job["examples"][key]
                for key in (f"{job['module']}:{target.name}", f"{job['module']}:{name}")
                if key in job["examples"]
            ),
            {},
        )
        recorded = job.get("signatures", {}).get(name, [])
        calls = job.get("calls", {}).get(target.name) or job.get("calls", {}).get(name, [])
        annotated = job.get("annotated", {}).get(name, {})
        events.emit("outcome", **trace(target, examples, recorded, calls, annotated, job["key_names"], project))


def read_job() -> dict[str, Any]:
    with open(os.environ["JAXLINT_VERIFY_JOB"], encoding="utf-8") as handle:
        return json.load(handle)


def main() -> int:
    job = read_job()
    events = EventLog(job["events"])
    run(job, events)
    events.emit("done")
    return 0


def start() -> None:
    # Skip interpreter shutdown: threads or atexit hooks the module left behind must not hold the worker.
    os._exit(main())


def serve() -> None:
    """The fork server (processes.ForkServer): jax is imported once, here; each line on stdin is a job
    file, run in a forked child in its own session. Answers each job with the child's pid; writes each
    child's exit code to the job's status file when it ends. Ends at the end of its input."""
    import select

    _warm()
    children: dict[int, str] = {}  # pid -> status file
    pending = b""
    while True:
        ready, _, _ = select.select([0], [], [], 0.05)
        _reap(children)
        if not ready:
            continue
        data = os.read(0, 65536)
        if not data:
            os._exit(0)  # no interpreter shutdown: tearing jax down takes half a second
        pending += data
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            job_path = line.decode()
            try:
                with open(job_path, encoding="utf-8") as handle:
                    job = json.load(handle)
            except (OSError, ValueError):
                os.write(1, b"-\n")  # not a job: the parent runs it as a subprocess
                continue
            pid = os.fork()
            if pid == 0:
                _child(job_path, job)
            children[pid] = job["status"]
            os.write(1, f"{pid}\n".encode())


def _warm() -> None:
    """Pay once, before forking, what each job's first trace would pay (jax's lazy set-up of tracing, the
    typed key's dtype, the key-reuse checker jax imports at the first trace under it); tracing starts no
    backend, so forking stays safe."""
    importlib.import_module("jax.experimental.key_reuse._core")
    abstract_key()
    jax.jit(lambda x: x + 1).trace(jax.ShapeDtypeStruct((2,), jnp.float32))


def _child(job_path: str, job: dict[str, Any]) -> None:
    try:
        os.setsid()  # its own process group: killed with whatever the user's code starts
        quiet = os.open(os.devnull, os.O_RDWR)
        os.dup2(quiet, 0)
        os.dup2(quiet, 1)
        os.dup2(os.open(job["stderr"], os.O_WRONLY | os.O_CREAT | os.O_APPEND), 2)
        os.chdir(job["cwd"])
        os.environ["JAXLINT_VERIFY_JOB"] = job_path
        code = main()
    except BaseException:
        code = 1
    with contextlib.suppress(OSError):  # now, not when the server next reaps it: the parent is waiting
        _write_status(job["status"], code)
    os._exit(code)


def _write_status(path: str, code: int) -> None:
    with open(path + ".partial", "w", encoding="utf-8") as handle:
        handle.write(str(code))
    os.replace(path + ".partial", path)


def _reap(children: dict[int, str]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        path: Any = children.pop(pid, None)  # None for a child not ours: the TypeError below
        try:
            if not os.path.exists(path):  # it was killed or crashed (else it wrote it, and the folder may be going)
                _write_status(path, os.waitstatus_to_exitcode(status))
        except (OSError, TypeError):
            pass  # the job's folder is gone: it timed out and nobody waits for it
