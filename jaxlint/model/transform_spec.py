"""What a transform is, as data: the row type of model/transforms.py's table, which JAX's own transforms and the
libraries' (model/libraries/) fill."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

Version = tuple[int, int, int]


@dataclass(frozen=True)
class Role:
    """Where a transform takes one kind of argument list (static or donated) and when it infers the other half.

    `infers_since`: from this jax release on, giving only the numbers (or only the names) makes jax find the
    other half with `inspect.signature`; None: it never does (the names option does not exist).
    """

    argnums: str
    argnames: Optional[str]
    infers_since: Optional[Version]


@dataclass(frozen=True)
class Options:
    """The static and donated arguments of a call of the transformed function."""

    static: Role
    donate: Optional[Role]  # None: donated arguments stay usable (the transform writes results back into them)


# Families: how a transform decides which parameters of its function are tracers.
JIT = "jit"  # every parameter, except static_argnums/static_argnames
GRAD = "grad"  # only the argnums positions (default: the first)
MAP = "map"  # positions whose in_axes is not None
CUSTOM = "custom"  # every parameter, except nondiff_argnums
FILTERED = "filtered"  # array-annotated parameters only: equinox/nnx make the other arguments static
PRIMALS = "primals"  # every parameter: the function is called with the primals that follow it (`jax.vjp(f, x)`)
# No parameter: a library traces the function to a jaxpr with the caller's arguments closed over (numpyro's
# samplers), so its arguments stay what they were, and every `jnp` result inside is a tracer.
CLOSURE = "closure"
POSITIONS = "positions"  # the parameters at `traced_positions` (diffrax's vector field: `t` and `y`, not `args`)
# flax linen's lifted transforms: applied to a Module class (its `__call__`) or to a method, they pass the Module
# first, untraced, and trace every other parameter; given one of `unclaimed_options` (which count the Module or
# leave some parameters out), nothing is claimed.
LIFTED = "lifted"


@dataclass(frozen=True)
class TransformSpec:
    family: str
    staged: bool  # abstract tracers: Python `if`, `int()` and shapes fail on them
    positional_options: tuple[str, ...] = ()  # options also taken by position, after the function
    options: Optional[Options] = None  # static and donated arguments of calls, when it takes jit's options
    gradient: bool = False  # alone, it traces with values: `float()`, `math.*` and NumPy fail, `if` works
    reverse_mode: bool = False  # transposes the computation: rejects `while_loop` with a traced trip count
    scalar_output: bool = False  # the function must return a scalar (without `has_aux`)
    integer_input_error: Optional[str] = None  # its TypeError on integer or boolean differentiated inputs
    per_example: bool = False  # runs its function once per mapped example
    # Maps over devices: each device runs the same program, so a value equal on every device (a replicated
    # parameter, one initialisation) is the norm, not a sign that the examples were meant to differ.
    per_device: bool = False
    caches_by_function: bool = False  # its compile cache is keyed by the identity of the function it wraps
    # Each call returns a new function object (`jax.grad(f) is not jax.grad(f)`): a jit of it misses the cache
    new_function_per_call: bool = False
    runs_function: bool = True  # False: only traces it, for shapes or a jaxpr (eval_shape, make_jaxpr)
    called_with_arguments: bool = False  # `jax.eval_shape(f, x, y)`: the arguments follow the function
    # The keyword it also takes its function by (`jax.vmap(fun=f)`); None: by position only (`jax.jit`).
    function_keyword: Optional[str] = "fun"
    # The option whose `None` entries leave an argument untraced (shard_map's `in_specs`: static; a vmap's
    # `in_axes`: unmapped, the array given).
    none_spec_static: Optional[str] = None
    # The option jax reads as a pytree prefix of the arguments (shard_map's `in_specs`, vmap's `in_axes`): a list
    # there, entry by entry, can only match a list argument (any other argument raises a pytree structure error).
    argument_prefix: Optional[str] = None
    traced_axes: tuple[str, ...] = ()  # names that, in a MAP transform's `in_axes`, mark a traced parameter
    runs_as_given: bool = False  # called outside a trace, runs the function on its arguments as given
    # Inside, a `jnp`/`lax` result computed from static values stays a concrete array (vmap); under the
    # others, which trace to a jaxpr, it is a tracer: `jnp.array(x.shape).prod()` cannot be a shape.
    concrete_constants: bool = False
    traced_positions: tuple[int, ...] = ()  # the parameters a POSITIONS transform traces
    unclaimed_options: tuple[str, ...] = ()  # given any of these, a LIFTED transform claims no parameter
    # Applied and called outside any trace, it runs its function at every call, eagerly: its tracers hold the
    # values (`print` shows the numbers of each shard), though a Python `if` or `float()` on them still raises.
    eager_outside_trace: bool = False
    # A MAP transform that traces an argument whose `in_axes` is `None` too, broadcast unmapped (pmap: a plain object
    # there raises TypeError, not a valid JAX type), rather than handing it to the function as given (vmap).
    traces_unmapped: bool = False
    # Applied and called outside any trace, it runs its function's Python again at every call (vmap keeps no trace;
    # jit, pmap and checkpoint trace once): a clock read there is read at each call, the same for every example.
    retraced_each_call: bool = False


# jax.jit's options: the transforms that take them share this object.
JIT_OPTIONS = Options(
    Role("static_argnums", "static_argnames", (0, 0, 0)), Role("donate_argnums", "donate_argnames", (0, 4, 14))
)


@dataclass(frozen=True)
class Runner:
    """How a library object runs a function of the user's: each method that runs it (`apply`), with how many
    arguments that method takes before the function's own (`apply(variables, *args)`: 1); the keyword that
    names another method to run (`method=`), and the one run by default (`__call__`)."""

    methods: dict[str, int]
    method_keyword: Optional[str] = None
    default: Optional[str] = None
