"""The origin matrix: where a value comes from x how a rule uses it, as a table.

Each ORIGIN is a small program that binds `v` to a value of that origin inside a traced function, written as
users write it (a `step(state, batch)` under `@jax.jit`, a scan body, a vmapped per-example function, a helper
called from a jitted step...), with `{use}` where a USE goes and a `run()` that calls it with concrete inputs.
Each USE is one rule's statement on `v` (JAX301 `if v > 0:`, JAX303 `float(v)`...) with the kind of value it
needs: `int` (a scalar int: shapes, `range`, list indices), `scalar` (a float scalar) or `array` (shape (3,)).
Each TWIN is a static version of an origin (`.shape`, a static field, `static_argnames`, an eager call...)
crossed with the uses about tracers: jaxlint must stay silent there.

KEY_ORIGINS x KEY_USES cross where a PRNG key comes from with "draw twice" (JAX201) and "draw in a loop"
(JAX202); their twins split (or fold in) before each draw.

`cells()` lists every cell: its source (one module, or a main module and a helper module for the "other module"
origins), the line (and file) of its use, the code expected there, and what real jax does with it
(tests/test_origin_matrix_runtime.py checks this with jax). MISSES and FALSE_ALARMS record, cell by cell, what
jaxlint gets wrong today; tests/test_origin_matrix.py fails when one of them changes, so closing a gap means
editing this table.

Not crossed: JAX309 (`next(it)` in a lax loop) is about iterators, JAX504 (a donated buffer read again) about
host code around a jitted call; neither depends on where a traced value comes from.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

HEADER = """\
import dataclasses
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

FLAG = True
XS = [1.0, 2.0, 3.0, 4.0]
LEAKED = []
"""

# A concrete input of each kind, a Python (static) value of each kind, and a jnp value computed from constants.
INIT = {"int": "jnp.int32(3)", "scalar": "jnp.float32(2.0)", "array": "jnp.array([-1.0, 0.5, 2.0])"}
STATIC = {"int": "3", "scalar": "2.0"}
NUMPY = {"int": "np.arange(3).sum()", "scalar": "np.linspace(0.0, 4.0, 3).mean()",
         "array": "np.linspace(-1.0, 1.0, 3)"}
CONST = {"int": "jnp.arange(3).sum()", "scalar": "jnp.linspace(0.0, 4.0, 3).mean()",
         "array": "jnp.linspace(-1.0, 1.0, 3)"}


@dataclass(frozen=True)
class Use:
    name: str
    code: str
    lines: str  # statements on `v`; the line `flag` (0-based) is where the finding belongs
    kind: str
    raises: str | None = None  # the error jax raises (a class name in the raised error's MRO)
    effect: str | None = None  # what a silent bug does: "prints-tracer", "leaks", "runs"
    accepts: frozenset[str] = frozenset()  # the static kinds a twin may give it; empty: no twin (not about tracers)
    flag: int = 0
    also: frozenset[str] = frozenset()  # other codes that may also be found in its cells, rightly


USES = [
    Use("inplace", "JAX101", "v[0] = 1.0", "array", raises="TypeError"),
    Use("discarded_at", "JAX102", "v.at[0].set(1.0)", "array", effect="runs"),
    Use("if", "JAX301", "if v > 0:\n    pass", "scalar", raises="TracerBoolConversionError",
        accepts=frozenset({"scalar", "int"})),
    Use("and", "JAX302", "ok = v > 0 and FLAG", "scalar", raises="TracerBoolConversionError",
        accepts=frozenset({"scalar", "int"})),
    Use("float", "JAX303", "f = float(v)", "scalar", raises="ConcretizationTypeError",
        accepts=frozenset({"scalar", "int"})),
    Use("range", "JAX304", "for _ in range(v):\n    pass", "int", raises="TracerIntegerConversionError",
        accepts=frozenset({"int"})),
    Use("list_index", "JAX304", "e = XS[v]", "int", raises="TracerIntegerConversionError",
        accepts=frozenset({"int"})),
    Use("np_asarray", "JAX305", "h = np.asarray(v)", "array", raises="TracerArrayConversionError",
        accepts=frozenset({"array", "scalar", "int"})),
    Use("print", "JAX306", "print(v)", "scalar", effect="prints-tracer", accepts=frozenset({"scalar", "int"})),
    Use("debug_fstring", "JAX307", 'jax.debug.print(f"v={v}")', "scalar", effect="prints-tracer",
        accepts=frozenset({"scalar", "int"})),
    # Appending to a module list in a jitted function also mutates state at trace time: JAX508, right for the
    # twins too (it yields to JAX308 when it sees the tracer).
    Use("leak", "JAX308", "LEAKED.append(v)", "scalar", effect="leaks", accepts=frozenset({"scalar", "int"}),
        also=frozenset({"JAX508"})),
    Use("zeros", "JAX401", "z = jnp.zeros(v)", "int", raises="TypeError", accepts=frozenset({"int"})),
    Use("mask", "JAX402", "m = v[v > 0]", "array", raises="NonConcreteBooleanIndexError",
        accepts=frozenset({"array"})),
    Use("grad_tuple", "JAX601", "g = jax.grad(lambda w: (w * v, w))(1.0)", "scalar", raises="TypeError"),
    Use("grad_int", "JAX602", "g = jax.grad(lambda w: w * 2.0)(v)", "int", raises="TypeError"),
]


@dataclass(frozen=True)
class Origin:
    name: str
    template: str  # the main module after HEADER: `{use}` on its own line, `{init}`/`{const}`/`{static}`/`{mod}`
    helper: str | None = None  # a second module, `{mod}.py` (it may hold the `{use}` instead)
    twin_of: str | None = None  # a twin: the origin it is the static version of
    kinds: frozenset[str] = frozenset({"int", "scalar", "array"})  # twins: the kinds of value it gives
    requires: tuple[str, ...] = ()  # modules the runtime check needs (a twin using flax or equinox)
    only: tuple[str, ...] = ()  # if given, the only uses it crosses
    without: tuple[str, ...] = ()  # uses it does not cross


def _helper(helper: str | None) -> str | None:
    return helper and textwrap.dedent(helper).replace("#HEADER\n", HEADER)


def _o(name: str, template: str, helper: str | None = None) -> Origin:
    return Origin(name, textwrap.dedent(template), _helper(helper))


def _t(twin_of: str, name: str, template: str, kinds: set[str], helper: str | None = None,
       requires: tuple[str, ...] = (), without: tuple[str, ...] = ()) -> Origin:
    return Origin(name, textwrap.dedent(template), _helper(helper), twin_of, frozenset(kinds),
                  requires, without=without)


_INT = {"int"}
_STATIC = {"int", "scalar"}
_ALL = {"int", "scalar", "array"}

ORIGINS = [
    _o("argument", """
        @jax.jit
        def step(v, batch):
            {use}
            return batch


        def run():
            return step({init}, jnp.ones(3))
        """),
    _o("namedtuple_field", """
        class State(NamedTuple):
            value: jax.Array
            count: jax.Array


        @jax.jit
        def step(state: State, batch):
            v = state.value
            {use}
            return batch


        def run():
            return step(State({init}, jnp.zeros(())), jnp.ones(3))
        """),
    _o("dataclass_field", """
        @jax.tree_util.register_dataclass
        @dataclasses.dataclass
        class Params:
            value: jax.Array
            steps: int = dataclasses.field(metadata=dict(static=True))


        @jax.jit
        def step(params: Params, batch):
            v = params.value
            {use}
            return batch


        def run():
            return step(Params({init}, 3), jnp.ones(3))
        """),
    _o("dict_item", """
        @jax.jit
        def step(batch):
            v = batch["v"]
            {use}
            return batch["x"]


        def run():
            return step({"v": {init}, "x": jnp.ones(3)})
        """),
    _o("unpacked_tuple", """
        @jax.jit
        def step(pair, batch):
            v, w = pair
            {use}
            return batch + w


        def run():
            return step(({init}, jnp.ones(3)), jnp.ones(3))
        """),
    _o("scan_carry", """
        def body(carry, x):
            v = carry
            {use}
            return carry, x


        def run():
            return jax.lax.scan(body, {init}, jnp.ones(2))
        """),
    _o("fori_carry", """
        def body(i, carry):
            v = carry
            {use}
            return carry


        def run():
            return jax.lax.fori_loop(0, 2, body, {init})
        """),
    _o("vmapped_argument", """
        def per_example(v, y):
            {use}
            return y


        def run():
            return jax.vmap(per_example)(jnp.stack([{init}, {init}]), jnp.ones(2))
        """),
    _o("helper_return", """
        def scaled(x):
            return x * 1


        @jax.jit
        def step(x, batch):
            v = scaled(x)
            {use}
            return batch


        def run():
            return step({init}, jnp.ones(3))
        """),
    _o("helper_return_other_module", """
        from {mod} import scaled


        @jax.jit
        def step(x, batch):
            v = scaled(x)
            {use}
            return batch


        def run():
            return step({init}, jnp.ones(3))
        """, helper="""
        def scaled(x):
            return x * 1
        """),
    _o("helper_parameter", """
        def apply(v, batch):
            {use}
            return batch


        @jax.jit
        def step(x, batch):
            return apply(x, batch)


        def run():
            return step({init}, jnp.ones(3))
        """),
    _o("helper_parameter_other_module", """
        from {mod} import apply


        @jax.jit
        def step(x, batch):
            return apply(x, batch)


        def run():
            return step({init}, jnp.ones(3))
        """, helper="""
        #HEADER

        def apply(v, batch):
            {use}
            return batch
        """),
    _o("method_return", """
        class Scaler:
            def __init__(self, factor):
                self.factor = factor

            def apply(self, x):
                return x * self.factor


        @jax.jit
        def step(x, batch):
            v = Scaler(1).apply(x)
            {use}
            return batch


        def run():
            return step({init}, jnp.ones(3))
        """),
    _o("method_parameter", """
        class Trainer:
            def __init__(self, lr):
                self.lr = lr

            def update(self, v, batch):
                {use}
                return batch * self.lr


        @jax.jit
        def step(x, batch):
            return Trainer(0.1).update(x, batch)


        def run():
            return step({init}, jnp.ones(3))
        """),
    _o("closure", """
        @jax.jit
        def step(x, batch):
            v = x * 1

            def inner():
                {use}
                return batch

            return inner()


        def run():
            return step({init}, jnp.ones(3))
        """),
    _o("comprehension", """
        @jax.jit
        def step(x, batch):
            vs = [x * i for i in (1, 2)]
            v = vs[0]
            {use}
            return batch


        def run():
            return step({init}, jnp.ones(3))
        """),
    _o("jnp_constant_under_jit", """
        @jax.jit
        def step(batch):
            v = {const}
            {use}
            return batch


        def run():
            return step(jnp.ones(3))
        """),
    _o("kwargs_item", """
        @jax.jit
        def step(batch, **kwargs):
            v = kwargs["v"]
            {use}
            return batch


        def run():
            return step(jnp.ones(3), v={init})
        """),
    _o("attribute_from_init", """
        class Wrapper:
            def __init__(self, x):
                self.value = x * 1


        @jax.jit
        def step(x, batch):
            v = Wrapper(x).value
            {use}
            return batch


        def run():
            return step({init}, jnp.ones(3))
        """),
    _o("partial_bound", """
        def loss(v, batch):
            {use}
            return batch


        @jax.jit
        def step(x, batch):
            fn = partial(loss, x)
            return fn(batch)


        def run():
            return step({init}, jnp.ones(3))
        """),
    _o("lambda_return", """
        @jax.jit
        def step(x, batch):
            scale = lambda t: t * 1
            v = scale(x)
            {use}
            return batch


        def run():
            return step({init}, jnp.ones(3))
        """),
]

ORIGINS += [
    # `jax.grad(loss)(params, v)` inside jit: grad traces `params`; `v` reaches `loss` as the jit's tracer.
    _o("grad_other_argument_in_jit", """
        def loss(params, v):
            {use}
            return params * 2.0


        @jax.jit
        def step(params, v):
            return jax.grad(loss)(params, v)


        def run():
            return step(jnp.float32(1.0), {init})
        """),
    _o("jit_by_call", """
        def step_impl(v, batch):
            {use}
            return batch


        step = jax.jit(step_impl)


        def run():
            return step({init}, jnp.ones(3))
        """),
    _o("loop_over_array", """
        @jax.jit
        def step(xs, batch):
            for v in xs:
                {use}
            return batch


        def run():
            return step(jnp.stack([{init}]), jnp.ones(3))
        """),
    _o("starred_unpack", """
        @jax.jit
        def step(values, batch):
            v, *rest = values
            {use}
            return batch


        def run():
            return step(({init}, jnp.ones(3), jnp.ones(3)), jnp.ones(3))
        """),
    _o("dict_items_loop", """
        @jax.jit
        def step(batch):
            for name, v in batch.items():
                {use}
            return batch


        def run():
            return step({"v": {init}})
        """),
    _o("dict_get", """
        @jax.jit
        def step(batch):
            v = batch.get("v")
            {use}
            return batch["x"]


        def run():
            return step({"v": {init}, "x": jnp.ones(3)})
        """),
    _o("tree_map_result", """
        @jax.jit
        def step(params, batch):
            scaled = jax.tree_util.tree_map(lambda t: t * 1, params)
            v = scaled["w"]
            {use}
            return batch


        def run():
            return step({"w": {init}}, jnp.ones(3))
        """),
    _o("inner_jit_return", """
        @jax.jit
        def scaled(x):
            return x * 1


        @jax.jit
        def step(x, batch):
            v = scaled(x)
            {use}
            return batch


        def run():
            return step({init}, jnp.ones(3))
        """),
    _o("scan_result", """
        def body(carry, _):
            return carry * 1, None


        @jax.jit
        def step(x, batch):
            v, _ = jax.lax.scan(body, x, None, length=2)
            {use}
            return batch


        def run():
            return step({init}, jnp.ones(3))
        """),
    _o("while_loop_carry", """
        def cond(carry):
            return carry[1] < 2


        def body(carry):
            v, i = carry
            {use}
            return v, i + 1


        def run():
            return jax.lax.while_loop(cond, body, ({init}, 0))
        """),
    _o("cond_branch_operand", """
        def positive(v, batch):
            {use}
            return batch


        @jax.jit
        def step(x, batch):
            return jax.lax.cond(batch.sum() > 0, positive, lambda v, b: b, x, batch)


        def run():
            return step({init}, jnp.ones(3))
        """),
    _o("checkpointed_argument", """
        @jax.checkpoint
        def block(v, batch):
            {use}
            return batch


        @jax.jit
        def step(x, batch):
            return block(x, batch)


        def run():
            return step({init}, jnp.ones(3))
        """),
    _o("pytree_method_self_field", """
        @jax.tree_util.register_dataclass
        @dataclasses.dataclass
        class Model:
            value: jax.Array
            steps: int = dataclasses.field(metadata=dict(static=True))

            def apply(self, batch):
                v = self.value
                {use}
                return batch


        @jax.jit
        def step(model, batch):
            return model.apply(batch)


        def run():
            return step(Model({init}, 3), jnp.ones(3))
        """),
    _o("pytree_method_return", """
        @jax.tree_util.register_dataclass
        @dataclasses.dataclass
        class Params:
            value: jax.Array

            def scaled(self):
                return self.value * 1


        @jax.jit
        def step(params: Params, batch):
            v = params.scaled()
            {use}
            return batch


        def run():
            return step(Params({init}), jnp.ones(3))
        """),
    _o("array_index", """
        @jax.jit
        def step(xs, batch):
            v = xs[0]
            {use}
            return batch


        def run():
            return step(jnp.stack([{init}, {init}]), jnp.ones(3))
        """),
]

TWINS = [
    _t("argument", "static_argnames", """
        @partial(jax.jit, static_argnames="v")
        def step(v, batch):
            {use}
            return batch


        def run():
            return step({static}, jnp.ones(3))
        """, _STATIC),
    _t("namedtuple_field", "shape_of_field", """
        class State(NamedTuple):
            value: jax.Array
            count: jax.Array


        @jax.jit
        def step(state: State, batch):
            v = state.value.shape[0]
            {use}
            return batch


        def run():
            return step(State(jnp.ones(3), jnp.zeros(())), jnp.ones(3))
        """, _INT),
    _t("dataclass_field", "static_field", """
        @jax.tree_util.register_dataclass
        @dataclasses.dataclass
        class Params:
            value: jax.Array
            steps: int = dataclasses.field(metadata=dict(static=True))


        @jax.jit
        def step(params: Params, batch):
            v = params.steps
            {use}
            return batch


        def run():
            return step(Params(jnp.ones(3), {static}), jnp.ones(3))
        """, _STATIC),
    _t("dataclass_field", "flax_pytree_node_false", """
        import flax.struct


        @flax.struct.dataclass
        class Params:
            value: jax.Array
            steps: int = flax.struct.field(pytree_node=False)


        @jax.jit
        def step(params: Params, batch):
            v = params.steps
            {use}
            return batch


        def run():
            return step(Params(jnp.ones(3), {static}), jnp.ones(3))
        """, _STATIC, requires=("flax",)),
    _t("dataclass_field", "equinox_static_field", """
        import equinox as eqx


        class Params(eqx.Module):
            value: jax.Array
            steps: int = eqx.field(static=True)


        @jax.jit
        def step(params: Params, batch):
            v = params.steps
            {use}
            return batch


        def run():
            return step(Params(jnp.ones(3), {static}), jnp.ones(3))
        """, _STATIC, requires=("equinox",)),
    _t("dict_item", "shape_of_item", """
        @jax.jit
        def step(batch):
            v = batch["x"].shape[0]
            {use}
            return batch["x"]


        def run():
            return step({"x": jnp.ones(3)})
        """, _INT),
    _t("unpacked_tuple", "unpacked_shape", """
        @jax.jit
        def step(batch):
            v, w = batch.shape
            {use}
            return batch


        def run():
            return step(jnp.ones((3, 2)))
        """, _INT),
    _t("scan_carry", "shape_of_element", """
        def body(carry, x):
            v = x.shape[0]
            {use}
            return carry, x


        def run():
            return jax.lax.scan(body, jnp.zeros(()), jnp.ones((2, 3)))
        """, _INT),
    _t("fori_carry", "shape_of_carry", """
        def body(i, carry):
            v = carry.shape[0]
            {use}
            return carry


        def run():
            return jax.lax.fori_loop(0, 2, body, jnp.ones(3))
        """, _INT),
    _t("vmapped_argument", "shape_of_example", """
        def per_example(x, y):
            v = x.shape[0]
            {use}
            return y


        def run():
            return jax.vmap(per_example)(jnp.ones((2, 3)), jnp.ones(2))
        """, _INT),
    _t("vmapped_argument", "in_axes_none", """
        def per_example(v, y):
            {use}
            return y


        def run():
            return jax.vmap(per_example, in_axes=(None, 0))({static}, jnp.ones(2))
        """, _STATIC),
    _t("helper_return", "helper_returns_shape", """
        def size(x):
            return x.shape[0]


        @jax.jit
        def step(x, batch):
            v = size(x)
            {use}
            return batch


        def run():
            return step(jnp.ones(3), jnp.ones(3))
        """, _INT),
    _t("helper_return", "eager_call", """
        def scaled(x):
            return x * 1


        def step(x, batch):
            v = scaled(x)
            {use}
            return batch


        def run():
            return step({init}, jnp.ones(3))
        """, _ALL),
    _t("helper_return_other_module", "other_module_helper_returns_shape", """
        from {mod} import size


        @jax.jit
        def step(x, batch):
            v = size(x)
            {use}
            return batch


        def run():
            return step(jnp.ones(3), jnp.ones(3))
        """, _INT, helper="""
        def size(x):
            return x.shape[0]
        """),
    _t("helper_parameter", "helper_given_shape", """
        def apply(v, batch):
            {use}
            return batch


        @jax.jit
        def step(x, batch):
            return apply(x.shape[0], batch)


        def run():
            return step(jnp.ones(3), jnp.ones(3))
        """, _INT),
    _t("helper_parameter", "helper_called_eagerly", """
        def apply(v, batch):
            {use}
            return batch


        def step(x, batch):
            return apply(x, batch)


        def run():
            return step({init}, jnp.ones(3))
        """, _ALL),
    _t("helper_parameter_other_module", "other_module_helper_given_shape", """
        from {mod} import apply


        @jax.jit
        def step(x, batch):
            return apply(x.shape[0], batch)


        def run():
            return step(jnp.ones(3), jnp.ones(3))
        """, _INT, helper="""
        #HEADER

        def apply(v, batch):
            {use}
            return batch
        """),
    _t("method_return", "method_returns_shape", """
        class Scaler:
            def __init__(self, factor):
                self.factor = factor

            def size(self, x):
                return x.shape[0]


        @jax.jit
        def step(x, batch):
            v = Scaler(1).size(x)
            {use}
            return batch


        def run():
            return step(jnp.ones(3), jnp.ones(3))
        """, _INT),
    _t("method_parameter", "method_given_shape", """
        class Trainer:
            def __init__(self, lr):
                self.lr = lr

            def update(self, v, batch):
                {use}
                return batch * self.lr


        @jax.jit
        def step(x, batch):
            return Trainer(0.1).update(x.shape[0], batch)


        def run():
            return step(jnp.ones(3), jnp.ones(3))
        """, _INT),
    _t("closure", "closure_over_shape", """
        @jax.jit
        def step(x, batch):
            v = x.shape[0]

            def inner():
                {use}
                return batch

            return inner()


        def run():
            return step(jnp.ones(3), jnp.ones(3))
        """, _INT),
    _t("comprehension", "comprehension_of_shapes", """
        @jax.jit
        def step(x, batch):
            vs = [x.shape[0] * i for i in (1, 2)]
            v = vs[0]
            {use}
            return batch


        def run():
            return step(jnp.ones(3), jnp.ones(3))
        """, _INT),
    _t("jnp_constant_under_jit", "jnp_constant_eager", """
        def step(batch):
            v = {const}
            {use}
            return batch


        def run():
            return step(jnp.ones(3))
        """, _ALL),
    _t("kwargs_item", "static_kwarg", """
        @partial(jax.jit, static_argnames="v")
        def step(batch, v):
            {use}
            return batch


        def run():
            return step(jnp.ones(3), v={static})
        """, _STATIC),
    _t("attribute_from_init", "attribute_shape", """
        class Wrapper:
            def __init__(self, x):
                self.size = x.shape[0]


        @jax.jit
        def step(x, batch):
            v = Wrapper(x).size
            {use}
            return batch


        def run():
            return step(jnp.ones(3), jnp.ones(3))
        """, _INT),
    _t("partial_bound", "partial_bound_shape", """
        def loss(v, batch):
            {use}
            return batch


        @jax.jit
        def step(x, batch):
            fn = partial(loss, x.shape[0])
            return fn(batch)


        def run():
            return step(jnp.ones(3), jnp.ones(3))
        """, _INT),
    _t("partial_bound", "partial_bound_before_jit", """
        def loss(v, batch):
            {use}
            return batch


        step = jax.jit(partial(loss, {static}))


        def run():
            return step(jnp.ones(3))
        """, _STATIC),
    _t("lambda_return", "lambda_returns_shape", """
        @jax.jit
        def step(x, batch):
            size = lambda t: t.shape[0]
            v = size(x)
            {use}
            return batch


        def run():
            return step(jnp.ones(3), jnp.ones(3))
        """, _INT),
]


TWINS += [
    _t("jit_by_call", "static_argnums_by_call", """
        def step_impl(v, batch):
            {use}
            return batch


        step = jax.jit(step_impl, static_argnums=0)


        def run():
            return step({static}, jnp.ones(3))
        """, _STATIC),
    _t("argument", "len_of_argument", """
        @jax.jit
        def step(x, batch):
            v = len(x)
            {use}
            return batch


        def run():
            return step(jnp.ones(3), jnp.ones(3))
        """, _INT),
    _t("argument", "shape_arithmetic", """
        @jax.jit
        def step(x, batch):
            v = x.shape[0] // 2 + x.ndim
            {use}
            return batch


        def run():
            return step(jnp.ones(3), jnp.ones(3))
        """, _INT),
    _t("jnp_constant_under_jit", "numpy_under_jit", """
        @jax.jit
        def step(batch):
            v = {numpy}
            {use}
            return batch


        def run():
            return step(jnp.ones(3))
        """, _ALL),
    _t("closure", "module_constant", """
        SIZE = {static}


        @jax.jit
        def step(batch):
            v = SIZE
            {use}
            return batch


        def run():
            return step(jnp.ones(3))
        """, _STATIC),
    _t("attribute_from_init", "attribute_from_config", """
        class Wrapper:
            def __init__(self, n):
                self.n = n


        @jax.jit
        def step(x, batch):
            v = Wrapper({static}).n
            {use}
            return batch


        def run():
            return step(jnp.ones(3), jnp.ones(3))
        """, _STATIC),
    _t("pytree_method_self_field", "pytree_method_static_field", """
        @jax.tree_util.register_dataclass
        @dataclasses.dataclass
        class Model:
            value: jax.Array
            steps: int = dataclasses.field(metadata=dict(static=True))

            def apply(self, batch):
                v = self.steps
                {use}
                return batch


        @jax.jit
        def step(model, batch):
            return model.apply(batch)


        def run():
            return step(Model(jnp.ones(3), {static}), jnp.ones(3))
        """, _STATIC),
    _t("dataclass_field", "meta_fields_listed", """
        @partial(jax.tree_util.register_dataclass, data_fields=["value"], meta_fields=["steps"])
        @dataclasses.dataclass
        class Params:
            value: jax.Array
            steps: int


        @jax.jit
        def step(params: Params, batch):
            v = params.steps
            {use}
            return batch


        def run():
            return step(Params(jnp.ones(3), {static}), jnp.ones(3))
        """, _STATIC),
    _t("argument", "grad_of_another_argument", """
        def loss(v, batch):
            {use}
            return jnp.sum(batch)


        def run():
            return jax.grad(loss, argnums=1)({init}, jnp.ones(3))
        """, _ALL),
    _t("while_loop_carry", "while_loop_shape", """
        def cond(carry):
            return carry[1] < 2


        def body(carry):
            x, i = carry
            v = x.shape[0]
            {use}
            return x, i + 1


        def run():
            return jax.lax.while_loop(cond, body, (jnp.ones(3), 0))
        """, _INT),
    _t("loop_over_array", "loop_over_shape", """
        @jax.jit
        def step(xs, batch):
            for v in xs.shape:
                {use}
            return batch


        def run():
            return step(jnp.ones(3), jnp.ones(3))
        """, _INT),
]


# A concrete array from outside the trace is concrete, but an operation on it under jit gives a tracer:
# comparing it (`if v > 0`, `v > 0 and FLAG`, `v[v > 0]`) fails as on a traced value. The other uses are twins.
_COMPARING = ("if", "and", "mask")
ORIGINS += [
    Origin("factory_closure_over_concrete_compared", textwrap.dedent("""
        def make_step(scale):
            @jax.jit
            def step(batch):
                v = scale
                {use}
                return batch

            return step


        def run():
            return make_step({init})(jnp.ones(3))
        """), only=_COMPARING),
    Origin("module_level_jnp_constant_compared", textwrap.dedent("""
        VALUE = {init}


        @jax.jit
        def step(batch):
            v = VALUE
            {use}
            return batch


        def run():
            return step(jnp.ones(3))
        """), only=_COMPARING),
]

# Twins where a value looks traced but is not: a concrete array from outside the trace, static configuration.
TWINS += [
    _t("closure", "factory_closure_over_concrete", """
        def make_step(scale):
            @jax.jit
            def step(batch):
                v = scale
                {use}
                return batch

            return step


        def run():
            return make_step({init})(jnp.ones(3))
        """, _ALL, without=_COMPARING),
    _t("jnp_constant_under_jit", "module_level_jnp_constant", """
        VALUE = {init}


        @jax.jit
        def step(batch):
            v = VALUE
            {use}
            return batch


        def run():
            return step(jnp.ones(3))
        """, _ALL, without=_COMPARING),
    _t("argument", "static_config_object", """
        @dataclasses.dataclass(frozen=True)
        class Config:
            size: int


        @partial(jax.jit, static_argnames="cfg")
        def step(cfg, batch):
            v = cfg.size
            {use}
            return batch


        def run():
            return step(Config({static}), jnp.ones(3))
        """, _STATIC),
    _t("argument", "size_of_argument", """
        @jax.jit
        def step(x, batch):
            v = x.size
            {use}
            return batch


        def run():
            return step(jnp.ones(3), jnp.ones(3))
        """, _INT),
    _t("argument", "jnp_shape_function", """
        @jax.jit
        def step(x, batch):
            v = jnp.shape(x)[0]
            {use}
            return batch


        def run():
            return step(jnp.ones(3), jnp.ones(3))
        """, _INT),
    _t("helper_return", "helper_returns_constant", """
        def num_layers(x):
            return {static}


        @jax.jit
        def step(x, batch):
            v = num_layers(x)
            {use}
            return batch


        def run():
            return step(jnp.ones(3), jnp.ones(3))
        """, _STATIC),
    _t("helper_return", "eval_shape_of_helper", """
        def scaled(x):
            return x * 1


        @jax.jit
        def step(x, batch):
            v = jax.eval_shape(scaled, x).shape[0]
            {use}
            return batch


        def run():
            return step(jnp.ones(3), jnp.ones(3))
        """, _INT),
    _t("method_parameter", "method_of_static_self", """
        class Trainer:
            def __init__(self, size):
                self.size = size

            @partial(jax.jit, static_argnums=0)
            def step(self, batch):
                v = self.size
                {use}
                return batch

            def __hash__(self):
                return hash(self.size)

            def __eq__(self, other):
                return isinstance(other, Trainer) and other.size == self.size


        def run():
            return Trainer({static}).step(jnp.ones(3))
        """, _STATIC),
]


@dataclass(frozen=True)
class KeyUse:
    name: str
    code: str
    lines: str  # binds `a` and `b`, two draws
    flag: int  # the 0-based line of the finding
    twin: str  # the correct version: a fresh key for each draw


KEY_USES = [
    KeyUse("draw_twice", "JAX201",
           "a = jax.random.normal(k, (2,))\nb = jax.random.normal(k, (2,))", 1,
           "k, sub = jax.random.split(k)\na = jax.random.normal(sub, (2,))\n"
           "k, sub = jax.random.split(k)\nb = jax.random.normal(sub, (2,))"),
    KeyUse("draw_in_loop", "JAX202",
           "draws = []\nfor _ in range(2):\n    draws.append(jax.random.normal(k, (2,)))\na, b = draws", 2,
           "draws = []\nfor i in range(2):\n    draws.append(jax.random.normal(jax.random.fold_in(k, i), (2,)))\n"
           "a, b = draws"),
]

# Each binds `k`, a PRNG key, and returns `(a, b)` from `run()`.
KEY_ORIGINS = [
    _o("key_argument", """
        @jax.jit
        def step(k, batch):
            {use}
            return a, b


        def run():
            return step(jax.random.key(0), jnp.ones(3))
        """),
    _o("key_dict_item", """
        @jax.jit
        def step(batch):
            k = batch["key"]
            {use}
            return a, b


        def run():
            return step({"key": jax.random.key(0), "x": jnp.ones(3)})
        """),
    _o("key_namedtuple_field", """
        class State(NamedTuple):
            key: jax.Array
            count: jax.Array


        @jax.jit
        def step(state: State, batch):
            k = state.key
            {use}
            return a, b


        def run():
            return step(State(jax.random.key(0), jnp.zeros(())), jnp.ones(3))
        """),
    _o("key_scan_carry", """
        def body(carry, x):
            k = carry
            {use}
            return carry, (a, b)


        def run():
            return jax.lax.scan(body, jax.random.key(0), jnp.ones(1))[1]
        """),
    _o("key_kwarg", """
        @jax.jit
        def step(batch, **kwargs):
            k = kwargs["key"]
            {use}
            return a, b


        def run():
            return step(jnp.ones(3), key=jax.random.key(0))
        """),
    _o("key_attribute", """
        class Sampler:
            def __init__(self, key):
                self.key = key

            def sample(self):
                k = self.key
                {use}
                return a, b


        def run():
            return Sampler(jax.random.key(0)).sample()
        """),
    _o("key_split_item", """
        @jax.jit
        def step(key, batch):
            k, _ = jax.random.split(key)
            {use}
            return a, b


        def run():
            return step(jax.random.key(0), jnp.ones(3))
        """),
]

KEY_ORIGINS += [
    _o("key_split_index", """
        @jax.jit
        def step(key, batch):
            keys = jax.random.split(key, 3)
            k = keys[0]
            {use}
            return a, b


        def run():
            return step(jax.random.key(0), jnp.ones(3))
        """),
    _o("key_carry_tuple", """
        def body(carry, x):
            k, total = carry
            {use}
            return (k, total), (a, b)


        def run():
            return jax.lax.scan(body, (jax.random.key(0), 0.0), jnp.ones(1))[1]
        """),
    _o("key_fori_carry", """
        def body(i, carry):
            k, a, b = carry
            {use}
            return k, a, b


        def run():
            return jax.lax.fori_loop(0, 1, body, (jax.random.key(0), jnp.zeros(2), jnp.zeros(2)))[1:]
        """),
    _o("key_helper_parameter", """
        def sample(k, batch):
            {use}
            return a, b


        @jax.jit
        def step(key, batch):
            return sample(key, batch)


        def run():
            return step(jax.random.key(0), jnp.ones(3))
        """),
    _o("key_vmapped", """
        def per_example(k):
            {use}
            return a, b


        def run():
            return jax.vmap(per_example)(jax.random.split(jax.random.key(0), 2))
        """),
]

_TRACER_USES = ("if", "and", "float", "range", "list_index", "np_asarray", "print", "debug_fstring", "leak",
                "zeros", "mask")
_CAUSES = {
    "grad-int-value": "the dtype kind of a value is known for an argument, a leaf of a tuple, list or dict the calls "
                      "give, and a carry, not for a field of a pytree class they build (`State(jnp.int32(3))`)",
}


def _misses(cause: str, origins: tuple[str, ...], uses: tuple[str, ...]) -> dict[tuple[str, str], str]:
    return {(origin, use): cause for origin in origins for use in uses}


# Bug cells jaxlint does not flag today, (origin, use) -> cause (a key of _CAUSES). A cell flagged again must
# leave this table.
MISSES: dict[tuple[str, str], str] = {
    # JAX602 misses an int value from the origins whose dtype is not carried through: pytree fields of classes,
    # values computed from several sources.
    **_misses("grad-int-value", tuple(origin.name for origin in ORIGINS if not origin.only and origin.name not in {
        "argument", "closure", "helper_parameter", "helper_parameter_other_module", "jit_by_call",
        "jnp_constant_under_jit", "method_parameter", "partial_bound", "attribute_from_init", "helper_return",
        "lambda_return", "dict_item", "unpacked_tuple", "starred_unpack", "dict_items_loop", "dict_get", "scan_carry",
        "fori_carry", "while_loop_carry", "scan_result", "inner_jit_return", "checkpointed_argument",
        "grad_other_argument_in_jit"}),
              ("grad_int",)),
}

# Twin cells jaxlint flags (false alarms), (twin, use) -> why.
FALSE_ALARMS: dict[tuple[str, str], str] = {}

# Findings of other codes in a cell that are right, (origin, use) -> codes (beyond a use's `also`).
EXTRA: dict[tuple[str, str], set[str]] = {
    # The body gives its key back unchanged in the new carry: every iteration draws from the same key, as jax's
    # key-reuse checker says ("scan body function leads to key reuse when repeatedly executed").
    ("key_carry_tuple", "draw_twice"): {"JAX202"},
    ("key_fori_carry", "draw_twice"): {"JAX202"},
}


@dataclass(frozen=True)
class Cell:
    origin: str
    use: str
    code: str  # the rule the use is about
    bug: bool  # a bug cell (flagged) or a twin (silent)
    files: dict[str, str] = field(hash=False)  # module name -> source; the main module first
    line: int = 0  # the use's flagged line
    use_file: str = ""  # the module holding the use
    raises: str | None = None
    effect: str | None = None
    twin_of: str | None = None
    requires: tuple[str, ...] = ()
    key: bool = False
    also: frozenset[str] = frozenset()

    @property
    def id(self) -> str:
        return f"{self.origin}-{self.use}"

    @property
    def module(self) -> str:
        return next(iter(self.files))


def _module_name(origin: str, use: str) -> str:
    return f"cell_{origin}__{use}"


def _render(template: str, use_lines: str, subs: dict[str, str]) -> tuple[str, int | None]:
    """The source with `use_lines` at `{use}` (indented as the placeholder is) and the 0-based line of `{use}`."""
    out, at = [], None
    for line in template.strip("\n").splitlines():
        if line.strip() == "{use}":
            indent = line[: len(line) - len(line.lstrip())]
            at = len(out)
            out.extend(indent + piece for piece in use_lines.splitlines())
        else:
            out.append(line)
    text = "\n".join(out) + "\n"
    for name, value in subs.items():
        text = text.replace("{" + name + "}", value)
    return text, at


def _cell(origin: Origin, use_name: str, code: str, lines: str, flag: int, subs: dict[str, str], bug: bool,
          raises: str | None, effect: str | None, key: bool = False, also: frozenset[str] = frozenset()) -> Cell:
    main = _module_name(origin.name, use_name)
    mod = main + "_helper"
    subs = {**subs, "mod": mod}
    files: dict[str, str] = {}
    source, at = _render(origin.template, lines, subs)
    files[main] = HEADER + "\n\n" + source
    line, use_file = 0, main
    if at is not None:
        line = HEADER.count("\n") + 2 + at + flag + 1
    if origin.helper is not None:
        helper, helper_at = _render(origin.helper, lines, subs)
        files[mod] = helper
        if helper_at is not None:
            line, use_file = helper_at + flag + 1, mod
    assert line, origin.name
    return Cell(origin.name, use_name, code, bug, files, line, use_file, raises, effect, origin.twin_of,
                origin.requires, key, also)


def _twin_kind(twin: Origin, use: Use) -> str | None:
    """The kind of value a twin gives a use: the use's own kind if the twin has it, else another it accepts."""
    for kind in (use.kind, *sorted(use.accepts)):
        if kind in use.accepts and kind in twin.kinds:
            return kind
    return None


def cells() -> list[Cell]:
    out = []
    for origin in ORIGINS:
        for use in USES:
            if use.kind not in origin.kinds or (origin.only and use.name not in origin.only):
                continue
            subs = {"init": INIT[use.kind], "const": CONST[use.kind]}
            out.append(_cell(origin, use.name, use.code, use.lines, use.flag, subs, True, use.raises, use.effect,
                             also=use.also))
    for twin in TWINS:
        for use in USES:
            kind = _twin_kind(twin, use)
            if kind is None or use.name in twin.without:
                continue
            subs = {"init": INIT[kind], "const": CONST[kind], "numpy": NUMPY[kind], "static": STATIC.get(kind, "")}
            out.append(_cell(twin, use.name, use.code, use.lines, use.flag, subs, False, None, None, also=use.also))
    for origin in KEY_ORIGINS:
        for key_use in KEY_USES:
            out.append(_cell(origin, key_use.name, key_use.code, key_use.lines, key_use.flag, {}, True, None,
                             "equal-draws", key=True))
            twin = Origin(origin.name + "_split", origin.template, twin_of=origin.name)
            out.append(_cell(twin, key_use.name, key_use.code, key_use.twin, 0, {}, False, None, None, key=True))
    return out


ORIGIN_NAMES = [o.name for o in ORIGINS] + [o.name for o in KEY_ORIGINS]
CELLS_SCRIPT_NAME = "cells.json"
