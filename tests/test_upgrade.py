"""A module written for jax 0.3 (stax, optimizers, jax.ops, tree_multimap, DeviceArray) is upgraded by
`jaxlint --fix` into code that imports and runs on the installed jax, with the same results."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from helpers import jaxlint

UPGRADE = Path(__file__).resolve().parents[1] / "fixtures" / "upgrade"


def run_module(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120)


def expected_targets() -> list[float]:
    """x ** 2 on eight points of [-1, 1], the first pinned to 1.0 and 0.5 added to the last."""
    xs = [-1.0 + 2.0 * i / 7 for i in range(8)]
    targets = [x * x for x in xs]
    targets[0] = 1.0
    targets[-1] += 0.5
    return [round(t, 4) for t in targets]


def test_the_original_does_not_run_on_the_installed_jax(tmp_path: Path) -> None:
    result = run_module(UPGRADE / "mlp.py")
    assert result.returncode == 1
    assert "ImportError: cannot import name 'optimizers' from 'jax.experimental'" in result.stderr


def test_fix_upgrades_it_to_code_that_runs(tmp_path: Path) -> None:
    target = tmp_path / "mlp.py"
    shutil.copyfile(UPGRADE / "mlp.py", target)
    fixed = jaxlint(tmp_path, "--fix", "mlp.py")
    assert (fixed.returncode, fixed.stdout) == (0, "Found 13 findings (13 fixed, 0 remaining; 1 file checked).\n")
    assert target.read_bytes() == (UPGRADE / "mlp.fixed.py").read_bytes()

    result = run_module(target)
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout)
    assert outcome["targets"] == expected_targets()  # index_update/index_add became .at[].set/.add
    assert outcome["prediction_shape"] == [8, 1]
    assert outcome["parameters"] == 1 * 16 + 16 + 16 * 1 + 1  # two Dense layers, via tree_map/tree_leaves
    assert outcome["loss_after"] < outcome["loss_before"] / 2  # stax + optimizers.sgd + tree_multimap trained
