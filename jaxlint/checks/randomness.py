"""JAX2xx: randomness. Keys that never change, and host randomness frozen at trace time.

Python code inside a staged traced scope (jit, vmap, pmap, a lax body...) runs once, while jax
traces it; only what flows through jax operations is computed again on each call. A literal seed,
a clock read, or a draw from NumPy's or Python's generator there becomes a constant of the traced
computation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import libcst as cst

from jaxlint.analysis.calls import argument
from jaxlint.analysis.keys import shape_only
from jaxlint.analysis.names import Names
from jaxlint.analysis.traced import TracedFunction, Transform
from jaxlint.analysis.values import Kind
from jaxlint.model.functions import RANDOMNESS_OFF, SELECTING_SAMPLERS
from jaxlint.model.transforms import LAX_BODIES, LOOP_BODIES, MAPS
from jaxlint.checks.base import Rule, code
from jaxlint.diagnostics import UNSAFE
from jaxlint.traversal import children, in_order

KEY_CONSTRUCTORS = frozenset({"jax.random.key", "jax.random.PRNGKey"})
_FOLD_IN = "jax.random.fold_in"

# Host values that differ from one Python call to the next, and that tracing freezes.
_CLOCKS = frozenset({
    "time.time", "time.time_ns", "time.perf_counter", "time.perf_counter_ns", "time.monotonic",
    "time.monotonic_ns", "time.process_time", "time.process_time_ns",
    "datetime.datetime.now", "datetime.datetime.utcnow", "datetime.datetime.today", "datetime.date.today",
})
_UUIDS = frozenset({"uuid.uuid1", "uuid.uuid4"})
_HOST_RNG_PREFIXES = ("numpy.random.", "random.")
_SEEDS = frozenset({"numpy.random.seed", "random.seed"})


def host_state_kind(qualified: str | None) -> str | None:
    """"rng", "seed", "clock" or "uuid" for a call that reads (or seeds) host state, else None."""
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


def call_text(call: cst.Call, limit: int = 40) -> str:
    """`f(args)` for a message, or `f(...)` when the arguments make it long."""
    text = code(call, limit)
    return text if text != "..." else f"{code(call.func)}(...)"


def _is_int_literal(expr: cst.BaseExpression) -> bool:
    """`0`, `-1`, `2**31 - 1`: an integer written in the source."""
    if isinstance(expr, cst.Integer):
        return True
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        return _is_int_literal(expr.expression)
    if isinstance(expr, cst.BinaryOperation):
        return _is_int_literal(expr.left) and _is_int_literal(expr.right)
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
class Context:
    """The traced function around a finding, as a message names it."""

    subject: str  # `f`, or `inner` (inside `f`) for a function nested in it
    function: str  # `f`: where a key or a value can be passed in
    phrase: str  # how it is traced: " by `jax.jit`", " as a helper called with tracers from `g`"
    transform: Transform | None  # where that happens
    role: str  # "call", "map", "loop" (a lax loop body), "branch" (a cond/switch branch), "helper"

    def how(self, line_of: Callable[[cst.CSTNode], int]) -> str:
        return f"{self.phrase} at {self.transform.where(line_of)}" if self.transform is not None else self.phrase

    @property
    def each(self) -> str:
        """Who sees the same constant."""
        return {"map": "every mapped example", "loop": "every iteration",
                "helper": "every run"}.get(self.role, "every call")

    @property
    def carrier(self) -> str:
        """How a key or a value gets into the function."""
        if self.role == "loop":
            return "through the loop carry (or the scanned operands)"
        if self.role == "branch":
            return "as an operand of the branch"
        return f"as an argument of {self.function}"


class _TraceTimeRule(Rule):
    """Shared by the JAX2xx rules: where Python code runs once, while a staged function is traced.

    Not in host callbacks (`jax.pure_callback`, `jax.debug.callback`...), which run with concrete
    values on every call, nor in functions only given to `jax.eval_shape`/`jax.make_jaxpr`, which
    are traced but never run; the analysis knows both.
    """

    def __init__(self, facts, reporter) -> None:
        super().__init__(facts, reporter)
        self._folded: set[cst.Call] = set()  # key constructors folded with varying data

    def visit_Call(self, node: cst.Call) -> None:
        if self.names.qualified(node.func) == _FOLD_IN:
            key, data = argument(node, 0, "key"), argument(node, 1, "data")
            if (isinstance(key, cst.Call) and self.names.qualified(key.func) in KEY_CONSTRUCTORS
                    and data is not None and not _is_int_literal(data)):
                self._folded.add(key)

    def trace_time_scope(self) -> TracedFunction | None:
        """The staged traced function whose Python code runs here only while it is traced, or None."""
        scope = self.facts.traced_scope
        if scope is None or not scope.staged or scope.only_traced_for_shapes:
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
        if _is_int_literal(seed):
            return "literal", None
        source = next(_host_state_calls(seed, self.names), None)
        if source is not None:
            return "host", source
        return None

    def describe(self, scope: TracedFunction) -> Context:
        """The traced function around this point, as messages name it."""
        name = "the lambda" if scope.name == "<lambda>" else f"`{scope.name}`"
        inner = next((n for n in reversed(self.facts.chain) if isinstance(n, cst.FunctionDef)), None)
        subject = name
        if inner is not None and inner is not self.facts.traced_node and scope.name != "<lambda>":
            subject = f"`{inner.name.value}` (inside `{scope.name}`)"
        transform = scope.trace
        if not scope.transforms and scope.entries:
            caller = scope.entries[0].caller
            return Context(subject, name, f" as a helper called from `{caller}`", transform, "helper")
        if transform is None:
            return Context(subject, name, "", None, "call")
        if transform.name in LOOP_BODIES:
            role = "loop"
        elif transform.name in LAX_BODIES:
            role = "branch"
        elif transform.name in MAPS:
            role = "map"
        else:
            role = "call"
        return Context(subject, name, f" by `{transform.name}`", transform, role)


class ConstantKeyInTraced(_TraceTimeRule):
    code = "JAX203"
    name = "constant-key-in-traced"
    summary = "A PRNG key from a literal seed, or seeded from the clock, inside a jitted or vmapped function"
    what_it_does = (
        "Flags `jax.random.key(...)` and `jax.random.PRNGKey(...)` inside a staged traced function (one "
        "under `jit`, `vmap`, `pmap`, `shard_map`, `checkpoint`, or a `lax.scan`/`fori_loop`/`while_loop`/"
        "`cond` body, and the functions nested in it) when the seed is an integer literal, or is computed "
        "from a value read on the host: `time.time()`, `time.time_ns()`, `time.perf_counter()`, "
        "`datetime.now()`, `np.random.*`, `random.*`, `uuid.uuid4()`."
    )
    why_bad = (
        "A key built from a literal is the same key on every call, so the function draws the same "
        "\"random\" numbers every time it runs: every training step gets the same dropout mask, every "
        "`scan` iteration and every `vmap`ped example the same noise. Seeding from the clock does not help "
        "inside a traced function: the Python code runs once, while jax traces it, so the clock is read "
        "once and its value is baked into the traced computation as a constant. No error is raised; the "
        "results are just not random."
    )
    example = (
        "import time\n\n"
        "import jax\n\n\n"
        "@jax.jit\n"
        "def add_noise(x):\n"
        "    key = jax.random.key(0)\n"
        "    return x + jax.random.normal(key, x.shape)\n\n\n"
        "@jax.jit\n"
        "def dropout(x):\n"
        "    key = jax.random.key(int(time.time()))\n"
        "    return jax.random.bernoulli(key, 0.9, x.shape) * x\n"
    )
    use_instead = (
        "import jax\n\n\n"
        "@jax.jit\n"
        "def add_noise(x, key):\n"
        "    return x + jax.random.normal(key, x.shape)\n\n\n"
        "key = jax.random.key(0)\n"
        "for x in batches:\n"
        "    key, subkey = jax.random.split(key)\n"
        "    y = add_noise(x, subkey)\n"
    )
    not_flagged = (
        "Keys made outside traced functions (a literal seed at the top of a script is the usual idiom), "
        "keys made from an argument (`jax.random.key(seed)` where `seed` is a parameter, traced or static), "
        "`jax.random.fold_in(jax.random.key(0), step)` with a data argument that is not a literal, a literal "
        "seed in a traced function that has no traced argument (`@jax.jit def init(): return "
        "model.init(jax.random.key(0), x)` returns the same result on every call anyway: a deterministic "
        "initialisation), and "
        "functions traced only by `grad` (their Python code runs on every call), by `jax.eval_shape` or "
        "`jax.make_jaxpr` (they are traced but never run), or passed to `jax.pure_callback`/"
        "`jax.debug.callback` (they run on the host at every call). A seed held in a module constant "
        "(`SEED = 0`) is not recognised. A literal seed in a test file (`test_*.py`, `*_test.py`, "
        "`conftest.py`, or under `tests/`), where a fixed key is how tests stay reproducible. A fixed key "
        "used only when none was given (`key if key is not None else jax.random.key(0)`, "
        "`if key is None: key = ...`, `key or ...`): a documented default. A fixed key given to a call that turns its randomness off by a literal keyword "
        "(`model.apply(params, x, rngs={\"dropout\": jax.random.key(0)}, train=False)`; also "
        "`deterministic=True`, `training=False`, `is_training=False`, `inference=True`, the conventions of "
        "flax, haiku and equinox): no number is drawn from it. A fixed key whose draws are read "
        "only for their shape and dtype (`jax.random.normal(jax.random.key(0), s).shape`, "
        "`jnp.zeros_like(...)`, `jax.eval_shape(f, ...)`, or `jax.tree.map(lambda x: jnp.empty(x.shape, "
        "x.dtype), buffer.sample(n, jax.random.key(0)))` to build a placeholder): no number drawn is used."
    )
    verify = "Not confirmed by `--verify`: the function runs without error, which is the bug."

    def __init__(self, facts, reporter) -> None:
        super().__init__(facts, reporter)
        self._fallbacks: set[int] = set()  # key constructors only run when no key was given
        self._for_shapes: set[int] = set()  # key constructors whose draws are read only for their shape

    def _mark_shape_only(self, node: cst.CSTNode) -> None:
        for part in shape_only(node, self.names):
            self._for_shapes.update(id(call) for call in _key_constructors(part, self.names))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._mark_shape_only(node)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        # `key if key is not None else jax.random.key(0)`: a documented default, not the key in use.
        tested = _none_test(node.test)
        if tested is not None:
            self._fallbacks.add(id(node.orelse if tested else node.body))

    def visit_If(self, node: cst.If) -> None:
        # `if key is None: key = jax.random.key(0)`, and the `else` of `if key is not None:`.
        tested = _none_test(node.test)
        if tested is None:
            return
        block = node.body if not tested else node.orelse.body if isinstance(node.orelse, cst.Else) else None
        for statement in getattr(block, "body", ()):
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Assign):
                        self._fallbacks.add(id(small.value))

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        if isinstance(node.operator, cst.Or):  # `key = key or jax.random.key(0)`
            self._fallbacks.add(id(node.right))

    def visit_Call(self, node: cst.Call) -> None:
        super().visit_Call(node)
        self._mark_shape_only(node)
        if _randomness_off(node):  # `model.apply(..., rngs={"dropout": key(0)}, train=False)`
            self._fallbacks.update(id(call) for call in _key_constructors(node, self.names))
        constant = self.constant_key(node)
        if constant is None or (constant[0] == "literal" and self.facts.in_test_file):
            return
        if id(node) in self._fallbacks or id(node) in self._for_shapes:
            return
        scope = self.trace_time_scope()
        if scope is None:
            return
        kind, source = constant
        if kind == "literal" and not scope.traced:
            return  # no traced input: the whole function is a constant, a deterministic init
        text = call_text(node, 60)
        where = self.describe(scope)
        fix = f"pass a key in {where.carrier} and `jax.random.split` it for each use"
        if kind == "literal":
            self.report(node, lambda line_of: (
                f"`{text}` makes the same key every time {where.subject} runs "
                f"(traced{where.how(line_of)}), so {where.each} draws the same numbers; {fix}"
            ))
        else:
            read = call_text(source)
            self.report(node, lambda line_of: (
                f"`{text}`: `{read}` is read only once, while {where.subject} is traced"
                f"{where.how(line_of)}, so the key is a constant and {where.each} draws the same numbers; "
                f"{fix}"
            ))


def _key_constructors(node: cst.CSTNode, names: Names):
    """The `jax.random.key/PRNGKey` calls inside `node`."""
    if isinstance(node, cst.Call) and names.qualified(node.func) in KEY_CONSTRUCTORS:
        yield node
    for child in children(node):
        yield from _key_constructors(child, names)


def _randomness_off(call: cst.Call) -> bool:
    """A call told by a literal keyword (`train=False`, `deterministic=True`) to draw nothing."""
    return any(arg.keyword is not None and isinstance(arg.value, cst.Name)
               and RANDOMNESS_OFF.get(arg.keyword.value) == arg.value.value for arg in call.args)


def _none_test(test: cst.BaseExpression) -> bool | None:
    """For `x is None`, False; for `x is not None`, True (whether a value was given); else None."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    target = test.comparisons[0]
    if not (isinstance(target.comparator, cst.Name) and target.comparator.value == "None"):
        return None
    if isinstance(target.operator, cst.IsNot):
        return True
    return False if isinstance(target.operator, cst.Is) else None


class StatefulRngInTraced(_TraceTimeRule):
    code = "JAX204"
    name = "stateful-rng-in-traced"
    summary = "NumPy or Python randomness, a clock or a uuid read inside a jitted or vmapped function"
    what_it_does = (
        "Flags calls that read host state inside a staged traced function (one under `jit`, `vmap`, `pmap`, "
        "`shard_map`, `checkpoint`, or a `lax.scan`/`fori_loop`/`while_loop`/`cond` body, and the functions "
        "nested in it): `numpy.random.*` (including `np.random.default_rng(...)`, `np.random.seed(...)` and "
        "the legacy `RandomState`), Python's `random.*`, `time.time()`, `time.time_ns()`, "
        "`time.perf_counter()`, `time.monotonic()`, `datetime.datetime.now()`/`utcnow()`/`today()`, "
        "`datetime.date.today()`, `uuid.uuid1()` and `uuid.uuid4()`, in any import spelling."
    )
    why_bad = (
        "The Python code of a traced function runs once, while jax traces it. A value drawn from NumPy's or "
        "Python's generator, or read from the clock, is computed at that moment and baked into the traced "
        "computation as a constant: every later call of the jitted function sees the same number, every "
        "`scan` iteration and every `vmap`ped example too. A generator created there "
        "(`np.random.default_rng()`) is created once as well, so whatever is drawn from it is frozen with "
        "it; seeding there (`np.random.seed(0)`) happens at trace time, and again whenever the function is "
        "retraced, not on each call. No error is raised."
    )
    example = (
        "import jax\n"
        "import numpy as np\n\n\n"
        "@jax.jit\n"
        "def add_noise(x):\n"
        "    return x + np.random.normal(size=x.shape)\n"
    )
    use_instead = (
        "import jax\n\n\n"
        "@jax.jit\n"
        "def add_noise(x, key):\n"
        "    return x + jax.random.normal(key, x.shape)\n"
    )
    not_flagged = (
        "These calls outside traced functions (a data loader, module-level setup, the training loop "
        "around a jitted step), in functions traced only by `grad` (their Python code runs on every call) "
        "or by `jax.eval_shape`/`jax.make_jaxpr` (never run), in callables passed to `jax.pure_callback`, "
        "`jax.debug.callback` or `io_callback` (they run on the host at every call), and `jax.random.*` "
        "calls. `uuid.uuid3`/`uuid5` are deterministic and not flagged. A generator created inside the "
        "traced function is reported where it is created, not at each draw from it. Draws from a generator "
        "created outside the traced function (`rng = np.random.default_rng(0)` at module level, then "
        "`rng.normal()` inside) are not recognised."
    )
    verify = "Not confirmed by `--verify`: the function runs without error, which is the bug."

    def __init__(self, facts, reporter) -> None:
        super().__init__(facts, reporter)
        self._covered: list[cst.Call] = []  # a reported call: calls in its arguments are not reported again

    def visit_Call(self, node: cst.Call) -> None:
        super().visit_Call(node)
        if self._covered:
            return
        kind = host_state_kind(self.names.qualified(node.func))
        if kind is None:
            return
        scope = self.trace_time_scope()
        if scope is None:
            return
        self._covered.append(node)
        what = call_text(node)
        where = self.describe(scope)
        if kind == "rng":
            fix = f"draw with `jax.random` from a key passed in {where.carrier}, or pass the value in"
        elif kind == "seed":
            self.report(node, lambda line_of: (
                f"`{what}` runs only once, while {where.subject} is traced{where.how(line_of)} (and again "
                f"at each retrace), reseeding the host generator at unpredictable times instead of on each "
                f"call; seed once on the host, and draw with `jax.random` from a key passed in "
                f"{where.carrier}"
            ))
            return
        else:
            fix = f"read it outside and pass it in {where.carrier}"
        self.report(node, lambda line_of: (
            f"`{what}` runs only once, while {where.subject} is traced{where.how(line_of)}: its value is "
            f"baked in as a constant and {where.each} sees the same one; {fix}"
        ))

    def leave_Call(self, node: cst.Call) -> None:
        if self._covered and self._covered[-1] is node:
            self._covered.pop()


def _split_first(ref: str) -> str:
    if "[" in ref and not ref.endswith(("']", '"]')):  # (`rngs['dropout']`: a dict's entry, split as a key)
        return f"use another item of the split for each draw (`{ref.split('[')[0]}[i]`)"
    return f"split it first: `{ref}, subkey = jax.random.split({ref})` and use `subkey`"


class PrngKeyReuse(Rule):
    code = "JAX201"
    name = "prng-key-reuse"
    summary = "One PRNG key consumed twice: identical or correlated random draws"
    what_it_does = (
        "Follows each PRNG key through a function (and at module level): variables bound to "
        "`jax.random.key/PRNGKey/split/fold_in/wrap_key_data/clone`, parameters that a call in the module "
        "passes a key (whatever their name: `k`, `state`), any name a `jax.random` function draws from "
        "(jax raises on anything but a key), parameters named like keys "
        "(`key`, `rng`, `prng_key`, `*_key`, `*_rng`; see `key-names`), the items `keys[0]`, `keys[1]` of a "
        "split, and `self.<key>` in a method. Flags a key consumed a second time, on some path, with no "
        "rebinding in between. Every `jax.random` sampler and `split` consume their key; so does a function "
        "of the same module that consumes its key parameter (directly or through its callees), at each call."
    )
    why_bad = (
        "JAX's random numbers are a pure function of the key: the same key gives the same numbers. Two "
        "samplers given one key return identical (or, for different distributions, correlated) values, and "
        "using a key after splitting it correlates the parent with its children. JAX does not warn, unless "
        "typed keys and `jax_debug_key_reuse` are used at run time."
    )
    example = (
        "key = jax.random.key(0)\n"
        "w = jax.random.normal(key, (3, 3))\n"
        "b = jax.random.normal(key, (3,))  # the same numbers as w's first row\n"
    )
    use_instead = (
        "key = jax.random.key(0)\n"
        "w_key, b_key = jax.random.split(key)\n"
        "w = jax.random.normal(w_key, (3, 3))\n"
        "b = jax.random.normal(b_key, (3,))\n"
    )
    not_flagged = (
        "A key consumed once in each branch of an `if`/`else`; `key, sub = jax.random.split(key)` before each "
        "use; `jax.random.fold_in(key, i)`, which derives a new key without consuming `key`; in a notebook, a "
        "key used once in each of several cells (each cell restarts an experiment from the notebook's key; "
        "reuse within one cell is flagged), and a notebook's own function given the notebook's key twice in "
        "a cell (each run is its own experiment: the same simulation at two settings); distinct items of "
        "one split (`keys[0]`, `keys[1]`); one key given to `jax.random.permutation` or `jax.random.choice` for two "
        "different arrays with the same other arguments (`permutation(key, x)`, `permutation(key, y)`): they "
        "select the same places of both, the idiom for shuffling inputs and labels together; one key given to "
        "the same function of the project for two different arrays with the same other arguments (`features(key, x, 64)`, `features(key, y, 64)`): "
        "one random map applied to both, as random-feature kernels need (two calls that differ in a size or a "
        "shape, `init_layer(key, 3, 8)`, `init_layer(key, 8, 1)`, are still flagged); a first draw bound "
        "to a name that nothing reads before a `return` holding the second (`theta = uniform(key)`, then "
        "`if n == 1: return uniform(key)`): on that path the first is dropped, so the two never meet; a first "
        "draw bound to names that are all bound again before anything reads them (`eval_keys = split(key, 4)` "
        "before a loop that does `key, *eval_keys = split(key, 5)` and only then evaluates): its numbers are "
        "never seen; the alternatives of `lax.select`/`select_n`/`jnp.where` (each "
        "element comes from one of them); two draws in a loop body one of which nobody reads (a warm-up "
        "run of a jitted function before the timed one); keys passed to functions of other modules (jaxlint cannot see "
        "whether they consume them); a key rebound by an unknown call. Test files (`test_*.py`, `*_test.py`, "
        "`conftest.py`, files under `tests/`), where reusing a key is how a test reproduces the same draws "
        "to compare two computations."
    )
    verify = "`--verify` traces with typed keys under `jax.debug_key_reuse(True)` and expects `KeyReuseError`."

    def visit_Call(self, node: cst.Call) -> None:
        if self.facts.in_test_file:
            return
        keys = self.facts.keys
        seen: dict[str, str] = {}
        for expr, ref, by in keys.uses(node):
            prior = keys.prior_use(ref)
            if prior is not None and (keys.unread(node) or keys.unread(prior.node)):
                continue  # one of the two draws is never read: a warm-up run before a timed one
            if prior is not None and _paired_selection(prior.node, node, self.names):
                continue  # `permutation(key, x)`, `permutation(key, y)`: two arrays shuffled together
            if prior is not None and self._same_transform_of_two_arrays(prior.node, node):
                continue  # `features(key, x)`, `features(key, y)`: one random map applied to both
            if prior is not None and self._dropped_before_return(prior.node, node):
                continue  # `theta = uniform(key)`, then `if n == 1: return uniform(key)`: never combined
            if prior is not None and self._rebound_before_read(prior.node):
                continue  # `keys = split(key, n)` that nothing reads before `key, *keys = split(key, n + 1)`
            if prior is not None:
                self.report(expr, lambda line_of, ref=ref, by=by, prior=prior: (
                    f"`{ref}` was already consumed by `{prior.by}` at line {line_of(prior.node)}; "
                    f"`{by}` {_reuse(by, prior.by)}: {_split_first(ref)}"
                ))
            elif ref in seen:
                self.report(expr, (
                    f"`{ref}` is consumed twice by this call (`{seen[ref]}` and `{by}`): {_split_first(ref)}"
                ))
            seen[ref] = by

    def _same_transform_of_two_arrays(self, first: cst.CSTNode, second: cst.Call) -> bool:
        """Two calls of one function of the project that differ only in one argument, an array in both
        (`_gaussian_kernel(rng, x, rank)`, `_gaussian_kernel(rng, y, rank)`): the same random map applied to
        two arrays, on purpose (random features must be shared for `k(x) @ k(y).T` to approximate a kernel).
        Not for jax.random's samplers (`normal(key, shape_a)`, `normal(key, shape_b)` draw the same bits)."""
        qualified = self.names.qualified(second.func)
        if not isinstance(first, cst.Call) or qualified is not None and qualified.startswith("jax."):
            return False
        if code(first.func, 10_000) != code(second.func, 10_000) or _keywords(first) != _keywords(second):
            return False
        differing = [(a.value, b.value) for a, b in zip(first.args, second.args)
                     if code(a.value, 10_000) != code(b.value, 10_000)]
        if len(differing) != 1:
            return False
        arrays = differing[0]
        return all(type(array) is cst.Name and self.facts.value_of(array).kind in (Kind.ARRAY, Kind.TRACED)
                   for array in arrays)

    def _function_in_order(self) -> list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] | None:
        """Everything in the body of the function around this point, in source order (`in_order`)."""
        function = next((n for n in reversed(self.facts.chain) if isinstance(n, cst.FunctionDef)), None)
        return None if function is None else list(in_order(function.body))

    def _dropped_before_return(self, first: cst.CSTNode, second: cst.Call) -> bool:
        """Whether the first draw is bound to a name that nothing reads from there to a `return` holding the
        second, with no loop around either: on the one path where both run, the first draw is dropped."""
        order = self._function_in_order()
        if order is None:
            return False
        where = {id(node): (index, ancestors) for index, (node, ancestors) in enumerate(order)}
        if id(first) not in where or id(second) not in where:
            return False
        (_, first_around), (_, second_around) = where[id(first)], where[id(second)]
        if any(isinstance(n, _LOOPS) for n in (*first_around, *second_around)):
            return False
        bound = next((n for n in reversed(first_around) if isinstance(n, cst.SimpleStatementLine)), None)
        returned = next((n for n in reversed(second_around) if isinstance(n, cst.SimpleStatementLine)), None)
        if bound is None or returned is None or not isinstance(returned.body[0], cst.Return):
            return False
        assign = bound.body[0] if len(bound.body) == 1 else None
        if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1
                and isinstance(assign.targets[0].target, cst.Name)):
            return False
        name = assign.targets[0].target.value
        start, end = where[id(bound)][0], where[id(returned)][0]
        after_bound = start + sum(1 for _ in in_order(bound))
        return start < end and not any(isinstance(node, cst.Name) and node.value == name
                                       for node, _ in order[after_bound:end + sum(1 for _ in in_order(returned))])

    def _rebound_before_read(self, first: cst.CSTNode) -> bool:
        """Whether the first draw is bound to names (`keys = split(key, n)`) that are each bound again before
        any read of them: in a block around the read, above it (Mava's trainers split an evaluation key once
        before their loop, then split it again in the loop before the evaluation uses it). Its numbers are
        never seen, so drawing from the same key again repeats nothing anyone sees."""
        order = self._function_in_order()
        if order is None:
            return False
        start = next((index for index, (node, _) in enumerate(order) if node is first), None)
        if start is None or any(isinstance(n, _LOOPS) for n in order[start][1]):
            return False  # (in a loop, the next iteration may read what this one drew)
        assign = next((n for n in reversed(order[start][1]) if isinstance(n, cst.SimpleStatementLine)), None)
        statement = assign.body[0] if assign is not None and len(assign.body) == 1 else None
        if not (isinstance(statement, cst.Assign) and statement.value is first):
            return False
        drawn = {id(name): name.value for target in statement.targets for name in _target_name_nodes(target.target)}
        stores: list[tuple[cst.CSTNode, ...]] = []  # later bindings: the nodes around their lines, and the line
        for node, ancestors in order[start + 1:]:
            if type(node) is not cst.Name or node.value not in drawn.values() or id(node) in drawn:
                continue
            block = _binding_block(node, ancestors)
            if block is not None:
                stores.append(block)
            elif not any(len(block) < len(ancestors) and all(a is b for a, b in zip(block, ancestors))
                         and ancestors[len(block)] is not line for *block, line in stores):
                return False  # a read the first draw may reach (the binding's own line reads first)
        return bool(drawn)


def _binding_block(name: cst.Name, ancestors: tuple[cst.CSTNode, ...]) -> tuple[cst.CSTNode, ...] | None:
    """For a name an assignment binds, the nodes around the assignment's line (its block and what encloses
    it) and the line itself, last; None for a name read."""
    for index in range(len(ancestors) - 1, -1, -1):
        node = ancestors[index]
        if type(node) is cst.AssignTarget:
            if not any(bound is name for bound in _target_name_nodes(node.target)):
                return None
            line = next(i for i in range(index, -1, -1) if type(ancestors[i]) is cst.SimpleStatementLine)
            return ancestors[:line + 1]
        if isinstance(node, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            return None
    return None


def _target_name_nodes(target: cst.BaseExpression) -> list[cst.Name]:
    """The Name nodes an assignment target binds (`a`, `a, *b`, `(a, b)`), not those it reads (`a[i]`, `a.b`)."""
    if type(target) is cst.Name:
        return [target]
    if type(target) is cst.StarredElement:
        return _target_name_nodes(target.value)
    if type(target) in (cst.Tuple, cst.List):
        return [name for element in target.elements for name in _target_name_nodes(element.value)]
    return []


_LOOPS = (cst.For, cst.While, cst.BaseComp, cst.Lambda)


def _paired_selection(first: cst.CSTNode, second: cst.Call, names: Names) -> bool:
    """Two calls of one selecting sampler (`SELECTING_SAMPLERS`) that differ only in the array they
    select from: the same places of two arrays, on purpose."""
    qualified = names.qualified(second.func)
    if (qualified not in SELECTING_SAMPLERS or not isinstance(first, cst.Call)
            or names.qualified(first.func) != qualified):
        return False
    position, keyword = SELECTING_SAMPLERS[qualified]
    arrays = [argument(call, position, keyword) for call in (first, second)]
    if any(array is None or _is_int_literal(array) for array in arrays) or code(arrays[0], 10_000) == code(arrays[1], 10_000):
        return False
    return _other_arguments(first, arrays[0]) == _other_arguments(second, arrays[1])


def _keywords(call: cst.Call) -> list[str | None]:
    """Each argument's keyword, None for a positional one."""
    return [arg.keyword.value if arg.keyword else None for arg in call.args]


def _other_arguments(call: cst.Call, array: cst.BaseExpression) -> list[tuple[str | None, str]]:
    """The arguments of `call` other than `array`, as (keyword, source text)."""
    return [(arg.keyword.value if arg.keyword else None, code(arg.value, 10_000))
            for arg in call.args if arg.value is not array]


def _reuse(by: str, before: str) -> str:
    """What a second use of one key does. Two draws get the same random bits; with a split on either
    side (jax 0.10's partitionable threefry) the bits differ, but both come from the one key."""
    if "split" in (by.rsplit(".", 1)[-1], before.rsplit(".", 1)[-1]):
        return "draws from the same key again (correlated randomness: jax's key-reuse checker rejects it)"
    return "gets the same random bits"


class KeyReuseInLoop(Rule):
    code = "JAX202"
    name = "key-reuse-in-loop"
    summary = "A PRNG key from outside a loop consumed in every iteration without being split"
    what_it_does = (
        "Flags a key bound outside a `for`/`while` loop or a comprehension, or a key a `lax.scan`, "
        "`fori_loop`, `while_loop` or `lax.map` body takes from its enclosing scope, when it is consumed "
        "inside and never rebound there."
    )
    why_bad = (
        "Each iteration gives the sampler the same key, so each iteration draws the same numbers: the "
        "'random' dropout mask, noise or minibatch is identical every step. Nothing fails."
    )
    example = (
        "key = jax.random.key(0)\n"
        "for step in range(num_steps):\n"
        "    noise = jax.random.normal(key, x.shape)\n"
        "    x = update(x, noise)\n"
    )
    use_instead = (
        "key = jax.random.key(0)\n"
        "for step in range(num_steps):\n"
        "    key, subkey = jax.random.split(key)\n"
        "    noise = jax.random.normal(subkey, x.shape)\n"
        "    x = update(x, noise)\n\n\n"
        "# or derive one key per step:\n"
        "for step in range(num_steps):\n"
        "    noise = jax.random.normal(jax.random.fold_in(key, step), x.shape)\n"
    )
    not_flagged = (
        "Keys rebound inside the loop (`key, sub = split(key)`), `fold_in(key, i)` per step, loop variables "
        "over a split (`for k in jax.random.split(key, n)`), keys carried through `lax.scan` as part of the "
        "carry or the scanned operands; the first iterable of a comprehension (evaluated once); "
        "`jax.random.permutation(key, a)` of each array `a` a loop goes through (`[permutation(key, a) for a in "
        "arrays]`: every array is shuffled the same way, which keeps inputs and labels paired); a draw whose "
        "values nobody reads (`keys = split(key, n)` only fed to jitted or vmapped functions whose results "
        "are dropped or only waited for, as a timing loop does); test files."
    )
    verify = "`--verify` traces with typed keys under `jax.debug_key_reuse(True)` and expects `KeyReuseError`."

    def visit_Call(self, node: cst.Call) -> None:
        keys = self.facts.keys
        if self.facts.in_test_file or keys.unread(node):
            return
        for expr, ref, by in keys.uses(node):
            if keys.prior_use(ref) is None and keys.reused_by_loop(ref) and not self._aligned_shuffle(node):
                self.report(expr, (
                    f"`{ref}` comes from outside the loop and `{by}` consumes it in every iteration, so every "
                    f"iteration draws the same numbers: split it inside the loop "
                    f"(`{ref}, subkey = jax.random.split({ref})`) or use `jax.random.fold_in({ref}, i)`"
                ))

    def _aligned_shuffle(self, call: cst.Call) -> bool:
        """`[permutation(key, a) for a in arrays]`: one key, a different array each iteration. Each array is
        shuffled the same way, on purpose: inputs and labels stay paired."""
        if self.names.qualified(call.func) != "jax.random.permutation":
            return False
        array = argument(call, *SELECTING_SAMPLERS["jax.random.permutation"])
        return array is not None and self.facts.keys.varies_per_iteration(array)


class LegacyPrngKey(Rule):
    code = "JAX205"
    name = "legacy-prng-key"
    summary = "`jax.random.PRNGKey` makes a legacy uint32 key instead of a typed key"
    default_enabled = False
    what_it_does = "Flags calls to `jax.random.PRNGKey(...)` (opt-in)."
    why_bad = (
        "Legacy keys are plain `uint32[2]` arrays: JAX cannot tell them from data, so its own key-reuse "
        "checker (`jax.config.update('jax_debug_key_reuse', True)`) ignores them, and they can be added, "
        "indexed and reshaped like numbers by mistake. `jax.random.key` makes a typed key with the same "
        "random stream semantics."
    )
    example = "key = jax.random.PRNGKey(0)\n"
    use_instead = "key = jax.random.key(0)\n"
    not_flagged = "`jax.random.key(...)` and keys received as arguments."
    verify = "Not applicable: legacy keys work; the rule is about making reuse checkable."
    fixable = True
    fix_safety = (
        "Unsafe: `PRNGKey(seed)` becomes `key(seed)`, spelled through the file's `jax.random` alias. Both "
        "give the same random numbers (and `jax.random.key_data` the same `uint32` data), but a typed key is "
        "not a `uint32[2]` array: code that saves or compares keys as numbers, or passes them to libraries "
        "expecting raw keys, needs `jax.random.key_data` at those places. No fix when the file uses the key, "
        "or a key split or folded from it, as data: indexed (`key[0]`) or unpacked, its `.shape`, `.dtype` "
        "or another attribute read, in arithmetic or a comparison, or given to a `numpy`/`jax.numpy`/"
        "`jax.lax` function, `jax.random.wrap_key_data` or `int()`/`len()`/`list()`... (jaxlint follows the "
        "names, not values passed to other modules)."
    )

    def visit_Module(self, node: cst.Module) -> None:
        self._module = node
        self._uses: _KeyUses | None = None

    def visit_Call(self, node: cst.Call) -> None:
        if self.names.qualified(node.func) == "jax.random.PRNGKey":
            if self._uses is None:
                self._uses = _KeyUses(self.names)
                self._module.visit(self._uses)
            fix = None if self._uses.used_as_data(node) else self.rename(node.func, "jax.random.key", UNSAFE)
            self.report(node, (
                "`jax.random.PRNGKey` makes a legacy uint32 key that JAX's key-reuse checker ignores; "
                "use `jax.random.key(...)`, a typed key"
            ), fix)


# Calls that make new keys from a key: a key array (`split`) or one key.
_DERIVED = {"jax.random.split": "array", "jax.random.fold_in": "single", "jax.random.clone": "single"}
_DATA_MODULES = ("numpy.", "jax.numpy.", "jax.lax.")
_DATA_FUNCTIONS = frozenset({"jax.random.wrap_key_data"})
_DATA_BUILTINS = frozenset({"int", "float", "complex", "bool", "len", "list", "tuple", "iter", "bytes", "sorted",
                            "sum", "min", "max"})


class _KeyUses(cst.CSTVisitor):
    """Whether a legacy key, or a key derived from it, is used as `uint32` data anywhere in a module.

    A typed key behaves differently there: `key[0]` raises, `key.shape` is `()`, `split(key).shape`
    is `(n,)`, NumPy refuses it. Names are followed through the whole module regardless of scope (a
    name used as data anywhere counts), and into the parameters of the module's functions that a key
    is passed to, so the answer errs towards "used as data".
    """

    def __init__(self, names) -> None:
        self._names = names
        self._stack: list[cst.CSTNode] = []
        self._uses: dict[str, list[tuple[cst.CSTNode, ...]]] = {}  # name -> each use and the nodes around it
        self._makers: dict[cst.Call, tuple[cst.CSTNode, ...]] = {}  # PRNGKey call -> it and the nodes around it
        self._bindings: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []  # (target, value)
        self._functions: dict[str, list[cst.FunctionDef]] = {}
        self._calls: list[cst.Call] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self._stack.append(node)
        if isinstance(node, cst.Name):
            self._uses.setdefault(node.value, []).append(self._around())
        elif isinstance(node, cst.Call) and self._names.qualified(node.func) == "jax.random.PRNGKey":
            self._makers[node] = self._around()
        elif isinstance(node, cst.Assign):
            self._bindings += [(target.target, node.value) for target in node.targets]
        elif isinstance(node, (cst.AnnAssign, cst.NamedExpr)) and node.value is not None:
            self._bindings.append((node.target, node.value))
        elif isinstance(node, (cst.For, cst.CompFor)):  # the loop variable: an item of the iterable
            item = cst.Subscript(node.iter, [cst.SubscriptElement(cst.Index(cst.Integer("0")))])
            self._bindings.append((node.target, item))
        elif isinstance(node, cst.FunctionDef):
            self._functions.setdefault(node.name.value, []).append(node)
        if isinstance(node, cst.Call) and isinstance(node.func, (cst.Name, cst.Attribute)):
            self._calls.append(node)
        return True

    def leave_Module(self, original_node: cst.Module) -> None:
        """Calls of the module's functions bind their parameters (`f(key)`, `self.f(key)`, by name too)."""
        for call in self._calls:
            name = call.func.value if isinstance(call.func, cst.Name) else call.func.attr.value
            for function in self._functions.get(name, ()):
                params = [p.name.value for p in (*function.params.posonly_params, *function.params.params)]
                if isinstance(call.func, cst.Attribute) and params[:1] in (["self"], ["cls"]):
                    params = params[1:]
                for position, arg in enumerate(call.args):
                    if arg.star:
                        break
                    param = arg.keyword.value if arg.keyword is not None else (
                        params[position] if position < len(params) else None)
                    if param is not None:
                        self._bindings.append((cst.Name(param), arg.value))

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self._stack.pop()
        super().on_leave(original_node)

    def _around(self) -> tuple[cst.CSTNode, ...]:
        """The node being visited and up to four nodes around it, innermost first."""
        return tuple(reversed(self._stack[-5:]))

    def used_as_data(self, call: cst.Call) -> bool:
        if _as_data("single", self._makers.get(call, (call,)), self._names):
            return True
        return any(_as_data(kind, around, self._names)
                   for name, kind in self._family(call).items() for around in self._uses.get(name, ()))

    def _family(self, call: cst.Call) -> dict[str, str]:
        """The names bound to the key `call` makes or to keys derived from it: "single" or "array"."""
        family: dict[str, str] = {}

        def kind_of(value: cst.BaseExpression) -> str | None:
            if value is call:
                return "single"
            if isinstance(value, cst.Name):
                return family.get(value.value)
            if isinstance(value, cst.Subscript) and kind_of(value.value) == "array":
                return "single"
            if isinstance(value, cst.Call):
                derived = _DERIVED.get(self._names.qualified(value.func) or "")
                key = argument(value, 0, "key")
                if derived is not None and key is not None and kind_of(key) is not None:
                    return derived
            return None

        changed = True
        while changed:
            changed = False
            for target, value in self._bindings:
                kind = kind_of(value)
                if isinstance(target, (cst.Tuple, cst.List)):
                    if kind != "array":
                        continue  # unpacking one key is using it as data (`_as_data` says so)
                    items = [(e.value.value, "array") if isinstance(e.value, cst.StarredElement) else
                             (e.value, "single") for e in target.elements]
                else:
                    items = [(target, kind)] if kind is not None else []
                for item, item_kind in items:
                    if isinstance(item, cst.Name) and family.get(item.value) not in (item_kind, "single"):
                        family[item.value] = item_kind
                        changed = True
        return family


def _as_data(kind: str, around: tuple[cst.CSTNode, ...], names) -> bool:
    """Whether a use of a key (`kind` "single", or "array" for a key array) treats it as `uint32` data;
    `around` is the use and the nodes around it, innermost first."""
    node, parent, outer = (*around, None, None)[:3]
    if isinstance(parent, cst.Element) and isinstance(outer, (cst.List, cst.Tuple)):
        return _as_data("array", around[2:], names)  # `jnp.stack([key, other])`
    if isinstance(parent, cst.Subscript) and parent.value is node:
        nested = isinstance(outer, (cst.Subscript, cst.Attribute)) and outer.value is parent
        return kind == "single" or len(parent.slice) > 1 or nested
    if isinstance(parent, cst.Attribute):
        return parent.value is node
    if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.AugAssign)):
        return True
    if isinstance(parent, cst.Comparison):
        return not all(isinstance(t.operator, (cst.Is, cst.IsNot)) for t in parent.comparisons)
    if isinstance(parent, cst.ComparisonTarget):
        return not isinstance(parent.operator, (cst.Is, cst.IsNot))
    if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is node:
        return kind == "single"
    if isinstance(parent, cst.Assign) and parent.value is node:
        return kind == "single" and any(isinstance(t.target, (cst.Tuple, cst.List)) for t in parent.targets)
    if isinstance(parent, cst.Arg) and isinstance(outer, cst.Call):
        qualified = names.qualified(outer.func)
        builtin = isinstance(outer.func, cst.Name) and outer.func.value in _DATA_BUILTINS and qualified is None
        return builtin or qualified in _DATA_FUNCTIONS or (qualified or "").startswith(_DATA_MODULES)
    return False
