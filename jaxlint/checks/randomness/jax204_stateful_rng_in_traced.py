"""JAX204 stateful-rng-in-traced: NumPy or Python randomness, a clock or a uuid read inside a jitted or vmapped
function."""

from __future__ import annotations

import libcst as cst

from jaxlint.checks.randomness._common import TraceTimeRule, call_text, host_state_kind, seeded_generator


class StatefulRngInTraced(TraceTimeRule):
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
    use_instead = "import jax\n\n\n@jax.jit\ndef add_noise(x, key):\n    return x + jax.random.normal(key, x.shape)\n"
    not_flagged = (
        "These calls outside traced functions (a data loader, module-level setup, the training loop "
        "around a jitted step), in functions traced only by `grad` (their Python code runs on every call) "
        "or by `jax.eval_shape`/`jax.make_jaxpr` (never run), in callables passed to `jax.pure_callback`, "
        "`jax.debug.callback` or `io_callback` (they run on the host at every call), and `jax.random.*` "
        "calls. `uuid.uuid3`/`uuid5` are deterministic and not flagged, nor is a generator made from a seed "
        "written in the source (`np.random.RandomState(1729)`, `np.random.default_rng(0)`, "
        "`np.random.Generator(np.random.PCG64(1))`, `random.Random(0)`): it draws the same numbers at every call "
        "whether traced or not, so tracing freezes nothing. A generator created inside the "
        "traced function is reported where it is created, not at each draw from it. Draws from a generator "
        "created outside the traced function (`rng = np.random.default_rng(0)` at module level, then "
        "`rng.normal()` inside) are not recognised. A clock read in a function traced only by `jax.vmap` applied "
        "and called outside any trace: vmap runs the Python again at every call (it keeps no trace), so the "
        "clock is read at each call, and one time for every example of the batch is the batch's time."
    )
    verify = (
        "`--verify` traces the function with the host's clocks and random generators recorded, and confirms "
        "when one is read at this line while tracing (its value is frozen into the traced function)."
    )

    def __init__(self, facts, reporter) -> None:
        super().__init__(facts, reporter)
        self._covered: list[cst.Call] = []  # a reported call: calls in its arguments are not reported again

    def visit_Call(self, node: cst.Call) -> None:
        super().visit_Call(node)
        if self._covered:
            return
        kind = host_state_kind(self.names.qualified(node.func))
        if kind is None or seeded_generator(node, self.names):
            return
        scope = self.trace_time_scope()
        if scope is None or kind == "clock" and scope.retraced_each_call:
            return  # (under a bare `jax.vmap` the clock is read at each call: the batch's one time is its time)
        self._covered.append(node)
        what = call_text(node)
        where = self.describe(scope)
        if kind == "rng":
            fix = f"draw with `jax.random` from a key passed in {where.carrier}, or pass the value in"
        elif kind == "seed":
            self.report(
                node,
                lambda line_of: (
                    f"`{what}` runs only once, while {where.subject} is traced{where.how(line_of)} (and again "
                    f"at each retrace), reseeding the host generator at unpredictable times instead of on each "
                    f"call; seed once on the host, and draw with `jax.random` from a key passed in "
                    f"{where.carrier}"
                ),
            )
            return
        else:
            fix = f"read it outside and pass it in {where.carrier}"
        self.report(
            node,
            lambda line_of: (
                f"`{what}` runs only once, while {where.subject} is traced{where.how(line_of)}: its value is "
                f"baked in as a constant and {where.each} sees the same one; {fix}"
            ),
        )

    def leave_Call(self, node: cst.Call) -> None:
        if self._covered and self._covered[-1] is node:
            self._covered.pop()
