"""action.yml, the GitHub Action, run here as GitHub runs a composite action: each step's script in
`bash --noprofile --norc -eo pipefail`, its `env:` filled from the inputs, GITHUB_ACTION_PATH at a copy of
this checkout, in a workspace folder, with a fresh virtualenv's `python` first on PATH (the job's Python)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from helpers import CLEAN_SOURCE, JAX101_MESSAGE, JAX101_SOURCE, write
from test_outputs import assert_valid_sarif

pytestmark = pytest.mark.slow  # a virtualenv, pip installs jaxlint and jax into it

ROOT = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
STEPS = ACTION["runs"]["steps"]
INPUT = re.compile(r"\$\{\{ inputs\.([a-z-]+) \}\}")
INSTALL_TIMEOUT = 900  # pip installs jaxlint, libcst, flake8 and jax from the package index


def test_a_composite_action_whose_inputs_reach_its_scripts_only_through_the_environment() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) == {"args", "source", "sarif", "verify"}
    assert [step["name"] for step in STEPS] == ["Install jaxlint", "Run jaxlint"]
    for step in STEPS:
        assert set(step) == {"name", "shell", "env", "run"} and step["shell"] == "bash"
        assert "${{" not in step["run"]  # an input pasted into a script could run as code
        assert all(INPUT.fullmatch(value) and INPUT.fullmatch(value)[1] in ACTION["inputs"]
                   for value in step["env"].values())


def test_it_installs_this_projects_distribution() -> None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    name = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"]
    assert f'"{name}$extra @ $source"' in STEPS[0]["run"]


def run_step(step: dict, inputs: dict[str, str], runner: Path, workspace: Path) -> subprocess.CompletedProcess:
    given = {name: inputs.get(name, spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    script = write(runner / "step.sh", step["run"])
    env = {
        **{key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"},
        **{key: given[INPUT.fullmatch(value)[1]] for key, value in step["env"].items()},
        "PATH": f"{runner / 'python' / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "GITHUB_ACTION_PATH": str(runner / "action"),
        "GITHUB_WORKSPACE": str(workspace),
    }
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=workspace,
                          env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The action's checkout (what pip needs of this one) and the job's Python, with the action installed
    as `uses:` with `verify: true` installs it."""
    runner = tmp_path_factory.mktemp("runner")
    action = runner / "action"
    action.mkdir()
    for name in ("pyproject.toml", "README.md", "action.yml"):
        shutil.copy(ROOT / name, action / name)
    shutil.copytree(ROOT / "jaxlint", action / "jaxlint", ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "venv", str(runner / "python")], check=True, capture_output=True)
    installed = run_step(STEPS[0], {"verify": "true"}, runner, runner)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return runner


def workspace_with(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        write(folder / name, text)
    return folder


def test_findings_fail_the_step_and_the_sarif_file_is_written(runner: Path, tmp_path: Path) -> None:
    workspace = workspace_with(tmp_path, {"src/a.py": JAX101_SOURCE, "src/clean.py": CLEAN_SOURCE})
    ran = run_step(STEPS[1], {"args": "src/"}, runner, workspace)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert ran.stdout == (f"src/a.py:3:1: JAX101 [*] {JAX101_MESSAGE}\n"
                          "Found 1 finding (2 files checked); 1 fixable with `--fix`.\n")
    log = json.loads((workspace / "jaxlint.sarif").read_text(encoding="utf-8"))
    assert_valid_sarif(log)
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
            for r in log["runs"][0]["results"]] == [("JAX101", "src/a.py")]


def test_a_clean_tree_passes_and_without_sarif_nothing_is_written(runner: Path, tmp_path: Path) -> None:
    workspace = workspace_with(tmp_path, {"clean.py": CLEAN_SOURCE})
    ran = run_step(STEPS[1], {"sarif": ""}, runner, workspace)
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "All checks passed (1 file checked).\n", "")
    assert sorted(path.name for path in workspace.iterdir()) == [".jaxlint_cache", "clean.py"]


def test_verify_confirms_findings_in_the_sarif(runner: Path, tmp_path: Path) -> None:
    confirm = (ROOT / "fixtures" / "verify" / "JAX101_confirm.py").read_text(encoding="utf-8")
    workspace = workspace_with(tmp_path, {"zero.py": confirm})
    ran = run_step(STEPS[1], {"verify": "true", "sarif": "out/jaxlint.sarif"}, runner, workspace)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    log = json.loads((workspace / "out" / "jaxlint.sarif").read_text(encoding="utf-8"))
    assert_valid_sarif(log)
    [result] = log["runs"][0]["results"]
    assert (result["ruleId"], result["properties"]["verify"]["status"]) == ("JAX101", "confirmed")


def test_an_unknown_verify_mode_is_an_error(runner: Path, tmp_path: Path) -> None:
    ran = run_step(STEPS[1], {"verify": "yes"}, runner, workspace_with(tmp_path, {"clean.py": CLEAN_SOURCE}))
    assert (ran.returncode, ran.stdout) == (2, "")
    assert ran.stderr == "jaxlint action: verify must be false, true, all or run, got 'yes'\n"
