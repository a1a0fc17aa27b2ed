"""The arguments --verify reads from source (jaxlint/verify/arguments.py, no jax): what each annotation
and each call built from literals gives, in the forms the worker builds."""

from __future__ import annotations

import ast

from jaxlint.verify.arguments import annotations, call_sites, module_names


def annotated(source: str) -> dict:
    return annotations(ast.parse(source).body[-1])


def calls(source: str) -> dict:
    tree = ast.parse(source)
    return call_sites(tree, module_names(tree))


def test_jaxtyping_dims_are_shared_across_parameters_and_fixed_dims_and_ellipses_kept() -> None:
    assert annotated(
        'def attend(q: Float[Array, "batch seq d"], k: Float32[Array, "batch #seq d"], lengths: Int[Array, " batch"],\n'
        '           scale: Float[Array, ""], image: UInt8[jax.Array, "... 3"], rest: Float[Array, "*batch n"],\n'
        '           key: Key[Array, ""], grown: Float[Array, "n+1"]): ...\n') == {
        "q": {"array": [[4, 6, 8], "float32"]}, "k": {"array": [[4, 6, 8], "float32"]},
        "lengths": {"array": [[4], "int32"]}, "scale": {"array": [[], "float32"]},
        "image": {"array": [[3], "uint8"]}, "rest": {"array": [[10], "float32"]}, "key": {"key": []},
    }  # `n+1`: no size is made up for an expression


def test_plain_array_types_scalars_keys_tuples_and_optionals() -> None:
    assert annotated(
        "def step(params, x: jax.Array, y: jnp.ndarray, z: chex.Array, n: int, rate: 'float', train: bool,\n"
        "         pair: tuple[int, Array], many: tuple[int, ...], rng: chex.PRNGKey, mask: Optional[Array] = None,\n"
        "         *, weights: np.ndarray | None, names: list[str]): ...\n") == {
        "x": {"unshaped": "float32"}, "y": {"unshaped": "float32"}, "z": {"unshaped": "float32"},
        "n": {"scalar": "int"}, "rate": {"scalar": "float"}, "train": {"scalar": "bool"},
        "pair": {"tuple": [{"scalar": "int"}, {"unshaped": "float32"}]}, "rng": {"key": []},
        "mask": {"unshaped": "float32"}, "weights": {"unshaped": "float32"},
    }


def test_calls_whose_arguments_are_built_from_literals_give_signatures() -> None:
    found = calls(
        "import numpy as np\nimport jax\nimport jax.numpy as jnp\nfrom jax import random\n\n"
        "SIZES = (3, 5)\n"
        "def step(params, x, n, *, scale=1.0): ...\n"
        "params = {'w': jnp.ones(SIZES), 'b': jnp.zeros(5, dtype=jnp.bfloat16)}\n"
        "step(params, np.zeros((2, 3)), 4)\n"
        "step([1, 2], jnp.arange(1, 10, 2), -2, scale=jnp.array([[1, 2], [3, 4]]).astype('float16'))\n"
        "step(random.PRNGKey(0), random.normal(random.key(1), (4,)), jnp.array([True, False]))\n"
        "step(params, jnp.arange(2.5), np.arange(3))\n")
    assert found == {"step": [
        {"line": 9, "args": [{"dict": {"w": {"array": [[3, 5], "float32"]}, "b": {"array": [[5], "bfloat16"]}}},
                             {"array": [[2, 3], "float64"]}, {"value": 4}], "kwargs": {}},
        {"line": 10, "args": [{"list": [{"value": 1}, {"value": 2}]}, {"array": [[5], "int32"]}, {"value": -2}],
         "kwargs": {"scale": {"array": [[2, 2], "float16"]}}},
        {"line": 11, "args": [{"key": []}, {"array": [[4], "float32"]}, {"array": [[2], "bool"]}], "kwargs": {}},
    ]}  # three calls per function are enough


def test_calls_with_anything_not_built_from_literals_give_nothing() -> None:
    assert calls(
        "import jax.numpy as jnp\n\n"
        "def step(x, n): ...\n"
        "x = jnp.zeros((2, 3))\nx = x + 1\n"  # bound twice: which one?
        "def train(batch, size):\n    step(batch, 2)\n    step(jnp.zeros(size), 2)\n"  # the caller's values
        "def other():\n    y = jnp.ones((2,))\n    step(*[y, 2])\n    obj.step(y, 2)\n"
        "step(x, 2)\nstep(jnp.zeros((2, 3)), load())\nstep(jnp.array([[1, 2], [3]]), 1)\n"
        "step(jnp.zeros((2, 3), dtype=my_dtype), 1)\n") == {}
    assert calls("import jax.numpy as jnp\ndef step(x): ...\ndef main():\n    y = jnp.ones((2,))\n    step(y)\n") == {
        "step": [{"line": 5, "args": [{"array": [[2], "float32"]}], "kwargs": {}}]}


def test_reshape_works_out_its_minus_one_and_refuses_a_size_that_does_not_fit() -> None:
    found = calls("import jax.numpy as jnp\ndef f(x): ...\nf(jnp.arange(10.0).reshape(2, 5))\n"
                  "f(jnp.zeros((4, 6)).reshape((-1, 3)))\nf(jnp.ones(6).reshape(4, 2))\nf(jnp.ones(1).reshape(()))\n")
    assert [call["args"] for call in found["f"]] == [
        [{"array": [[2, 5], "float32"]}], [{"array": [[8, 3], "float32"]}], [{"array": [[], "float32"]}]]


def test_a_name_bound_by_with_except_import_or_def_in_the_calling_function_is_not_the_module_level_one() -> None:
    assert calls(
        "import jax.numpy as jnp\nx = jnp.zeros(3)\ny = jnp.zeros(3)\nz = jnp.zeros(3)\nw = jnp.zeros(3)\n"
        "def f(a): ...\n"
        "def g():\n    with open('f') as x:\n        f(x)\n    try:\n        pass\n    except ValueError as y:\n"
        "        f(y)\n    from data import z\n    f(z)\n    def w(): ...\n    f(w)\n"
        "    f(jnp.zeros((2, 2)))\n") == {"f": [{"line": 18, "args": [{"array": [[2, 2], "float32"]}], "kwargs": {}}]}
    assert annotated('def f(x: Float[Array, "_ n _"], y: Float[Array, "n"]): ...') == {
        "x": {"array": [[4, 6, 8], "float32"]}, "y": {"array": [[6], "float32"]}}
