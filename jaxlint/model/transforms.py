"""JAX's transforms and the functions that take callables, as data: the one place that knows them.

Each transform is one row: how it decides which arguments of the function it wraps are tracers (its
family), whether those tracers are abstract (staged), the options it also takes by position, where
it takes static and donated arguments, and the facts rules need about it (reverse mode, a scalar
output, the error it raises on integer inputs...). The analysis and the rules read the sets derived
at the bottom; a new transform is a new row. Every fact was checked against jax 0.10.2.
"""

from __future__ import annotations

from typing import Optional

from jaxlint.model.libraries import merged_dicts, merged_sets
from jaxlint.model.transform_spec import (
    CUSTOM,
    GRAD,
    JIT,
    JIT_OPTIONS,
    LIFTED,
    MAP,
    PRIMALS,
    Options,
    Role,
    TransformSpec,
)

_JIT = TransformSpec(
    JIT,
    staged=True,
    options=JIT_OPTIONS,
    caches_by_function=True,
    new_function_per_call=True,
    function_keyword=None,
)
_CHECKPOINT = TransformSpec(JIT, staged=True, new_function_per_call=True)
_SHARD_MAP = TransformSpec(
    JIT,
    staged=True,
    positional_options=("mesh", "in_specs", "out_specs"),
    none_spec_static="in_specs",
    argument_prefix="in_specs",
    eager_outside_trace=True,
    function_keyword=None,
)
_GRAD_ERROR = "grad requires real- or complex-valued inputs"


def _gradient(error: Optional[str], reverse: bool, scalar: bool = False) -> TransformSpec:
    return TransformSpec(
        GRAD,
        staged=False,
        positional_options=("argnums",),
        gradient=True,
        reverse_mode=reverse,
        scalar_output=scalar,
        integer_input_error=error,
        new_function_per_call=True,
    )


TRANSFORMS: dict[str, TransformSpec] = {
    "jax.jit": _JIT,
    "jax.pjit": _JIT,
    "jax.experimental.pjit.pjit": _JIT,
    "jax.checkpoint": _CHECKPOINT,
    "jax.remat": _CHECKPOINT,
    "jax.ad_checkpoint.checkpoint": _CHECKPOINT,
    "jax.make_jaxpr": TransformSpec(JIT, staged=True, positional_options=("static_argnums",), runs_function=False),
    "jax.eval_shape": TransformSpec(JIT, staged=True, runs_function=False, called_with_arguments=True),
    "jax.shard_map": _SHARD_MAP,
    "jax.experimental.shard_map.shard_map": _SHARD_MAP,
    "jax.grad": _gradient(_GRAD_ERROR, reverse=True, scalar=True),
    "jax.value_and_grad": _gradient(_GRAD_ERROR, reverse=True, scalar=True),
    "jax.jacrev": _gradient("jacrev requires real- or complex-valued inputs", reverse=True),
    # `hessian` is `jacfwd` of `jacrev`: `jacfwd` sees the input first.
    "jax.hessian": _gradient("jacfwd requires real-valued inputs", reverse=True),
    "jax.jacfwd": _gradient("jacfwd requires real-valued inputs", reverse=False),
    # `if x > 0` works in a `vjp`'d function and `float(x)` raises; the pullback raises on a `while_loop`.
    "jax.vjp": TransformSpec(PRIMALS, staged=False, gradient=True, reverse_mode=True, called_with_arguments=True),
    # Forward mode, with values too: `if x > 0` works, `float(x)` and NumPy raise, a tracer stored outside leaks.
    "jax.linearize": TransformSpec(PRIMALS, staged=False, gradient=True, called_with_arguments=True),
    # `jax.jvp(f, primals, tangents)` calls `f(*primals)`.
    "jax.jvp": TransformSpec(PRIMALS, staged=False, positional_options=("primals", "tangents"), gradient=True),
    # It traces its function with abstract values, from the primals' shapes alone.
    "jax.linear_transpose": TransformSpec(PRIMALS, staged=True, reverse_mode=True, called_with_arguments=True),
    "jax.vmap": TransformSpec(
        MAP,
        staged=True,
        positional_options=("in_axes", "out_axes"),
        per_example=True,
        concrete_constants=True,
        argument_prefix="in_axes",
        new_function_per_call=True,
        retraced_each_call=True,
    ),
    "jax.pmap": TransformSpec(
        MAP,
        staged=True,
        positional_options=("axis_name", "in_axes", "out_axes", "static_broadcasted_argnums"),
        options=Options(Role("static_broadcasted_argnums", None, None), Role("donate_argnums", None, None)),
        per_example=True,
        per_device=True,
        caches_by_function=True,
        traces_unmapped=True,
    ),
    "jax.custom_jvp": TransformSpec(CUSTOM, staged=False, positional_options=("nondiff_argnums",), runs_as_given=True),
    "jax.custom_vjp": TransformSpec(CUSTOM, staged=False, positional_options=("nondiff_argnums",), runs_as_given=True),
    **merged_dicts("TRANSFORMS"),
}

# Functions that take callables, by the position and keyword names of those callables.
Callables = tuple[tuple[int, ...], tuple[str, ...]]

# lax control flow: the callables given are traced (staged), all their parameters.
LAX_BODIES: dict[str, Callables] = {
    "jax.lax.cond": ((1, 2), ("true_fun", "false_fun")),
    "jax.lax.switch": ((1,), ("branches",)),
    "jax.lax.while_loop": ((0, 1), ("cond_fun", "body_fun")),
    "jax.lax.fori_loop": ((2,), ("body_fun",)),
    "jax.lax.scan": ((0,), ("f",)),
    "jax.lax.map": ((0,), ("f",)),
    "jax.lax.associative_scan": ((0,), ("fn",)),
    **merged_dicts("LAX_BODIES"),
}
# Of those, the ones jax writes in Python over `jnp` operations rather than as one primitive: called outside a
# trace, they call their function on concrete values (`lax.associative_scan(combine, xs)` runs `combine` on slices
# of `xs`, and a `print` there shows the numbers); inside one, on the trace's tracers.
EAGER_BODIES = frozenset({"jax.lax.associative_scan"})
# Of those, the ones that call their functions with a library object first, untraced (flax's `nn.cond(pred, f, g,
# mdl, x)` calls `f(mdl, x)`).
MODULE_FIRST_BODIES = merged_sets("MODULE_FIRST_BODIES")
# Of those, the ones that run their function once per iteration.
LOOP_BODIES = frozenset({"jax.lax.scan", "jax.lax.fori_loop", "jax.lax.while_loop", "jax.lax.map"}) | merged_sets(
    "LOOP_BODIES"
)
# lax loops: where the initial carry is given (position, keyword), and which parameter of the body (and
# of `cond_fun`) receives it. A Python list given there reaches the body as a list of tracers.
LAX_CARRIES: dict[str, tuple[int, str, int]] = {
    "jax.lax.fori_loop": (3, "init_val", 1),
    "jax.lax.while_loop": (2, "init_val", 0),
    "jax.lax.scan": (1, "init", 0),
    **merged_dicts("LAX_CARRIES"),
}
# Of those, the loops that also call a condition on each iteration's carry: its position and keyword, and the
# body's, whose return is the next carry the condition gets.
LOOP_CONDITIONS: dict[str, tuple[tuple[int, str], tuple[int, str]]] = {
    "jax.lax.while_loop": ((0, "cond_fun"), (1, "body_fun")),
}
# Of those, the loops whose body returns `(carry, output)` (the others return the carry).
CARRY_WITH_OUTPUT = frozenset({"jax.lax.scan"}) | merged_sets("CARRY_WITH_OUTPUT")
# lax loops over the leading axis of `xs`: its position and keyword, and the body's parameter that gets each slice.
# A slice has the pytree structure of `xs` (a tuple of arrays gives a tuple of tracers, never one array).
LAX_SLICES: dict[str, tuple[int, str, int]] = {
    "jax.lax.scan": (2, "xs", 1),
    "jax.lax.map": (1, "xs", 0),
}
# lax control flow: where the operands (data, carries) go, by position and keyword, and the position from
# which every further positional argument is an operand (`lax.cond(pred, f, g, *operands)`). An iterator
# there raises TypeError (not a valid JAX type).
LAX_OPERANDS: dict[str, tuple[tuple[int, ...], tuple[str, ...], Optional[int]]] = {
    "jax.lax.cond": ((), ("operand",), 3),
    "jax.lax.switch": ((), ("operand",), 2),
    "jax.lax.scan": ((1, 2), ("init", "xs"), None),
    "jax.lax.fori_loop": ((3,), ("init_val",), None),
    "jax.lax.while_loop": ((2,), ("init_val",), None),
    "jax.lax.map": ((1,), ("xs",), None),
    **merged_dicts("LAX_OPERANDS"),
}

# Callables given to these run on the host, with concrete values, on every call: not traced.
HOST_CALLBACKS: dict[str, Callables] = {
    "jax.pure_callback": ((0,), ("callback",)),
    "jax.debug.callback": ((0,), ("callback",)),
    "jax.experimental.io_callback": ((0,), ("callback",)),
    "jax.experimental.host_callback.call": ((0,), ("callback_func",)),
    "jax.experimental.host_callback.id_tap": ((0,), ("tap_func",)),
}
# Callables given to these get mutable refs, whatever their annotations say: `o_ref[...] = v` is a store.
REF_KERNELS: dict[str, Callables] = merged_dicts("REF_KERNELS")
# These call their function on every leaf: a pytree of tracers gives it tracers.
TREE_MAPS = frozenset({"jax.tree.map", "jax.tree_util.tree_map", "jax.tree_map"})
# These list a pytree's leaves in a Python list (the leaves of a pytree of tracers are tracers): whether each
# item pairs its leaf with the leaf's path, and whether the list comes with the treedef (`leaves, treedef = ...`).
TREE_LEAF_LISTS = {
    "jax.tree.leaves": (False, False),
    "jax.tree_util.tree_leaves": (False, False),
    "jax.tree_leaves": (False, False),
    "jax.tree.flatten": (False, True),
    "jax.tree_util.tree_flatten": (False, True),
    "jax.tree_flatten": (False, True),
    "jax.tree.leaves_with_path": (True, False),
    "jax.tree_util.tree_leaves_with_path": (True, False),
    "jax.tree.flatten_with_path": (True, True),
    "jax.tree_util.tree_flatten_with_path": (True, True),
}
PARTIAL = frozenset({"functools.partial"})
# Names of `None` a MAP transform's `in_axes` may spell an unmapped argument with (`jnp.newaxis is None`).
NONE_AXES = frozenset({"jax.numpy.newaxis", "numpy.newaxis"})


def _where(test) -> frozenset[str]:
    return frozenset(name for name, transform in TRANSFORMS.items() if test(transform))


# jax.jit and its aliases: `static_argnames`, `donate_argnums`, and `self` traced when decorating a method.
JITS = _where(lambda t: t.options is JIT_OPTIONS)
# Since this release jax.jit raises `ValueError` when applied to a function whose signature lacks a position or a
# name its static or donate options give (a warning before: `_validate_argnums` in jax/_src/api_util.py).
JIT_CHECKS_ARGUMENT_SPECS_SINCE = (0, 4, 26)
JIT_LIKE = _where(lambda t: t.family == JIT)
# With the flag `jax.config.jax_disable_jit` on, these call their function eagerly: where no other transform traces,
# a trace runs only with the flag off, so the flag reads False there (a `vmap` or `grad` traces either way).
DISABLE_JIT_FLAG = "jax.config.jax_disable_jit"
EAGER_WHEN_JIT_DISABLED = JITS | {name for name in LAX_BODIES if name.startswith("jax.lax.")}
STAGED = _where(lambda t: t.staged)
CALLED_WITH_ARGUMENTS = _where(lambda t: t.called_with_arguments)  # `jax.vjp(f, x)`: `f(x)` runs
FUNCTION_KEYWORDS = {name: t.function_keyword for name, t in TRANSFORMS.items() if t.function_keyword is not None}
GRADIENTS = _where(lambda t: t.gradient)
MAPS = _where(lambda t: t.per_example)
PER_DEVICE = _where(lambda t: t.per_device)
RUN_AS_GIVEN = _where(lambda t: t.runs_as_given)
# Their wrapper calls the function with the arguments it is given, in the same places: `jax.jacfwd(f)(x, y)`.
WRAPPER_ARGUMENTS = _where(lambda t: t.family in (JIT, GRAD, MAP) and not t.called_with_arguments)
REVERSE_MODE = _where(lambda t: t.reverse_mode)
SCALAR_OUTPUT = _where(lambda t: t.scalar_output)
CACHED_BY_FUNCTION = _where(lambda t: t.caches_by_function)
# `jax.jit(jax.grad(f))` made at each call compiles at each call (checked on jax 0.10.2 with jax_log_compiles: 3
# compilations in 3 calls for grad, value_and_grad, jacfwd, jacrev, hessian, vmap, checkpoint, remat and jit
# itself; 1 for jax.jit(f) of one f).
NEW_FUNCTION_PER_CALL = _where(lambda t: t.new_function_per_call)
ONLY_TRACE = _where(lambda t: not t.runs_function)
EAGER_OUTSIDE_TRACE = _where(lambda t: t.eager_outside_trace)
RETRACED_EACH_CALL = _where(lambda t: t.retraced_each_call)
# Calling what they make gives something other than the function's result: derivatives (`grad`, `jacrev`, the
# `(value, grads)` pair of `value_and_grad`), or a jaxpr or shapes (`make_jaxpr`, `eval_shape`).
OTHER_RESULTS = GRADIENTS | ONLY_TRACE
# What calling a gradient transform's function gives, by whether the function's value comes with the gradient: the
# gradient has the structure of the argument it is taken for (`argnums`, 0 by default), a list for a list; with
# `has_aux=True` the function's result is a `(value, aux)` pair, and `grad` gives `(gradient, aux)`.
GRADIENT_WITH_VALUE = {"jax.grad": False, "jax.value_and_grad": True}
# Trace their function to a jaxpr (lax bodies too): every `jnp`/`lax` result inside is a tracer.
BUILDS_JAXPR = _where(lambda t: t.staged and not t.concrete_constants) | frozenset(LAX_BODIES)
# Custom differentiation rules: differentiating a call runs the function (or its forward rule) on the primal
# values, so a gradient transform alone around the call gives it no tracer; a staged trace (jit) still does.
CUSTOM_RULES = frozenset(name for name, t in TRANSFORMS.items() if t.family == CUSTOM)
# Lifted transforms (flax linen's): applied to a Module class, they transform the method it calls, `__call__`,
# unless `methods=` names others.
LIFTED_TRANSFORMS = _where(lambda t: t.family == LIFTED)
LIFTED_DEFAULT_METHOD = "__call__"
LIFTED_METHODS_OPTION = "methods"

# Context managers under which jax computes eagerly, even inside a trace: their results are concrete arrays.
# (Not `jax.disable_jit()`: inside a trace already running, its results are still tracers.)
CONCRETE_CONTEXTS = frozenset({"jax.ensure_compile_time_eval", "jax.core.ensure_compile_time_eval"})
# Context managers under which transforms do not trace: `jit` and the lax loops run their functions in Python on
# concrete values (`with jax.disable_jit(): lax.scan(body, ...)` calls `body` with arrays).
UNTRACED_CONTEXTS = frozenset({"jax.disable_jit"})
INTEGER_INPUT_ERRORS = {name: t.integer_input_error for name, t in TRANSFORMS.items() if t.integer_input_error}
WITH_JIT_OPTIONS = {name: t.options for name, t in TRANSFORMS.items() if t.options is not None}

JAX_VMAP = "jax.vmap"
JAX_JIT = "jax.jit"  # `jax.jit(jax.grad(f))` still gives a gradient function
JAX_PMAP = "jax.pmap"  # donates positional arguments only
WHILE_LOOP = "jax.lax.while_loop"
FORI_LOOP = "jax.lax.fori_loop"  # a `while_loop` when its trip count is traced
STOP_GRADIENT = "jax.lax.stop_gradient"
# What raises, for the reverse-mode transforms that do not give a gradient function.
CALLING = {
    "jax.vjp": "calling the pullback (the function `jax.vjp` gives)",
    "jax.linear_transpose": "calling the transposed function",
}
