"""JAX508 state-mutation-in-traced: A jitted (staged) function writes `self.attr`, a global, a closure variable or an
outside container."""

from __future__ import annotations

import libcst as cst

from typing import cast

from jaxlint.analysis.bindings import declared_outer, mentioned_names, parameter_names, rebound_names
from jaxlint.analysis.loop_guards import constant
from jaxlint.analysis.name_reads import NameReads
from jaxlint.analysis.stable_fields import INITIALISERS, stable_fields
from jaxlint.analysis.scopes import assigned_values
from jaxlint.checks.base import Rule, code
from jaxlint.checks.compilation._common import how_traced
from jaxlint.model.functions import JAX
from jaxlint.model.transforms import LAX_BODIES
from jaxlint.traversal import children, in_order


def _stored_elsewhere(cls: cst.ClassDef, attribute: str, node: cst.Assign) -> bool:
    """Whether a method of `cls` stores another value in `self.<attribute>` anywhere but in `node`: its initialisers
    apart, and a store of the same constant too (`self.alt_res = False` in two methods: it only ever holds that)."""
    known, value = constant(node.value)
    for statement in cls.body.body:
        if type(statement) is not cst.FunctionDef or statement.name.value in INITIALISERS:
            continue
        for inner, _ in in_order(statement.body):
            if inner is node or type(inner) not in (cst.Assign, cst.AugAssign, cst.AnnAssign):
                continue
            if type(inner) is cst.Assign:
                targets = [t.target for t in inner.targets]
                same = known and constant(inner.value) == (True, value)
            else:
                targets = [cast("cst.AugAssign | cst.AnnAssign", inner).target]
                same = False
            if not same and any(type(t) is cst.Attribute and t.attr.value == attribute for t in targets):
                return True
    return False


def _contains(tree: cst.CSTNode, node: cst.CSTNode) -> bool:
    """Whether `node` is `tree` or inside it."""
    return tree is node or any(_contains(child, node) for child in children(tree))


# Constructors of mutable Python containers: a name bound to one of these is visibly a container.
_CONTAINER_CALLS = frozenset(
    {
        "list",
        "dict",
        "set",
        "collections.defaultdict",
        "collections.OrderedDict",
        "collections.deque",
        "collections.Counter",
    }
)
_CONTAINER_LITERALS = (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)
_MUTATORS = frozenset("append extend insert appendleft extendleft update add setdefault".split())


class StateMutationInTraced(Rule):
    code = "JAX508"
    name = "state-mutation-in-traced"
    summary = "A jitted (staged) function writes `self.attr`, a global, a closure variable or an outside container"
    what_it_does = (
        "Flags, in a function jax stages (`jit`, `vmap`, `pmap`, lax bodies, helpers they call), a write that "
        "outlives the call: `self.attr = v` in a method jax traces itself with `self` bound or static "
        "(`jax.jit(self.step)`, `@partial(jax.jit, static_argnums=0)` on a method), assigning a `global` or `nonlocal` name (`count += 1`), or mutating a list, dict or set "
        "defined outside the function (`CACHE[k] = v`, `history.append(v)`, `seen.add(v)`, `d.update(...)`) "
        "with a value that is not traced. Stores of traced values are JAX308's (`tracer-leak`)."
    )
    why_bad = (
        "A staged function's Python body runs only while jax traces it. The write happens on the first call "
        "(and whenever jax retraces), not on every call: a counter stops counting, a flag set inside stays "
        "set, an appended history has one entry. Measured on jax 0.10.2: a jitted function doing "
        "`nonlocal calls; calls += 1` called three times with same-shaped arguments leaves `calls == 1`. "
        "[The Sharp Bits: pure functions]"
        "(https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions) "
        "asks for functions whose state goes in and out through arguments and return values."
    )
    example = (
        "class Trainer:\n"
        "    def __init__(self):\n"
        "        self.steps = 0\n"
        "        self.step = jax.jit(self._step)\n\n"
        "    def _step(self, params, grads):\n"
        "        self.steps += 1\n"
        "        return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)\n"
    )
    use_instead = (
        "class Trainer:\n"
        "    def __init__(self):\n"
        "        self.steps = 0\n"
        "        self._jitted = jax.jit(self._step)\n\n"
        "    def step(self, params, grads):\n"
        "        self.steps += 1  # outside the trace: runs on every call\n"
        "        return self._jitted(params, grads)\n\n"
        "    def _step(self, params, grads):\n"
        "        return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)\n"
    )
    not_flagged = (
        "Containers and names local to the traced function (or to functions that run inside the same trace); "
        "writes in a function traced only by a bare `jax.vmap` (no jit around it), which runs its Python at every "
        "call; `self.attr = value` where the value is made only of what the object keeps from its construction, "
        "modules and functions (`self.loss_fn = lambda p: jax.grad(self.loss)(p)`, `self.buffer = "
        "make_buffer(self.config)`, `self.alt_res = False`) and no other method stores another value in `self.attr`: "
        "every call would store an equal value; "
        "containers of the function that defines a `lax.scan`/`fori_loop`/`while_loop`/`cond` body and runs it "
        "(each call makes a new body, which jax traces again, so the write happens on every call); "
        "containers the function received as arguments; a global written by a function that tests it (a lazy "
        "initialisation, `if _cache is None: _cache = load()` or `if _loaded: return`, meant to run once: a traced "
        "value stored there is JAX308's); calls on objects that are not visibly a list, dict "
        "or set (`opt.update(...)` of optax returns new state); `self` writes in methods only called from a "
        "trace (an object built inside it) and in `flax.nnx`/`equinox` transformed methods (those transforms "
        "carry module state); `self` writes in a jitted or pmapped method whose `self` is not static "
        "(not in `static_argnums`/`static_argnames`/`static_broadcasted_argnums`): jax flattens `self` at each "
        "call (a pytree, or the call raises TypeError: JAX503) and rebuilds it from tracers, so the writes go to "
        "that per-call copy, which leaves the trace when the method returns it; the getter of a `@property` given as `jax.jit(self.F)` (Python runs it, on every "
        "access, before jax sees the function it returns); functions under `grad` alone, which run on every call; test files, where "
        "counting traces with a `nonlocal` counter is how retracing is tested."
    )
    verify = "Not confirmed by `--verify` yet."

    def __init__(self, facts, reporter) -> None:
        super().__init__(facts, reporter)
        self._once: dict[int, bool] = {}  # by function: whether it initialises its globals once (_initialises_once)

    def _report_write(self, node: cst.CSTNode, where: str) -> None:
        scope = self.facts.traced_scope
        assert scope is not None  # called for writes in a traced function only
        self.report(
            node,
            lambda line_of: (
                f"`{scope.name}` ({how_traced(scope, line_of)}) writes {where}: the write runs once, while jax "
                f"traces it, not on every call; return the new state instead and keep it outside the traced function"
            ),
        )

    def _staged(self) -> bool:
        scope = self.facts.traced_scope
        return (
            scope is not None
            and scope.staged
            and not scope.only_traced_for_shapes
            and not scope.retraced_each_call  # (a bare `jax.vmap` runs the Python, and the write, at every call)
            and not self.facts.in_test_file
        )

    def _untraced(self, expr: cst.BaseExpression | None) -> bool:
        """Not a traced value (those are JAX308's): static, a concrete array, or unknown."""
        return expr is None or not self.facts.staged_value(expr).staged

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._staged() and self._untraced(node.value):
            for target in node.targets:
                self._check_write(target.target, node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self._staged() and self._untraced(node.value):
            self._check_write(node.target, node)

    def _check_write(self, target: cst.BaseExpression, node: cst.CSTNode) -> None:
        if isinstance(target, cst.Name) and self.facts.is_global(target.value):
            if not self._initialises_once():
                self._report_write(node, f"the global `{target.value}`")
        elif isinstance(target, cst.Name) and self.facts.is_nonlocal(target.value):
            if self.facts.outlives_trace(target.value):
                self._report_write(node, f"`{target.value}`, a variable of an enclosing function")
        elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            if self._outside_container(target.value.value):
                self._report_write(node, f"into `{target.value.value}`, defined outside it")
        elif (attribute := self._self_attribute(target)) is not None:
            if type(node) is cst.Assign and type(target) is cst.Attribute and self._same_every_call(attribute, node):
                return
            self._report_write(node, f"`{code(target)}`")

    def _initialises_once(self) -> bool:
        """Whether the function around this point tests a global it writes (`if _cache is None: _cache = load()`,
        `if _loaded: return`): a lazy initialisation, meant to run once, which is what running at the trace does."""
        function = next((scope for scope in reversed(self.facts.chain) if type(scope) is cst.FunctionDef), None)
        if function is None:
            return False
        if id(function) not in self._once:
            written = declared_outer(function.body) & rebound_names(function.body)
            self._once[id(function)] = bool(written) and any(
                type(node) is cst.If and bool(written & mentioned_names(node.test))
                for node, _ in in_order(function.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda))
            )
        return self._once[id(function)]

    def _same_every_call(self, attribute: str, node: cst.Assign) -> bool:
        """`self.loss_fn = lambda p: jax.grad(self.loss)(p)`, `self.buffer = make_buffer(self.config.size)`: a
        value made of what the object keeps from its construction, modules and functions only (no parameter, no
        local, no attribute something changes; a lambda's body runs later), stored where nothing else in the class
        stores: every call would store an equal value, so storing it once, at the trace, loses nothing."""
        chain = self.facts.chain
        method = next((scope for scope in reversed(chain) if type(scope) is cst.FunctionDef), None)
        place = chain.index(method) if method is not None else 0
        cls = chain[place - 1] if place > 0 else None
        if method is None or type(cls) is not cst.ClassDef:
            return False
        stable = stable_fields(cast(cst.Module, chain[0]))
        params = parameter_names(method.params)
        own = (set(params[1:]) | rebound_names(method.body)) - set(params[:1])
        reads = NameReads()
        node.value.visit(reads)
        if own & set(reads.names) or stable.dynamic:
            return False
        for part, _ in in_order(node.value, skip=(cst.Lambda, cst.FunctionDef)):
            if (
                type(part) is cst.Attribute
                and type(part.value) is cst.Name
                and part.value.value in params[:1]
                and not stable.keeps(cls, part.attr.value)
            ):
                return False  # an attribute that some method changes (this one, say)
        return not _stored_elsewhere(cls, attribute, node)

    def _self_attribute(self, target: cst.BaseExpression) -> str | None:
        """`self.attr` (or `self.attr[k]`) in a method jax itself traces."""
        while isinstance(target, cst.Subscript):
            target = target.value
        function = self.facts.function
        if not (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == "self"
            and function is not None
        ):
            return None
        if any(t.name.startswith(JAX) for t in function.transforms) and not function.rebuilt_self:
            return target.attr.value
        return None

    def _outside_container(self, name: str) -> bool:
        """A list, dict or set bound outside the traced function (at module level or in an enclosing one)."""
        if not self.facts.outlives_trace(name):
            return False
        inside = set(map(id, self.facts.trace_functions()))
        for scope in reversed(self.facts.chain):
            if id(scope) in inside or not isinstance(scope, (cst.Module, cst.FunctionDef)):  # a class or a lambda
                continue
            bound = assigned_values(scope.body if isinstance(scope, cst.FunctionDef) else list(scope.body), name)
            if bound:
                if self._staged_afresh_by(scope):
                    return False
                return all(value is not None and self._is_container(value) for value in bound)
            if isinstance(scope, cst.FunctionDef) and name in parameter_names(scope.params):
                return False
        return False

    def _staged_afresh_by(self, function: cst.CSTNode) -> bool:
        """Whether the traced function is a lax body (`scan`, `fori_loop`, `cond`, ...) defined in `function`
        and staged there: a new closure on each call of `function`, so traced again on each, and its writes
        into `function`'s containers happen on every call, as they read."""
        traced = self.facts.traced_scope
        if not isinstance(function, cst.FunctionDef) or traced is None or not traced.transforms:
            return False
        return all(
            transform.name in LAX_BODIES and _contains(function.body, transform.node) for transform in traced.transforms
        )

    def _is_container(self, value: cst.BaseExpression) -> bool:
        if isinstance(value, _CONTAINER_LITERALS):
            return True
        if isinstance(value, cst.Call):
            func = value.func
            builtin = (
                isinstance(func, cst.Name)
                and func.value in ("list", "dict", "set")
                and self.names.qualified(func) is None
            )
            return builtin or self.names.qualified(func) in _CONTAINER_CALLS
        return False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (type(func) is cst.Attribute and func.attr.value in _MUTATORS and self._staged()):
            return
        if not all(self._untraced(arg.value) for arg in node.args):
            return  # a traced value stored: JAX308
        receiver = func.value
        if isinstance(receiver, cst.Name) and self._outside_container(receiver.value):
            self._report_write(node, f"into `{receiver.value}` (`.{func.attr.value}`), defined outside it")
        elif (attribute := self._self_attribute(receiver)) is not None and self._container_attribute(attribute):
            self._report_write(node, f"into `{code(receiver)}` (`.{func.attr.value}`)")

    def _container_attribute(self, attribute: str) -> bool:
        """Whether the method's class binds `self.<attribute>` (or the class attribute) only to lists, dicts or sets,
        somewhere: an attribute that holds what a caller gave (a replay buffer whose `add` returns a new state)
        is not visibly a container."""
        cls = next((scope for scope in reversed(self.facts.chain) if isinstance(scope, cst.ClassDef)), None)
        if cls is None:
            return False
        bound = _attribute_values(cls, attribute)
        return bool(bound) and all(value is not None and self._is_container(value) for value in bound)


def _attribute_values(cls: cst.ClassDef, attribute: str) -> list[cst.BaseExpression | None]:
    """What a class's body and its methods assign to `<attribute>` (class attribute) and `self.<attribute>`."""
    found: list[cst.BaseExpression | None] = list(assigned_values(list(cls.body.body), attribute))
    for statement in cls.body.body:
        if not isinstance(statement, cst.FunctionDef):
            continue
        for node, _ in in_order(statement.body):
            if isinstance(node, cst.Assign):
                targets = [target.target for target in node.targets]
            elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
                targets = [node.target]
            else:
                continue
            for target in targets:
                if _is_self_attribute(target, attribute):
                    found.append(node.value)
    return found


def _is_self_attribute(target: cst.BaseExpression, attribute: str) -> bool:
    return (
        isinstance(target, cst.Attribute)
        and isinstance(target.value, cst.Name)
        and target.value.value == "self"
        and target.attr.value == attribute
    )
