"""Every finding about a traced value carries its evidence: the steps from the transform to the value, each
at its row, in `--output-format json` (and the result cache)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import jaxlint

PROGRAM = '''\
import dataclasses

import jax


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class State:
    done: jax.Array

    def finished(self):
        return self.done > 0


def check(state):
    if state.done > 0:
        return 1
    return 0


@jax.jit
def step(state: State, batch):
    check(state)
    if state.finished():
        return batch
    return batch
'''


def test_json_gives_each_finding_its_evidence_step_by_step(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(PROGRAM)
    result = jaxlint(tmp_path, "--no-cache", "--output-format", "json", "train.py")
    found = {(d["location"]["row"], d["code"]): d["evidence"] for d in json.loads(result.stdout)}
    assert found == {
        (16, "JAX301"): [
            {"row": 23, "cell": None, "why": "`step` calls `check` with a tracer for `state`, under `jax.jit`"},
            {"row": None, "cell": None, "why": "`state.done` is a field of `state`: a tracer too"},
        ],
        (24, "JAX301"): [
            {"row": 21, "cell": None, "why": "`jax.jit` traces `step`: `state` is a tracer"},
            {"row": None, "cell": None, "why": "`finished` returns a value computed from it: a tracer"},
        ],
    }
    assert result.returncode == 1
