"""The origin matrix run with real jax: the table (tests/origin_matrix.py) cannot claim what jax does not do.

Every cell runs once, all in one subprocess (JAX_PLATFORMS=cpu): a bug cell of a raising rule raises the error
its use names; a silent bug does what its rule says (`print` shows a tracer, a leaked tracer raises
UnexpectedTracerError when used after the call, two draws from one key are equal, a discarded update runs);
a twin runs without error, prints no tracer, leaks nothing, and draws different numbers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from origin_matrix import CELLS_SCRIPT_NAME, cells

SCRIPT = r'''
import contextlib, importlib, io, json, sys
import jax, jax.numpy as jnp, numpy as np

sys.path.insert(0, sys.argv[1])
results = {}
for cell in json.loads(open(sys.argv[2]).read()):
    outcome = {"error": None, "stdout": "", "leak_error": None, "equal": None, "skipped": False}
    if any(importlib.util.find_spec(name) is None for name in cell["requires"]):
        outcome["skipped"] = True
        results[cell["id"]] = outcome
        continue
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        try:
            module = importlib.import_module(cell["module"])
            value = module.run()
            jax.block_until_ready(value)
            jax.effects_barrier()
        except Exception as error:
            outcome["error"] = [cls.__name__ for cls in type(error).__mro__]
            outcome["message"] = str(error)[:300]
            value = None
    outcome["stdout"] = buffer.getvalue()
    leaked = importlib.import_module(cell["use_file"]).LEAKED
    if leaked:
        try:
            jnp.add(leaked[-1], 1)
        except Exception as error:
            outcome["leak_error"] = [cls.__name__ for cls in type(error).__mro__]
    if cell["key"] and value is not None:
        a, b = value
        outcome["equal"] = bool(np.array_equal(np.asarray(a), np.asarray(b)))
    results[cell["id"]] = outcome
print(json.dumps(results))
'''


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    pytest.importorskip("jax")
    root = tmp_path_factory.mktemp("origin_matrix_run")
    listed = []
    for cell in cells():
        for name, source in cell.files.items():
            (root / f"{name}.py").write_text(source, encoding="utf-8")
        listed.append({"id": cell.id, "module": cell.module, "use_file": cell.use_file, "key": cell.key,
                       "requires": list(cell.requires)})
    (root / CELLS_SCRIPT_NAME).write_text(json.dumps(listed), encoding="utf-8")
    # Cheaper XLA compilation (the cells are tiny): it changes no result the table claims.
    env = {**os.environ, "JAX_PLATFORMS": "cpu",
           "XLA_FLAGS": "--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true"}
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(root), str(root / CELLS_SCRIPT_NAME)],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def _wrong(cell, outcome: dict) -> str | None:
    """What jax did that the table does not say, or None."""
    if outcome["skipped"]:
        return None
    error, printed = outcome["error"], "Tracer(" in outcome["stdout"]
    if not cell.bug:
        if error:
            return f"the twin raised {error[0]}: {outcome.get('message')}"
        if printed or outcome["leak_error"]:
            return "the twin printed or leaked a tracer"
        if cell.key and outcome["equal"]:
            return "the twin drew equal numbers"
        return None
    if cell.raises:
        return None if error and cell.raises in error else f"raised {error and error[0]}, not {cell.raises}"
    if error:
        return f"raised {error[0]}: {outcome.get('message')}"
    if cell.effect == "prints-tracer" and not printed:
        return f"printed {outcome['stdout']!r}, no tracer"
    if cell.effect == "leaks" and not (outcome["leak_error"] and "UnexpectedTracerError" in outcome["leak_error"]):
        return f"the leaked value gave {outcome['leak_error']}"
    if cell.effect == "equal-draws" and not outcome["equal"]:
        return "the two draws differ"
    return None


@pytest.mark.slow
def test_jax_does_what_the_table_says(outcomes: dict[str, dict]) -> None:
    wrong = {cell.id: why for cell in cells() if (why := _wrong(cell, outcomes[cell.id]))}
    assert wrong == {}
    skipped = sorted(cell_id for cell_id, outcome in outcomes.items() if outcome["skipped"])
    assert len(skipped) < len(outcomes)
