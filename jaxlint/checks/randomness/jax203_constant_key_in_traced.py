"""JAX203 constant-key-in-traced: A PRNG key from a literal seed, or seeded from the clock, inside a jitted or vmapped
function."""

from __future__ import annotations

from typing import Callable, NamedTuple, cast

import libcst as cst

from jaxlint.analysis.bindings import parameter_names
from jaxlint.analysis.calls import argument
from jaxlint.analysis.keys import drawn_key, drawn_names, randomness_off, read_for_shapes, shape_only
from jaxlint.analysis.module_aliases import bound_once
from jaxlint.analysis.module_memo import ModuleMemo
from jaxlint.analysis.names import Names
from jaxlint.analysis.repetition import Repeat
from jaxlint.analysis.traced import TracedFunction
from jaxlint.analysis.values import Kind
from jaxlint.checks.base import LoopRule
from jaxlint.checks.randomness._common import TraceSite, TraceTimeRule, call_text
from jaxlint.model.classes import LAYER_BASES
from jaxlint.model.keys import FOLD_IN, KEY_CONSTRUCTORS
from jaxlint.model.transforms import LOOP_BODIES, MAPS, PER_DEVICE, TREE_MAPS
from jaxlint.traversal import TOKENS_BUT_NAMES, branches


class ConstantKeyInTraced(TraceTimeRule, LoopRule):
    code = "JAX203"
    name = "constant-key-in-traced"
    summary = "A PRNG key from a literal seed, or seeded from the clock, inside a jitted or vmapped function"
    what_it_does = (
        "Flags `jax.random.key(...)` and `jax.random.PRNGKey(...)` inside a staged traced function (one "
        "under `jit`, `vmap`, `pmap`, `shard_map`, `checkpoint`, or a `lax.scan`/`fori_loop`/`while_loop`/"
        "`cond` body, and the functions nested in it) when the seed is an integer literal, or is computed "
        "from a value read on the host: `time.time()`, `time.time_ns()`, `time.perf_counter()`, "
        "`datetime.now()`, `np.random.*`, `random.*`, `uuid.uuid4()`. A seed read from the host is flagged "
        "wherever it is traced (the clock says fresh numbers were meant); a literal seed where the code runs "
        "the draws again for fresh numbers: in each iteration of a lax loop, for each example of a `vmap`, on "
        "every leaf of a `jax.tree.map`, at each call from a Python loop (of this module or another: "
        "`for batch in data: state = train_step(state, batch)`, through the helpers on the way), or in place of a "
        "key the function is given (`def train(rng): rng = jax.random.key(0)`). A helper a traced function calls "
        "is part of that function's program whatever it is given (`noise(x.shape)`, `mask()`): its literal seed is "
        "a constant of a program whose inputs change. Also a literal-seeded key drawn "
        "from in the forward pass of a layer, the `__call__` of a flax, haiku or equinox Module and the methods "
        "it runs through `self`, traced or not: "
        "the layer runs at every step (`jax.random.bernoulli(jax.random.key(0), p, x.shape)`, "
        "`hk.dropout(jax.random.PRNGKey(42), rate, x)`); and so a draw there from the module's own key "
        "(`randkey = jax.random.key(seed)` at its top, the name's one binding, which no function rebinds through "
        "`global`): made once, it is the same key at every step."
    )
    why_bad = (
        "A key built from a literal is the same key on every call, so the function draws the same "
        '"random" numbers every time it runs: every training step gets the same dropout mask, every '
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
        "    return jax.random.bernoulli(key, 0.9, x.shape) * x\n\n\n"
        "for x in batches:\n"
        "    y = add_noise(x)\n"
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
        "A literal seed in a traced function that nothing shows to run again for fresh numbers: called once "
        "(a simulation from a fixed seed is a reproducible experiment), from code the module does not show, or "
        "under `pmap` alone (every device runs the same program: replicas that agree, one initialisation on "
        "every device, are the norm). "
        "Keys made outside traced functions (a literal seed at the top of a script is the usual idiom), but "
        "for a module's key drawn from in a layer's forward pass; "
        "keys made from an argument (`jax.random.key(seed)` where `seed` is a parameter, traced or static), "
        "`jax.random.fold_in(jax.random.key(0), step)` with a data argument that is not a literal (also through a name "
        "read only as `fold_in(base, i)` with traced data, a loop index or a step), a literal "
        "seed in a traced function that has no traced argument, nor a traced caller that has one (`@jax.jit def "
        "init(): return model.init(jax.random.key(0), x)` returns the same result on every call anyway: a "
        "deterministic initialisation), and "
        "functions traced only by `grad` (their Python code runs on every call), by `jax.eval_shape` or "
        "`jax.make_jaxpr` (they are traced but never run), or passed to `jax.pure_callback`/"
        "`jax.debug.callback` (they run on the host at every call). A seed held in a module constant "
        "(`SEED = 0`) is not recognised. A literal seed in a test file (`test_*.py`, `*_test.py`, "
        "`conftest.py`, or under `tests/`), where a fixed key is how tests stay reproducible. A fixed key "
        "used only when none was given (`key if key is not None else jax.random.key(0)`, "
        "`if key is None: key = ...`, `key or ...`): a documented default. A fixed key given to a call that turns its randomness off by a literal keyword "
        '(`model.apply(params, x, rngs={"dropout": jax.random.key(0)}, train=False)`; also '
        "`deterministic=True`, `training=False`, `is_training=False`, `inference=True`, the conventions of "
        "flax, haiku and equinox): no number is drawn from it. A fixed key whose draws are read "
        "only for their shape and dtype (`jax.random.normal(jax.random.key(0), s).shape`, "
        "`jnp.zeros_like(...)`, `jax.eval_shape(f, ...)`, or `jax.tree.map(lambda x: jnp.empty(x.shape, "
        "x.dtype), buffer.sample(n, jax.random.key(0)))` to build a placeholder; `u = model.sample(jax.random.key(0))` "
        "then only `u.shape`, or `flat, unravel = ravel_pytree(u)` then only `flat.shape` and `flat.dtype`: the "
        "`unravel` function is built from the tree's structure, shapes and dtypes): no number drawn is used. A "
        "fixed key bound to a name that nothing in the function reads (`rng = jax.random.key(0)` left over): "
        "nothing draws from it. In a layer's forward pass, a fixed key that nothing there draws from as made "
        "(the default of a parameter, a key handed to `initialize_carry` or to a variable's initializer)."
    )
    verify = (
        "`--verify` confirms a key seeded from the clock: it traces the function with the host's clocks recorded "
        "and confirms when one is read at this line while tracing. A literal seed raises nothing: unverified."
    )

    # A literal seed is a finding only where the same numbers are drawn again: the loop that runs the traced
    # function is known at the module's end, so those wait for it.
    follows_calls = False  # calls are followed here, traced ones included (see visit_Call)

    def __init__(self, facts, reporter) -> None:
        super().__init__(facts, reporter)
        self._fallbacks: set[int] = set()  # key constructors only run when no key was given
        self._for_shapes: set[int] = set()  # key constructors whose draws are read only for their shape
        # Key constructors bound to a name nothing draws from as it is: never read, or only folded with data.
        self._unread: set[int] = set()
        self._replacing: dict[int, str] = {}  # key constructors bound over a parameter: its name
        # Literal keys, with the function or lambda around them and the def whose callers are followed.
        self._waiting: list[_Waiting] = []
        self._per_leaf: dict[int, cst.Call] = {}  # functions and lambdas a tree map runs on every leaf: its call
        self._drawn: set[int] = set()  # key constructors a call draws from as they are made (`bernoulli(key(0), p)`)
        # Defs called from a traced scope, by the traced function calling them: a helper given no tracer is part of
        # its caller's program, which varies from call to call when some traced function on the way has an input.
        self._called_in_trace: dict[int, list[cst.FunctionDef]] = {}
        self._fed: set[int] = set()  # defs called from a traced function that has a traced input

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

    def visit_Assign(self, node: cst.Assign) -> None:
        # `rng = jax.random.key(0)` in a function that never reads `rng`: no number is drawn from it; nor when every
        # read folds data into it (`fold_in(base_key, i)`, as `fold_in(jax.random.key(42), i)` written inline).
        target = node.targets[0].target if len(node.targets) == 1 else None
        function = self.facts.chain[-1]  # (in a class body, `self.rng` would read it)
        if (
            isinstance(target, cst.Name)
            and isinstance(node.value, cst.Call)
            and self.names.qualified(node.value.func) in KEY_CONSTRUCTORS
            and isinstance(function, cst.FunctionDef)
            and _reads_only_folded(function, target.value, self.names, self._traced)
        ):
            self._unread.add(id(node.value))
        elif (
            isinstance(target, cst.Name)
            and isinstance(node.value, cst.Call)
            and self.names.qualified(node.value.func) in KEY_CONSTRUCTORS
            and isinstance(function, cst.FunctionDef)
            and target.value in parameter_names(function.params)
        ):
            self._replacing[id(node.value)] = target.value  # `def train(rng): rng = jax.random.key(0)`
        elif isinstance(target, cst.Name) and isinstance(function, cst.FunctionDef):
            # `u = model.sample_U(jax.random.key(0))` read only for shapes: the numbers drawn are never seen
            keys = list(_key_constructors(node.value, self.names))
            if keys and read_for_shapes(function, target.value, self.names):
                self._for_shapes.update(id(call) for call in keys)
        if (
            isinstance(target, cst.Name)
            and isinstance(node.value, cst.Call)
            and self.names.qualified(node.value.func) in KEY_CONSTRUCTORS
            and isinstance(function, cst.FunctionDef)
            and target.value in drawn_names(function.body, self.names, drawn_key)
        ):
            self._drawn.add(id(node.value))  # `key = jax.random.key(0)`, then `bernoulli(key, p)`

    def _traced(self, expr: cst.BaseExpression) -> bool:
        return self.facts.value_of(expr).kind is Kind.TRACED

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        if isinstance(node.operator, cst.Or):  # `key = key or jax.random.key(0)`
            self._fallbacks.add(id(node.right))

    def visit_Call(self, node: cst.Call) -> None:
        super().visit_Call(node)
        self._follow(node)
        self._mark_shape_only(node)
        drawn = drawn_key(node, self.names)
        if drawn is not None:
            self._drawn.add(id(drawn[0]))
            if type(drawn[0]) is cst.Name:
                self._module_key_in_layer(node, drawn[0])
        if randomness_off(node):  # `model.apply(..., rngs={"dropout": key(0)}, train=False)`
            self._fallbacks.update(id(call) for call in _key_constructors(node, self.names))
        constant = self.constant_key(node)
        if constant is None or (constant[0] == "literal" and self.facts.in_test_file):
            return
        if id(node) in self._fallbacks or id(node) in self._for_shapes or id(node) in self._unread:
            return
        layer = self.facts.layer_forward() if id(node) in self._drawn else None
        if layer is not None:
            self._report_in_layer(node, layer[0], LAYER_BASES[layer[1]])
            return
        scope = self.trace_time_scope()
        if scope is None:
            return
        kind, source = constant
        # No traced input: the function is a constant (a deterministic init), unless it is a helper of a traced
        # function that has one: then its numbers are the same at every call of a program whose inputs change.
        constant_program = kind == "literal" and not scope.traced
        if constant_program and (scope.transforms or not scope.entries):
            return
        text = call_text(node, 60)
        where = self.describe(scope)
        fix = _fix(where)
        if kind == "host":
            assert source is not None  # `constant_key` gives the call read for a non-literal key
            read = call_text(source)
            self.report(
                node,
                lambda line_of: (
                    f"`{text}`: `{read}` is read only once, while {where.subject} is traced"
                    f"{where.how(line_of)}, so the key is a constant and {where.each} draws the same numbers; "
                    f"{fix}"
                ),
            )
        elif id(node) in self._replacing:
            given = self._replacing[id(node)]
            self.report(
                node,
                lambda line_of: (
                    f"`{text}` replaces the key `{given}` that {where.subject} is given "
                    f"(traced{where.how(line_of)}), so every call draws the same numbers whatever key it is "
                    f"given; split the key `{given}` instead"
                ),
            )
        elif _repeats_within_a_run(scope) and not constant_program:
            self.report(node, _within_run_message(text, where))
        else:
            owner = next((n for n in reversed(self.facts.chain) if isinstance(n, (cst.FunctionDef, cst.Lambda))), None)
            function = next((n for n in reversed(self.facts.chain) if isinstance(n, cst.FunctionDef)), None)
            if owner is not None:
                within_run = constant_program and _repeats_within_a_run(scope)
                self._waiting.append(_Waiting(node, text, where, owner, function, constant_program, within_run))

    def _report_in_layer(self, node: cst.Call, cls: cst.ClassDef, fresh: str) -> None:
        """A fixed key drawn in a layer's forward pass: each call of the layer, traced or not, draws the same numbers."""
        text = call_text(node, 60)
        self.report(
            node,
            f"`{text}` makes the same key at every call of `{cls.name.value}.__call__`{self._through()}, a layer's forward pass, which "
            f"runs at every step: every step draws the same numbers (the same dropout mask); take a fresh key each call "
            f"({fresh})",
        )

    def _through(self) -> str:
        """How a message names the method of a forward pass here, when it is not `__call__` itself."""
        method = next(n for n in reversed(self.facts.chain) if isinstance(n, cst.FunctionDef)).name.value
        return f" (through `self.{method}`)" if method != "__call__" else ""

    def _module_key_in_layer(self, call: cst.Call, key: cst.Name) -> None:
        """A draw in a layer's forward pass from the module's key (`randkey = jax.random.key(seed)` at the top, its one
        binding): a key made once, read at every step, so every step draws the same numbers."""
        layer = self.facts.layer_forward()
        if layer is None or self.facts.in_test_file:
            return
        found = self.facts.binding(key)
        if (
            found is None
            or len(found[1]) != 1
            or found[0] is not _module_constants(cast(cst.Module, self.facts.chain[0])).get(key.value)
        ):
            return  # (bound in a function, more than once, or by a function declaring it `global`)
        made = found[0]
        if type(made) is not cst.Call or self.names.qualified(made.func) not in KEY_CONSTRUCTORS:
            return
        cls, base = layer
        text, through = call_text(call, 60), self._through()
        self.report(
            key,
            lambda line_of: (
                f"`{text}` draws from `{key.value}`, the module's key made once at line {line_of(made)}, in "
                f"`{cls.name.value}.__call__`{through}, a layer's forward pass, which runs at every step: every step "
                f"draws the same numbers; take a fresh key each call ({LAYER_BASES[base]})"
            ),
        )

    def _follow(self, call: cst.Call) -> None:
        """Which def `call` runs, traced calls included: a helper's draws are part of the computation of the
        function that calls it, and run each time that does; a jitted function's, each time it is called. A tree
        map runs its function once per leaf."""
        if self.names.qualified(call.func) in TREE_MAPS:
            mapped = argument(call, 0, "f")
            found = self.facts.binding(mapped, want_def=True) if type(mapped) is cst.Name else None
            if type(mapped) is cst.Lambda or found is not None:
                self._per_leaf[id(mapped if found is None else found[0])] = call
        found = self.facts.binding(call.func, want_def=True)  # a def, or a method through `self`
        function = found[0] if found is not None else None
        if type(function) is not cst.FunctionDef:
            callee = self.facts.jitted(call)  # `step = jax.jit(f)`, then `step(x)`
            function = callee.function if callee is not None else None
        if type(function) is cst.FunctionDef:
            self.runs(call, function)
            scope = self.facts.traced_scope
            if scope is not None:
                if scope.traced:
                    self._fed.add(id(function))
                elif type(self.facts.traced_node) is cst.FunctionDef:
                    self._called_in_trace.setdefault(id(self.facts.traced_node), []).append(function)

    def _fed_defs(self) -> set[int]:
        """The defs a traced function with a traced input calls, directly or through helpers given none."""
        fed = set(self._fed)
        stack = list(fed)
        while stack:
            for callee in self._called_in_trace.get(stack.pop(), ()):
                if id(callee) not in fed:
                    fed.add(id(callee))
                    stack.append(id(callee))
        return fed

    def leave_Module(self, node: cst.Module) -> None:
        fed = self._fed_defs()
        for call, text, where, owner, function, constant_program, within_run in self._waiting:
            if constant_program and (function is None or id(function) not in fed):
                continue
            if within_run:
                self.report(call, _within_run_message(text, where))
                continue
            tree_map = self._per_leaf.get(id(owner))
            repeat = self.repeat(function) if tree_map is None and function is not None else None
            if tree_map is not None:
                self.report(call, _per_leaf_message(text, where, tree_map, self.names.qualified(tree_map.func)))
            elif repeat is not None:
                self.report(call, _repeated_message(text, where, repeat))


_module_constants = ModuleMemo(bound_once)


class _Waiting(NamedTuple):
    """A literal key whose finding waits for the module's end: for the loop that runs it, or (`constant_program`:
    in a helper given no tracer) for a traced caller that has a traced input."""

    call: cst.Call
    text: str
    where: TraceSite
    owner: cst.CSTNode
    function: cst.FunctionDef | None
    constant_program: bool
    within_run: bool  # drawn again in each iteration of a lax loop or each example of a map


def _within_run_message(text: str, where: TraceSite):
    return lambda line_of: (
        f"`{text}` makes the same key every time {where.subject} runs "
        f"(traced{where.how(line_of)}), so {where.each} draws the same numbers; {_fix(where)}"
    )


def _fix(where: TraceSite) -> str:
    return f"pass a key in {where.carrier} and `jax.random.split` it for each use"


def _repeated_message(text: str, where: TraceSite, repeat: Repeat):
    return lambda line_of: (
        f"`{text}` makes the same key every time {where.subject} runs (traced{where.how(line_of)}), and "
        f"{repeat.describe(line_of)} runs it again and again, so every run draws the same numbers; {_fix(where)}"
    )


def _per_leaf_message(text: str, where: TraceSite, tree_map: cst.Call, name: str | None):
    return lambda line_of: (
        f"`{text}` makes the same key every time {where.subject} runs (traced{where.how(line_of)}), and "
        f"`{name}` at line {line_of(tree_map)} runs it on every leaf, so every leaf draws the same numbers; {_fix(where)}"
    )


def _repeats_within_a_run(scope: TracedFunction) -> bool:
    """Whether one run of the traced function draws its constant key's numbers again and again: in each iteration
    of a lax loop, for each example of a map. (Not for each device of a `pmap`: every device runs the same
    program, and replicas that agree are the norm.)"""
    trace = scope.trace
    if trace is None:
        return False
    return trace.name in LOOP_BODIES or (trace.name in MAPS and trace.name not in PER_DEVICE)


def _key_constructors(node: cst.CSTNode, names: Names):
    """The `jax.random.key/PRNGKey` calls inside `node`, in source order. (Every assignment in a function
    asks, in every round: the walk skips tokens and tests node types by `type`, not ABC isinstance.)"""
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Call and names.qualified(current.func) in KEY_CONSTRUCTORS:
            yield current
        stack.extend(reversed(branches(current)))


def _reads_only_folded(
    function: cst.FunctionDef, name: str, names: Names, traced: Callable[[cst.BaseExpression], bool]
) -> bool:
    """Whether `name` appears in `function` (nested functions included) only as the one target that binds it and as
    the key of `jax.random.fold_in` with traced data (a loop index, a step: a key of its own for each value), and is
    not declared global or nonlocal (read elsewhere, then). (Read in place: libcst's visit rebuilds every
    node, and every assignment of a key constructor's call asks.)"""
    count = folded = 0
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Name:
            count += cast(cst.Name, node).value == name
        elif kind is cst.Attribute or kind is cst.Arg:
            stack.append(cast("cst.Attribute | cst.Arg", node).value)  # `a.rng` does not read `rng`, nor `f(rng=v)`
        else:
            if (kind is cst.Global or kind is cst.Nonlocal) and any(
                item.name.value == name for item in cast("cst.Global | cst.Nonlocal", node).names
            ):
                return False
            if kind is cst.Call and _folds(cast(cst.Call, node), name, names, traced):
                folded += 1
            stack.extend(branches(node, TOKENS_BUT_NAMES))
    return count == 1 + folded


def _folds(call: cst.Call, name: str, names: Names, traced: Callable[[cst.BaseExpression], bool]) -> bool:
    """`jax.random.fold_in(name, data)` with traced data."""
    if names.qualified(call.func) != FOLD_IN:
        return False
    key, data = argument(call, 0, "key"), argument(call, 1, "data")
    return type(key) is cst.Name and key.value == name and data is not None and traced(data)


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
