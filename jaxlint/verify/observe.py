"""jax's checkers and jaxlint's observers, installed in a process before the user's code runs (the verify
worker, or pytest through jaxlint's plugin). Each thing seen is one event, at a line of a project file.

- `jax_debug_key_reuse` with `jax_enable_custom_prng`, so legacy `PRNGKey` keys are checked too;
- the tracer-leak check at the end of every trace (not jax's global switch, which turns off jax's caches
  and makes eager code many times slower);
- every compile of a project function, counted per call site, with jax's reason for it
  (`jax_explain_cache_misses`, recompiles.py): a function compiled again and again at one call;
- `print`, `logging` and `jax.debug.print` given a tracer (in any pytree, or formatted into a string);
- clocks and host randomness (`time.time()`, `random.*`, `np.random.*`) read while tracing: frozen values;
- warnings, recorded (never turned into errors);
- the abstract signature (shapes, dtypes, static values) each jitted project function is traced with.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import linecache
import logging
import os
import random
import re
import sys
import time
import traceback
import types
import warnings
import weakref
from dataclasses import replace
from types import FrameType
from typing import Any, Callable

import jax
import numpy as np
from jax._src import source_info_util  # not jax.extend's: importing jax.extend imports pallas (40 ms a run)

from jaxlint.verify import leaks
from jaxlint.verify.events import EventLog
from jaxlint.verify.recompiles import RECOMPILES, SHAPE_RECOMPILES, Compiles, Miss, read_miss

_SITE_PACKAGES = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep)
_JAXLINT = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
FIRST_USE = "PRNG key first used at the above location"  # jax's KeyReuseError chains this cause
_TRACER_TEXT = re.compile(r"\w*Tracer\(|Traced<")
_TRACED_AT = re.compile(r"tracing the function (?P<function>\S+) at (?P<file>\S+?):(?P<line>\d+)")
LIBRARY_OUTPUT = "inside a library function called here"
BACKEND_COMPILE = "/jax/core/compile/backend_compile_duration"  # jax.monitoring's event for each XLA compile
SIGNATURES_PER_FUNCTION = 3
LOG_METHODS = ("debug", "info", "warning", "error", "critical", "exception", "log")
CLOCKS = {time: ("time", "perf_counter", "monotonic", "time_ns", "perf_counter_ns", "process_time")}
HOST_RANDOM = {
    random: ("random", "randint", "uniform", "gauss", "choice", "shuffle", "sample", "randrange", "normalvariate"),
    np.random: (
        "rand",
        "randn",
        "random",
        "normal",
        "uniform",
        "randint",
        "choice",
        "permutation",
        "shuffle",
        "random_sample",
        "standard_normal",
    ),
}


class Project:
    """Which files are the user's: under the project root (or the folders the checked file was imported
    from), outside installed packages and jaxlint."""

    def __init__(self, roots: list[str]) -> None:
        self.roots = tuple(os.path.realpath(root) + os.sep for root in roots)
        self._known: dict[str, str | None] = {}

    def file(self, filename: str) -> str | None:
        """The real path of a project file, or None."""
        if filename not in self._known:
            real = os.path.realpath(filename) if not filename.startswith("<") else ""
            mine = (
                real.startswith(self.roots)
                and not real.startswith(_JAXLINT)
                and not any(part in real for part in _SITE_PACKAGES)
            )
            self._known[filename] = real if mine else None
        return self._known[filename]

    def frames(self, error: BaseException | None, aside: list[list[Any]] | None = None) -> list[list[Any]]:
        """[file, line, column] of each project frame of the error, outermost first, through its causes
        (jax attaches the stack of the operation that failed as the cause). The frames of a cause that
        shows where a key was first consumed go to `aside` instead: the error is at the second use."""
        found: list[list[Any]] = []
        seen: set[int] = set()
        while error is not None and id(error) not in seen:
            seen.add(id(error))
            into = aside if aside is not None and str(error).startswith(FIRST_USE) else found
            for frame in traceback.extract_tb(error.__traceback__):
                real = self.file(frame.filename)
                if real and frame.lineno:
                    into.append([real, frame.lineno, (getattr(frame, "colno", None) or 0) + 1])  # 3.11+
            error = error.__cause__ or error.__context__
        return found

    def stack(self, depth: int) -> list[list[Any]]:
        """[file, line] of each project frame on the current stack, innermost first."""
        frame: FrameType | None = sys._getframe(depth + 1)
        found = []
        while frame is not None:
            real = self.file(frame.f_code.co_filename)
            if real:
                found.append([real, frame.f_lineno])
            frame = frame.f_back
        return found

    def caller(self, depth: int, skip: str = "") -> list[Any] | None:
        """[file, line] of the frame `depth` levels up (past frames of the module file `skip`) when it
        is a project file: the user's code called this directly."""
        frame: FrameType | None = sys._getframe(depth + 1)
        while skip and frame is not None and frame.f_code.co_filename == skip:
            frame = frame.f_back
        if frame is None:
            return None
        real = self.file(frame.f_code.co_filename)
        return [real, frame.f_lineno] if real else None


def describe(error: BaseException, project: Project) -> dict[str, Any]:
    message = str(error).strip().splitlines()
    first_use: list[list[Any]] = []
    described = {
        "classes": [cls.__name__ for cls in type(error).__mro__],
        "message": message[0] if message else "",
        "text": str(error)[:2000],
        "frames": project.frames(error, first_use),
    }
    if first_use:
        described["first_use"] = first_use[-1]
    checker = _failed_checker(error)
    if checker:
        described["checker"] = checker
    return described


# Where an error raised inside one of the checkers comes from: (path fragment, function names or None
# for any), the checker's name.
_CHECKERS = (
    ((os.sep + "key_reuse" + os.sep, None), "jax's key-reuse checker"),
    (
        (
            os.sep + "jax" + os.sep + "_src" + os.sep + "core.py",
            ("_why_alive", "_why_alive_container_info", "leaked_tracer_error", "maybe_find_leaked_tracers"),
        ),
        "jax's leak checker",
    ),
    ((_JAXLINT + "verify" + os.sep, None), "jaxlint's observer"),
)


def _failed_checker(error: BaseException) -> str:
    """The checker an error was raised in (its innermost frame), or ""."""
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    for (fragment, functions), name in _CHECKERS:
        if fragment in last.filename and (functions is None or last.name in functions):
            if name == "jaxlint's observer" and last.name in (
                "call",
                "__call__",
                "leaked_tracer_error",
                "_checked_as_jit",
            ):
                continue  # the user's function, called through the observer
            return name
    return ""


def tracing() -> bool:
    from jax._src import core

    return not isinstance(core.trace_ctx.trace, core.EvalTrace)


def _has_tracer(values: Any) -> bool:
    for leaf in jax.tree_util.tree_leaves(values):
        if isinstance(leaf, jax.core.Tracer) or (isinstance(leaf, str) and _TRACER_TEXT.search(leaf)):
            return True
    return False


class Observer:
    def __init__(self, project: Project, events: EventLog) -> None:
        self.project, self.events = project, events
        self.compiles = Compiles()
        self.calls: dict[tuple[str, int], int] = {}  # project line -> calls of jax.jit's functions from it
        self.shape_changes = True  # whether a function compiled anew for each new input shape is reported
        self.counting = True  # whether calls of jitted functions count (`uncounted`)
        self.signatures: dict[str, int] = {}
        self.wrappers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.reported: set[tuple] = set()  # what was reported already

    def install(
        self, custom_prng: bool = True, record: bool = True, key_reuse: bool = True, shape_changes: bool = True
    ) -> None:
        warnings.simplefilter("always")  # recorded, never escalated: a warning must not stop the code
        warnings.showwarning = self._warning
        if custom_prng:
            jax.config.update("jax_enable_custom_prng", True)  # legacy PRNGKey keys become checkable
            _legacy_key_views()
        self._report_escaped_tracers()
        if key_reuse:
            jax.config.update("jax_debug_key_reuse", True)
            _keep_escaped_tracer_checks()
        jax.config.update("jax_traceback_filtering", "off")
        self._check_leaks_per_trace()
        self._report_leaks()
        self._scan_after_unchecked_transforms()
        jax.config.update("jax_explain_cache_misses", True)
        source_info_util.register_exclusion(os.path.dirname(__file__) + os.sep)  # jax names the user's call, not ours
        logging.getLogger("jax").addHandler(_Misses(self))
        jax.monitoring.register_event_duration_secs_listener(self._compiled)
        self._watch_output()
        self._watch_host_state()
        self.shape_changes = shape_changes
        self._watch_jit(record)

    # -- events
    def observed(self, kind: str, where: list[list[Any]], detail: str = "") -> None:
        key = (kind, *(tuple(w) for w in where))
        if key not in self.reported:  # once per line
            self.reported.add(key)
            self.events.emit("observed", kind=kind, where=where, detail=detail)

    def _warning(self, message, category, filename, lineno, file=None, line=None) -> None:
        real = self.project.file(filename)
        if real and (category, real, lineno) not in self.reported:  # once per line: loops warn every step
            self.reported.add((category, real, lineno))
            self.events.emit(
                "warning",
                classes=[c.__name__ for c in category.__mro__],
                message=str(message).splitlines()[0] if str(message) else "",
                where=[real, lineno],
            )

    # -- checkers
    @staticmethod
    def _check_leaks_per_trace() -> None:
        """Run jax's leak check at the end of each jit-style trace (cached by jax, so rare), with jax's
        caches left on; eager vmap calls, one trace each, stay unchecked (the check collects garbage)."""
        from jax._src import core
        from jax._src.interpreters import partial_eval

        original = getattr(core, "ensure_no_leaks", None)
        staged = getattr(partial_eval, "DynamicJaxprTrace", None)
        if original is None or staged is None:
            return

        @contextlib.contextmanager
        def checked(trace):
            manager, check = original(trace), isinstance(trace, staged)
            del trace  # a reference held here would keep the trace alive
            manager.__enter__()
            try:
                yield
            except BaseException:
                if not manager.__exit__(*sys.exc_info()):
                    raise
                return
            with jax.checking_leaks() if check else contextlib.nullcontext():  # on for the check alone
                manager.__exit__(None, None, None)

        core.ensure_no_leaks = checked

    def _report_leaks(self) -> None:
        """Wrap jax's leak report (`core.leaked_tracer_error`): say what holds each leaked tracer and the
        line that stored it (a `leak` event), and keep the leak an error even when jax's own report of
        it crashes (`_why_alive` raises IndexError on some referrer chains)."""
        from jax._src import core

        original = getattr(core, "leaked_tracer_error", None)
        if original is None:
            return
        observer = self

        def leaked_tracer_error(name, trace, tracers):
            try:
                observer.leaked(tracers, "jax.checking_leaks")
            except Exception:
                pass  # an observer never breaks the user's code
            try:
                return original(name, trace, tracers)
            except Exception as crash:
                kinds = ", ".join(sorted({type(t).__name__ for t in tracers}))
                return Exception(
                    f"Leaked {name} {trace}. Leaked tracer(s): {kinds} (jax's report of the leak "
                    f"raised {type(crash).__name__}: {crash})"
                )

        core.leaked_tracer_error = leaked_tracer_error

    def _report_escaped_tracers(self) -> None:
        """Wrap jax's check that eager code is given no tracer (`core.check_eval_args`, whose failure is
        UnexpectedTracerError): a tracer there leaked earlier; report what holds it and where it was
        stored (a `leak` event), then let jax raise."""
        from jax._src import core

        original = getattr(core, "check_eval_args", None)
        if original is None:
            return
        observer = self

        def check_eval_args(args):
            args = list(args)
            try:
                return original(args)
            except Exception:
                tracers = [a for a in args if isinstance(a, jax.core.Tracer)]
                del args  # not a holder
                try:
                    observer.leaked(tracers, "jax's check for escaped tracers")
                except Exception:
                    pass  # an observer never breaks the user's code
                raise

        core.check_eval_args = check_eval_args

    def _scan_after_unchecked_transforms(self) -> None:
        """jax checks jit, scan and friends for leaks, not `grad` traces nor eager `vmap`: after such a call
        returns (outside any trace), look for tracers in the project's module globals, one or two
        containers or attributes deep, and report each as a leak."""
        observer = self
        for name in UNCHECKED_TRANSFORMS:
            real = getattr(jax, name, None)
            if real is None:
                continue

            def transform(fun, *args, _real=real, _name=name, **kwargs):
                transformed = _real(fun, *args, **kwargs)
                if not callable(transformed):  # jvp, vjp, linearize: called already
                    if not tracing():
                        try:
                            observer.scan(f"jax.{_name}", fun)
                        except Exception:
                            pass  # an observer never breaks the user's code
                    return transformed

                @functools.wraps(transformed)
                def call(*a, **k):
                    eager = not tracing()
                    out = (
                        _checked_as_jit(transformed, a, k, observer)
                        if eager and _name != "vmap" and getattr(jax.config, "jax_debug_key_reuse", False)
                        else _NOT_RUN
                    )
                    out = transformed(*a, **k) if out is _NOT_RUN else out
                    if eager:
                        try:
                            observer.scan(f"jax.{_name}", fun)
                        except Exception:
                            pass  # an observer never breaks the user's code
                    return out

                return call

            setattr(jax, name, functools.wraps(real)(transform))

    def scan(self, label: str, fun: Any) -> None:
        found = _project_tracers(self.project)  # its own references are gone: they are no holders
        if found:
            code = getattr(inspect_unwrap(fun), "__code__", None)
            traced = (
                (getattr(inspect_unwrap(fun), "__qualname__", ""), code.co_filename, code.co_firstlineno)
                if code
                else None
            )
            self.leaked(found, f"jaxlint's scan of module globals after `{label}` returned", traced)

    def leaked(self, tracers: list[Any], checker: str, traced_fallback: tuple[str, str, int] | None = None) -> None:
        """A `leak` event for each leaked tracer a module global holds: the holder, the tracer's kind,
        the function being traced, and the line that stored it."""
        ignore = {id(tracers)}
        for tracer in tracers:
            found = leaks.holder(tracer, ignore)
            if found is None:
                continue
            origin = ""
            try:
                origin = tracer._origin_msg() or ""
            except Exception:
                pass
            match = _TRACED_AT.search(origin)
            traced = (match["function"], match["file"], int(match["line"])) if match else traced_fallback
            near = traced[2] if traced and self.project.file(traced[1]) else None
            store = leaks.store_line(found, near)
            where = [self.project.file(store[0]), *store[1:]] if store and self.project.file(store[0]) else None
            key = ("leak", found.module.__name__, found.text())
            if key in self.reported:
                continue
            self.reported.add(key)
            shown = re.match(r"\w*Tracer\b", str(tracer))  # jax's own name for it: JitTracer, VmapTracer
            self.events.emit(
                "leak",
                checker=checker,
                holder=found.text(),
                tracer=shown.group(0) if shown else type(tracer).__name__,
                where=where,
                traced=traced[0] if traced else "",
                traced_at=[self.project.file(traced[1]), near] if traced and near else None,
            )

    def missed(self, message: str) -> None:
        """A tracing cache miss jax explained: kept for the compile that follows, at the innermost project
        line on the stack (where its compile and its calls are counted)."""
        miss, stack = read_miss(message), self.project.stack(0)
        if miss is None or not stack:
            return
        site = (stack[0][0], stack[0][1])
        at_site = miss.site is not None and (self.project.file(miss.site[0]), miss.site[1]) == site
        defined = miss.defined and self.project.file(miss.defined[0])
        self.compiles.missed(
            replace(
                miss,
                site=site,
                column=miss.column if at_site else None,
                defined=(defined, miss.defined[1]) if miss.defined and defined else None,
            )
        )

    def _recompiled(self, miss: Miss, count: int, calls: int) -> bool:
        """Whether a function compiled `count` times at a line called `calls` times (by jax.jit's functions)
        is compiled again and again: at every call, RECOMPILES times or more (SHAPE_RECOMPILES for a new input
        shape), for a cause that repeats (`miss.kind` is "" for any other)."""
        if not miss.kind or (miss.kind == "type" and not self.shape_changes):
            return False
        return count >= (SHAPE_RECOMPILES if miss.kind == "type" else RECOMPILES) and count >= calls > 0

    @contextlib.contextmanager
    def uncounted(self):
        """Calls of jitted functions made by a checker's own trace are not the user's calls."""
        self.counting = False
        try:
            yield
        finally:
            self.counting = True

    def called(self, frame: FrameType | None) -> None:
        """A function jax.jit made was called from `frame`: one more call at the innermost project line on
        the stack (the line its compiles are counted at, through `jax.grad(f)(x)` too)."""
        while frame is not None and self.counting:
            real = self.project.file(frame.f_code.co_filename)
            if real:
                self.calls[(real, frame.f_lineno)] = self.calls.get((real, frame.f_lineno), 0) + 1
                return
            frame = frame.f_back

    def _compiled(self, event: str, duration_secs: float, **fields: str | int) -> None:
        """jax compiled a computation: count it at the innermost project line calling it; a function
        compiled again and again there (`_recompiled`) is a `recompiled` event, with its latest count."""
        if event != BACKEND_COMPILE:
            return
        try:
            stack = self.project.stack(1)
            if not stack:
                return
            site = (stack[0][0], stack[0][1])
            counted, calls = self.compiles.compiled(str(fields.get("fun_name", "")), site), self.calls.get(site, 0)
            if counted is None or not self._recompiled(*counted, calls=calls):
                return
            miss, count = counted
            where = [[*site, miss.column or _indent(*site)]]
            if miss.defined and miss.defined != site:
                where.append([*miss.defined, _indent(*miss.defined)])
            self.events.emit(
                "recompiled",
                where=where,
                function=miss.function,
                count=count,
                calls=calls,
                change=miss.change,
                fix=miss.fix,
            )
        except Exception:
            pass  # an observer never breaks the user's code

    # -- observers
    def _watch_output(self) -> None:
        real_print, real_debug_print = builtins.print, jax.debug.print
        observer = self

        def print_(*args, **kwargs):
            observer._output("print", args, through_libraries=True)
            return real_print(*args, **kwargs)

        @functools.wraps(real_debug_print)
        def debug_print(fmt, *args, **kwargs):
            if isinstance(fmt, str) and _TRACER_TEXT.search(fmt):
                observer._output("debug-print", (fmt,))
            return real_debug_print(fmt, *args, **kwargs)

        builtins.print, jax.debug.print = print_, debug_print  # type: ignore[assignment]
        for level in LOG_METHODS:  # before the level check: a disabled level still formats at trace time
            setattr(logging.Logger, level, self._logging(getattr(logging.Logger, level)))

    def _output(self, kind: str, values: Any, through_libraries: bool = False) -> None:
        """A tracer reached output: record the user's line that called print/logging, or (`through_libraries`)
        that called the library function that printed it (a library's own debug logging is not the user's)."""
        if values and tracing() and _has_tracer(values):  # not a message about tracers printed later
            # past logging's own frames: `logging.info` goes through the root logger
            where, detail = self.project.caller(2, skip=logging.__file__), ""
            if where is None and through_libraries:
                where, detail = next(iter(self.project.stack(2)), None), LIBRARY_OUTPUT
            if where:
                self.observed(kind, [[*where, _indent(*where)]], detail)

    def _logging(self, real: Callable) -> Callable:
        observer = self

        @functools.wraps(real)
        def log(logger, *args, **kwargs):
            observer._output("log", args)
            return real(logger, *args, **kwargs)

        return log

    def _watch_host_state(self) -> None:
        for group in (CLOCKS, HOST_RANDOM):
            for module, names in group.items():
                for name in names:
                    real = getattr(module, name, None)
                    if real is not None:
                        setattr(module, name, self._host_read(f"{module.__name__}.{name}", real))

    def _host_read(self, label: str, real: Callable) -> Callable:
        observer = self

        @functools.wraps(real)
        def read(*args, **kwargs):
            if tracing():
                where = observer.project.caller(1)
                if where:
                    observer.observed("host-state", [where], f"{label}() read while tracing")
            return real(*args, **kwargs)

        return read

    def _watch_jit(self, record: bool) -> None:
        """Each function the project's own jax.jit calls make counts its calls per line (`called`); with
        `record`, each function jitted records the arguments it is traced with."""
        real_jit = jax.jit
        observer = self

        @functools.wraps(real_jit)
        def jit(fun=None, *args, **kwargs):
            if fun is None:  # jax.jit(static_argnums=...) used as a decorator factory
                return functools.partial(jit, *args, **kwargs)
            jitted = real_jit(observer._recording(fun) if record else fun, *args, **kwargs)
            # a library's own jit (equinox, flax) keeps jax's object: only the project's calls are counted
            return _Counted(jitted, observer) if observer.project.caller(1) else jitted

        jax.jit = jit

    def _recording(self, fun: Callable) -> Callable:
        """`fun`, wrapped to record its arguments at trace time; one wrapper per function, so that jax's
        caches (keyed by the function) still hit when the user jits the same function again."""
        try:
            return self.wrappers[fun]
        except (KeyError, TypeError):
            pass
        wrapper = self._new_recording(fun)
        with contextlib.suppress(TypeError):
            self.wrappers[fun] = wrapper
        return wrapper

    def _new_recording(self, fun: Callable) -> Callable:
        code = getattr(inspect_unwrap(fun), "__code__", None)
        real = code and self.project.file(code.co_filename)
        if not real or not callable(fun):
            return fun
        name = getattr(inspect_unwrap(fun), "__qualname__", "")
        observer = self

        @functools.wraps(fun)
        def recorded(*args, **kwargs):
            label = f"{real}:{name}"
            if observer.signatures.get(label, 0) < SIGNATURES_PER_FUNCTION:
                try:
                    signature = {
                        "args": [abstract(a) for a in args],
                        "kwargs": {k: abstract(v) for k, v in kwargs.items()},
                    }
                except Unrecordable:
                    signature = None
                if signature is not None:
                    observer.signatures[label] = observer.signatures.get(label, 0) + 1
                    observer.events.emit("signature", file=real, function=name, signature=signature)
            return fun(*args, **kwargs)

        return recorded


class _Counted:
    """A function jax.jit made, its calls counted at the line that calls it (jax's own object takes no
    hook); everything else is the jitted function's: its attributes, and binding as a method."""

    def __init__(self, jitted: Any, observer: Observer) -> None:
        functools.update_wrapper(self, jitted)  # __wrapped__, __name__, __doc__...
        self._observer = observer

    def __call__(self, *args, **kwargs):
        try:
            self._observer.called(sys._getframe(1))
        except Exception:
            pass  # an observer never breaks the user's code
        return self.__wrapped__(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name == "__wrapped__":  # not set yet (a copy being made): no recursion
            raise AttributeError(name)
        return getattr(self.__wrapped__, name)

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        return self if instance is None else types.MethodType(self, instance)


UNCHECKED_TRANSFORMS = ("grad", "value_and_grad", "jacfwd", "jacrev", "hessian", "vmap", "jvp", "vjp", "linearize")
SCAN_DEPTH = 2
SCAN_ITEMS = 64


_NOT_RUN = object()


def _checked_as_jit(transformed: Callable, args: tuple, kwargs: dict, observer: Observer) -> Any:
    """An eager differentiation, its keys checked at trace level as jit checks them: jax's eager checker
    sees the forward pass of `jax.checkpoint` recomputed in the backward pass as a second use of the
    key, where jit (and jax's jaxpr check) see one. Check the whole function's jaxpr, check and update
    the keys passed in as a jit call does, and run it with the eager checker off. _NOT_RUN when the
    function does not trace (it needs concrete values): then the eager checker runs as usual."""
    try:
        from jax.experimental.key_reuse import _core as key_reuse
    except ImportError:
        return _NOT_RUN
    leaves = jax.tree_util.tree_leaves((args, kwargs))
    try:
        with observer.uncounted():  # a trace for the checker, not a call of the user's
            signature = key_reuse.function_type_signature(lambda a, k: transformed(*a, **k), args, kwargs)
    except jax.errors.KeyReuseError:
        raise  # jax's verdict at trace level, as under jit
    except Exception:
        return _NOT_RUN
    signature.check_signature(*leaves, funcname="the differentiated function")
    with jax.debug_key_reuse(False):
        out = transformed(*args, **kwargs)
    signature.update_consumption(leaves, jax.tree_util.tree_leaves(out))
    return out


def _project_tracers(project: Project) -> list[Any]:
    """The tracers the project's module globals hold (and the class attributes of its classes)."""
    found: list[Any] = []
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not project.file(path):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, type) and value.__module__ == module.__name__:  # a class of the project
                for attribute in list(vars(value).values()):
                    _tracers_in(attribute, found, SCAN_DEPTH - 1)
            else:
                _tracers_in(value, found, SCAN_DEPTH)
    return found


def _tracers_in(value: Any, found: list[Any], depth: int) -> None:
    """Tracers in `value`: itself, the items of a list, tuple, deque, set or dict, an object's attributes
    (the first SCAN_ITEMS of each), `depth` levels down."""
    if isinstance(value, jax.core.Tracer):
        if not any(value is f for f in found):
            found.append(value)
        return
    if (
        depth == 0
        or isinstance(value, (str, bytes, type))
        or callable(value)
        or type(value).__module__.startswith(("jax", "numpy"))
    ):
        return
    if isinstance(value, dict):
        items: Any = list(value.values())
    elif isinstance(value, (list, tuple, set, frozenset)) or type(value).__name__ == "deque":
        items = list(value)
    elif hasattr(value, "__dict__") and not isinstance(value, type(sys)):
        items = list(vars(value).values())
    else:
        return
    for item in items[:SCAN_ITEMS]:
        _tracers_in(item, found, depth - 1)


def _legacy_key_views() -> None:
    """Typed keys stand in for legacy `PRNGKey` keys (uint32 arrays of shape (..., 2)) under
    `jax_enable_custom_prng`: let code read them as the data they were, so that it runs on under the
    key-reuse checker. An index past the key's own dimensions (`key[1]`, `keys[:, 0]`) reads its data, and
    `np.asarray(key)` is its data; what typed keys already do is unchanged."""
    try:
        from jax._src.random.prng import PRNGKeyArray
    except ImportError:
        return
    real_getitem = PRNGKeyArray.__getitem__

    def getitem(self, index):
        entries = index if isinstance(index, tuple) else (index,)
        if sum(entry is not None and entry is not Ellipsis for entry in entries) > self.ndim:
            return jax.random.key_data(self)[index]
        return real_getitem(self, index)

    def array(self, dtype=None, context=None, copy=None):
        return np.asarray(jax.random.key_data(self), dtype=dtype)

    PRNGKeyArray.__getitem__, PRNGKeyArray.__array__ = getitem, array  # type: ignore[method-assign]


def _keep_escaped_tracer_checks() -> None:
    """With `jax_debug_key_reuse` on, jax's eager evaluation skips its check that no argument is a tracer
    (`core.check_eval_args`), so using a leaked tracer raises `TypeError: ... JVPTracer is not a valid JAX
    type` (eagerly) or a `safe_zip` ValueError (a jit call) instead of `UnexpectedTracerError`: run that
    check first, as jax does without the key-reuse checker, so that it changes nothing the leak check sees."""
    from jax._src import core

    eval_trace, lower = getattr(core, "EvalTrace", None), getattr(core, "full_lower", None)
    if eval_trace is None or lower is None or not hasattr(core, "check_eval_args"):
        return
    real_primitive, real_call = eval_trace.process_primitive, eval_trace.process_call

    def process_primitive(self, primitive, args, params, /):
        core.check_eval_args([lower(a) for a in args])
        return real_primitive(self, primitive, args, params)

    def process_call(self, primitive, f, tracers, params, /):
        core.check_eval_args([lower(t) for t in tracers])
        return real_call(self, primitive, f, tracers, params)

    eval_trace.process_primitive, eval_trace.process_call = process_primitive, process_call


def _indent(filename: str, line: int) -> int:
    """The column (from 1) where a line's code starts."""
    text = linecache.getline(filename, line)
    return len(text) - len(text.lstrip()) + 1


def inspect_unwrap(fun: Any) -> Any:
    while hasattr(fun, "__wrapped__"):
        fun = fun.__wrapped__
    return getattr(fun, "__func__", fun)


class _Misses(logging.Handler):
    def __init__(self, observer: Observer) -> None:
        super().__init__()
        self.observer = observer

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.observer.missed(record.getMessage())
        except Exception:
            pass  # an observer never breaks the user's code


class Unrecordable(Exception):
    """An argument whose abstract form cannot be written down (a custom pytree, an object)."""


def abstract(value: Any) -> dict[str, Any]:
    """A JSON form of an argument as jit saw it: arrays as shape and dtype, Python values as they are."""
    if isinstance(value, jax.core.Tracer) or isinstance(value, jax.Array):
        aval: Any = value.aval if isinstance(value, jax.core.Tracer) else jax.core.get_aval(value)  # type: ignore[attr-defined]
        if jax.dtypes.issubdtype(aval.dtype, jax.dtypes.prng_key):
            return {"key": list(aval.shape)}
        return {"array": [list(aval.shape), str(aval.dtype)]}
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"dict": {k: abstract(v) for k, v in value.items()}}
    if type(value) in (list, tuple):
        return {type(value).__name__: [abstract(v) for v in value]}
    if value is None or type(value) in (bool, int, float, str):
        return {"value": value}
    raise Unrecordable(type(value).__name__)


@functools.lru_cache(maxsize=None)
def _key_dtype() -> Any:
    return jax.eval_shape(lambda: jax.random.key(0)).dtype  # making a real key runs a computation: 0.1 s


def abstract_key(shape: tuple[int, ...] = ()) -> jax.ShapeDtypeStruct:
    """A typed PRNG key to trace with (no data)."""
    return jax.ShapeDtypeStruct(shape, _key_dtype())


def concrete(form: dict[str, Any]) -> Any:
    """The argument to trace with, from `abstract`'s form: arrays as jax.ShapeDtypeStruct (no data)."""
    if "array" in form:
        shape, dtype = form["array"]
        return jax.ShapeDtypeStruct(tuple(shape), np.dtype(dtype) if dtype != "bfloat16" else jax.numpy.bfloat16)
    if "key" in form:
        return abstract_key(tuple(form["key"]))
    if "dict" in form:
        return {k: concrete(v) for k, v in form["dict"].items()}
    if "list" in form:
        return [concrete(v) for v in form["list"]]
    if "tuple" in form:
        return tuple(concrete(v) for v in form["tuple"])
    return form["value"]
