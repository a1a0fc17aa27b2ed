"""JAX514 stale-attribute-capture: A jitted function reads an attribute of an object that a method of its class
updates: the compiled function keeps the value it read when traced."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import cast

import libcst as cst

from jaxlint.analysis.bindings import parameter_names, rebound_names
from jaxlint.analysis.traced import AppliedTransform, TracedFunction
from jaxlint.checks.base import Rule
from jaxlint.model.functions import SAME_VALUE
from jaxlint.model.transforms import CACHED_BY_FUNCTION
from jaxlint.traversal import in_order

_SKIP = (cst.ClassDef,)


class StaleAttributeCapture(Rule):
    code = "JAX514"
    name = "stale-attribute-capture"
    summary = (
        "A jitted function reads `self.attr`, which a method of the class updates: the old value stays compiled in"
    )
    what_it_does = (
        "Flags, in a function jax stages and caches (`jax.jit`, `pmap`), a read of `self.<attr>` where `self` is "
        "the Python object, not an argument jax traces: a method jitted with `self` static "
        "(`@partial(jax.jit, static_argnums=0)`), a function `__init__` defines and jits (`self.unroll = "
        "jax.jit(unroll)` reading `self.key`), a method such a function calls, or a function nested in one (a loss "
        "under `jax.grad` in a jitted update): a jit that lives as long as the object. It flags the read when another "
        "method of the class updates that attribute from its old value (`self.params = self.params - lr * g`, "
        "`self.key, sub = jax.random.split(self.key)`, `self.step += 1`), and the class is a plain class of this "
        "module (no decorator, no bases but `object` or such classes): nothing rebuilds its instances."
    )
    why_bad = (
        "jax reads `self.params` while it traces the function and keeps the value as a constant of the compiled "
        "function; later calls with the same object and same-shaped arguments reuse it, so the update is silently "
        "ignored (checked with jax 0.10.2: an agent's `act` keeps acting with its first parameters after "
        "`update`; an evaluator that splits `self.key` before each run draws the same noise every run; a class "
        "defining `__hash__` and `__eq__` from the attribute does not help, as the same object mutated is "
        "still found in the cache). See "
        "[JAX FAQ: how to use jit with methods](https://docs.jax.dev/en/latest/faq.html#how-to-use-jit-with-methods)."
    )
    example = (
        "from functools import partial\n\n"
        "import jax\n\n\n"
        "class Agent:\n"
        "    def __init__(self, params):\n"
        "        self.params = params\n\n"
        "    @partial(jax.jit, static_argnums=0)\n"
        "    def act(self, obs):\n"
        "        return obs @ self.params\n\n"
        "    def update(self, grads):\n"
        "        self.params = self.params - 0.1 * grads\n"
    )
    use_instead = (
        "import jax\n\n\n"
        "@jax.jit\n"
        "def _act(params, obs):\n"
        "    return obs @ params\n\n\n"
        "class Agent:\n"
        "    def __init__(self, params):\n"
        "        self.params = params\n\n"
        "    def act(self, obs):\n"
        "        return _act(self.params, obs)\n\n"
        "    def update(self, grads):\n"
        "        self.params = self.params - 0.1 * grads\n"
    )
    not_flagged = (
        "Attributes set only in `__init__`, or set elsewhere without reading their old value (a setup method that "
        "fills them once; `jax.device_put(self.w)`, the same numbers), or by a method a traced function calls (the "
        "update then stores a tracer: JAX308); a function jitted anew at each call of a method (a nested "
        "`@jax.jit def step` in `sample`: traced with the values of that call); a "
        "method that itself updates the attribute it reads (JAX508 flags the write); classes "
        "with decorators or with bases jaxlint does not know (flax, equinox and other pytree classes are rebuilt "
        "from their fields); `self` traced as an argument (JAX503); transforms that trace at every call "
        "(`jax.vmap` outside jit, `grad` alone)."
    )
    verify = "Not confirmed by `--verify` yet."

    def visit_Module(self, node: cst.Module) -> None:
        self._stores: set[int] = set()  # the attributes the cached staged functions assign to, which are no reads
        self._updates: dict[int, dict[str, tuple[cst.FunctionDef, cst.CSTNode]]] = {}  # of each class, by attribute
        self._own_updates: dict[int, frozenset[str]] = {}  # of each staged function: _updated_here
        # Of each call that jits something, and each decorator: the def it runs in (None at module or class level).
        self._jitted_in: dict[int, cst.FunctionDef | None] = {}
        self._called_under: dict[int, cst.CSTNode] = {}  # of each call in a staged function: that function's jit
        self._cached: dict[int, tuple[TracedFunction, AppliedTransform]] = {}  # _note_cached
        self._pending: list[tuple[cst.Attribute, cst.CSTNode, Callable[[Callable[[cst.CSTNode], int]], str]]] = []

    def visit_Call(self, node: cst.Call) -> None:
        if self.names.qualified(node.func) in CACHED_BY_FUNCTION or type(node.func) is cst.Call:
            around = [f for f in self.facts.chain if type(f) is cst.FunctionDef]
            self._jitted_in[id(node)] = around[-1] if around else None
        scope = self.facts.function
        if scope is not None and scope.staged and scope.trace is not None:
            self._called_under[id(node)] = scope.trace.node

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        around = [f for f in self.facts.chain if type(f) is cst.FunctionDef and f is not node]
        for decorator in node.decorators:
            self._jitted_in[id(decorator)] = around[-1] if around else None

    def leave_Module(self, node: cst.Module) -> None:
        for read, jitted, message in self._pending:
            for _ in range(8):  # a helper traced through a call (`self.rollout(x)` in the jitted `unroll`): its jit
                if id(jitted) not in self._called_under:
                    break
                jitted = self._called_under[id(jitted)]
            if id(jitted) in self._jitted_in and self._once_per_object(jitted):
                self.report(read, message)

    def _once_per_object(self, jitted: cst.CSTNode) -> bool:
        """Whether a jit (a call, or a decorator) lives as long as the object: made at module or class level (a
        method's decorator), or in `__init__`. One made in another method is made again at each call of it, and
        traces the value then."""
        function = self._jitted_in[id(jitted)]
        return function is None or function.name.value == "__init__"

    def visit_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        self._note_cached(node)

    def visit_Lambda_body(self, node: cst.Lambda) -> None:
        self._note_cached(node)

    def _note_cached(self, function: cst.FunctionDef | cst.Lambda) -> None:
        """A function jax traces under a jit that caches its trace: its trace, for the functions it nests (a loss
        function under `jax.grad` in a jitted method runs while the jit traces)."""
        scope = self.facts.function
        if scope is None or not scope.staged or scope.retraced_each_call:
            return
        trace = scope.trace
        if trace is not None and trace.name in CACHED_BY_FUNCTION:
            self._cached[id(function)] = (scope, trace)
            for found, _ in in_order(function.body):
                kind = type(found)
                if kind is cst.AssignTarget or kind is cst.AugAssign or kind is cst.AnnAssign or kind is cst.Del:
                    self._stores.update(id(part) for part in _parts(found.target) if type(part) is cst.Attribute)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if id(node) in self._stores or type(node.value) is not cst.Name:
            return
        around = next((self._cached[id(f)] for f in reversed(self.facts.chain) if id(f) in self._cached), None)
        if around is None:
            return
        scope, trace = around
        found = self._method_around(node.value.value)
        own = self.facts.function
        if found is None or node.value.value in scope.traced or own is not None and node.value.value in own.traced:
            return
        method, cls = found
        update = self._class_updates(cls).get(node.attr.value)
        if update is None or update[0] is method or self._updated_here(node.attr.value):
            return
        updating, statement = update
        read = f"{node.value.value}.{node.attr.value}"

        def message(line_of) -> str:
            return (
                f"`{read}` is read while jax traces this function ({trace.where(line_of)}), and "
                f"`{updating.name.value}` at line {line_of(statement)} gives it a new value: the compiled function "
                f"keeps the value it read when traced, so later calls ignore the update; pass it as an argument"
            )

        self._pending.append((node, trace.node, message))

    def _method_around(self, name: str) -> tuple[cst.FunctionDef, cst.ClassDef] | None:
        """The method of a class of this module whose first parameter is `name`, around the point (itself or a def
        it encloses that does not bind `name` again), with its class."""
        chain = self.facts.chain
        for at in range(len(chain) - 1, 0, -1):
            function, owner = chain[at], chain[at - 1]
            if type(function) is cst.Lambda and name in parameter_names(function.params):
                return None
            if type(function) is not cst.FunctionDef:
                continue
            params = parameter_names(function.params)
            if type(owner) is cst.ClassDef and params[:1] == [name] and not function.decorators[1:]:
                return (function, owner) if self._plain(owner) else None
            if name in params or name in rebound_names(function.body):
                return None
        return None

    def _plain(self, cls: cst.ClassDef, seen: frozenset[str] = frozenset()) -> bool:
        """A class with no decorator and no bases but `object` or such classes of this module: nothing rebuilds its
        instances from their fields."""
        if cls.decorators or cls.name.value in seen:
            return False
        for base in cls.bases:
            value = base.value
            if base.keyword is not None or type(value) is not cst.Name:
                return False
            if value.value == "object":
                continue
            found = self.facts.binding(value, want_class=True)
            parent = found[0] if found is not None else None
            if type(parent) is not cst.ClassDef or not self._plain(parent, seen | {cls.name.value}):
                return False
        return True

    def _class_updates(self, cls: cst.ClassDef) -> dict[str, tuple[cst.FunctionDef, cst.CSTNode]]:
        """The attributes a method of the class (not `__init__`) gives a value made from their old one, each with
        the first such method and statement."""
        if id(cls) not in self._updates:
            found: dict[str, tuple[cst.FunctionDef, cst.CSTNode]] = {}
            body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
            for method in body:
                if type(method) is not cst.FunctionDef or method.name.value == "__init__":
                    continue
                me = parameter_names(method.params)[:1]
                if not me or method.decorators or self.facts.called_from_trace(method):
                    continue  # (an update made while jax traces is a leaked tracer: JAX308's finding)
                for attribute, statement in _updated_attributes(method, me[0], self.names):
                    found.setdefault(attribute, (method, statement))
            self._updates[id(cls)] = found
        return self._updates[id(cls)]

    def _updated_here(self, attribute: str) -> bool:
        """Whether the staged function being walked updates the attribute itself (JAX508's finding)."""
        function = self.facts.chain[-1]
        if type(function) is not cst.FunctionDef:
            return False
        if id(function) not in self._own_updates:
            params = parameter_names(function.params)
            me = params[0] if params else "self"
            self._own_updates[id(function)] = frozenset(
                name for name, _ in _updated_attributes(function, me, self.names)
            )
        return attribute in self._own_updates[id(function)]


def _same_value(value: cst.BaseExpression, names) -> bool:
    """A call that gives back the value it is given, elsewhere or in another type (`jax.device_put(self.w)`,
    `jnp.asarray(self.w)`): no new value."""
    return type(value) is cst.Call and names.qualified(value.func) in SAME_VALUE


def _updated_attributes(method: cst.FunctionDef, me: str, names) -> Iterator[tuple[str, cst.CSTNode]]:
    """`(attribute, statement)` for each statement of a method that gives `me.attribute` a value read from its old
    one: `me.x = f(me.x)`, `me.key, sub = split(me.key)`, `me.n += 1` (not one of SAME_VALUE's)."""
    for node, _ in in_order(method.body, skip=_SKIP):
        if type(node) is cst.AugAssign and _own_attribute(node.target, me):
            yield cast(cst.Attribute, node.target).attr.value, node
        elif type(node) is cst.Assign and not _same_value(node.value, names):
            read = {
                found.attr.value
                for found, _ in in_order(node.value)
                if type(found) is cst.Attribute and _own_attribute(found, me)
            }
            for target in node.targets:
                for part in _parts(target.target):
                    if _own_attribute(part, me) and cast(cst.Attribute, part).attr.value in read:
                        yield cast(cst.Attribute, part).attr.value, node


def _parts(target: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """A target, or the targets a tuple or list target unpacks into."""
    if type(target) is cst.Tuple or type(target) is cst.List:
        for element in target.elements:
            yield from _parts(element.value)
    else:
        yield target


def _own_attribute(expr: cst.BaseExpression, me: str) -> bool:
    return type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == me
