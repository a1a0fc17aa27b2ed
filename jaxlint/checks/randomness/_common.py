"""What JAX203 and JAX204 share: the trace-time visit of staged functions and how messages name them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import libcst as cst

from jaxlint.analysis.calls import argument, arguments
from jaxlint.analysis.keys import KeyDefault
from jaxlint.analysis.names import Names
from jaxlint.analysis.traced import TracedFunction, AppliedTransform
from jaxlint.checks.base import Rule, code
from jaxlint.model.keys import FOLD_IN, KEY_CONSTRUCTORS
from jaxlint.model.transforms import LAX_BODIES, LOOP_BODIES, MAPS, PER_DEVICE
from jaxlint.traversal import children


# Host values that differ from one Python call to the next, and that tracing freezes.
_CLOCKS = frozenset(
    {
        "time.time",
        "time.time_ns",
        "time.perf_counter",
        "time.perf_counter_ns",
        "time.monotonic",
        "time.monotonic_ns",
        "time.process_time",
        "time.process_time_ns",
        "datetime.datetime.now",
        "datetime.datetime.utcnow",
        "datetime.datetime.today",
        "datetime.date.today",
    }
)
_UUIDS = frozenset({"uuid.uuid1", "uuid.uuid4"})
_HOST_RNG_PREFIXES = ("numpy.random.", "random.")
_SEEDS = frozenset({"numpy.random.seed", "random.seed"})


def host_state_kind(qualified: str | None) -> str | None:
    """ "rng", "seed", "clock" or "uuid" for a call that reads (or seeds) host state, else None."""
    if qualified is None:
        return None
    if qualified in _SEEDS:
        return "seed"
    if qualified.startswith(_HOST_RNG_PREFIXES):
        return "rng"
    if qualified in _CLOCKS:
        return "clock"
    if qualified in _UUIDS:
        return "uuid"
    return None


# Generators that a seed fixes: made from a seed written in the source, they give the same numbers wherever and
# however often they are made. (`Generator` and `RandomState` also take a bit generator: then it must be one.)
_SEEDED = frozenset(
    {
        "numpy.random.default_rng",
        "numpy.random.RandomState",
        "numpy.random.Generator",
        "numpy.random.SeedSequence",
        "numpy.random.PCG64",
        "numpy.random.PCG64DXSM",
        "numpy.random.MT19937",
        "numpy.random.Philox",
        "numpy.random.SFC64",
        "random.Random",
    }
)
_SEED_KEYWORDS = ("seed", "bit_generator", "entropy", "x")  # (`random.Random(x=0)`)


def seeded_generator(call: cst.Call, names: Names) -> bool:
    """Whether `call` makes a host generator from a literal seed (`np.random.default_rng(0)`,
    `RandomState(1729)`, `Generator(PCG64(1))`): what it draws is the same on every call, traced or not."""
    if names.qualified(call.func) not in _SEEDED:
        return False
    given = arguments(call)
    seed = next((given.keywords[name] for name in _SEED_KEYWORDS if name in given.keywords), None)
    if seed is None and given.positional:
        seed = given.positional[0]
    if seed is None:
        return False  # seeded from the operating system
    if isinstance(seed, (cst.Tuple, cst.List)):
        return bool(seed.elements) and all(is_int_literal(element.value) for element in seed.elements)
    return is_int_literal(seed) or (isinstance(seed, cst.Call) and seeded_generator(seed, names))


def call_text(call: cst.Call, limit: int = 40) -> str:
    """`f(args)` for a message, or `f(...)` when the arguments make it long."""
    text = code(call, limit)
    return text if text != "..." else f"{code(call.func)}(...)"


def is_int_literal(expr: cst.BaseExpression) -> bool:
    """`0`, `-1`, `2**31 - 1`: an integer written in the source."""
    if isinstance(expr, cst.Integer):
        return True
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        return is_int_literal(expr.expression)
    if isinstance(expr, cst.BinaryOperation):
        return is_int_literal(expr.left) and is_int_literal(expr.right)
    return False


def _host_state_calls(expr: cst.CSTNode, names: Names):
    """Calls inside `expr` (not inside a lambda) that read host state."""
    if isinstance(expr, cst.Lambda):
        return
    if isinstance(expr, cst.Call) and host_state_kind(names.qualified(expr.func)):
        yield expr
        return
    for child in children(expr):
        yield from _host_state_calls(child, names)


@dataclass(frozen=True)
class TraceSite:
    """The traced function around a finding, as a message names it."""

    subject: str  # `f`, or `inner` (inside `f`) for a function nested in it
    function: str  # `f`: where a key or a value can be passed in
    phrase: str  # how it is traced: " by `jax.jit`", " as a helper called with tracers from `g`"
    transform: AppliedTransform | None  # where that happens
    role: str  # "call", "map", "loop" (a lax loop body), "branch" (a cond/switch branch), "helper"

    def how(self, line_of: Callable[[cst.CSTNode], int]) -> str:
        return f"{self.phrase} at {self.transform.where(line_of)}" if self.transform is not None else self.phrase

    @property
    def each(self) -> str:
        """Who sees the same constant (a helper: who sees it in the caller's trace, a lax loop's or a map's)."""
        role = self.role
        if role == "helper" and self.transform is not None:
            name = self.transform.name
            role = "loop" if name in LOOP_BODIES else "map" if name in MAPS and name not in PER_DEVICE else role
        return {"map": "every mapped example", "loop": "every iteration", "helper": "every run"}.get(role, "every call")

    @property
    def carrier(self) -> str:
        """How a key or a value gets into the function."""
        if self.role == "loop":
            return "through the loop carry (or the scanned operands)"
        if self.role == "branch":
            return "as an operand of the branch"
        return f"as an argument of {self.function}"


class TraceTimeRule(Rule):
    """Shared by the JAX2xx rules: where Python code runs once, while a staged function is traced.

    Not in host callbacks (`jax.pure_callback`, `jax.debug.callback`...), which run with concrete
    values on every call, nor in functions only given to `jax.eval_shape`/`jax.make_jaxpr`, which
    are traced but never run; the analysis knows both.
    """

    def __init__(self, facts, reporter) -> None:
        super().__init__(facts, reporter)
        self._folded: set[cst.Call] = set()  # key constructors folded with varying data

    def visit_Call(self, node: cst.Call) -> None:
        if self.names.qualified(node.func) == FOLD_IN:
            key, data = argument(node, 0, "key"), argument(node, 1, "data")
            if (
                isinstance(key, cst.Call)
                and self.names.qualified(key.func) in KEY_CONSTRUCTORS
                and data is not None
                and not is_int_literal(data)
            ):
                self._folded.add(key)

    def trace_time_scope(self) -> TracedFunction | None:
        """The staged traced function whose Python code runs here only while it is traced, or None (also in a
        branch no trace enters)."""
        scope = self.facts.traced_scope
        if scope is None or not scope.staged or scope.only_traced_for_shapes or self.facts.in_untraced_branch:
            return None
        return scope

    def constant_key(self, call: cst.Call) -> tuple[str, cst.Call | None] | None:
        """For `jax.random.key/PRNGKey(...)` with a seed fixed at trace time: ("literal", None) or
        ("host", the host-state call it is seeded from). None otherwise."""
        if self.names.qualified(call.func) not in KEY_CONSTRUCTORS or call in self._folded:
            return None
        seed = argument(call, 0, "seed")
        if seed is None:
            return None
        if is_int_literal(seed):
            return "literal", None
        source = next(_host_state_calls(seed, self.names), None)
        if source is not None:
            return "host", source
        return None

    def describe(self, scope: TracedFunction) -> TraceSite:
        """The traced function around this point, as messages name it."""
        name = "the lambda" if scope.name == "<lambda>" else f"`{scope.name}`"
        inner = next((n for n in reversed(self.facts.chain) if isinstance(n, cst.FunctionDef)), None)
        subject = name
        if inner is not None and inner is not self.facts.traced_node and scope.name != "<lambda>":
            subject = f"`{inner.name.value}` (inside `{scope.name}`)"
        transform = scope.trace
        if not scope.transforms and scope.entries:
            callers = list(dict.fromkeys(entry.caller for entry in scope.entries))
            if len(callers) > 1:  # (which of them runs this point, the message does not know)
                listed = ", ".join(f"`{caller}`" for caller in callers)
                return TraceSite(subject, name, f" as a helper called from traced functions ({listed})", None, "helper")
            return TraceSite(subject, name, f" as a helper called from `{callers[0]}`", transform, "helper")
        if transform is None:
            return TraceSite(subject, name, "", None, "call")
        if transform.name in LOOP_BODIES:
            role = "loop"
        elif transform.name in LAX_BODIES:
            role = "branch"
        elif transform.name in MAPS:
            role = "map"
        else:
            role = "call"
        return TraceSite(subject, name, f" by `{transform.name}`", transform, role)


def one_default_key(default: KeyDefault, line_of: Callable[[cst.CSTNode], int]) -> str:
    """How a finding names a key default (keys.key_default): made once, when the def runs."""
    if default.default is None:  # another module's
        return (
            f"the default of `{default.function}`'s `{default.param}` is one key, made once when its def ran (in "
            f"another module)"
        )
    made = default.default
    shown = call_text(made) if type(made) is cst.Call else code(made, 40)
    return (
        f"the default of `{default.function}`'s `{default.param}` (`{shown}`) is one key, made once when the def ran "
        f"(line {line_of(made)})"
    )
