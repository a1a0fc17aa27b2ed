"""Every finding about a traced value carries its evidence: the steps from the transform to the value, each
at its row, in `--output-format json` (and the result cache)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import jaxlint
from test_outputs import assert_valid_sarif

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


def test_sarif_gives_the_evidence_as_related_locations(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(PROGRAM)
    log = json.loads(jaxlint(tmp_path, "--no-cache", "--output-format", "sarif", "train.py").stdout)
    assert_valid_sarif(log)
    related = {
        result["locations"][0]["physicalLocation"]["region"]["startLine"]: [
            (step["id"], step.get("physicalLocation", {}).get("region"), step["message"]["text"])
            for step in result["relatedLocations"]
        ]
        for result in log["runs"][0]["results"]
    }
    assert related == {
        16: [
            (0, {"startLine": 23}, "`step` calls `check` with a tracer for `state`, under `jax.jit`"),
            (1, None, "`state.done` is a field of `state`: a tracer too"),
        ],
        24: [
            (0, {"startLine": 21}, "`jax.jit` traces `step`: `state` is a tracer"),
            (1, None, "`finished` returns a value computed from it: a tracer"),
        ],
    }


def test_a_transform_in_another_module_is_named_at_its_line_when_it_spans_lines(tmp_path: Path) -> None:
    # Rendered alone, the lines of an indented call after its first lose the block's indentation: the line is
    # still found in the text.
    (tmp_path / "ops.py").write_text(
        "import jax.numpy as jnp\n\n\ndef scale(x, factor):\n    if factor > 1:\n        return x * factor\n"
        "    return jnp.zeros_like(x)\n"
    )
    (tmp_path / "model.py").write_text(
        "import jax\n\nimport ops\n\n\nclass Model:\n    def __call__(self, x):\n        scaled = jax.jit(\n"
        "            ops.scale,\n            donate_argnums=0,\n        )\n        return scaled(x, 2.0)\n"
    )
    result = jaxlint(tmp_path, "--no-cache", "--output-format", "json", ".")
    found = [
        (d["filename"].rsplit("/", 1)[-1], d["location"]["row"], d["code"], d["evidence"])
        for d in json.loads(result.stdout)
    ]
    assert found == [
        (
            "ops.py",
            5,
            "JAX301",
            [{"row": None, "cell": None, "why": "`jax.jit` traces `scale` (model.py:8): `factor` is a tracer"}],
        )
    ]
