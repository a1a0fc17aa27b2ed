"""The libraries JAX code is written with (jaxlint/model/libraries/): each library's names live in its own module,
and what they trace reaches the rules. fixtures/libraries/ holds the cases, checked line by line by
test_fixtures.py; benchmarks/libraries_runtime.py checks them with the libraries installed."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from helpers import jaxlint, write
from jaxlint.model import classes, functions, keys, pytrees, transforms
from jaxlint.model.libraries import LIBRARIES

MODEL = Path(__file__).resolve().parent.parent / "jaxlint" / "model"
LIBRARY_PREFIXES = tuple(
    f"{name}." for name in "equinox flax haiku optax numpyro diffrax optimistix lineax chex jax_dataclasses blackjax".split()
)


def test_library_names_are_only_in_their_library_modules() -> None:
    """No generic model table names a library's function itself: it is built from model/libraries/."""
    found = []
    for path in sorted(MODEL.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith(LIBRARY_PREFIXES):
                found.append(f"{path.name}:{node.lineno}: {node.value}")
    assert found == []


def test_generic_tables_hold_every_library_entry() -> None:
    tables = {
        "TRANSFORMS": transforms.TRANSFORMS,
        "LAX_BODIES": transforms.LAX_BODIES,
        "LOOP_BODIES": transforms.LOOP_BODIES,
        "LAX_CARRIES": transforms.LAX_CARRIES,
        "LAX_OPERANDS": transforms.LAX_OPERANDS,
        "REF_KERNELS": transforms.REF_KERNELS,
        "PYTREE_BASES": pytrees.PYTREE_BASES,
        "PYTREE_DECORATORS": pytrees.PYTREE_DECORATORS,
        "STATIC_FIELD_SPECS": pytrees.STATIC_FIELD_SPECS,
        "STATIC_FIELD_CALLS": pytrees.STATIC_FIELD_CALLS,
        "STATIC_ANNOTATIONS": pytrees.STATIC_ANNOTATIONS,
        "PLAIN_CLASS_DECORATORS": classes.PLAIN_CLASS_DECORATORS,
        "METHOD_RUNNERS": classes.METHOD_RUNNERS,
        "FUNCTION_RUNNERS": classes.FUNCTION_RUNNERS,
        "RANDOMNESS_OFF": functions.RANDOMNESS_OFF,
        "ARRAY_FUNCTIONS": functions.LIBRARY_ARRAY_FUNCTIONS,
        "BRANCHING": keys.BRANCHING,
        "CONDS": keys.CONDS,
        "PAIRED_BRANCHES": keys.PAIRED_BRANCHES,
    }
    missing = [
        f"{library.__name__}.{table}: {name}"
        for library in LIBRARIES
        for table, merged in tables.items()
        for name in getattr(library, table, ())
        if name not in merged
    ]
    assert missing == []
    assert {"equinox.Module", "flax.struct.PyTreeNode"} <= pytrees.PYTREE_BASES
    assert transforms.TRANSFORMS["numpyro.infer.NUTS"].family == "closure"
    assert {"haiku.scan", "haiku.fori_loop"} <= transforms.LOOP_BODIES
    assert transforms.LIFTED_TRANSFORMS == {
        "flax.linen.jit",
        "flax.linen.remat",
        "flax.linen.checkpoint",
        "flax.linen.vmap",
        "flax.linen.scan",
    }


def test_a_numpyro_model_under_mcmc_in_json(tmp_path: Path) -> None:
    write(
        tmp_path / "model.py",
        "import jax\n"
        "import numpyro\n"
        "import numpyro.distributions as dist\n"
        "from numpyro.infer import MCMC, NUTS\n"
        "\n"
        "\n"
        "def model(x):\n"
        "    scale = numpyro.sample('scale', dist.HalfNormal(1.0))\n"
        "    if scale > 1:\n"
        "        scale = 1.0\n"
        "    numpyro.sample('obs', dist.Normal(0.0, scale), obs=x)\n"
        "\n"
        "\n"
        "MCMC(NUTS(model), num_warmup=10, num_samples=10).run(jax.random.PRNGKey(0), x=1.0)\n",
    )
    result = jaxlint(tmp_path, "--output-format", "json", "model.py")
    assert result.returncode == 1
    found = json.loads(result.stdout)
    assert [(f["code"], f["location"]["row"], f["location"]["column"]) for f in found] == [("JAX301", 9, 8)]
    assert "inside `model`, which `numpyro.infer.NUTS` traces to a jaxpr at line 14" in found[0]["message"]


def test_an_untraced_library_call_is_silent(tmp_path: Path) -> None:
    """`handlers.seed(model, key)(x)` and an eager `hk.transform(f).apply` run the function as given."""
    write(
        tmp_path / "eager.py",
        "import haiku as hk\n"
        "import jax\n"
        "import jax.numpy as jnp\n"
        "import numpyro\n"
        "import numpyro.distributions as dist\n"
        "from numpyro import handlers\n"
        "\n"
        "\n"
        "def model():\n"
        "    w = numpyro.sample('w', dist.Normal(0.0, 1.0))\n"
        "    if w > 0:\n"
        "        print(w)\n"
        "\n"
        "\n"
        "def forward(x):\n"
        "    if x.sum() > 0:\n"
        "        print(x)\n"
        "    return hk.Linear(2)(x)\n"
        "\n"
        "\n"
        "handlers.seed(model, jax.random.PRNGKey(0))()\n"
        "net = hk.transform(forward)\n"
        "params = net.init(jax.random.PRNGKey(1), jnp.ones(3))\n"
        "net.apply(params, jax.random.PRNGKey(2), jnp.ones(3))\n",
    )
    result = jaxlint(tmp_path, "eager.py")
    assert (result.returncode, result.stdout) == (0, "All checks passed (1 file checked).\n")


def test_a_lifted_transform_given_options_it_counts_otherwise_claims_nothing(tmp_path: Path) -> None:
    """linen's `static_argnums` count the Module and `methods=` names the methods transformed: what either traces
    is not claimed (and `nn.vmap(Block, methods=...)` is never taken for `Block.__init__`)."""
    write(
        tmp_path / "lifted.py",
        "import flax.linen as nn\n"
        "import jax\n"
        "\n"
        "\n"
        "class Block(nn.Module):\n"
        "    @nn.compact\n"
        "    def __call__(self, x, train):\n"
        "        if x.sum() > train:\n"
        "            x = x * 2\n"
        "        return nn.Dense(2)(x)\n"
        "\n"
        "\n"
        "class Model(nn.Module):\n"
        "    @nn.compact\n"
        "    def __call__(self, x):\n"
        "        x = nn.remat(Block, static_argnums=(2,))()(x, 1)\n"
        "        return nn.vmap(Block, methods=['__call__'])()(x, 1)\n",
    )
    result = jaxlint(tmp_path, "lifted.py")
    assert (result.returncode, result.stdout) == (0, "All checks passed (1 file checked).\n")


def test_nnx_scan_claims_the_carry_and_scanned_arguments_only(tmp_path: Path) -> None:
    """`nnx.scan` traces what its `in_axes` gives `nnx.Carry` or an integer; a broadcast (`None`) argument and
    `in_axes` it cannot read (`nnx.StateAxes`) are not claimed."""
    write(
        tmp_path / "scan.py",
        "import jax\n"
        "from flax import nnx\n"
        "\n"
        "\n"
        "@nnx.scan(in_axes=(nnx.Carry, None), out_axes=nnx.Carry, length=3)\n"
        "def step(x, scale):\n"
        "    if scale > 1:\n"
        "        x = x * scale\n"
        "    if x.sum() > 0:\n"
        "        x = -x\n"
        "    return x\n"
        "\n"
        "\n"
        "@nnx.scan(in_axes=(nnx.StateAxes({nnx.Param: 0, ...: None}), nnx.Carry), out_axes=nnx.Carry)\n"
        "def layers(model, x):\n"
        "    if x.sum() > 0:\n"
        "        x = -x\n"
        "    return model(x)\n",
    )
    result = jaxlint(tmp_path, "scan.py", "--output-format", "concise")
    assert result.stdout.splitlines() == [
        "scan.py:9:8: JAX301 Python `if` on a traced value raises TracerBoolConversionError: `x.sum() > 0` is traced;"
        " use `jnp.where` or `lax.cond`"
    ]
