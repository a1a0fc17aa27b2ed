"""The keyword each jax transform takes its function by (`jax.vmap(fun=f)`) is the installed jax's own.

model/transforms.py says, per transform, which keyword also gives it its function, or None when the function is
given by position only (`jax.jit(fun, /)`). A wrong keyword would make jaxlint trace the wrong argument, so the
table is checked against the signatures of the installed jax, in a subprocess (the static path never imports jax).
"""

from __future__ import annotations

import json
import subprocess
import sys

from jaxlint.model.transforms import FUNCTION_KEYWORDS, TRANSFORMS

FIRST_PARAMETERS = """
import importlib, inspect, json, sys
answers = {}
for name in json.loads(sys.stdin.read()):
    module, _, attribute = name.rpartition(".")
    try:
        found = getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError):
        continue
    first = next(iter(inspect.signature(found).parameters.values()))
    answers[name] = None if first.kind is inspect.Parameter.POSITIONAL_ONLY else first.name
print(json.dumps(answers))
"""

# Deprecated spellings whose function keyword is left out: `pjit(fun=)` and the experimental `shard_map(f=)`.
LEFT_OUT = frozenset({"jax.experimental.pjit.pjit", "jax.experimental.shard_map.shard_map"})


def installed_first_parameters() -> dict[str, str | None]:
    asked = sorted(name for name in TRANSFORMS if name.startswith("jax.") and name not in LEFT_OUT)
    result = subprocess.run([sys.executable, "-W", "ignore", "-c", FIRST_PARAMETERS], input=json.dumps(asked),
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_each_jax_transform_takes_its_function_by_the_keyword_the_table_names() -> None:
    installed = installed_first_parameters()
    assert {"jax.jit", "jax.vmap", "jax.grad", "jax.checkpoint", "jax.shard_map"} <= installed.keys()
    assert {name: FUNCTION_KEYWORDS.get(name) for name in installed} == installed
