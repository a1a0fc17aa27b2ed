"""Which functions of a module are traced, learned while traversing it.

A traversal records every transform application (`jax.jit(f)`, `lax.scan(body, ...)`), every call
that passes a tracer into a function of the same module, and every call that passes a Python
scalar literal (`step(x, True)`: under jit that argument is one traced scalar, not a pytree).
Calls may name a function defined further down, or a name bound to `jax.jit(f)`, so they are
resolved after the traversal; lint.py traverses again until nothing new is learned.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from collections.abc import Mapping, Set
from typing import Callable, Iterable, cast

import libcst as cst

from jaxlint.analysis.calls import arguments, rejected_places
from jaxlint.analysis.bindings import blocks, is_property, parameter_names, rebound_names, statements, target_names
from jaxlint.analysis.dead_branches import (
    GIVEN,
    Fixed,
    Guard,
    agreed,
    arguments_given,
    fixed_by_literal,
    narrowed_at,
    none_at_call,
    module_parameter_guards,
    settled,
)
from jaxlint.analysis.key_hops import Sites, live, name_item, param_field
from jaxlint.analysis.reaching import Alias, Candidates, OTHER, ReachingBindings
from jaxlint.analysis.traced import TracedCaller, Signature, Tracer, AppliedTransform, takes_keywords
from jaxlint.analysis.structures import eager_value, joined, structure, traced_tree
from jaxlint.analysis.values import Kind, Value, built, join
from jaxlint.analysis.wrapped_calls import Key, Nones, WrappedCalls, only_called
from jaxlint.traversal import children
from jaxlint.model.transforms import MODULE_FIRST_BODIES

Chain = tuple[cst.CSTNode, ...]  # the enclosing module, classes, functions and lambdas


@dataclass
class RoundFacts:
    """What one round of the traversal learned about each function (or lambda) node (rules read facts through
    analysis/context.py instead)."""

    applied: dict[cst.CSTNode, list[AppliedTransform]] = field(default_factory=dict)
    passed: dict[cst.CSTNode, dict[str, Tracer]] = field(default_factory=dict)
    entries: dict[cst.CSTNode, list[TracedCaller]] = field(default_factory=dict)  # called from traced scopes
    scalars: dict[cst.CSTNode, frozenset[str]] = field(default_factory=dict)  # given scalar literals
    # Parameters given scalar literals by calls through one of the function's transform wrappers, by the wrapper's
    # call (`option` of `jax.jit(f)(x, True)`, or of `g(x, True)` after `g = jax.jit(f)`): that transform gets them.
    through: dict[cst.CSTNode, dict[cst.CSTNode, frozenset[str]]] = field(default_factory=dict)
    # The same for a function of another module (`jax.jit(ops.f)(x, True)`): the call's positions and keywords that
    # get a scalar literal, by the wrapper's call; exported with the transform (Applied.literals), mapped there.
    literal_arguments: dict[cst.CSTNode, frozenset[int | str]] = field(default_factory=dict)
    # Parameters some call (or a lax carry) gives a Python list, tuple or dict: pytrees, never one array.
    lists: dict[cst.CSTNode, frozenset[str]] = field(default_factory=dict)
    arrays: dict[cst.CSTNode, frozenset[str]] = field(default_factory=dict)  # given a JAX array (not a pytree)
    # Parameters the calls seen give an instance of one class of this module (None: of different classes).
    classes: dict[cst.CSTNode, dict[str, cst.ClassDef | None]] = field(default_factory=dict)
    # Parameters every traced call gives the same instance of a class of this module, with the attributes its
    # `__init__` set (`self` of `layer.apply(x)` after `layer = Dropout(rate)`; None: calls that disagree).
    instances: dict[cst.CSTNode, dict[str, Value | None]] = field(default_factory=dict)
    # Methods traced through an instance: whether one such call's instance lives outside its trace (`wf` of the
    # module in `wf.apply_phase(x)`), so that what the method stores on `self` there outlives that trace.
    outer_selves: dict[cst.CSTNode, bool] = field(default_factory=dict)
    # Parameters with a default that some traced call leaves out: in that call's trace they hold their default
    # (`xnp` of `convert_to_ndc(origins, directions)` after `def convert_to_ndc(..., xnp=np)`).
    defaulted: dict[cst.CSTNode, frozenset[str]] = field(default_factory=dict)
    # Parameters the calls seen give values of one dtype kind (an int array, a Python float; None: of different
    # kinds, or of a kind not known).
    dtypes: dict[cst.CSTNode, dict[str, str | None]] = field(default_factory=dict)
    # Parameters the calls seen give a tuple, list or dict of known leaves: its structure (analysis/structures.py;
    # None: calls that disagree, or show no structure).
    structures: dict[cst.CSTNode, dict[str, Value | None]] = field(default_factory=dict)
    # The same, as the calls inside a trace give it (no transform between): Python values and NumPy arrays kept.
    kept_structures: dict[cst.CSTNode, dict[str, Value | None]] = field(default_factory=dict)
    # Parameters every call outside any trace gives a concrete JAX array, or a tuple, list or dict of them: what
    # the function, run eagerly, holds there (analysis/structures.eager_value; None: calls that disagree).
    eager: dict[cst.CSTNode, dict[str, Value | None]] = field(default_factory=dict)
    # For a class of this module: the attributes only its `__init__` sets, each as a summary in terms of
    # `__init__`'s parameters (what an instance made by a call holds there).
    attributes: dict[cst.ClassDef, dict[str, "Returned"]] = field(default_factory=dict)
    host: set[cst.CSTNode] = field(default_factory=set)  # host callbacks: concrete values, not traced
    kernels: set[cst.CSTNode] = field(default_factory=set)  # Pallas kernels: their parameters are refs
    refs: dict[cst.CSTNode, frozenset[str]] = field(default_factory=dict)  # parameters every call gives a ref
    # Key parameters consumed, by function (None: module level).
    consumes: dict[cst.CSTNode | None, frozenset[str]] = field(default_factory=dict)
    consuming: dict[cst.Call, tuple[cst.BaseExpression, ...]] = field(default_factory=dict)  # keys a call consumes
    # Of those, the ones its callee only draws from through keys fold_in derives (keys.Use.folded).
    folding: dict[cst.Call, tuple[cst.BaseExpression, ...]] = field(default_factory=dict)
    # The keys a nested def or lambda draws from that are free there, each with the enclosing function whose
    # variable it is, and the tests of the def's parameters around its draws (key_hops.Sites).
    closes: dict[cst.CSTNode, dict[tuple[str, cst.CSTNode], Sites]] = field(default_factory=dict)
    # Of those, the ones it only draws from through keys fold_in derives (keys.Use.folded).
    closes_folded: dict[cst.CSTNode, frozenset[tuple[str, cst.CSTNode]]] = field(default_factory=dict)
    # The string entries of dict parameters (`rngs['dropout']`) and the attributes of parameters (`gencfg.key`) a
    # function draws from, with the tests around them.
    items: dict[cst.CSTNode, dict[str, Sites]] = field(default_factory=dict)
    # The attributes of `self` a method draws from that the instance keeps from its construction (`self.key`,
    # stable_fields.py), with the tests around them: each call of the method draws from the same key.
    fields: dict[cst.CSTNode, dict[str, Sites]] = field(default_factory=dict)
    key_params: dict[cst.CSTNode, frozenset[str]] = field(default_factory=dict)  # parameters some call gives a key
    # The key parameters a function draws from itself, with the tests of its parameters around each draw: a call that
    # leaves one at its default draws from that default where some draw is live for the call.
    drawn_sites: dict[cst.CSTNode, dict[str, Sites]] = field(default_factory=dict)
    # Functions every `return` of which gives a key the function drew from, at a place of the tuple it returns (None:
    # the whole value): where it drew, and by what. A caller that draws from it again reuses it.
    spent_returns: dict[cst.CSTNode, dict[int | None, tuple[cst.CSTNode, str]]] = field(default_factory=dict)
    callees: dict[cst.Call, tuple[cst.CSTNode, int]] = field(default_factory=dict)  # the function a call calls
    returns: dict[cst.CSTNode, "Returned"] = field(default_factory=dict)  # what calling a function gives
    # Functions that return a tuple, list or dict on every path: the literal their first `return` gives.
    containers: dict[cst.CSTNode, cst.BaseExpression] = field(default_factory=dict)
    # Functions traced only through calls (dead_branches.py): the parameters every traced call leaves `None`
    # (True) or gives a value that is not (False).
    nones: dict[cst.CSTNode, dict[str, Fixed]] = field(default_factory=dict)
    # Functions traced only by transforms applied in the def around them: that def, and the names of it they
    # read that are `None` (True) or not (False) at every application (none_flow.py).
    closure_nones: dict[cst.CSTNode, tuple[cst.FunctionDef, dict[str, Fixed]]] = field(default_factory=dict)
    # Parameters rebound in their function, as `nones` has them, for the tests that run before (dead_branches.py).
    test_nones: dict[cst.BaseExpression, dict[str, Fixed]] = field(default_factory=dict)
    # Functions every trace of which is a call of a wrapper the module binds and calls (wrapped_calls.py).
    wrapped: set[cst.CSTNode] = field(default_factory=set)

    def summary_of(self, call: cst.Call) -> "Returned | None":
        found = self.callees.get(call)
        return None if found is None else self.returns.get(found[0])

    def settled(
        self,
        before: "RoundFacts",
        used: dict[cst.Call, "Returned | None"],
        made: dict[cst.ClassDef, "dict[str, Returned] | None"],
        traced: Set[cst.CSTNode],
    ) -> bool:
        """Whether another round would see what this one saw: the same traced scopes and keys, the same facts
        about the parameters of the functions `traced` (the only ones read: tracker._enter) and the values eager
        calls give the others, for every call whose value was asked, the summary it was given, and for every class whose instances were made, the
        attributes they were given. (A summary nothing asked about changes nothing; nor does a fact about the
        parameters of a function no transform traces, while the traced scopes stay the same.)"""
        return (
            all(getattr(self, name) == getattr(before, name) for name in _FLOW_FIELDS)
            and all(
                _of(getattr(self, name), traced) == _of(getattr(before, name), traced) for name in _PARAMETER_FIELDS
            )
            and _eager_known(self.eager, traced) == _eager_known(before.eager, traced)
            and all(self.summary_of(call) == summary for call, summary in used.items())
            and all(self.attributes.get(cls) == attributes for cls, attributes in made.items())
        )


# The facts that decide which scopes are traced, and what keys do; and the refs parameters get, read for every
# function (a ref stays a ref outside a trace too, whatever the parameter's annotation says).
_FLOW_FIELDS = (
    "applied",
    "passed",
    "entries",
    "host",
    "kernels",
    "refs",
    "consumes",
    "consuming",
    "folding",
    "closes",
    "closes_folded",
    "items",
    "fields",
    "key_params",
    "drawn_sites",
    "spent_returns",
)
# The facts about the parameters of a function, read when it is traced.
_PARAMETER_FIELDS = (
    "scalars",
    "through",
    "lists",
    "arrays",
    "classes",
    "instances",
    "outer_selves",
    "defaulted",
    "dtypes",
    "structures",
    "kept_structures",
)


def _of(facts: dict, functions: Set[cst.CSTNode]) -> dict:
    return {function: fact for function, fact in facts.items() if function in functions}


def _eager_known(eager: dict[cst.CSTNode, dict[str, Value | None]], traced: Set[cst.CSTNode]) -> dict:
    """The values eager calls give the parameters of the functions not traced, where known."""
    known = {}
    for function, given in eager.items():
        if function not in traced and (values := {param: v for param, v in given.items() if v is not None}):
            known[function] = values
    return known


_FUNCTIONS = frozenset({cst.FunctionDef, cst.Lambda})
_NOT_THIS_SCOPE = _FUNCTIONS | {cst.ClassDef}


def _instances_traced(seen: Value | None, value: Value) -> Value | None:
    """What a parameter holds in the traces of two calls each giving it an instance: of one class, each attribute
    a tracer where one of the calls gives a tracer (jax traces each call apart: in that call's trace it is one),
    else what both give (None: instances of different classes)."""
    if seen is None or seen.instance is not value.instance:
        return None
    theirs = dict(value.attributes)
    return replace(
        seen, attributes=tuple((name, _traced_in_one(held, theirs.get(name))) for name, held in seen.attributes)
    )


def _traced_in_one(a: Value | None, b: Value | None) -> Value | None:
    for held in (a, b):
        if held is not None and held.kind is Kind.TRACED:
            return held
    return a if a == b else None


def outside_functions(chain: Chain) -> bool:
    """Whether a point with this chain of scopes runs at module level (or in a class body): in no function."""
    return not any(type(scope) in _FUNCTIONS for scope in chain)


@dataclass(frozen=True)
class Returned:
    """What calling a function gives, in terms of its arguments: a tracer when the argument for one
    of `params` holds one (or always, from `closure`: a tracer of an enclosing trace; or when the call itself
    runs in a jaxpr trace, from `computed`), else `value`.

    Learned from the function's `return` statements as the last round saw them: a parameter is in
    `params` once some traced call passed it a tracer that reached a `return`.
    """

    function: str
    params: tuple[str, ...] = ()  # in the signature's order
    closure: Tracer | None = None
    # An array its own trace computed (`lax.pmean(...)` under pmap): a transformed function called from code no
    # transform traces returns concrete arrays, whatever its body did; a tracer where the call is staged again.
    computed: Tracer | None = None
    value: Value | None = None  # what it gives when no argument in `params` holds a tracer
    container: bool = False  # a tuple or dict of tracers rather than one array
    # For a function whose every `return` gives a tuple of one length: what each position gives.
    items: tuple["Returned | None", ...] | None = None
    # The dtype kind of what it returns, from the arguments the calls seen give it (analysis/values.py).
    dtype: str | None = None
    # The parameter whose argument it gives back as the caller passed it (`return grads` of a parameter it never
    # rebinds): the caller's value itself, a Python list staying a list.
    given: str | None = None
    # Unpacked from a pytree of tracers on some path (`parts, total = carry`): as often a Python list as an array.
    part: bool = False
    # The containers every `return` gives, when they show them (analysis/structures.py): a list of two tracers
    # stays a list of two for the caller.
    shape: Value | None = None
    # For a function whose every `return` gives an instance of one class of the module with the fields it was built
    # with (a NamedTuple, a dataclass): what each field gives, as a summary of its own. A field holding what the
    # function's own trace computed is a tracer only where the call is traced again (`value` keeps the instance).
    fields: tuple[tuple[str, "Returned | None"], ...] | None = None

    @classmethod
    def of(cls, function: str, params: tuple[str, ...], values: list[Value | None]) -> "Returned | None":
        """The summary of a function whose `return`s give `values`; None when nothing is known."""
        if not values or any(value is None for value in values):
            return None
        known = cast("list[Value]", values)  # none is None (above)
        whole = cls._whole(function, params, known)
        fields = _instance_fields(known)
        if whole is not None and whole.value is not None and fields is not None:
            summaries = tuple((name, cls.of(function, params, column)) for name, column in fields.items())
            return replace(whole, value=replace(whole.value, attributes=()), fields=summaries)
        items = _tuple_items(known)
        if whole is None or items is None:
            return whole
        return replace(whole, items=tuple(cls.of(function, params, list(column)) for column in zip(*items)))

    @classmethod
    def _whole(cls, function: str, params: tuple[str, ...], known: list[Value]) -> "Returned | None":
        traced = [value for value in known if value.kind is Kind.TRACED]
        if not traced:
            joined: Value | None = known[0]
            for value in known[1:]:
                joined = join(joined, value)
            return cls(function, value=joined) if joined is not None else None
        if len(traced) < len(known):
            return None  # a tracer on some paths only: `return x if ... else None`
        found = [value.tracer for value in traced]
        if any(tracer is None for tracer in found):
            return None
        tracers = cast("list[Tracer]", found)

        def is_own(tracer: Tracer) -> bool:
            return tracer.function == function and tracer.param in params

        def is_made(tracer: Tracer) -> bool:
            return tracer.function == function and tracer.computed

        reached = {tracer.param for tracer in tracers if is_own(tracer)}
        own = tuple(param for param in params if param in reached)
        closure = next((tracer for tracer in tracers if not is_own(tracer) and not is_made(tracer)), None)
        computed = next((tracer for tracer in tracers if is_made(tracer)), None)
        container = any(value.container for value in traced)
        # Without tracers in, a function returning arrays computed from its arguments returns arrays.
        kinds = {value.dtype for value in traced}
        dtype = kinds.pop() if len(kinds) == 1 and not container else None
        plain = None if container else Value(Kind.ARRAY, dtype=dtype)
        part = any(value.pytree_part for value in traced)
        return cls(
            function, own, closure, computed, plain, container, dtype=dtype, part=part, shape=_containers(traced)
        )

    def _traced(self, tracer: Tracer) -> Value:
        """What a call gives when the result holds `tracer`: a tree of that structure, when every return shows one."""
        if self.shape is not None:
            return traced_tree(self.shape, tracer)
        return Value(Kind.TRACED, tracer, container=self.container, dtype=self.dtype, pytree_part=self.part)

    @property
    def matters(self) -> bool:
        """Whether calls may give something a rule acts on: a tracer, or an array or NumPy value. A
        function returning only static values gives what an unknown call gives: rules stay silent."""
        return bool(self.params or self.closure or self.computed) or (
            self.value is not None and self.value.kind is not Kind.STATIC
        )

    def result(
        self, given: dict[str, Value | None], as_given: bool = True, staged: Tracer | None = None
    ) -> Value | None:
        """The value a call gives, `given` the values of the arguments by parameter name (`as_given`: a parameter
        returned unchanged gives back its argument; not through a decorator or a transform; `staged`: the tracer
        the call's own results are where a transform around it traces to a jaxpr, None where none does)."""
        if as_given and self.given is not None and self.given in given:
            return given[self.given]
        if self.items is not None:
            items = tuple(item.result(given, as_given, staged) if item is not None else None for item in self.items)
            return built("tuple", items)
        if self.closure is not None:
            return self._traced(self.closure)
        for param in self.params:
            value = given.get(param)
            if value is not None and value.kind is Kind.TRACED and value.tracer is not None:
                return self._traced(replace(value.tracer, returned_by=self.function))
        if self.computed is not None and staged is not None:
            return self._traced(staged)
        if self.params and not all((value := given.get(param)) is not None and value.is_array for param in self.params):
            return None  # the result follows arguments whose values are unknown
        if self.fields is not None and self.value is not None:
            held = tuple(
                (name, field.result(given, as_given, staged) if field else None) for name, field in self.fields
            )
            return replace(self.value, attributes=held)
        return self.value


def _given_back(
    summary: Returned | None, name: str, function: cst.FunctionDef | cst.Lambda, forms: list[cst.BaseExpression | None]
) -> Returned | None:
    """The summary of a function whose every `return` gives a parameter it never rebinds (or a tuple holding one at
    a position): that position gives back the caller's argument, whatever it is."""
    if not forms:
        return summary
    params = set(parameter_names(function.params))
    whole = {_parameter(expr, params) for expr in forms}
    if len(whole) == 1 and None not in whole:
        param = cast(str, whole.pop())
        return replace(summary or Returned(name), given=param) if _unchanged(function, param) else summary
    rows = [expr.elements for expr in forms if type(expr) is cst.Tuple]
    if len(rows) < len(forms) or len({len(row) for row in rows}) != 1:
        return summary
    items = list((summary.items if summary is not None else None) or [None] * len(rows[0]))
    found = False
    for position, column in enumerate(zip(*rows)):
        names = {_parameter(element.value, params) if type(element) is cst.Element else None for element in column}
        kept = names.pop() if len(names) == 1 else None
        if kept is not None and _unchanged(function, kept):
            items[position] = replace(items[position] or Returned(name), given=kept)
            found = True
    return replace(summary or Returned(name), items=tuple(items)) if found else summary


def _parameter(expr: cst.BaseExpression | None, params: set[str]) -> str | None:
    return expr.value if type(expr) is cst.Name and expr.value in params else None


def _unchanged(function: cst.FunctionDef | cst.Lambda, param: str) -> bool:
    """Whether the body never rebinds the parameter: to its end it names what the caller passed."""
    if type(function) is cst.FunctionDef and param in rebound_names(function.body):
        return False
    return param not in _walrus_targets(function.body)


def _walrus_targets(body: cst.CSTNode) -> set[str]:
    """The names `(name := value)` binds in a function's body (nested functions and classes have their own)."""
    found: set[str] = set()
    pending = [body]
    while pending:
        node = pending.pop()
        if type(node) is cst.NamedExpr and type(node.target) is cst.Name:
            found.add(node.target.value)
        pending.extend(child for child in children(node) if type(child) not in _NOT_THIS_SCOPE)
    return found


def _containers(values: list[Value]) -> Value | None:
    """The tuple, list or dict structure every one of `values` shows (None: a leaf, or not shown by all)."""
    shape = structure(values[0])
    for value in values[1:]:
        shape = joined(shape, structure(value))
    return shape if shape is not None and shape.contents is not None else None


def _instance_fields(values: list[Value]) -> dict[str, list[Value | None]] | None:
    """The fields of each value when every one is an instance of one class of the module with the same known fields
    (analysis/constructions.constructor_fields), field by field; None otherwise."""
    classes = {id(value.instance) for value in values}
    if len(classes) != 1 or type(values[0].instance) is not cst.ClassDef or not values[0].attributes:
        return None
    names = [name for name, _ in values[0].attributes]
    if any([name for name, _ in value.attributes] != names for value in values):
        return None
    return {name: [dict(value.attributes)[name] for value in values] for name in names}


def _tuple_items(values: list[Value]) -> list[tuple[Value | None, ...]] | None:
    """The items of each value when every one is a tuple of the same length, item by item."""
    found = [value.contents.items for value in values if value.contents is not None and value.contents.kind == "tuple"]
    if len(found) < len(values) or any(items is None for items in found):
        return None
    lengths = {len(cast("tuple", items)) for items in found}
    return cast("list[tuple[Value | None, ...]]", found) if len(lengths) == 1 else None


# What a function is given before a call's own arguments (a partial's values, or `self` of a method called on
# a traced pytree): positional values, then keyword values.
_Given = tuple[tuple["Value | None", ...], tuple[tuple[str, "Value"], ...]]


@dataclass(frozen=True)
class _Call:
    chain: Chain
    func: cst.BaseExpression
    positional: tuple[Value | None, ...]
    keywords: tuple[tuple[str, Value], ...]
    node: cst.Call
    caller: str | None  # the traced function making the call, if any
    via: AppliedTransform | None  # the caller's trace, named after its transform
    bound: _Given = ((), ())  # `a` and `k=b` of `partial(f, a, k=b)` behind the called name, or `self`
    outer_self: bool | None = None  # for a method called through an instance: whether it outlives the trace


_CONTAINERS = (cst.Tuple, cst.List, cst.Dict, cst.ListComp, cst.DictComp)
# Hot helpers (every call and statement asks them) test node types with `type(...)`: an isinstance against
# a libcst class runs ABCMeta's check in Python (libcst's concrete node types have no subclasses).
_COMPOUND = frozenset({cst.For, cst.While, cst.If, cst.With, cst.Try, cst.TryStar})


def _rejected(function: cst.CSTNode, bound: int, call: _Call, bound_names: frozenset[str]) -> bool:
    """Whether Python rejects a call before the function's body runs (calls.rejected_places), so that it gives its
    parameters nothing; `bound_names`: what the `partial`s behind the name it calls give by keyword
    (`partial(f, n=3)(x)` of `def f(n, x)` raises "got multiple values for argument 'n'")."""
    if (
        type(function) is not cst.FunctionDef
        and type(function) is not cst.Lambda
        or any(a.star for a in call.node.args)
    ):
        return False
    before, named = call.bound
    start = bound - len(before)
    if start < 0:
        return False
    places: tuple[int | str, ...] = (
        *range(len(before) + len(call.positional)),
        *bound_names,
        *(word for word, _ in (*named, *call.keywords)),
    )
    return rejected_places(function.params, places, start)


def assigned_values(body: cst.BaseSuite | list, name: str) -> list[cst.BaseExpression | None]:
    """What a block binds to `name`: the value of each plain `name = value`, None for any other binding
    (a loop target, unpacking, `+=`, an import...). Nested function and class bodies are their own."""
    return every_assigned_value(body).get(name, [])


def own_method_call(value: cst.BaseExpression | None, name: str, method: str | None = None) -> bool:
    """Whether `value` is `name.method(...)` (any method when `method` is None)."""
    return (
        type(value) is cst.Call
        and type(value.func) is cst.Attribute
        and type(value.func.value) is cst.Name
        and value.func.value.value == name
        and (method is None or value.func.attr.value == method)
    )


def rebound_by_own_methods(body: cst.BaseSuite | list, name: str) -> bool:
    """Whether every binding of `name` in a block (not its nested functions) is `name = name.method(...)`, which
    gives an object of the same class (`state = state.apply_gradients(grads=g)`)."""
    return all(own_method_call(value, name) for value in assigned_values(body, name))


def every_assigned_value(body: cst.BaseSuite | list) -> dict[str, list[cst.BaseExpression | None]]:
    """`assigned_values` of every name the block binds, in one pass over it."""
    found: dict[str, list[cst.BaseExpression | None]] = {}
    for statement in statements(body):
        if type(statement) is cst.Assign:
            for target in statement.targets:
                if type(target.target) is cst.Name:
                    found.setdefault(target.target.value, []).append(statement.value)
                else:
                    for name in target_names(target.target):
                        found.setdefault(name, []).append(None)
        elif type(statement) in _COMPOUND:
            for name in _bound_by_itself(statement):
                found.setdefault(name, []).append(None)
            for block in blocks(cast(cst.BaseCompoundStatement, statement)):
                for name, values in every_assigned_value(block).items():
                    found.setdefault(name, []).extend(values)
        else:
            for name in rebound_names([statement]):
                found.setdefault(name, []).append(None)
    return found


def _literal(function: cst.CSTNode, expr: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """The container literal `return expr` certainly gives: `expr` itself, or what a local name only ever
    bound to container literals holds."""
    if isinstance(expr, _CONTAINERS):
        return expr
    if isinstance(expr, cst.Name) and isinstance(function, cst.FunctionDef):
        bound = assigned_values(function.body, expr.value)
        if bound and all(isinstance(value, _CONTAINERS) for value in bound):
            return bound[0]
    return None


def _bound_by_itself(statement: cst.CSTNode) -> set[str]:
    """The names a compound statement binds outside its blocks: a loop target, `with ... as`, `except ... as`."""
    own: set[str] = set()
    if isinstance(statement, cst.For):
        own.update(target_names(statement.target))
    if isinstance(statement, cst.With):
        own.update(n for item in statement.items if item.asname is not None for n in target_names(item.asname.name))
    for handler in getattr(statement, "handlers", ()):
        if handler.name is not None:
            own.update(target_names(handler.name.name))
    return own


def _is_static(function: cst.FunctionDef) -> bool:
    return any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in function.decorators)


def _is_classmethod(function: cst.FunctionDef) -> bool:
    return any(isinstance(d.decorator, cst.Name) and d.decorator.value == "classmethod" for d in function.decorators)


def instance_method(function: cst.FunctionDef) -> bool:
    """A method whose first parameter is the instance (not a staticmethod or a classmethod)."""
    return not _is_static(function) and not _is_classmethod(function)


def method_bound(function: cst.FunctionDef, through_instance: bool) -> int:
    """The leading parameters Python fills when a method is called through its class (`Cls.m(...)`: `cls` of
    a classmethod) or through an instance (`obj.m(...)`: `self` too)."""
    if _is_static(function):
        return 0
    return 1 if through_instance or _is_classmethod(function) else 0


def _is_init(function: cst.CSTNode) -> bool:
    """A class's `__init__`: calling the class gives the instance, not what `__init__` returns."""
    return isinstance(function, cst.FunctionDef) and function.name.value == "__init__"


def is_scalar_literal(expr: cst.BaseExpression) -> bool:
    if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
        expr = expr.expression
    return (
        type(expr) is cst.Integer
        or type(expr) is cst.Float
        or (type(expr) is cst.Name and expr.value in ("True", "False"))
    )


def _literals_given(function: cst.FunctionDef | cst.Lambda, bound: int, call: cst.Call) -> frozenset[str]:
    """The parameters of `function` that `call` gives a scalar literal (`True`, `2`), its first `bound` ones given
    before."""
    given = arguments_given(function, bound, call) or {}
    return frozenset(param for param, value in given.items() if is_scalar_literal(value))


def _literal_places(call: cst.Call) -> frozenset[int | str]:
    """The positions and keywords of `call` that get a scalar literal; no position after a `*args`."""
    given = arguments(call)
    positions = (index for index, value in enumerate(given.positional) if is_scalar_literal(value))
    keywords = (keyword for keyword, value in given.keywords.items() if is_scalar_literal(value))
    return frozenset((*positions, *keywords))


def _none_at(
    function: cst.FunctionDef,
    bound: int,
    call: _Call,
    known: Mapping[str, Fixed] | None = None,
    handed: frozenset[str] = frozenset(),
) -> dict[str, Fixed]:
    """Which parameters of `function` a recorded call leaves `None` or not (dead_branches.none_at_call; `known`:
    the caller's names known `None` or not there; `handed`: the caller's parameters its callers give)."""
    if call.func is not call.node.func and (type(call.node.func) is not cst.Call or call.bound != ((), ())):
        return {}  # `jax.tree.map(f, ...)`: f gets leaves; `jax.grad(f)(x)`: f gets the call's arguments
    values: dict[int, Value | None] = {}
    positional = iter(call.positional)
    keywords = dict(call.keywords)
    for arg in call.node.args:
        if arg.keyword is None:
            values[id(arg.value)] = next(positional, None)
        else:
            values[id(arg.value)] = keywords.get(arg.keyword.value)
    return none_at_call(function, bound, call.node, values, known or {}, handed)


def _with_bound(
    answer: dict[str, Fixed], names: frozenset[str], values: Mapping[str, cst.BaseExpression]
) -> dict[str, Fixed]:
    """What a call fixes of a function's parameters, when `partial` gives `names` first: the literal it gives one
    (`partial(loss, plot=False)`: `plot` is False in the trace, whatever its default), unknown for anything else."""
    fixed = {name: found for name, value in values.items() if (found := fixed_by_literal(value)) is not None}
    return {**{p: f for p, f in answer.items() if p not in names}, **fixed}


@dataclass(frozen=True)
class _Handing:
    """A traced call handing on parameters of its caller (dead_branches.GIVEN): which answer of the callee it
    gave, and for each parameter of the callee, the caller's name it hands on."""

    callee: cst.FunctionDef
    index: int
    caller: cst.CSTNode
    names: dict[str, str]


_HOPS = 4  # how many calls a handed-on value is followed through


def _settle_nones(facts: RoundFacts, node: cst.FunctionDef | cst.Lambda, answers: list[dict[str, Fixed]]) -> None:
    """What every traced call of `node` fixes of its parameters, where no statement binds them again before
    their tests."""
    common, at_tests = settled(node, agreed(answers) if node not in facts.applied or node in facts.wrapped else {})
    facts.test_nones.update(at_tests)
    if common:
        facts.nones[node] = common
    else:
        facts.nones.pop(node, None)


def _hand_on_nones(
    facts: RoundFacts, traced_calls: dict[cst.FunctionDef | cst.Lambda, list[dict[str, Fixed]]], handing: list[_Handing]
) -> None:
    """A parameter handed on (`which=which`) gets what every traced call of the caller fixes of it
    (`which="fourier"`, `with_jax=True`): Python decides the callee's test with the caller's value."""
    for _ in range(_HOPS):
        changed: set[cst.FunctionDef] = set()
        for handed in handing:
            answer = traced_calls[handed.callee][handed.index]
            known = facts.nones.get(handed.caller, {})
            for param, name in handed.names.items():
                fixed = known.get(name, GIVEN)  # (GIVEN again: what the caller's calls fix is no longer agreed)
                if answer.get(param) != fixed:
                    answer[param] = fixed
                    changed.add(handed.callee)
        if not changed:
            return
        for callee in changed:
            _settle_nones(facts, callee, traced_calls[callee])


class ScopeRecorder:
    def __init__(
        self,
        overridden: Set[tuple[int, str]] = frozenset(),
        method: Callable[[cst.ClassDef, str, cst.CSTNode | None], cst.CSTNode | None] = lambda c, n, own: own,
        set_once: Callable[[cst.ClassDef, str], bool] = lambda cls, attr: False,
        keeps_arguments: Callable[[cst.FunctionDef], bool] = lambda function: not function.decorators,
    ) -> None:
        """`overridden`: (id of a class, name) for the methods a subclass in the module defines again;
        `method(cls, name, own)`: the def that `name` finds on an instance of `cls`, given the class's own def of
        that name (None: it has none; a base class's may be found); `set_once(cls, attr)`: whether one
        assignment in the class's methods, and none elsewhere, sets the attribute; `keeps_arguments(function)`:
        whether a call of the decorated def gives the def the call's own arguments."""
        self._overridden = overridden
        self._keeps_arguments = keeps_arguments
        self._method_of = method
        self._set_once = set_once
        self._attributes_set: dict[tuple[cst.ClassDef, cst.FunctionDef], dict[str, list[Value | None]]] = {}
        self._plain: set[int] = set()  # the classes whose calls make instances whose methods are their defs
        self._receivers: dict[int, cst.ClassDef] = {}  # `obj.m` (by id) where `obj` holds an instance of the class
        self._self_calls: list[tuple[str, cst.CSTNode | None]] = []  # `Class.m` for `self.m` in its methods
        self.self_calls: set[str] = set()  # those whose def the analysis learned something about (facts())
        self._defs: dict[tuple[int, str], cst.FunctionDef | cst.ClassDef] = {}
        self._aliases: dict[tuple[int, str], Alias] = {}
        self._partials: dict[tuple[int, str], _Given] = {}  # the values a partial alias gives
        # what an alias calls: the def its target name held when it was made, else the target to resolve at the end
        self._alias_defs: dict[tuple[int, str], cst.BaseExpression | cst.FunctionDef] = {}
        self._other_results: set[tuple[int, str]] = set()  # aliases through a transform of `OTHER_RESULTS`
        self.reaching = ReachingBindings()  # a flow domain: the bindings that reach the walk's point
        # (id of a scope, name) whose latest binding, in the order of the walk, is an alias, not a def
        self._aliased_last: set[tuple[int, str]] = set()
        self._bound: dict[int, set[str]] = {}
        self._applications: list[tuple[Chain, cst.BaseExpression | cst.FunctionDef, AppliedTransform]] = []
        self._application_sites: list[tuple[cst.FunctionDef, dict[str, bool]] | None] = []  # none_flow.here()
        # `jax.grad(f)(x)`: the call made where the transform is applied, and the scope it is made in
        self._application_calls: list[tuple[cst.Call | None, cst.CSTNode]] = []
        self._calls: list[_Call] = []
        # Calls through a transform's call (`jax.jit(f)`), the function or name called; None: the call's name's one
        # binding in the module, read after the walk.
        self._wrapper_calls: list[tuple[Chain, cst.Call, cst.BaseExpression, cst.Call | None]] = []
        self._declared_global: set[str] = set()  # names some function declares `global`: it may rebind them
        self.wrapped = WrappedCalls()  # the tracker tells it of wrappers, choices and what holds at calls
        self.handed_at: dict[int, frozenset[str]] = {}  # by id of a traced call: the caller's parameters it hands on
        self._host: list[tuple[Chain, cst.BaseExpression | cst.FunctionDef]] = []
        self._kernels: list[tuple[Chain, cst.BaseExpression]] = []
        self._carries: list[tuple[Chain, cst.BaseExpression, AppliedTransform, int, bool, Value | None]] = []
        # key parameters a function draws from or splits itself: the parameter tests around each such use
        self._key_consumed: dict[cst.CSTNode, dict[str, list[tuple[Guard, ...]]]] = {}
        self._key_drawn: dict[cst.CSTNode, set[str]] = {}  # of those, the ones consumed otherwise than folded
        # keys a nested def or lambda draws from that are free there: (ref, the function whose variable it is)
        self._key_closed: dict[cst.CSTNode, dict[tuple[str, cst.CSTNode], list[tuple[Guard, ...]]]] = {}
        self._key_closed_drawn: set[tuple[cst.CSTNode, str, cst.CSTNode]] = set()  # of those, not only folded
        self._key_calls: list[
            tuple[Chain, cst.Call, cst.CSTNode | None, list[str | None], list[bool], cst.BaseExpression]
        ] = []
        self._spent_returns: dict[cst.CSTNode, dict[int | None, tuple[cst.CSTNode, str]]] = {}  # returned_spent
        self._returns: dict[cst.CSTNode, list[Value | None]] = {}
        self._finished: dict[cst.CSTNode, Returned | None] = {}  # functions walked this round: their summary
        self._generators: set[cst.CSTNode] = set()
        self._callable: list[tuple[Chain, cst.Call, cst.BaseExpression]] = []
        self._return_forms: dict[cst.CSTNode, list[tuple[Chain, cst.BaseExpression | None]]] = {}
        self._makes_refs = False
        self._redefined: set[tuple[int, str]] = set()  # (id of a scope, name) that the scope defines more than once
        self._known = RoundFacts()  # read only while `_news` is set (watch())
        self._news: Callable[[], None] | None = None
        self._traced: Set[cst.CSTNode] = set()  # the functions this round traced so far (watch())

    def watch(self, known: RoundFacts, news: Callable[[], None] | None, traced: Set[cst.CSTNode] = frozenset()) -> None:
        """Call `news` once, at the first transform application, call or key use that gives a function a
        fact `known` (the last round's facts) lacks: this round will not be the last (lint.py then stops running
        the rules in it). A guess for speed: applications and calls resolved now, against the defs seen; a fact
        about the parameters of a function, only when `traced` (the functions traced so far) holds it.
        `news` None: stop watching."""
        self._known, self._news, self._traced = known, news, traced

    def _learned(
        self, chain: Chain, target: cst.BaseExpression | cst.FunctionDef, facts: dict | set, parameters: bool = False
    ) -> None:
        node, _ = self._resolve(chain, target)
        if node is not None and node not in facts and (not parameters or node in self._traced):
            self._announce()

    def _announce(self) -> None:
        news, self._news = self._news, None
        if news is not None:  # callers check that it is
            news()

    def define(self, scope: cst.CSTNode, function: cst.FunctionDef | cst.ClassDef, plain: bool = False) -> None:
        """A def, or a class: calling a class runs its `__init__` with the new instance as `self`; a `plain`
        class (callees.plain_class) has its methods called through it too (`Cls.m(...)`)."""
        key = (id(scope), function.name.value)
        if key in self._defs:
            self._redefined.add(key)
        self._defs[key] = function
        self._aliased_last.discard(key)
        self.reaching.bind(function.name.value, function)
        if plain:
            self._plain.add(id(function))

    def receiver(self, method: cst.Attribute, cls: cst.ClassDef) -> None:
        """`method` is `obj.m` where `obj` holds an instance of `cls` (a plain class) at that point."""
        self._receivers[id(method)] = cls

    def alias(
        self,
        chain: Chain,
        name: str,
        target: cst.BaseExpression,
        bound: int = 0,
        bound_names: frozenset[str] = frozenset(),
        given: _Given | None = None,
        other_result: bool = False,
        wrapper: cst.Call | None = None,
        bound_values: tuple[tuple[str, cst.BaseExpression], ...] = (),
    ) -> None:
        """`name = jax.jit(target)`, `name = lambda ...` or `name = partial(target, cfg, k=v)`: calling
        `name` calls `target`, with the first `bound` parameters and `bound_names` already given (for a
        partial, `given`: the values it gives them; `other_result`: through a transform whose calls give something
        other than what `target` returns, `jax.grad`; `wrapper`: the transform's call, `jax.jit(target)`;
        `bound_values`: what a partial inside it gives by keyword, `jax.jit(partial(target, k=v))`)."""
        alias = Alias(chain, target, bound, bound_names, wrapper, bound_values)
        self._aliases[(id(chain[-1]), name)] = alias
        self._alias_defs[(id(chain[-1]), name)] = self._bound_now(target)
        if other_result:
            self._other_results.add((id(chain[-1]), name))
        else:
            self._other_results.discard((id(chain[-1]), name))
        if given is not None:
            self._partials[(id(chain[-1]), name)] = given
        else:
            self._partials.pop((id(chain[-1]), name), None)  # rebound: what an earlier partial gave is gone
        self._aliased_last.add((id(chain[-1]), name))
        self.reaching.bind(name, alias)
        self.wrapped.bound((id(chain[-1]), name), False)

    def rebound(self, names: Iterable[str]) -> None:
        """An assignment, import or loop target the recorder does not follow binds `names` in the current scope."""
        for name in names:
            self.reaching.bind(name, OTHER)

    def _bound_now(self, target: cst.BaseExpression) -> cst.BaseExpression | cst.FunctionDef:
        """The def a name holds where the walk is, when it is the one binding of this scope that reaches here
        (reaching.py): an alias made of it (`fn = jax.jit(f)`) keeps that function when a later `def f` binds the
        name again; so does one made of a lambda bound to the name (`f = lambda x: ...`, `dfdx = jax.grad(f)`)."""
        if type(target) is cst.Name:
            reaching = self.reaching.reaching(target.value)
            defined = next(iter(reaching)) if len(reaching) == 1 else None
            if type(defined) is cst.FunctionDef:
                return defined
            if type(defined) is Alias and type(defined.target) is cst.Lambda:
                return defined.target
        return target

    def _bound_keywords(
        self, chain: Chain, expr: cst.BaseExpression | cst.FunctionDef, depth: int = 0
    ) -> tuple[frozenset[str], dict[str, cst.BaseExpression]]:
        """The parameters an alias binds by keyword (`inner = partial(f, k=v)`: `k`), along a chain of
        aliases (`mapped = jax.vmap(inner)`), with what a transform's partial gives them (`step =
        jax.jit(partial(f, k=False))`), the outer alias's where two give one."""
        if isinstance(expr, cst.Name) and depth < 3:
            for scope in reversed(chain):
                key = (id(scope), expr.value)
                if key in self._aliases:
                    alias = self._aliases[key]
                    names, values = self._bound_keywords(alias.chain, alias.target, depth + 1)
                    return alias.bound_names | names, {**values, **dict(alias.bound_values)}
        return frozenset(), {}

    def gives_other_result(self, chain: Chain, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """Whether calling `expr` runs a function through a transform whose calls give something other than what
        the function returns (`grad_fn = jax.value_and_grad(loss)`), along the aliases `aliased` follows."""
        key = self._alias_key(chain, expr, depth)
        if key is None:
            return False
        alias = self._aliases[key]
        return key in self._other_results or self.gives_other_result(alias.chain, alias.target, depth + 1)

    def aliased(
        self, chain: Chain, expr: cst.BaseExpression, depth: int = 0
    ) -> tuple[cst.BaseExpression, int, frozenset[str]]:
        """What a name stands for when aliases bind it (as `_resolve` follows them), with the parameters they
        fill: `losses.loss_fn` and `model` for `loss` after `loss = partial(losses.loss_fn, model=m)`;
        `expr` itself otherwise."""
        key = self._alias_key(chain, expr, depth)
        if key is None:
            return expr, 0, frozenset()
        alias = self._aliases[key]
        inner, more, names = self.aliased(alias.chain, alias.target, depth + 1)
        return inner, alias.bound + more, alias.bound_names | names

    def _alias_key(self, chain: Chain, expr: cst.BaseExpression, depth: int) -> tuple[int, str] | None:
        """The alias a name is bound to where `chain` ends (None: a def, a parameter or variable, or no name)."""
        if isinstance(expr, cst.Name) and depth < 3:
            for level, scope in enumerate(reversed(chain)):
                if type(scope) is cst.ClassDef and level > 0:
                    continue
                key = (id(scope), expr.value)
                if key in self._defs:
                    break
                if key in self._aliases:
                    return key
                if expr.value in self._bound.get(id(scope), ()):
                    break
        return None

    def scope_names(self, scope: cst.CSTNode, names: set[str]) -> None:
        """Every name a scope binds: one of them hides a function of that name further out."""
        self._bound[id(scope)] = names

    def attribute_set(self, cls: cst.ClassDef, init: cst.FunctionDef, attr: str, value: Value | None) -> None:
        """`self.attr = value` in `cls.__init__` (`init`)."""
        self._attributes_set.setdefault((cls, init), {}).setdefault(attr, []).append(value)

    def _attribute_summaries(self, facts: RoundFacts) -> None:
        for (cls, init), attributes in self._attributes_set.items():
            params = Signature.of(init.params).all
            for attr, values in attributes.items():
                summary = Returned.of("__init__", params, values) if self._set_once(cls, attr) else None
                if summary is not None and summary.matters:
                    label = f"{cls.name.value}.{attr}"
                    facts.attributes.setdefault(cls, {})[attr] = replace(summary, function=label)

    def returned(self, function: cst.CSTNode, value: Value | None) -> None:
        """`function` may return `value` (None: something unknown)."""
        self._returns.setdefault(function, []).append(value)

    def return_form(self, function: cst.CSTNode, chain: Chain, expr: cst.BaseExpression | None) -> None:
        """`function` returns `expr` as written (None: `None`, or falling off its end), seen from `chain`."""
        self._return_forms.setdefault(function, []).append((chain, expr))

    def _container_returns(self, facts: RoundFacts) -> None:
        """The functions that return a tuple, list or dict literal on every path: directly, through a local
        name only ever bound to one, or by returning a call of such a function of this module."""
        candidates: dict[cst.CSTNode, list] = {}  # each return: its literal, or the (chain, call) it returns
        for function, forms in self._return_forms.items():
            if function in self._generators:
                continue
            parts = []
            for chain, expr in forms:
                part = (chain, expr) if isinstance(expr, cst.Call) else _literal(function, expr)
                if part is None:
                    break
                parts.append(part)
            else:
                candidates[function] = parts
        changed = True
        while changed:  # a function returning a call is known once its callee is
            changed = False
            for function, parts in candidates.items():
                if function in facts.containers:
                    continue
                literals = []
                for part in parts:
                    literal = self._returned_literal(*part, facts) if isinstance(part, tuple) else part
                    if literal is None:
                        break
                    literals.append(literal)
                else:
                    facts.containers[function] = literals[0]
                    changed = True

    def _returned_literal(self, chain: Chain, call: cst.Call, facts: RoundFacts) -> cst.BaseExpression | None:
        node, _ = self._resolve(chain, call.func)
        return facts.containers.get(node) if node is not None and not _is_init(node) else None

    def finished(self, function: cst.CSTNode, host: set[cst.CSTNode]) -> None:
        """`function`'s body has been walked this round: calls below it can use its summary now."""
        self._finished[function] = self._summary(function, host)

    def summary_now(
        self, chain: Chain, call: cst.Call, func: cst.BaseExpression
    ) -> tuple[cst.CSTNode, int, Returned | None] | None:
        """The function a call runs (`func`: the called expression, or the function `jax.tree.map` maps), when
        its body was walked already this round, with its summary."""
        node, bound = self._resolve(chain, func)
        if node is None or node not in self._finished or _is_init(node):
            return None
        return node, bound, self._finished[node]

    def _summary(self, function: cst.CSTNode, host: set[cst.CSTNode]) -> Returned | None:
        if function in self._generators or function in host:
            return None
        name = function.name.value if isinstance(function, cst.FunctionDef) else "<lambda>"
        params = cast("cst.FunctionDef | cst.Lambda", function).params
        summary = Returned.of(name, Signature.of(params).all, self._returns.get(function, []))
        summary = summary if summary is not None and summary.matters else None
        forms = [expr for _, expr in self._return_forms.get(function, [])]
        return _given_back(summary, name, cast("cst.FunctionDef | cst.Lambda", function), forms)

    def generator(self, function: cst.CSTNode) -> None:
        """`function` yields: calling it gives a generator, not what it returns."""
        self._generators.add(function)

    def wrapper_call(self, chain: Chain, call: cst.Call, func: cst.BaseExpression, wrapper: cst.Call) -> None:
        """A call through the transform's call `wrapper`: `jax.jit(f)(x, True)` (`func`: `f`). The transform gets
        the call's arguments, and gives them to the function."""
        self._wrapper_calls.append((chain, call, func, wrapper))

    def named_call(self, chain: Chain, call: cst.Call, name: cst.Name, bound_once: bool) -> None:
        """A call of `name` where `chain` ends: a call through a transform's call (`g(x, True)` after
        `g = jax.jit(f)`) when that is the one binding the call may find, the only one reaching this point of the
        name's own scope, or, from a function, the module's one binding of it (`bound_once`: the module binds the
        name once; the function runs later, so that binding is read after the walk)."""
        for level, scope in enumerate(reversed(chain)):
            if type(scope) is cst.ClassDef and level > 0:
                continue
            if name.value not in self._bound.get(id(scope), ()):
                continue
            if level == 0:
                reaching = self.reaching.reaching(name.value)
                binding = next(iter(reaching)) if len(reaching) == 1 else None
                if type(binding) is Alias and binding.wrapper is not None:
                    self._wrapper_calls.append((chain, call, name, binding.wrapper))
            elif scope is chain[0] and bound_once:
                self._wrapper_calls.append((chain, call, name, None))
            return

    def declared_global(self, names: Iterable[str]) -> None:
        """A function declares `names` global: a call of it may bind them again, whatever the module's walk saw."""
        self._declared_global.update(names)

    def _through_wrappers(self, facts: RoundFacts) -> None:
        for chain, call, func, wrapper in self._wrapper_calls:
            if type(func) is cst.Name and func.value in self._declared_global:
                continue
            if wrapper is None:  # the module's one binding of the name
                alias = self._aliases.get((id(chain[0]), cast(cst.Name, func).value))
                wrapper = alias.wrapper if alias is not None else None
                if wrapper is None:
                    continue
            node, bound = self._resolve(chain, func)
            if isinstance(node, (cst.FunctionDef, cst.Lambda)) and (given := _literals_given(node, bound, call)):
                through = facts.through.setdefault(node, {})
                through[wrapper] = through.get(wrapper, frozenset()) | given
            elif node is None and (places := _literal_places(call)):
                facts.literal_arguments[wrapper] = facts.literal_arguments.get(wrapper, frozenset()) | places

    def callable_call(self, chain: Chain, call: cst.Call, func: cst.BaseExpression | None = None) -> None:
        """A call that may run a function of this module (`func`, when not the called expression itself): its
        result follows that function's returns."""
        self._callable.append((chain, call, call.func if func is None else func))

    def _return_summaries(self, facts: RoundFacts) -> None:
        for function, summary in self._finished.items():  # summarised once, when its body was walked
            if summary is not None and function not in facts.host:
                facts.returns[function] = summary
        for chain, call, func in self._callable:
            node, bound = self._resolve(chain, func)
            if node is not None and node in facts.returns and not _is_init(node):
                facts.callees[call] = (node, bound)

    def carry(
        self,
        chain: Chain,
        target: cst.BaseExpression,
        transform: AppliedTransform,
        index: int,
        listed: bool,
        shape: Value | None,
    ) -> None:
        """A lax function gets a pytree at its parameter `index`: a loop's carry, a branch's operand, a slice of a scan's
        `xs`; a Python container (`listed`), of the structure `shape` when known (jax keeps a carry's structure and
        dtypes from one iteration to the next, and gives a slice the structure of `xs`)."""
        self._carries.append((chain, target, transform, index, listed, shape))

    def _carry_parameters(self, facts: RoundFacts) -> None:
        for chain, target, transform, index, listed, shape in self._carries:
            node, bound = self._resolve(chain, target)
            if node is None:
                continue
            params = (
                Signature.of(cast("cst.FunctionDef | cst.Lambda", node).params)
                .after(replace(transform, bound=transform.bound + bound))
                .positional
            )
            if index >= len(params):
                continue
            param = params[index]
            if listed:
                facts.lists[node] = facts.lists.get(node, frozenset()) | {param}
            shapes = facts.structures.setdefault(node, {})
            shapes[param] = joined(shapes[param], shape) if param in shapes else shape

    def _reaching_here(self, chain: Chain, target: cst.BaseExpression) -> Candidates | None:
        """The bindings of a name of the scope where the walk is that may reach this point (reaching.py); None for
        another expression or a name the scope does not bind (a name of a scope further out)."""
        name = target.value if type(target) is cst.Name else None
        return self.reaching.reaching(name) if name is not None and name in self._bound.get(id(chain[-1]), ()) else None

    def host_callback(self, chain: Chain, target: cst.BaseExpression) -> None:
        """`target` runs on the host (`jax.pure_callback(solve_fun, ...)`). A name bound in several branches (`match
        backend:` choosing among lambdas) may hold any of the functions those bindings give: each runs on the host."""
        reaching = self._reaching_here(chain, target)
        if reaching and OTHER not in reaching and len(reaching) > 1:
            for binding in reaching:
                if type(binding) is Alias:
                    self._host.append((binding.chain, binding.target))
                elif type(binding) is cst.FunctionDef:
                    self._host.append((chain, binding))
            return
        self._host.append((chain, target))

    def kernel(self, chain: Chain, target: cst.BaseExpression) -> None:
        self._kernels.append((chain, target))

    def ref_made(self) -> None:
        """The module calls a ref factory."""
        self._makes_refs = True

    @property
    def makes_refs(self) -> bool:
        """Whether the module makes mutable boxes (`jax.new_ref`, an nnx Variable): known once the walk has seen
        the whole module (its own syntax decides it, no other fact: so no round waits for it)."""
        return self._makes_refs

    def key_consumed(
        self, function: cst.CSTNode, param: str, guards: tuple[Guard, ...] = (), folded: bool = False
    ) -> None:
        """`function` consumes its key parameter `param` itself, where the tests `guards` of its parameters lead;
        `folded`: through keys fold_in derives (keys.Use.folded)."""
        self._key_consumed.setdefault(function, {}).setdefault(param, []).append(guards)
        if not folded:
            self._key_drawn.setdefault(function, set()).add(param)
        if self._news is not None and param not in self._known.consumes.get(function, ()):
            self._announce()

    def key_closed(
        self, function: cst.CSTNode, ref: str, owner: cst.CSTNode, guards: tuple[Guard, ...] = (), folded: bool = False
    ) -> None:
        """`function` draws from `ref`, a variable of the enclosing function `owner` (a closure), where the tests
        `guards` of its parameters lead; `folded`: through keys fold_in derives (keys.Use.folded)."""
        self._key_closed.setdefault(function, {}).setdefault((ref, owner), []).append(guards)
        if not folded:
            self._key_closed_drawn.add((function, ref, owner))
        if self._news is not None and (ref, owner) not in self._known.closes.get(function, {}):
            self._announce()

    def returned_spent(self, function: cst.CSTNode, spent: dict[int | None, tuple[cst.CSTNode, str]]) -> None:
        """A `return` of `function` gives, at each place of `spent` (a position of the tuple it returns, or None: the
        whole value), a key the function drew from (where, by what); the places every `return` so gives are kept."""
        seen = self._spent_returns.get(function)
        kept = dict(spent) if seen is None else {place: use for place, use in seen.items() if place in spent}
        self._spent_returns[function] = kept
        if self._news is not None and kept and function not in self._known.spent_returns:
            self._announce()

    def spent_now(self, function: cst.CSTNode) -> dict[int | None, tuple[cst.CSTNode, str]] | None:
        """What `returned_spent` kept for a function whose `return`s this round has walked, or None."""
        return self._spent_returns.get(function)

    def function_at(self, chain: Chain, expr: cst.BaseExpression) -> tuple[cst.CSTNode | None, int]:
        """The def or lambda an expression names where the walk is (`chain`), with its parameters bound."""
        return self._resolve(chain, expr)

    def key_call(
        self,
        chain: Chain,
        call: cst.Call,
        caller: cst.CSTNode | None,
        params: list[str | None],
        keyed: list[bool],
        runs: cst.BaseExpression,
    ) -> None:
        """A call passing keys (from a function, or from module level: `caller` None) to the function `runs` names;
        `params[i]` is the caller's key parameter given as argument i, if any; `keyed[i]` whether argument i holds a
        key."""
        self._key_calls.append((chain, call, caller, params, keyed, runs))
        if self._news is not None and any(keyed):
            callee, _ = self._resolve(chain, runs)
            if isinstance(callee, cst.FunctionDef) and callee not in self._known.key_params:
                self._announce()

    def _key_summaries(self, facts: RoundFacts) -> None:
        """Which key parameters each function consumes, through its callees too, and what each call consumes."""
        consumes: dict[cst.CSTNode | None, set[str]] = {
            node: set(params) for node, params in self._key_consumed.items()
        }
        edges = []
        key_params: dict[cst.CSTNode, set[str]] = {}
        for chain, call, caller, params, keyed, runs in self._key_calls:
            callee, bound = self._resolve(chain, runs)
            if not isinstance(callee, (cst.FunctionDef, cst.Lambda)):
                continue
            signature = Signature.of(callee.params)
            positional = iter(signature.positional[bound:])
            for arg, param, is_key in zip(call.args, params, keyed):
                if arg.star:
                    break
                target = arg.keyword.value if arg.keyword is not None else next(positional, None)
                if target is not None and target in signature.all:
                    edges.append((call, caller, callee, target, arg.value, param, bound))
                    if is_key:
                        key_params.setdefault(callee, set()).add(target)
        facts.key_params = {node: frozenset(params) for node, params in key_params.items()}
        edges = [edge for edge in edges if not self._not_known_to_draw(edge[2], edge[6], edge[0], edge[3])]
        drawn: dict[cst.CSTNode | None, set[str]] = {node: set(params) for node, params in self._key_drawn.items()}
        for consumed in (consumes, drawn):
            changed = True
            while changed:
                changed = False
                for _, caller, callee, target, _, param, _ in edges:
                    if (
                        param is not None
                        and target in consumed.get(callee, ())
                        and param not in consumed.get(caller, ())
                    ):
                        consumed.setdefault(caller, set()).add(param)
                        changed = True
        facts.consumes = {node: frozenset(params) for node, params in consumes.items()}
        facts.spent_returns = {node: spent for node, spent in self._spent_returns.items() if spent}
        facts.closes = {
            node: {closed: tuple(sites) for closed, sites in refs.items()} for node, refs in self._key_closed.items()
        }
        for node, closures in self._key_closed.items():
            folded = frozenset(closed for closed in closures if (node, *closed) not in self._key_closed_drawn)
            if folded:
                facts.closes_folded[node] = folded
        for node, refs in self._key_consumed.items():
            items = {
                ref: tuple(sites)
                for ref, sites in refs.items()
                if node is not None and (name_item(ref) or param_field(ref))
            }
            if items:
                facts.items[node] = items
            fields = {ref: tuple(sites) for ref, sites in refs.items() if node is not None and ref.startswith("self.")}
            if fields:
                facts.fields[node] = fields
            drawn_params = {ref: tuple(sites) for ref, sites in refs.items() if node is not None and ref.isidentifier()}
            if drawn_params:
                facts.drawn_sites[node] = drawn_params
        for call, _, callee, target, value, _, _ in edges:
            if target in consumes.get(callee, ()):
                facts.consuming[call] = (*facts.consuming.get(call, ()), value)
                if target not in drawn.get(callee, ()):
                    facts.folding[call] = (*facts.folding.get(call, ()), value)

    def _not_known_to_draw(self, callee: cst.FunctionDef | cst.Lambda, bound: int, call: cst.Call, param: str) -> bool:
        """Whether `callee`, called by `call`, may leave its key parameter `param` unconsumed: each of its own draws
        or splits of it sits in a branch of a test of its parameters that the call's literals make dead code
        (`if shuffle:` of `get_data_loader(rng, data, shuffle=False)`), or that fills in a parameter the call gives
        (key_hops.live)."""
        sites = tuple(self._key_consumed.get(callee, {}).get(param, ()))
        return bool(sites) and not live(sites, callee, bound, call)

    def apply(
        self,
        chain: Chain,
        target: cst.BaseExpression,
        transform: AppliedTransform,
        site: tuple[cst.FunctionDef, dict[str, bool]] | None = None,
        called: cst.Call | None = None,
    ) -> None:
        """`site`: the def around the application, and which of its names are `None` there (none_flow.py);
        `called`: the call of the application made where it is applied (`jax.grad(f)(x)`), binding nothing."""
        at_once = (called, chain[-1])
        # Code of the scope that binds the name sees the binding that reaches it (reaching.py): `f = jax.jit(f)` the
        # def before it, not a later `def f` that replaces it; a lambda bound above, not a def further down. Names of
        # scopes further out are read when the code runs (a function called later): resolved after the walk.
        name = target.value if type(target) is cst.Name else None
        key = (id(chain[-1]), name or "")
        resolved: cst.BaseExpression | cst.FunctionDef = target
        reaching = self._reaching_here(chain, target)
        if reaching is not None and (not reaching or OTHER in reaching):
            return  # not bound yet, or maybe bound by something not followed
        if reaching is not None and len(reaching) == 1:
            (binding,) = reaching
        else:  # a class body's name, or one of several bindings that may reach (`if`/`else`): the walk's latest
            binding = self._aliases[key] if key in self._aliased_last else self._defs.get(key)
        if type(binding) is Alias:
            # (the def the alias's name held when it was made: `f_jit = jax.jit(f)` keeps it past a later `def f`)
            chain, resolved = (
                binding.chain,
                self._alias_defs[key] if self._aliases.get(key) is binding else binding.target,
            )
            transform = replace(
                transform,
                bound=transform.bound + binding.bound,
                bound_names=transform.bound_names | binding.bound_names,
            )
        elif type(binding) is cst.FunctionDef:
            resolved = binding
        self._applications.append((chain, resolved, transform))
        self._application_sites.append(site)
        self._application_calls.append(at_once)
        if self._news is not None:
            self._learned(chain, resolved, self._known.applied)

    def call(
        self,
        chain: Chain,
        call: cst.Call,
        func: cst.BaseExpression,
        args: list[cst.Arg],
        values: list[Value | None],
        caller: str | None,
        via: AppliedTransform | None,
        receiver: Value | None = None,
        outer_self: bool | None = None,
    ) -> None:
        """A call worth resolving: from a traced scope, or passing scalar literals (marked STATIC here).
        `receiver`: what `obj` holds in `obj.method(...)`, when the method gets it as `self`; `outer_self`:
        whether that instance lives outside the trace."""
        positional: list[Value | None] = []
        keywords: list[tuple[str, Value]] = []
        for arg, value in zip(args, values):
            if arg.star:
                break
            if is_scalar_literal(arg.value) and (value is None or value.kind is not Kind.STATIC):
                value = Value(Kind.STATIC)
            if arg.keyword is None:
                positional.append(value)
            elif value is not None:
                keywords.append((arg.keyword.value, value))
        bound = ((receiver,), ()) if receiver is not None else self._partial_given(chain, func)
        self._calls.append(_Call(chain, func, tuple(positional), tuple(keywords), call, caller, via, bound, outer_self))
        if self._news is not None:
            given = [value.kind for value in (*positional, *(value for _, value in keywords)) if value is not None]
            if via is not None:
                self._learned(chain, func, self._known.entries)
            elif Kind.STATIC in given:
                self._learned(chain, func, self._known.scalars, parameters=True)
            elif Kind.ARRAY in given:
                self._learned(chain, func, self._known.arrays, parameters=True)

    def _partial_given(self, chain: Chain, func: cst.BaseExpression) -> _Given:
        """What the partial a called name is bound to gives (`fn(batch)` after `fn = partial(loss, x)`: `x`)."""
        if type(func) is cst.Name:
            for level, scope in enumerate(reversed(chain)):
                if type(scope) is cst.ClassDef and level > 0:
                    continue
                key = (id(scope), func.value)
                if key in self._aliases or key in self._defs:
                    return self._partials.get(key, ((), ()))
                if key[1] in self._bound.get(id(scope), ()):
                    break
        return ((), ())

    def _resolve(
        self, chain: Chain, expr: cst.BaseExpression | cst.FunctionDef, depth: int = 0
    ) -> tuple[cst.CSTNode | None, int]:
        """The function node an expression names, and how many leading parameters are bound (self)."""
        kind = type(expr)
        if kind is cst.Lambda or kind is cst.FunctionDef:
            return expr, 0
        if kind is cst.Name:
            found, bound = self._named(chain, cast(cst.Name, expr), depth)
            if type(found) is cst.ClassDef:
                return self._method_of(found, "__init__", self._defs.get((id(found), "__init__"))), 1
            return found, bound
        if kind is not cst.Attribute:
            return None, 0
        attribute = cast(cst.Attribute, expr)
        if id(expr) in self._receivers:
            return self._method(self._receivers[id(expr)], attribute.attr.value, True)
        owner = attribute.value
        if type(owner) is cst.Name and owner.value in ("self", "cls"):
            attr = attribute.attr.value
            for outer, inner in zip(reversed(chain[:-1]), reversed(chain)):
                if type(inner) is cst.FunctionDef and type(outer) is cst.ClassDef:
                    found = self._method_of(outer, attr, self._defs.get((id(outer), attr)))
                    if type(found) is cst.ClassDef:
                        return None, 0  # `self.State(...)`: a class of the class body, not followed
                    if type(found) is cst.FunctionDef and is_property(found):
                        # `jax.jit(self.F)`, `self.F(x)`: Python runs the getter first, and what is transformed
                        # or called is the value it returns, not the getter's body.
                        return None, 0
                    self._self_calls.append((f"{outer.name.value}.{attr}", found))
                    if (id(outer), attr) in self._overridden:
                        return None, 0  # a subclass's method may be the one that runs
                    # What a class's name finds on an instance is a def (a class was returned above).
                    return found, 1 if found is not None and not _is_static(cast(cst.FunctionDef, found)) else 0
            return None, 0
        if self._plain and type(owner) is cst.Name:
            cls, _ = self._named(chain, owner, depth)
            if type(cls) is cst.ClassDef and id(cls) in self._plain:
                return self._method(cls, attribute.attr.value, False)
        return None, 0

    def _method(self, cls: cst.ClassDef, name: str, through_instance: bool) -> tuple[cst.CSTNode | None, int]:
        """A class's method `name` (its own or a base's) called through the class or an instance, with its bound
        parameters."""
        found = self._method_of(cls, name, self._defs.get((id(cls), name)))
        if not isinstance(found, cst.FunctionDef) or is_property(found):
            return None, 0
        return found, method_bound(found, through_instance)

    def _redefined_around(self, call: _Call) -> bool:
        """A traced call of a name that a scope around the caller defines more than once: which def runs depends on
        when the caller does (`def solve` replaced by another `def solve` between two transforms), so what the call
        gives belongs to neither for sure."""
        return call.via is not None and self._redefined_outside(call.chain, call.func)

    def _redefined_outside(self, chain: Chain, expr: cst.BaseExpression | cst.FunctionDef) -> bool:
        """Whether a name read where `chain` ends is a def that a scope around defines more than once: the function
        reading it runs later, and reads whichever def is bound then (a notebook's `loss_fn` redefined for a later
        trainer after the one cell that called `train`)."""
        if type(expr) is not cst.Name:
            return False
        name = expr.value
        for level, scope in enumerate(reversed(chain)):
            if type(scope) is cst.ClassDef and level > 0:
                continue  # a class body's names are not visible from its functions
            key = (id(scope), name)
            if key in self._defs or name in self._bound.get(id(scope), ()):
                return level > 0 and key in self._redefined
        return False

    def _named(self, chain: Chain, expr: cst.Name, depth: int) -> tuple[cst.CSTNode | None, int]:
        """The def, class or lambda a name is bound to where `chain` ends, and its bound parameters."""
        found = self._binding_key(chain, expr.value, depth < 3)
        if found is None:
            return None, 0
        key, is_def = found
        if is_def:
            return self._defs[key], 0
        node, bound = self._resolve(self._aliases[key].chain, self._alias_defs[key], depth + 1)
        return node, bound + self._aliases[key].bound

    def _binding_key(self, chain: Chain, name: str, aliases: bool) -> tuple[tuple[int, str], bool] | None:
        """(id of the scope, name) of the def (True) or, when `aliases`, the alias (False) a name is bound to where
        `chain` ends; None when a parameter or another variable of that name hides any function further out, or
        nothing binds it."""
        for level, scope in enumerate(reversed(chain)):
            # A class body's names are not visible from the functions inside it.
            if type(scope) is cst.ClassDef and level > 0:
                continue
            key = (id(scope), name)
            # After the walk, the last binding: a def, unless an assignment rebound its name to something else.
            if key in self._defs and not (key in self._aliased_last and self._rebinds(key)):
                return key, True
            if key in self._aliases and aliases:
                return key, False
            if name in self._bound.get(id(scope), ()):
                return None  # a parameter or variable of that name hides any function further out
        return None

    def _names_bound(self, chain: Chain, expr: cst.BaseExpression | cst.FunctionDef, depth: int = 0) -> frozenset[str]:
        """The parameters that the `partial`s behind a name give by keyword (`run = jax.vmap(partial(f, n=n))`, then
        `run(x)`), through the aliases `_named` follows."""
        found = self._binding_key(chain, expr.value, depth < 3) if type(expr) is cst.Name else None
        if found is None or found[1]:
            return frozenset()
        key = found[0]
        return self._aliases[key].bound_names | self._names_bound(
            self._aliases[key].chain, self._alias_defs[key], depth + 1
        )

    def _rebinds(self, key: tuple[int, str]) -> bool:
        """Whether the alias of a name binds it to something else than the def it wraps (`f = jax.jit(f)` does not)."""
        target = self._aliases[key].target
        return not (type(target) is cst.Name and target.value == key[1])

    def _wrapper_answers(
        self, facts: RoundFacts, at_once: Counter[cst.CSTNode]
    ) -> dict[cst.FunctionDef, list[dict[str, Fixed]]]:
        """For each function that only wrappers the module calls transform (wrapped_calls.py), or transforms called
        where they are applied (`at_once`), what each eager call of the wrappers fixes of its parameters (the traced
        ones are among the recorder's traced calls)."""
        reads: Counter[tuple[Key | None, str]] = Counter()
        for chain, arms in self.wrapped.choices.values():
            for arm, _ in arms:
                reads[(self._key_of(chain, arm), arm.value)] += 1
        eager: list[tuple[_Call, Key, Chain, cst.Name, Nones]] = []
        for call in self._calls:
            func = call.func
            if type(func) is not cst.Name:
                continue
            key = self._key_of(call.chain, func)
            if key in self.wrapped.wrappers:
                reads[(key, func.value)] += 1
                if call.via is None:
                    eager.append((call, key, call.chain, func, {}))
            elif key in self.wrapped.choices:
                reads[(key, func.value)] += 1
                chain, arms = self.wrapped.choices[key]
                if call.via is None:
                    eager.extend((call, key, chain, arm, told) for arm, told in arms)
        if not eager:
            return {}
        called = only_called(cast(cst.Module, eager[0][0].chain[0]), reads)
        wrappers: Counter[cst.CSTNode | None] = Counter()
        for key in self.wrapped.wrappers & called:
            wrappers[self._resolve(self._aliases[key].chain, self._alias_defs[key])[0]] += 1
        found: dict[cst.FunctionDef, list[dict[str, Fixed]]] = {}
        for call, key, chain, name, told in eager:
            if key not in called or self._key_of(chain, name) not in called & self.wrapped.wrappers:
                continue
            node, bound = self._resolve(chain, name)
            if (
                type(node) is not cst.FunctionDef
                or not self._keeps_arguments(node)
                or wrappers[node] + at_once[node] != len(facts.applied.get(node, ()))
            ):
                continue
            known = {**self.wrapped.at_call.get(id(call.node), {}), **told}
            found.setdefault(node, []).append(
                _with_bound(_none_at(node, bound, call, known), *self._bound_keywords(chain, name))
            )
        return found

    def _narrowed(self, call: _Call) -> dict[str, Fixed]:
        """The names a string test around a traced call fixes (`if method == "jax":`, around the call or the lambda
        that makes it): a callee testing the same string takes the branch Python picks."""

        def guards_of(function: cst.FunctionDef) -> dict[int, tuple[Guard, ...]]:
            return module_parameter_guards(cast(cst.Module, call.chain[0]), function)

        return narrowed_at(call.chain, call.node, guards_of)

    def _key_of(self, chain: Chain, name: cst.Name) -> Key | None:
        """The scope that binds `name` where `chain` ends, with the name (None: a builtin or unknown)."""
        for level, scope in enumerate(reversed(chain)):
            if type(scope) is cst.ClassDef and level > 0:
                continue
            key = (id(scope), name.value)
            if key in self._defs or key in self._aliases or name.value in self._bound.get(id(scope), ()):
                return key
        return None

    @staticmethod
    def _closure_nones(
        facts: RoundFacts, sites: dict[cst.CSTNode, list[tuple[cst.FunctionDef, dict[str, bool]] | None]]
    ) -> None:
        """For a function no traced call enters, every transform applied to it in one def: what every
        application there knows of the def's names it reads (not its own parameters or locals)."""
        for node, found in sites.items():
            if type(node) is not cst.FunctionDef or node in facts.entries or found[0] is None:
                continue
            outer = found[0][0]
            if any(site is None or site[0] is not outer for site in found):
                continue
            own = set(parameter_names(node.params)) | rebound_names(node.body)
            answers: list[dict[str, Fixed]] = [{**site[1]} for site in found if site is not None]
            common = {name: none for name, none in agreed(answers).items() if name not in own}
            if common:
                facts.closure_nones[node] = (outer, common)

    def facts(self) -> RoundFacts:
        facts = RoundFacts()
        sites: dict[cst.CSTNode, list[tuple[cst.FunctionDef, dict[str, bool]] | None]] = {}
        traced_at_once: list[tuple[cst.FunctionDef, AppliedTransform, cst.Call, cst.CSTNode]] = []
        for (chain, target, transform), site, (called, scope) in zip(
            self._applications, self._application_sites, self._application_calls
        ):
            node, bound = self._resolve(chain, target)
            names = transform.bound_names | self._bound_keywords(chain, target)[0]
            if (
                node is None
                or self._redefined_outside(chain, target)
                or isinstance(node, (cst.FunctionDef, cst.Lambda))
                and not takes_keywords(node.params, names)
            ):
                continue  # (`partial(f, k=v)` of an `f` without `k` raises TypeError: nothing is traced)
            if bound and transform.name in MODULE_FIRST_BODIES:
                bound -= 1  # flax unbinds `self.method`: the Module it passes first is `self`
            applied = replace(
                transform,
                bound=transform.bound + bound,
                bound_names=names,
                outside_functions=outside_functions(chain),
            )
            facts.applied.setdefault(node, []).append(applied)
            sites.setdefault(node, []).append(site)
            if called is not None and type(node) is cst.FunctionDef:
                traced_at_once.append((node, applied, called, scope))
        self._key_summaries(facts)
        for chain, target in self._host:
            node, _ = self._resolve(chain, target)
            if node is not None:
                facts.host.add(node)
        for chain, target in self._kernels:
            node, _ = self._resolve(chain, target)
            if node is not None:
                facts.kernels.add(node)
        self._return_summaries(facts)
        self._attribute_summaries(facts)
        self._container_returns(facts)
        self._carry_parameters(facts)
        self._through_wrappers(facts)
        traced_calls: dict[cst.FunctionDef | cst.Lambda, list[dict[str, Fixed]]] = {}
        handing: list[_Handing] = []
        for call in self._calls:
            node, bound = self._resolve(call.chain, call.func)
            if node is None or node in facts.host or self._redefined_around(call):
                continue
            if _rejected(node, bound, call, self._names_bound(call.chain, call.func)):
                continue
            if call.via is not None and type(node) is cst.FunctionDef:
                handed = self.handed_at.get(id(call.node), frozenset())
                narrowed = self._narrowed(call) if any(type(a.value) is cst.Name for a in call.node.args) else {}
                answers = traced_calls.setdefault(node, [])
                answers.append(answer := _none_at(node, bound, call, narrowed, handed))
                if GIVEN in answer.values():
                    args = arguments_given(node, bound, call.node) or {}
                    on = {p: cast(cst.Name, args[p]).value for p, fixed in answer.items() if fixed == GIVEN}
                    handing.append(_Handing(node, len(answers) - 1, call.chain[-1], on))
            if call.via is not None and call.outer_self is not None:
                facts.outer_selves[node] = facts.outer_selves.get(node, False) or call.outer_self
            name = node.name.value if isinstance(node, cst.FunctionDef) else "<lambda>"
            if call.via is not None:
                entries = facts.entries.setdefault(node, [])
                if all(entry.caller != call.caller for entry in entries):
                    # The tracker records a caller with every call it gives a trace (`via`).
                    entries.append(TracedCaller(call.via, cast(str, call.caller)))
            signature = Signature.of(cast("cst.FunctionDef | cst.Lambda", node).params)
            before, named = call.bound
            start = bound - len(before)
            if start < 0:
                start, before = bound, ()  # (aliases of aliases: the partial's values are not followed)
            params = dict(zip(signature.positional[start:], (*before, *call.positional)))
            params.update((k, v) for k, v in (*named, *call.keywords) if k in signature.all)
            # A traced call, or an eager call of a function a transform wraps (`@jax.jit`, `step = jax.jit(f)`):
            # either way the trace gets the defaults the call leaves out.
            if (call.via is not None or node in facts.applied) and not any(arg.star for arg in call.node.args):
                named_here = {arg.keyword.value for arg in call.node.args if arg.keyword is not None}
                left = signature.defaults - params.keys() - named_here  # (`xnp=jnp`: a module, no value)
                if left:
                    facts.defaulted[node] = facts.defaulted.get(node, frozenset()) | left
            shapes = facts.structures.setdefault(node, {})
            if call.via is None and not any(arg.star for arg in call.node.args):
                eager = facts.eager.setdefault(node, {})
                for param in signature.all:  # (a parameter this call leaves out holds its default)
                    concrete = eager_value(params.get(param))
                    eager[param] = joined(eager[param], concrete) if param in eager else concrete
            kept = facts.kept_structures.setdefault(node, {}) if call.via is not None else None
            for param, value in params.items():
                shape = structure(value)  # every call must show one structure: an unknown value shows none
                shapes[param] = joined(shapes[param], shape) if param in shapes else shape
                if kept is not None:  # (a leaf as it is: the parameter's own value, without a structure)
                    shape = structure(value, kept=True)
                    shape = shape if shape is not None and shape.contents is not None else None
                    kept[param] = joined(kept[param], shape, kept=True) if param in kept else shape
                if value is None:
                    continue
                if value.contents is not None:  # a Python list, tuple or dict: a pytree there, not one array
                    facts.lists[node] = facts.lists.get(node, frozenset()) | {param}
                cls = value.instance if type(value.instance) is cst.ClassDef else value.pytree
                if cls is not None:
                    given = facts.classes.setdefault(node, {})
                    given[param] = cls if given.get(param, cls) is cls else None
                if call.via is not None and type(value.instance) is cst.ClassDef:
                    made = facts.instances.setdefault(node, {})
                    made[param] = _instances_traced(made[param], value) if param in made else value
                if value.contents is None and not value.container:
                    kinds = facts.dtypes.setdefault(node, {})
                    kinds[param] = value.dtype_kind if kinds.get(param, value.dtype_kind) == value.dtype_kind else None
                if value.kind is Kind.STATIC:
                    facts.scalars[node] = facts.scalars.get(node, frozenset()) | {param}
                elif value.kind is Kind.ARRAY and value.contents is None:
                    # `step(jnp.stack(xs))`: a call gives it one array, so under a transform it is one tracer
                    facts.arrays[node] = facts.arrays.get(node, frozenset()) | {param}
                elif value.kind is Kind.TRACED and value.tracer is not None and call.caller is not None:
                    passed = facts.passed.setdefault(node, {})
                    if param not in passed:
                        trace = value.tracer.transform
                        via = AppliedTransform(
                            trace.name,
                            call.node,
                            trace.staged,
                            differentiates=trace.differentiates,
                            in_jaxpr=trace.in_jaxpr,
                        )
                        passed[param] = Tracer(
                            name,
                            param,
                            via,
                            call.caller,
                            value.container,
                            differentiated_by=value.tracer.differentiated_by,
                            part=value.pytree_part,
                        )
        for node, shapes in facts.structures.items():
            refs = frozenset(param for param, shape in shapes.items() if shape is not None and shape.kind is Kind.REF)
            if refs:
                facts.refs[node] = refs
        # `jax.grad(f)(x)`: the trace of `f` gets that call's arguments, and the parameters it leaves out their
        # defaults (`if plot:` of a `plot=False` the call does not give is Python's own test).
        at_once: Counter[cst.CSTNode] = Counter()
        for node, applied, called, scope in traced_at_once:
            at_once[node] += 1
            given_at_once = arguments_given(node, applied.bound, called)
            if given_at_once is not None:  # `jax.jit(f)(x)`: the trace gets the defaults the call leaves out
                signature = Signature.of(node.params)
                left = signature.defaults - given_at_once.keys() - applied.bound_names
                if left:
                    facts.defaulted[node] = facts.defaulted.get(node, frozenset()) | left
            handed = self.handed_at.get(id(called), frozenset())
            answer = none_at_call(node, applied.bound, called, {}, {}, handed)
            answers = traced_calls.setdefault(node, [])
            answers.append(answer := _with_bound(answer, applied.bound_names, dict(applied.bound_values)))
            if GIVEN in answer.values():
                args = arguments_given(node, applied.bound, called) or {}
                on = {p: cast(cst.Name, args[p]).value for p, fixed in answer.items() if fixed == GIVEN}
                handing.append(_Handing(node, len(answers) - 1, scope, on))
        for node, count in at_once.items():
            if count == len(facts.applied[node]):
                facts.wrapped.add(node)
        for node, answers in self._wrapper_answers(facts, at_once).items():
            traced_calls[node] = [*traced_calls.get(node, ()), *answers]
            facts.wrapped.add(node)
        for node, answers in traced_calls.items():
            _settle_nones(facts, node, answers)
        _hand_on_nones(facts, traced_calls, handing)
        self._closure_nones(facts, sites)
        # A subclass elsewhere that defines one of these again changes what this module's analysis finds.
        learned = (
            facts.applied,
            facts.passed,
            facts.entries,
            facts.scalars,
            facts.returns,
            facts.consumes,
            facts.key_params,
            facts.host,
            facts.kernels,
        )
        self.self_calls = {
            name for name, node in self._self_calls if node is not None and any(node in table for table in learned)
        }
        return facts
