"""What fixtures/libraries/ claims about each library, checked by running its functions with the library installed.

The libraries are not installed in CI (they would add minutes to every run), so this runs by hand, in a venv
that has them at the pinned versions:

    pip install flax==0.12.8 optax==0.2.8 equinox==0.13.8 dm-haiku==0.0.17 chex==0.1.92 numpyro==0.22.0 \
        diffrax==0.7.2 optimistix==0.1.0 lineax==0.1.1 jax_dataclasses==1.6.3 blackjax==1.2.5
    python benchmarks/libraries_runtime.py

Each fixture's imports, functions and classes are run as written (its file name stays theirs, so the lines of a
traceback are the fixture's lines); each case calls them the way the fixture does and says what jax did: the
line of the fixture that raised, and whether a `print` showed a tracer. A case passes when that is what the
fixture's `# expect:` comments (and its twins, which must run) say. Exit status 1 when one does not.
"""

from __future__ import annotations

import ast
import contextlib
import io
import sys
import traceback
import types
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "libraries"


def definitions(name: str) -> dict:
    """The fixture's imports, functions, classes and the assignments before its first function: not its last
    lines, which run it (and raise)."""
    path = FIXTURES / name
    tree = ast.parse(path.read_text())
    kept = [
        node
        for node in tree.body
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef))
        or isinstance(node, ast.Assign) and node.lineno in SETUP.get(name, ())
    ]
    module = types.ModuleType(path.stem)  # dataclasses (flax's Modules) look their module up
    sys.modules[path.stem] = module
    exec(compile(ast.Module(body=kept, type_ignores=[]), str(path), "exec"), module.__dict__)
    return module.__dict__


# The module-level assignments a fixture's cases need, by line.
SETUP = {"optax_update.py": (6, 7, 8), "flax_linen_apply.py": (28, 29, 30, 31), "haiku_transform.py": (17, 32, 33), "equinox_filter_jit.py": (46, 47, 48),
         "flax_nnx_variables.py": (7, 8), "equinox_vmap_module.py": (47, 49)}


def observe(name: str, run) -> tuple[str, bool]:
    """What running `run(namespace)` did: `raises <Error> at line N` (the last line of the fixture in the
    traceback) or `runs`; and whether it printed a tracer."""
    namespace = definitions(name)
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            run(namespace)
        outcome = "runs"
    except Exception as error:  # what jax raised is the observation
        lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__) if frame.filename.endswith(name)]
        outcome = f"raises {type(error).__name__} at line {lines[-1] if lines else '?'}"
    return outcome, "Tracer" in printed.getvalue()


def _numpyro():
    import jax
    import jax.numpy as jnp
    from numpyro.infer import MCMC, NUTS, Predictive

    key = jax.random.PRNGKey(0)

    def reusing(draw):  # jax's key-reuse checker, on a typed key (it ignores legacy ones)
        with jax.debug_key_reuse(True):
            draw(jax.random.key(4))

    def sample(model, *args, **kwargs):
        MCMC(NUTS(model), num_warmup=2, num_samples=2, progress_bar=False).run(key, *args, **kwargs)

    return [
        ("numpyro_models.py", "raises TracerBoolConversionError at line 13", True,
         lambda ns: sample(ns["regression"], jnp.ones(10), y=jnp.ones(10))),
        ("numpyro_models.py", "raises TracerBoolConversionError at line 26", False,
         lambda ns: sample(ns["hierarchical"], jnp.zeros(4, int), 2)),
        ("numpyro_models.py", "runs", False, lambda ns: Predictive(ns["noisy"], num_samples=3)(key, jnp.ones(3))),
        ("numpyro_models.py", "runs", False, lambda ns: Predictive(ns["observed"], num_samples=3)(key, jnp.ones(3))),
        # `MCMC.run` splits its key (numpyro/infer/hmc.py), and trips the key-reuse checker itself, so lines 61
        # and 67 are not checked here; `Predictive` given one key twice is.
        ("numpyro_models.py", "raises KeyReuseError at line 73", False, lambda ns: reusing(ns["prior_twice"])),
    ]


def _blackjax():
    import jax
    import jax.numpy as jnp

    def reusing(function):  # jax's key-reuse checker, on a typed key
        with jax.debug_key_reuse(True):
            function(lambda x: -0.5 * jnp.sum(x**2), jnp.zeros(2), jax.random.key(0), 3)

    return [
        ("blackjax_kernels.py", "raises KeyReuseError at line 13", False, lambda ns: reusing(ns["sample"])),
        ("blackjax_kernels.py", "raises KeyReuseError at line 21", False, lambda ns: reusing(ns["random_walk"])),
        ("blackjax_kernels.py", "runs", False, lambda ns: reusing(ns["sample_split"])),
    ]


def _diffrax_optimistix_lineax():
    import diffrax
    import jax.numpy as jnp
    import lineax as lx
    import optimistix as optx

    name = "diffrax_and_optimistix.py"

    def solve(ns):
        term = diffrax.ODETerm(ns["decay"])
        diffrax.diffeqsolve(term, diffrax.Tsit5(), t0=0.0, t1=1.0, dt0=0.1, y0=jnp.ones(3), args=0.5)

    return [
        (name, "raises TracerBoolConversionError at line 13", False, solve),
        (name, "raises TracerBoolConversionError at line 23", False,
         lambda ns: optx.root_find(ns["residual"], optx.Newton(rtol=1e-6, atol=1e-6), jnp.ones(2), args=2.0)),
        (name, "runs", True,
         lambda ns: optx.minimise(ns["loss"], optx.BFGS(rtol=1e-6, atol=1e-6), jnp.zeros(2), args=1.0)),
        (name, "raises TracerBoolConversionError at line 40", False,
         lambda ns: lx.linear_solve(lx.FunctionLinearOperator(ns["double"], jnp.ones(2)), jnp.ones(2))),
    ]


def _flax():
    import jax
    import jax.numpy as jnp

    name = "flax_linen_apply.py"

    def step(ns):
        ns["train_step"](ns["variables"], ns["opt_state"], jnp.ones((2, 3)), jnp.ones((2, 4)), jax.random.key(1))

    def eager(ns):
        ns["model"].apply(ns["variables"], -jnp.ones((2, 3)), rngs={"noise": jax.random.key(2)})

    return [
        (name, "raises TracerBoolConversionError at line 15", False, step),
        (name, "runs", False, eager),  # the twins: `if self.training`, `make_rng` twice
        (name, "runs", True, lambda ns: ns["embed"](ns["variables"], jnp.ones((2, 3)))),
    ]


def _flax_lifted():
    import jax
    import jax.numpy as jnp

    name = "flax_lifted_transforms.py"

    def init(module, *args):  # `init` runs `__call__`, and the lifted transforms inside it trace what they wrap
        with jax.debug_key_reuse(True):
            return module.init({"params": jax.random.key(0), "noise": jax.random.key(1)}, *args)

    def loop(module, x):  # `init` calls `body_fn` itself; `apply` runs the loop
        module.apply(init(module, x), x, mutable=["state"])

    return [
        # `if self.features > 2` passes; the scan carry is a tracer.
        (name, "raises TracerBoolConversionError at line 16", False, lambda ns: init(ns["RNN"](3), jnp.ones((4, 3)))),
        (name, "runs", True, lambda ns: init(ns["DeepMLP"](3), jnp.ones(3))),
        (name, "raises TracerBoolConversionError at line 58", False,
         lambda ns: init(ns["BatchScorer"](), jnp.ones((4, 2, 3)))),
        # The two `make_rng` draws pass jax's key-reuse checker, and `self.features` is a Python int.
        (name, "raises TracerBoolConversionError at line 80", False, lambda ns: init(ns["NoisyDense"](2), jnp.ones(3))),
        # `mdl.variable(...).value += 1` passes: the Module is no tracer.
        (name, "raises TracerBoolConversionError at line 92", False,
         lambda ns: init(ns["CondExample"](), jnp.ones(3), True)),
        (name, "runs", True, lambda ns: loop(ns["WhileLoopExample"](), jnp.ones(3))),
    ]


def _flax_linen_cond_methods():
    import jax
    import jax.numpy as jnp

    name = "flax_linen_cond_methods.py"

    def init(module, *args):  # `init` runs `__call__`: the `cond` traces both branches, the true one first
        return module.init(jax.random.key(0), *args)

    return [
        # `self.features` passes; `encode` prints a tracer, then `decode` raises.
        (name, "raises TracerBoolConversionError at line 23", True, lambda ns: init(ns["Gate"](2), jnp.ones(3), True)),
        (name, "raises TracerBoolConversionError at line 37", False,
         lambda ns: init(ns["UnboundGate"](), jnp.ones(3), True)),
        (name, "raises TracerBoolConversionError at line 53", False,
         lambda ns: init(ns["Experts"](2), jnp.ones(3), 0)),
    ]


def _flax_nnx():
    import jax
    import jax.numpy as jnp
    from flax import nnx

    name = "flax_nnx_rngs.py"

    def build(ns):
        with jax.debug_key_reuse(True):
            return ns["Model"](nnx.Rngs(jax.random.key(0)))

    return [
        (name, "runs", False, build),  # the twins: no key drawn twice
        (name, "raises TracerBoolConversionError at line 22", False, lambda ns: ns["forward"](build(ns), jnp.ones(3))),
        ("flax_nnx_variables.py", "runs", False, lambda ns: ns["bump"](ns["count"])),
        ("flax_nnx_variables.py", "raises TypeError at line 18", False, lambda ns: ns["bump_array"](ns["total"])),
    ]


def _flax_nnx_control_flow():
    import jax
    import jax.numpy as jnp
    from flax import nnx

    name = "flax_nnx_control_flow.py"
    x = jnp.ones(4)

    def block(ns):
        return ns["Block"](4, rngs=nnx.Rngs(0))

    def reusing(function, x):
        with jax.debug_key_reuse(True):
            function(x, jax.random.key(0))

    return [
        # `block.depth` passes; the carry is a tracer.
        (name, "raises TracerBoolConversionError at line 28", False,
         lambda ns: ns["forward"](x, ns["create_blocks"](nnx.Rngs(0)))),
        (name, "runs", True, lambda ns: ns["gate"](block(ns), x)),
        (name, "raises TracerBoolConversionError at line 52", False, lambda ns: ns["unrolled"](block(ns), x)),
        (name, "runs", True, lambda ns: ns["repeated"](block(ns), x)),
        # The `cond` passes jax's key-reuse checker (one branch draws); the draw after it does not.
        (name, "raises KeyReuseError at line 86", False, lambda ns: reusing(ns["jitter"], x)),
    ]


def _flax_nnx_grad():
    import jax.numpy as jnp
    from flax import nnx

    name = "flax_nnx_grad.py"
    x, y = jnp.ones((4, 3)), jnp.ones((4, 2))

    def model():
        return nnx.Linear(3, 2, rngs=nnx.Rngs(0))

    return [
        # `float(y.max())` and `np.asarray(x)` pass: only the Module is differentiated.
        (name, "runs", False, lambda ns: nnx.grad(ns["loss_fn"])(model(), x, y)),
        (name, "runs", False, lambda ns: nnx.value_and_grad(ns["loss_fn"])(model(), x, y)),
        # `float(scale)` passes; `float()` of the differentiated `w` raises.
        (name, "raises ConcretizationTypeError at line 17", False,
         lambda ns: nnx.grad(ns["penalty"])(jnp.ones(3), jnp.array(2.0))),
        # Inside `nnx.jit`, the arguments not differentiated are its tracers.
        (name, "raises TracerBoolConversionError at line 27", False, lambda ns: ns["train_step"](model(), x, y)),
    ]


def _haiku():
    import jax
    import jax.numpy as jnp

    name = "haiku_transform.py"
    return [
        (name, "raises TracerBoolConversionError at line 9", False,
         lambda ns: ns["step"](ns["params"], jax.random.key(1), jnp.ones((2, 3)))),
        (name, "runs", False, lambda ns: ns["net"].apply(ns["params"], jax.random.key(1), -jnp.ones((2, 3)))),
        (name, "runs", True, lambda ns: ns["evaluate"](ns["predictor"].init(jax.random.key(0), jnp.ones(3)), jnp.ones(3))),
    ]


def _haiku_control_flow():
    import haiku as hk
    import jax
    import jax.numpy as jnp

    name = "haiku_control_flow.py"

    def init(function, x):  # `init` runs `function` (unrolling a loop's first step eagerly, then tracing the rest)
        with jax.debug_key_reuse(True):
            hk.transform(function).init(jax.random.key(0), x)

    return [
        (name, "raises TracerBoolConversionError at line 15", False, lambda ns: init(ns["unroll"], jnp.ones((4, 3)))),
        # The two `next_rng_key` draws before it pass jax's key-reuse checker.
        (name, "raises TracerBoolConversionError at line 28", False, lambda ns: init(ns["denoise"], jnp.ones(3))),
        (name, "runs", True, lambda ns: init(ns["gate"], jnp.ones(3))),
        (name, "raises TracerBoolConversionError at line 47", False, lambda ns: init(ns["batched"], jnp.ones((4, 3)))),
        # `x.ndim` passes; `x.min()` is a tracer under `hk.remat`.
        (name, "raises TracerBoolConversionError at line 59", False,
         lambda ns: init(ns["checkpointed"], jnp.ones((2, 3)))),
    ]


def _haiku_cond_keys():
    import haiku as hk
    import jax
    import jax.numpy as jnp

    name = "haiku_cond_keys.py"

    def init(function, x):  # eagerly, as `init` runs: jax's key-reuse checker sees each draw
        with jax.debug_key_reuse(True):
            hk.transform(function).init(jax.random.key(0), x)

    return [
        # The `cond` itself passes the checker (one branch draws); the draw after it does not.
        (name, "raises KeyReuseError at line 19", False, lambda ns: init(ns["noisy"], jnp.ones(3))),
        (name, "runs", False, lambda ns: init(ns["noisy_split"], jnp.ones(3))),
        # The older form: the key given as both operands passes at the `cond`; the draw after it does not.
        (name, "raises KeyReuseError at line 45", False, lambda ns: init(ns["old_style"], jnp.ones(3))),
        (name, "runs", True, lambda ns: init(ns["old_style_gate"], jnp.ones((2, 3)))),
    ]


def _equinox():
    import jax
    import jax.numpy as jnp

    name = "equinox_filter_jit.py"

    def build(cls):
        with jax.debug_key_reuse(True):
            cls(jax.random.key(0))

    def call(cls, method):
        block = cls(jax.random.key(0))
        with jax.debug_key_reuse(True):
            getattr(block, method)(jnp.ones(4), key=jax.random.key(1))

    return [
        (name, "raises KeyReuseError at line 74", False, lambda ns: build(ns["Encoder"])),
        (name, "runs", False, lambda ns: build(ns["SplitEncoder"])),
        (name, "raises KeyReuseError at line 98", False, lambda ns: call(ns["Block"], "__call__")),
        (name, "runs", False, lambda ns: call(ns["Block"], "evaluate")),
        (name, "raises TracerBoolConversionError at line 29", False, lambda ns: ns["normalise"](jnp.arange(3.0), 2.0)),
        # The static `scale` and `depth` pass; the array field `bias` is a tracer.
        (name, "raises TracerBoolConversionError at line 41", True, lambda ns: ns["describe"](ns["model"], jnp.ones(3))),
        (name, "runs", False,
         lambda ns: ns["make_step"](ns["model"], ns["opt_state"], jnp.ones((8, 3)), jnp.ones((8, 3)))),
    ]


def _equinox_module_fields():
    import jax
    import jax.numpy as jnp

    name = "equinox_module_fields.py"
    x = jnp.ones(3)

    def model(ns):
        return ns["Model"](jax.random.key(0))

    return [
        # `range(self.depth)` and `if self.use_bias` pass; the array field `extra_bias` is a tracer.
        (name, "raises TracerBoolConversionError at line 43", False, lambda ns: ns["predict"](model(ns), x)),
        (name, "raises TracerBoolConversionError at line 51", False, lambda ns: model(ns).score(x)),
        # `if model.depth > 1` passes (line 63), so `model(x)` runs, and raises in `__call__`.
        (name, "raises TracerBoolConversionError at line 43", False, lambda ns: ns["deeper"](model(ns), x)),
        (name, "raises TracerBoolConversionError at line 70", False,
         lambda ns: ns["traced_layers"](ns["Head"](jax.random.key(1)), x)),
    ]


def _equinox_vmap_module():
    import equinox as eqx
    import jax.numpy as jnp

    name = "equinox_vmap_module.py"
    xs = jnp.ones((4, 3))
    return [
        # `self.depth` passes; the example `x` is a tracer, under `jax.vmap(model)` and `eqx.filter_vmap(model)`.
        (name, "raises TracerBoolConversionError at line 24", False, lambda ns: ns["loss"](ns["model"], xs, jnp.ones((4, 2)))),
        (name, "raises TracerBoolConversionError at line 24", False, lambda ns: eqx.filter_vmap(ns["model"])(xs)),
        (name, "runs", False, lambda ns: ns["evaluate_ensemble"](ns["ensemble"], jnp.ones(2))),
    ]


def _chex_pallas():
    import jax.numpy as jnp

    name = "chex_and_pallas.py"
    return [
        (name, "raises TracerBoolConversionError at line 19", False,
         lambda ns: ns["update"](ns["State"](step=jnp.array(1), scale=jnp.array(2.0)), jnp.ones(3))),
        (name, "runs", False, lambda ns: ns["add"](jnp.ones(8), jnp.ones(8))),
    ]


def _jax_dataclasses():
    import jax.numpy as jnp

    name = "jax_dataclasses_fields.py"

    def robot(ns):
        return ns["Robot"](joints=jnp.ones(3), limits=jnp.ones(3), num_joints=3)

    return [
        # The static field and annotation pass as Python values; the traced ones raise.
        (name, "raises TracerBoolConversionError at line 25", False, lambda ns: ns["clamp"](robot(ns), jnp.ones(3))),
        (name, "raises TracerBoolConversionError at line 35", False,
         lambda ns: ns["solve"](robot(ns), -jnp.ones(3), steps=2)),
    ]


def _optax():
    import jax.numpy as jnp

    name = "optax_update.py"
    params = {"w": jnp.ones(3)}
    grads = {"w": jnp.full(3, 0.5)}

    def steps(ns):
        ns["step"](params, ns["opt"].init(params), grads)
        ns["step_with"](params, ns["optimizers"]["adam"].init(params), grads)
        trainer = ns["Trainer"]()
        trainer.step(params, trainer.tx.init(params), grads)

    return [(name, "runs", False, steps)]


def main() -> int:
    failed = 0
    for cases in (_numpyro, _blackjax, _diffrax_optimistix_lineax, _flax, _flax_lifted, _flax_linen_cond_methods, _flax_nnx, _flax_nnx_control_flow, _flax_nnx_grad, _haiku, _haiku_control_flow, _haiku_cond_keys, _equinox, _equinox_module_fields, _equinox_vmap_module, _chex_pallas, _jax_dataclasses, _optax):
        for name, expected, expects_tracer_print, run in cases():
            outcome, printed_tracer = observe(name, run)
            ok = outcome == expected and printed_tracer == expects_tracer_print
            failed += not ok
            shown = f"{outcome}{', printed a tracer' if printed_tracer else ''}"
            print(f"{'ok ' if ok else 'FAIL'} {name}: {shown}" + ("" if ok else f" (expected {expected})"))
    print(f"{failed} of the claims not as the fixtures say" if failed else "every claim as the fixtures say")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
