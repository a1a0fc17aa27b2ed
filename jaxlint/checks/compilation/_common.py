"""What several JAX5xx rules share: how messages name a jitted callee and how a function is traced."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from jaxlint.analysis.callees import Argument, JittedCallee
from jaxlint.analysis.traced import TracedFunction
from jaxlint.checks.base import code
from jaxlint.traversal import children
from jaxlint.checks.tracers._common import debug_print_fix  # noqa: F401 (JAX509 fixes a print as JAX306 does)


def compile_count_confirms(times: str, because: str, runs: str = "a script or the tests under `--verify=run`") -> str:
    """A recompilation rule's page: how `--verify`'s compile count (verify/recompiles.py) confirms it."""
    return (
        "`--verify` counts every compile of a jitted function at the line that calls it, with jax's reason "
        "(`jax_explain_cache_misses`), and confirms when the function at this line is compiled at every call of "
        f"one line, {times} or more, because {because}. The loop must run: module-level code under `--verify`, "
        f"{runs}."
    )


def option_text(callee: JittedCallee, *options: str) -> str:
    return ", ".join(f"{option}={code(callee.options[option])}" for option in options if callee.gives(option))


def static_arguments(found: tuple[JittedCallee, list[Argument]] | None) -> Iterator[tuple[JittedCallee, Argument]]:
    """The arguments in static positions, from `jitted_arguments`' answer for a call."""
    if found is not None:
        callee, arguments = found
        yield from ((callee, argument) for argument in arguments if argument.static)


def static_position(callee: JittedCallee, argument: Argument, call: cst.Call) -> str:
    """`static argument `shape` of `pad_to` (static_argnums=1)`, for a message."""
    options = option_text(callee, "static_argnums", "static_argnames", "static_broadcasted_argnums")
    param = f" `{argument.param}`" if argument.param else ""
    return f"static argument{param} of `{callee_name(call)}` ({options})"


def callee_name(call: cst.Call) -> str:
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else "the jitted function"


def how_traced(scope: TracedFunction, line_of) -> str:
    """`staged by `jax.jit` at line 9`, or `called from `body` at line 31, traced by `jax.lax.scan``."""
    trace = scope.trace
    if trace is None:
        return "traced"
    if scope.transforms:
        return f"staged by `{trace.name}` at {trace.where(line_of)}"
    caller = (
        scope.entries[0].caller if scope.entries else next((t.caller for t in scope.traced.values() if t.caller), None)
    )
    origin = f" from `{caller}`" if caller else ""
    return f"called{origin} at {trace.where(line_of)}, traced by `{trace.name}`"


def returns(function: cst.FunctionDef) -> list[cst.Return]:
    """The `return` statements of a def's own body (nested defs and classes left out)."""
    found: list[cst.Return] = []

    def walk(node: cst.CSTNode) -> None:
        for child in children(node):
            if isinstance(child, cst.Return):
                found.append(child)
            elif not isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                walk(child)

    walk(function.body)
    return found


def reads(node: cst.CSTNode, name: str) -> int:
    """How many times `name` is read in `node` (where an assignment or a def binds it left out)."""
    if isinstance(node, cst.Name):
        return int(node.value == name)
    if isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Name):
        return 0
    skipped = node.name if isinstance(node, cst.FunctionDef) else None
    return sum(reads(child, name) for child in children(node) if child is not skipped)
