"""Traced scopes: which functions run under a JAX transform, and which parameters are tracers.

A function is traced when a transform is applied to it, in any spelling: decorators (`@jax.jit`,
`@jit`, `@jax.jit(static_argnames=...)`, `@partial(jax.jit, static_argnums=...)`), wrapping calls
(`jax.jit(f, ...)`, `jax.vmap(jax.grad(f))`, `jax.jit(partial(f, cfg))`, `jax.jit(self.step)`),
bodies passed to `lax.cond/switch/while_loop/fori_loop/scan/map/associative_scan`, and helpers
called from a traced scope with traced arguments (values.py finds those). Static and differentiated
arguments are resolved against the signature as jax does; when a spec is not a literal, nothing is
claimed about the parameters.

"Staged" transforms (jit, vmap, pmap, lax bodies...) give abstract tracers: Python `if`, `int()`
and shapes fail on them. `grad` alone gives tracers that carry concrete values: those still work.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, cast

import libcst as cst

from jaxlint.diagnostics import Evidence

from jaxlint.analysis.arrays import is_array_annotation
from jaxlint.analysis.calls import argument, arguments
from jaxlint.analysis.names import Names
from jaxlint.model.functions import UNTRACEABLE_ANNOTATIONS
from jaxlint.model.transform_spec import CLOSURE, CUSTOM, FILTERED, GRAD, LIFTED, MAP, POSITIONS, PRIMALS
from jaxlint.model.transforms import (
    FORI_LOOP,
    BUILDS_JAXPR,
    CUSTOM_RULES,
    EAGER_OUTSIDE_TRACE,
    FUNCTION_KEYWORDS,
    GRADIENTS,
    HOST_CALLBACKS,
    JIT_LIKE,
    JITS,
    LAX_BODIES,
    MODULE_FIRST_BODIES,
    NONE_AXES,
    ONLY_TRACE,
    PARTIAL,
    RETRACED_EACH_CALL,
    REF_KERNELS,
    CALLED_WITH_ARGUMENTS,
    STAGED,
    TRANSFORMS,
    Callables,
)


class TransformTable:
    """The transforms jaxlint knows, plus the user's `extra-transforms` (which behave like `jax.jit`)."""

    def __init__(self, extra: frozenset[str] = frozenset()) -> None:
        self.extra = extra
        self.builds_jaxpr = BUILDS_JAXPR | extra
        # Those that take `static_argnames=`: the fix a message can suggest.
        self.static_argnames = JITS | extra
        self.jit_like = JIT_LIKE | extra
        # Those whose calls trace every argument not made static, a Python bool included (`jax.jit(f)(x, True)`):
        # not `shard_map`, which outside a trace runs the function on the values, nor those given the arguments
        # with the function (`jax.eval_shape(f, x)`), whose calls are not the function's.
        self.traces_flags = frozenset(name for name in JIT_LIKE if not _eager_or_called(name)) | extra
        self.all = frozenset(TRANSFORMS) | extra
        self.staged = STAGED | extra | frozenset(LAX_BODIES)


def _eager_or_called(name: str) -> bool:
    spec = TRANSFORMS[name]
    return spec.eager_outside_trace or spec.called_with_arguments


DEFAULT_TABLE = TransformTable()


@dataclass(frozen=True)
class AppliedTransform:
    """One transform applied to a function, where, with the keyword arguments it was given.

    `bound` positional parameters (and `bound_names`) are filled before the transform sees the
    function: by `functools.partial`, or `self` for a bound method. A transform that another module
    applies (or a traced call from another module) has its `origin` there, and its function as `node`.
    """

    name: str
    node: cst.CSTNode
    staged: bool
    keywords: dict[str, cst.BaseExpression] = field(default_factory=dict)
    bound: int = 0
    bound_names: frozenset[str] = frozenset()
    origin: str | None = None  # in another module: where (`train.py:12`)
    outside_functions: bool = False  # applied at module level (or in a class body), where no trace runs
    # False for the trace of a function with its own derivative rule (custom_jvp/custom_vjp), and of what it calls:
    # a gradient around it differentiates by the rule and never goes through the body.
    differentiates: bool = True
    # Applied in another module: the positions (after `bound`) and keywords that calls of its wrapper there give a
    # scalar literal (`jax.jit(ops.f)(x, True)`; Applied.literals).
    literals: tuple[int | str, ...] = ()
    # The errors that the `try` bodies around the application catch without raising again (expected_errors.shown_errors):
    # a trace that starts there and fails shows its error on purpose (`try: jax.jit(f)(x) except Exception as e:`).
    shown: frozenset[str] = frozenset()
    in_trace: bool = False  # applied while a trace runs (in a traced function): traced as part of that trace
    # Applied or called while a trace that builds a jaxpr runs (`jax.grad(loss)(params)` inside jit): its trace is
    # part of that jaxpr, whatever its own name, so every `jnp`/`lax` result in it is a tracer.
    in_jaxpr: bool = False
    # Of `bound_names`, what `partial` gives each (`plot=False`): a Python value in every trace of the function.
    bound_values: tuple[tuple[str, cst.BaseExpression], ...] = ()

    def where(self, line_of) -> str:
        """Where it is applied, for messages: `line 9`, or `train.py:12` in another module."""
        return self.origin if self.origin is not None else f"line {line_of(self.node)}"


def has_own_rule(transforms: Iterable[AppliedTransform]) -> bool:
    """Whether a function has its own derivative rule among the transforms applied to it (custom_jvp, custom_vjp):
    a gradient of it, or of a call of it, runs the rule and never goes through its body."""
    return any(transform.name in CUSTOM_RULES for transform in transforms)


@dataclass(frozen=True)
class Tracer:
    """Why a parameter holds a tracer: the transform applied to its function, or the traced call into it."""

    function: str
    param: str
    transform: AppliedTransform
    caller: str | None = None  # for a helper: the traced function that passes the tracer
    container: bool = True  # may be a pytree of tracers rather than one array
    returned_by: str | None = None  # for a call's result: the function that returned this tracer
    # The gradient transforms that differentiate it, besides `transform`: `jax.jit(jax.grad(f))`
    # traces `f` with a jit tracer that `grad` differentiates too.
    differentiated_by: tuple[str, ...] = ()
    # Not a parameter: an array the trace computed (`jnp.arange(3).sum()` under jit), `param` empty.
    computed: bool = False
    path: str = ""  # a field of the parameter's pytree (`.done` of `state`), reached by attributes
    part: bool = False  # for a helper's parameter: given a part unpacked from a pytree (as often a list as an array)

    def field(self, name: str) -> "Tracer":
        """The tracer of a field of this pytree: `state.done` of `state`."""
        return replace(self, path=f"{self.path}.{name}")

    def item(self, key: str) -> "Tracer":
        """The tracer of an item of this pytree, by a literal key or index: `batch["x"]`, `args[0]`."""
        return replace(self, path=f"{self.path}[{key}]")

    @property
    def staged(self) -> bool:
        return self.transform.staged

    @property
    def differentiated(self) -> bool:
        """Traced by a gradient transform alone: a tracer that carries its value."""
        return not self.transform.staged and self.transform.name in GRADIENTS

    @property
    def filtered(self) -> bool:
        """Traced by a filtering transform (`eqx.filter_jit`): of its pytrees, only the array leaves are tracers."""
        spec = TRANSFORMS.get(self.transform.name)
        return spec is not None and spec.family == FILTERED

    def evidence(self, row_of: Callable[[cst.CSTNode], int]) -> tuple[Evidence, ...]:
        """The steps from the transform to this tracer, each at its row: what `describe` says, as data."""
        transform = self.transform
        row = None if transform.origin is not None else row_of(transform.node)
        origin = f" ({transform.origin})" if transform.origin is not None else ""
        if self.computed:
            steps = [
                Evidence(
                    row,
                    f"`{transform.name}` traces `{self.function}` to a jaxpr{origin}: every "
                    f"`jax.numpy`/`jax.lax` result there is a tracer",
                )
            ]
        elif self.caller is not None:
            steps = [
                Evidence(
                    row,
                    f"`{self.caller}` calls `{self.function}` with a tracer for `{self.param}`"
                    f"{origin}, under `{transform.name}`",
                )
            ]
        else:
            steps = [Evidence(row, f"`{transform.name}` traces `{self.function}`{origin}: `{self.param}` is a tracer")]
        if self.path:
            part = "an item" if self.path.startswith("[") else "a field"
            steps.append(Evidence(None, f"`{self.param}{self.path}` is {part} of `{self.param}`: a tracer too"))
        if self.returned_by is not None:
            steps.append(Evidence(None, f"`{self.returned_by}` returns a value computed from it: a tracer"))
        return tuple(steps)

    def describe(self, line_of) -> str:
        if self.path:
            whole = replace(self, path="")
            part = "an item" if self.path.startswith("[") else "a field"
            if self.returned_by is None and self.caller is None:
                return (
                    f"`{self.param}{self.path}` is {part} of `{self.param}`, a traced argument of "
                    f"`{self.function}`, transformed by `{self.transform.name}` at "
                    f"{self.transform.where(line_of)}"
                )
            return f"`{self.param}{self.path}` is {part} of `{self.param}`: {whole.describe(line_of)}"
        if self.returned_by is not None:
            origin = replace(self, returned_by=None).describe(line_of)
            return f"returned by `{self.returned_by}` from a traced argument: {origin}"
        if self.caller is not None and self.transform.origin is not None:
            return (
                f"`{self.param}` is traced: `{self.function}` is called with a tracer from `{self.caller}` "
                f"({self.transform.origin}), transformed by `{self.transform.name}`"
            )
        where = self.transform.where(line_of)
        if self.caller is not None:
            return (
                f"`{self.param}` is traced: `{self.function}` is called with a tracer from `{self.caller}` at {where}"
            )
        return (
            f"`{self.param}` is a traced argument of `{self.function}`, "
            f"transformed by `{self.transform.name}` at {where}"
        )


@dataclass(frozen=True)
class TracedCaller:
    """A call into a function from a traced scope: its body runs while the caller is traced."""

    via: AppliedTransform  # named after the caller's transform, at the call
    caller: str


@dataclass(frozen=True)
class TracedFunction:
    """A function (or lambda) whose body runs under a transform, or while one traces its caller."""

    name: str
    traced: dict[str, Tracer]
    static: frozenset[str]
    staged: bool
    transforms: tuple[AppliedTransform, ...] = ()  # applied to it directly
    entries: tuple[TracedCaller, ...] = ()  # calls into it from traced scopes
    lists: frozenset[str] = frozenset()  # parameters a transform's literal argument spec shows to be Python lists
    # A method whose every transform traces its `self` (`_rebuilds_self`): the body writes to a per-call copy.
    rebuilt_self: bool = False

    @property
    def trace(self) -> AppliedTransform | None:
        """How it is traced, for messages: the first transform applied, else the first traced call."""
        if self.transforms:
            return self.transforms[0]
        if self.entries:
            return self.entries[0].via
        return next((t.transform for t in self.traced.values()), None)

    @property
    def differentiated(self) -> bool:
        """Traced by a gradient transform alone (no jit around): its values are concrete."""
        return not self.staged and self.trace is not None and self.trace.name in GRADIENTS

    @property
    def runs_eagerly(self) -> bool:
        """Traced only by transforms that run eagerly outside a trace (`jax.shard_map`), applied at module level,
        and reached by no traced call: its function runs at every call, with tracers that hold the values."""
        return (
            bool(self.transforms)
            and not self.entries
            and all(t.name in EAGER_OUTSIDE_TRACE and t.outside_functions for t in self.transforms)
            and all(tracer.transform in self.transforms for tracer in self.traced.values())
        )

    @property
    def retraced_each_call(self) -> bool:
        """Traced only by transforms applied outside any trace that run its Python again at every call (`jax.vmap`),
        and reached by no traced call: what it reads of the host is read at each call."""
        return (
            bool(self.transforms)
            and not self.entries
            and all(t.name in RETRACED_EACH_CALL and not t.in_trace for t in self.transforms)
        )

    @property
    def only_traced_for_shapes(self) -> bool:
        """Only `eval_shape`/`make_jaxpr` trace it: it is never run, so constants in it never matter."""
        names = {t.name for t in self.transforms} | {e.via.name for e in self.entries}
        names |= {t.transform.name for t in self.traced.values()}
        return bool(names) and names <= ONLY_TRACE


class _Unknowable(Exception):
    """`*args` or `**kwargs` in a call: which parameters it fills is only known at run time."""


def _function_given(
    func: str | None, positional: list[cst.BaseExpression], keywords: dict[str, cst.BaseExpression]
) -> tuple[cst.BaseExpression | None, list[cst.BaseExpression], dict[str, cst.BaseExpression]]:
    """The function a transform's call is given, first by position or by its keyword (`eqx.filter_vmap(fun=f)`),
    with the options given by position after it and by keyword."""
    if positional:
        return positional[0], positional[1:], keywords
    word = FUNCTION_KEYWORDS.get(func or "")
    if word is None or word not in keywords:
        return None, [], keywords
    return keywords[word], [], {option: value for option, value in keywords.items() if option != word}


def _split_args(call: cst.Call) -> tuple[list[cst.BaseExpression], dict[str, cst.BaseExpression]]:
    given = arguments(call)
    if not given.complete:
        raise _Unknowable
    return given.positional, given.keywords


def _options(name: str, extra: list[cst.BaseExpression], keywords: dict[str, cst.BaseExpression]):
    """A transform's keyword options, with the ones given by position named."""
    spec = TRANSFORMS.get(name)
    names = spec.positional_options if spec is not None else ()
    if spec is not None and spec.called_with_arguments:
        extra = []
    if len(extra) > len(names):
        raise _Unknowable
    return {**dict(zip(names, extra)), **keywords}


def decorator_transform(decorator: cst.Decorator, names: Names, table: TransformTable) -> AppliedTransform | None:
    """The transform a decorator applies, or None when it is not one."""
    qualified = names.qualified(decorator.decorator)
    if qualified in table.all:
        return AppliedTransform(qualified, decorator, qualified in table.staged)
    return _configured(decorator.decorator, decorator, names, table)


def _configured(
    expr: cst.BaseExpression, node: cst.CSTNode, names: Names, table: TransformTable
) -> AppliedTransform | None:
    """The transform a configured decorator applies (`partial(jax.jit, static_argnums=1)`,
    `jax.jit(static_argnames="n")`), placed at `node`; None when `expr` is not one."""
    if not isinstance(expr, cst.Call):
        return None
    func = names.qualified(expr.func)
    try:
        positional, keywords = _split_args(expr)
        if func in PARTIAL and positional:
            inner = names.qualified(positional[0])
            if inner in table.all:
                options = _options(inner, positional[1:], keywords)
                return AppliedTransform(inner, node, inner in table.staged, options)
        if func in table.all and not positional and FUNCTION_KEYWORDS.get(func) not in keywords:
            return AppliedTransform(func, node, func in table.staged, keywords)
    except _Unknowable:
        pass
    return None


def applied_transforms(
    call: cst.Call, names: Names, table: TransformTable
) -> list[tuple[cst.BaseExpression, AppliedTransform]]:
    """The functions a call transforms, each with the transform: `jax.jit(f)`, `lax.scan(body, ...)`,
    `partial(jax.jit, static_argnames="n")(f)`."""
    func = names.qualified(call.func)
    if func not in table.all and func not in LAX_BODIES:
        return _decorated_by_hand(call, names, table)
    try:
        positional, keywords = _split_args(call)
        function, extra, keywords = _function_given(func, positional, keywords)
        if func in table.all:
            options = _options(func, extra, keywords)
    except _Unknowable:
        return []
    if func in table.all and function is not None:
        target, bound, given = bound_keywords(function, names, table)
        if target is None:
            return []
        values = tuple(given.items())
        return [
            (
                target,
                AppliedTransform(
                    func, call, func in table.staged, options, bound, frozenset(given), bound_values=values
                ),
            )
        ]
    if func in LAX_BODIES:
        indices, words = LAX_BODIES[func]
        bodies = [positional[i] for i in indices if i < len(positional)]
        bodies += [keywords[w] for w in words if w in keywords]
        found = []
        for body in bodies:
            for item in body.elements if isinstance(body, (cst.List, cst.Tuple)) else [body]:
                value = item.value if isinstance(item, cst.BaseElement) else item
                target, bound, bound_names = unwrap(value, names, table)
                bound += func in MODULE_FIRST_BODIES
                if target is not None:
                    found.append((target, AppliedTransform(func, call, True, {}, bound, bound_names)))
        return found
    return []


def _decorated_by_hand(
    call: cst.Call, names: Names, table: TransformTable
) -> list[tuple[cst.BaseExpression, AppliedTransform]]:
    """`partial(jax.jit, static_argnames="n")(f)`, `jax.jit(static_argnums=1)(f)`: a configured decorator
    applied by a call."""
    if type(call.func) is not cst.Call or len(call.args) != 1 or call.args[0].keyword or call.args[0].star:
        return []
    transform = _configured(call.func, call, names, table)
    if transform is None:
        return []
    target, bound, bound_names = unwrap(call.args[0].value, names, table)
    if target is None:
        return []
    return [(target, replace(transform, bound=bound, bound_names=bound_names))]


def host_callback_target(call: cst.Call, names: Names) -> cst.BaseExpression | None:
    """The function a host callback call runs (`jax.pure_callback(f, ...)`), through `partial`."""
    return _callable_given(call, names, HOST_CALLBACKS)


def ref_kernel_target(call: cst.Call, names: Names) -> cst.BaseExpression | None:
    """The kernel a Pallas call runs (`pl.pallas_call(kernel, ...)`), through `partial`."""
    return _callable_given(call, names, REF_KERNELS)


def ref_kernel_decorator(decorator: cst.Decorator, names: Names) -> bool:
    """Whether a decorator runs the def as a Pallas kernel given refs: `@pl.kernel(out_type=..., mesh=...)` (the
    body left out: the call gives a decorator), or `@functools.partial(pl.kernel, ...)`."""
    expr = decorator.decorator
    if type(expr) is not cst.Call:
        return False
    made = names.qualified(expr.func)
    if made in PARTIAL and expr.args:
        return names.qualified(expr.args[0].value) in REF_KERNELS
    if made not in REF_KERNELS:
        return False
    positions, words = REF_KERNELS[made]
    return all(argument(expr, position, word) is None for position, word in zip(positions, words))


def wrapped_call(
    call: cst.Call, names: Names, table: TransformTable
) -> tuple[cst.BaseExpression, list[cst.Arg]] | None:
    """The function a call runs through transforms or `partial`, with the arguments it gets: `f` and `(x,)` for
    `jax.vmap(f)(x)`, `partial(f, k=v)(x)` and `jax.vjp(f, x)`; None when `partial` gives it positional arguments
    too, or for any other call."""
    if type(call.func) is cst.Call:
        wrapped, args = call.func, list(call.args)
    elif names.qualified(call.func) in CALLED_WITH_ARGUMENTS:
        wrapped, args = call, list(call.args[1:])
    else:
        return None
    target, bound, _ = unwrap(wrapped, names, table)
    if target is None or type(target) is cst.Call or bound:
        return None
    return target, args


def _callable_given(call: cst.Call, names: Names, table: dict[str, Callables]) -> cst.BaseExpression | None:
    spec = table.get(names.qualified(call.func) or "")
    if spec is None:
        return None
    positions, words = spec
    given = (argument(call, position, word) for position, word in zip(positions, words))
    target = next((t for t in given if t is not None), None)
    while (
        isinstance(target, cst.Call)
        and names.qualified(target.func) in PARTIAL
        and target.args
        and target.args[0].keyword is None
    ):
        target = target.args[0].value
    return target if isinstance(target, (cst.Name, cst.Lambda, cst.Attribute)) else None


def unwrap(
    expr: cst.BaseExpression, names: Names, table: TransformTable
) -> tuple[cst.BaseExpression | None, int, frozenset[str]]:
    """The function inside nested transforms and `partial`, with what partial binds (bound_keywords, by name)."""
    target, bound, keywords = bound_keywords(expr, names, table)
    return target, bound, frozenset(keywords)


def bound_keywords(
    expr: cst.BaseExpression, names: Names, table: TransformTable
) -> tuple[cst.BaseExpression | None, int, dict[str, cst.BaseExpression]]:
    """The function inside nested transforms and `partial`, with how many positional parameters partial binds and
    what it binds by keyword (the outer partial's value where two bind one name).

    An inner transform call is left to be found on its own; the outer one still applies to its function.
    A call of anything else (`make_loss(2.0)`, `losses.make_loss(2.0)`) is the function it returns, which
    a factory may show (factories.py).
    """
    bound, bound_names = 0, dict[str, cst.BaseExpression]()
    while isinstance(expr, cst.Call):
        func = names.qualified(expr.func)
        if func not in table.all and func not in PARTIAL:
            made = isinstance(expr.func, (cst.Name, cst.Attribute))
            return (expr, bound, bound_names) if made else (None, 0, {})
        try:
            positional, keywords = _split_args(expr)
        except _Unknowable:
            return None, 0, {}
        if func in PARTIAL:
            if not positional:
                return None, 0, {}
            bound += len(positional) - 1
            bound_names = {**keywords, **bound_names}
            expr = positional[0]
            continue
        function, _, _ = _function_given(func, positional, keywords)
        if function is None:
            return None, 0, {}
        expr = function
    if isinstance(expr, (cst.Name, cst.Attribute, cst.Lambda)):
        return expr, bound, bound_names
    return None, 0, {}


def takes_keywords(params: cst.Parameters, names: Iterable[str]) -> bool:
    """Whether a function can be given these keywords (`partial(f, k=v)`): it names each of them as a parameter
    that is not positional-only, or takes `**kwargs`; else Python raises TypeError at the call, before anything is
    traced."""
    if type(params.star_kwarg) is cst.Param:
        return True
    taken = {p.name.value for p in (*params.params, *params.kwonly_params)}
    return all(name in taken for name in names)


@dataclass(frozen=True)
class Signature:
    """The parameters of a function, as jax resolves argnums against them."""

    positional: tuple[str, ...]
    keyword_only: tuple[str, ...]
    defaults: frozenset[str]
    annotations: dict[str, cst.BaseExpression]
    flags: frozenset[str] = frozenset()  # defaults to `True` or `False`: a flag, not a pytree
    # `*args` and `**kwargs`: a tuple and a dict of whatever the caller passes there.
    stars: tuple[str, ...] = ()

    @classmethod
    def of(cls, params: cst.Parameters) -> "Signature":
        every = (*params.posonly_params, *params.params, *params.kwonly_params)
        return cls(
            tuple(p.name.value for p in (*params.posonly_params, *params.params)),
            tuple(p.name.value for p in params.kwonly_params),
            frozenset(p.name.value for p in every if p.default is not None),
            {p.name.value: p.annotation.annotation for p in every if p.annotation is not None},
            frozenset(
                p.name.value for p in every if type(p.default) is cst.Name and p.default.value in ("True", "False")
            ),
            tuple(p.name.value for p in (params.star_arg, params.star_kwarg) if type(p) is cst.Param),
        )

    def after(self, transform: AppliedTransform) -> "Signature":
        """The signature the transform sees, once `partial` (or `self`) has bound some parameters."""
        keep = [p for p in self.positional[transform.bound :] if p not in transform.bound_names]
        return Signature(
            tuple(keep),
            tuple(p for p in self.keyword_only if p not in transform.bound_names),
            self.defaults,
            self.annotations,
            self.flags,
            self.stars,
        )

    @property
    def all(self) -> tuple[str, ...]:
        return self.positional + self.keyword_only


class NotLiteral(Exception):
    """An argument spec that only run time can resolve."""


def literal_ints(expr: cst.BaseExpression | None, default: tuple[int, ...] = ()) -> tuple[int, ...]:
    """The integers an argument spec writes (`1`, `-1`, `(0, 2)`); NotLiteral when only run time knows."""
    if expr is None:
        return default
    if isinstance(expr, cst.Integer):
        return (int(expr.value, 0),)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return tuple(-n for n in literal_ints(expr.expression))
    if isinstance(expr, (cst.Tuple, cst.List)):
        return tuple(n for element in expr.elements for n in literal_ints(element.value))
    raise NotLiteral


def literal_strs(expr: cst.BaseExpression | None) -> tuple[str, ...]:
    """The names an argument spec writes (`"n"`, `("n", "m")`); NotLiteral when only run time knows."""
    if expr is None:
        return ()
    if isinstance(expr, cst.SimpleString):
        return (cast(str, expr.evaluated_value),)  # a bytes literal passes through as before
    if isinstance(expr, (cst.Tuple, cst.List)):
        return tuple(s for element in expr.elements for s in literal_strs(element.value))
    raise NotLiteral


def _positions(signature: Signature, argnums: tuple[int, ...]) -> set[str]:
    count = len(signature.positional)
    return {signature.positional[n] for n in argnums if -count <= n < count}


def _literal_params(signature: Signature, places: tuple[int | str, ...]) -> frozenset[str]:
    """The parameters that calls given literals at `places` (positions and keywords) give them to."""
    named = set(signature.all)
    return frozenset(
        place if isinstance(place, str) else signature.positional[place]
        for place in places
        if (place in named if isinstance(place, str) else place < len(signature.positional))
    )


def _traced_and_static(
    transform: AppliedTransform,
    signature: Signature,
    names: Names,
    table: TransformTable,
    given: frozenset[str] = frozenset(),
    arrays: frozenset[str] = frozenset(),
    pytrees: frozenset[str] = frozenset(),
    through: frozenset[str] = frozenset(),
) -> tuple[set[str], set[str]]:
    """Parameters this transform makes tracers, and parameters it keeps static.

    A parameter with a default may never be passed (then it is a plain Python value), so it is
    never claimed traced; except one a call gives a scalar literal (`training=True`, `top_k=2`) through a transform
    tracing every argument it is not told is static (`jit`: a Python scalar becomes a weak-typed tracer): a call of
    the function it decorates (`given`: every call of the decorated name goes through it), or a call of the
    transform's own wrapper (`through`: `jax.jit(f)(x, True)`, `g(x, True)` after `g = jax.jit(f)`). A call of
    the plain name of a function wrapped by a call runs no transform.
    A filtering transform (`eqx.filter_jit`) traces the parameters annotated as arrays, those a call
    gives a JAX array (`arrays`), and the array leaves of those holding a pytree class of the module (`pytrees`:
    an `eqx.Module`, whose fields then say which leaves are arrays).
    """
    kw = transform.keywords
    name = transform.name
    everything = set(signature.all) - signature.defaults
    if name in table.jit_like:
        nums = literal_ints(kw.get("static_argnums"))
        static = _positions(signature, tuple(n for n in nums if n >= 0)) | set(literal_strs(kw.get("static_argnames")))
        # A negative position counts from the end of each call's positional arguments (`static_argnums=-1` is
        # `width` of `f(x, width)` and `mode` of `f(x, width, mode)`): any positional parameter may be static.
        unknown = set(signature.positional) if any(n < 0 for n in nums) else set()
        option = TRANSFORMS[name].none_spec_static if name in TRANSFORMS else None
        if option is not None:
            static |= _unspecified(kw.get(option), signature)
        if name in table.traces_flags:
            decorated = isinstance(transform.node, cst.Decorator) and transform.bound == 0
            everything |= signature.defaults & (through | given if decorated else through)
        if static <= set(signature.all) and all(0 <= n < len(signature.positional) for n in nums):
            # jit traces what `*args` and `**kwargs` receive like any argument: a tuple and a dict of tracers. (A
            # static position or name beyond the named parameters would make one of their items static.)
            everything |= set(signature.stars)
        return everything - static - unknown, static & set(signature.all)
    family = TRANSFORMS[name].family if name in TRANSFORMS else None
    if family == GRAD:
        return _positions(signature, literal_ints(kw.get("argnums"), (0,))) - signature.defaults, set()
    if family == MAP:
        static = _positions(signature, literal_ints(kw.get("static_broadcasted_argnums")))
        mapped = _mapped(kw.get("in_axes"), signature, TRANSFORMS[name].traced_axes, names)
        return (mapped & everything) - static, static
    if family == CUSTOM:
        static = _positions(signature, literal_ints(kw.get("nondiff_argnums")))
        return everything - static, static
    if name in LAX_BODIES or family == PRIMALS:
        return everything, set()
    if family == CLOSURE:
        return set(), set()
    if family == POSITIONS:
        return _positions(signature, TRANSFORMS[name].traced_positions) - signature.defaults, set()
    if family == LIFTED:
        if any(option in kw for option in TRANSFORMS[name].unclaimed_options):
            raise NotLiteral
        return everything - set(signature.positional[:1]), set()
    traced = {
        p
        for p, annotation in signature.annotations.items()
        if p in everything and is_array_annotation(annotation, names)
    }
    if "in_axes" in kw or not transform.staged:
        # `nnx.vmap(f, in_axes=(None, 0))`: a pytree given `None` is not traced; `eqx.filter_grad` differentiates
        # the first argument only.
        pytrees = frozenset()
    spec = TRANSFORMS.get(name)
    claimed = traced | ((arrays | pytrees) & everything)
    if spec is not None and spec.none_spec_static is not None:
        # An array given `None` there is not mapped: the function gets it as it was.
        claimed -= _unspecified(kw.get(spec.none_spec_static), signature)
    if spec is not None and spec.gradient and not transform.staged:
        # `nnx.grad(f)(model, x)` called eagerly: the arguments not differentiated (all but the first, or `argnums`)
        # are the arrays given. (Inside a trace, they are the caller's tracers.)
        claimed &= _positions(signature, literal_ints(kw.get("argnums"), (0,)))
    return claimed, set()


def _unspecified(specs: cst.BaseExpression | None, signature: Signature) -> set[str]:
    """The parameters whose entry in a literal `in_specs` tuple is `None`."""
    if not isinstance(specs, (cst.Tuple, cst.List)) or len(specs.elements) != len(signature.positional):
        return set()
    return {
        name
        for name, element in zip(signature.positional, specs.elements)
        if isinstance(element.value, cst.Name) and element.value.value == "None"
    }


def _listed(transform: AppliedTransform, signature: Signature) -> set[str]:
    """The parameters whose entry in a literal argument prefix (`in_specs=([P(), P()], P())`, `in_axes=([0] * n,)`)
    is a list display: jax matches it as a pytree prefix, so only a Python list argument gets through."""
    spec = TRANSFORMS.get(transform.name)
    option = transform.keywords.get(spec.argument_prefix) if spec is not None and spec.argument_prefix else None
    if type(option) is not cst.Tuple or len(option.elements) != len(signature.positional):
        return set()
    return {name for name, element in zip(signature.positional, option.elements) if _list_display(element.value)}


def _list_display(expr: cst.BaseExpression) -> bool:
    """`[a, b]`, or `[a] * n`: a list."""
    if type(expr) is cst.BinaryOperation and type(expr.operator) is cst.Multiply:
        expr = expr.left
    return type(expr) is cst.List


def _mapped(
    in_axes: cst.BaseExpression | None, signature: Signature, traced_axes: tuple[str, ...], names: Names
) -> set[str]:
    """The parameters a literal `in_axes` maps: an integer, or one of `traced_axes` (`nnx.Carry`); not `None`, nor a
    name of it (`jnp.newaxis`, an alias `na = jnp.newaxis`). Another name may hold either: its parameter is neither."""

    def traced(axis: cst.BaseExpression) -> bool:
        return isinstance(axis, cst.Integer) or names.qualified(axis) in traced_axes

    if in_axes is None or traced(in_axes):
        return set(signature.all)
    if isinstance(in_axes, (cst.Tuple, cst.List)):
        axes = [element.value for element in in_axes.elements]
        if len(axes) != len(signature.positional) or any(
            not traced(axis) and not none_axis(axis, names) and type(axis) is not cst.Name for axis in axes
        ):
            raise NotLiteral
        return {name for name, axis in zip(signature.positional, axes) if traced(axis)}
    raise NotLiteral


def none_axis(axis: cst.BaseExpression, names: Names) -> bool:
    """`None`, or a name of it: `jnp.newaxis`, `np.newaxis`, or a module's alias of them."""
    return type(axis) is cst.Name and axis.value == "None" or names.qualified(axis) in NONE_AXES


def _rebuilds_self(transform: AppliedTransform, signature: Signature, names: Names, table: TransformTable) -> bool:
    """Whether the transform takes a method's `self` as an argument it traces: jit's arguments not in
    static_argnums/static_argnames, pmap's not in static_broadcasted_argnums (whatever its `in_axes`), vmap's that
    its `in_axes` maps. jax flattens
    the object at each call (a pytree, or the call raises TypeError: not a valid JAX type) and the body gets a copy
    rebuilt from tracers: its attribute writes stay in the trace, and leave it only as outputs. Bound
    (`jax.jit(self.step)`) or static, `self` is the caller's object."""
    if transform.bound or "self" in transform.bound_names or signature.positional[:1] != ("self",):
        return False
    spec = TRANSFORMS.get(transform.name)
    try:
        if transform.name in table.jit_like:
            _, static = _traced_and_static(transform, signature, names, table)
        elif spec is not None and spec.traces_unmapped:
            static = _positions(signature, literal_ints(transform.keywords.get("static_broadcasted_argnums")))
        elif spec is not None and spec.family == MAP:
            mapped, _ = _traced_and_static(transform, signature, names, table)
            return (
                "self" in mapped
            )  # vmap flattens a mapped `self` too; an unmapped one (`in_axes=None`) it passes as is
        else:
            return False
    except NotLiteral:
        return False
    return "self" not in static


def _untraceable(signature: Signature) -> set[str]:
    """The parameters annotated with a type no transform traces (`pbn: str`): a transform given one raises
    at the call, so the body never runs with a tracer there."""
    return {
        param
        for param, annotation in signature.annotations.items()
        if isinstance(annotation, cst.Name) and annotation.value in UNTRACEABLE_ANNOTATIONS
    }


def traced_function(
    name: str,
    params: cst.Parameters,
    transforms: list[AppliedTransform],
    passed: dict[str, Tracer],
    entries: list[TracedCaller],
    names: Names,
    table: TransformTable,
    given: frozenset[str] = frozenset(),
    arrays: frozenset[str] = frozenset(),
    through: dict[cst.CSTNode, frozenset[str]] | None = None,
    pytrees: frozenset[str] = frozenset(),
    decorated: int = 0,
) -> TracedFunction | None:
    """The traced-scope facts of one function from everything applied to it, or None. `given`: the
    parameters some call of it passes a scalar literal; `arrays`: those some call passes a JAX array; `through`:
    those the calls of a transform's wrapper pass a scalar literal, by the transform's node; `pytrees`: those
    holding an instance of a pytree class of the module; `decorated`: how many of `transforms`, first, are the
    def's own decorators (in their order, the last one innermost).

    A parameter a decorator makes static (`@partial(jax.jit, static_argnames="i")`) is a Python value in the body,
    whatever a transform applied outside it does: everything else reaches the body through that wrapper, which
    hashes the argument (a tracer given there raises at the call, before the body is traced)."""
    if not transforms and not passed and not entries:
        return None
    signature = Signature.of(params)
    traced: dict[str, Tracer] = {}
    static: set[str] = set()
    depth: dict[int, int] = {}  # by id of a transform: 1 for the innermost decorator, more outside it
    static_within: dict[str, int] = {}  # a parameter a decorator makes static: that decorator's depth
    gradients: dict[str, tuple[str, ...]] = {}
    lists: set[str] = set()
    for index, transform in enumerate(transforms):
        depth[id(transform)] = decorated - index if index < decorated else decorated + 1
        lists |= _listed(transform, signature.after(transform))
        try:
            passed_through = through.get(transform.node, frozenset()) if through else frozenset()
            literal = _literal_params(signature.after(transform), transform.literals)
            passed_through |= literal
            more_traced, more_static = _traced_and_static(
                transform, signature.after(transform), names, table, given, arrays, pytrees, passed_through
            )
        except NotLiteral:
            continue
        if index < decorated:
            for param in more_static:
                static_within[param] = min(static_within.get(param, depth[id(transform)]), depth[id(transform)])
        seen = signature.after(transform).positional
        for param in more_traced - _untraceable(signature):
            # fori_loop's body gets the loop index first: one integer tracer, not a pytree; a flag is one bool, and
            # so is what a call of the wrapper in another module gives a literal.
            scalar = transform.name == FORI_LOOP and seen[:1] == (param,) or param in signature.flags | literal
            current = traced.get(param)
            if current is None or transform.staged and not current.transform.staged:
                # A staging transform inside a gradient one (`jax.jacfwd(jax.jit(f))`): jit traces `f` with
                # abstract values, whatever the gradient around it does; the gradient still differentiates it.
                if current is not None and current.transform.name in GRADIENTS and current.transform.differentiates:
                    gradients[param] = (*gradients.get(param, ()), current.transform.name)
                traced[param] = Tracer(name, param, transform, container=not scalar)
            elif transform.name in GRADIENTS and transform.differentiates and transform is not current.transform:
                gradients[param] = (*gradients.get(param, ()), transform.name)
        static |= more_static
    for param, within in static_within.items():
        if param in traced and depth.get(id(traced[param].transform), 0) > within:
            del traced[param]
            gradients.pop(param, None)
    for param, more in gradients.items():
        traced[param] = replace(traced[param], differentiated_by=more)
    for param, tracer in passed.items():
        if param not in static:
            traced.setdefault(param, tracer)
    staged = (
        any(t.staged for t in transforms)
        or any(t.staged for t in passed.values())
        or any(e.via.staged for e in entries)
    )
    return TracedFunction(
        name,
        traced,
        frozenset(static - set(traced)),
        staged,
        tuple(transforms),
        tuple(entries),
        frozenset(lists),
        bool(transforms) and all(_rebuilds_self(transform, signature, names, table) for transform in transforms),
    )
