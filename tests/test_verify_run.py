"""`jaxlint --verify=run`: the real command line in a subprocess runs the project's scripts, modules and tests
under jax's checkers (real jax, CPU), records the signatures of the calls it sees, and plain `--verify` replays them
before annotations, calls and guesses (tests/test_verify.py has the imports)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from helpers import jaxlint, write
from test_fixtures import expectations
from test_verify import VERIFY, statuses, verify_json

PROJECT = VERIFY / "project"


@pytest.mark.slow
def test_run_mode_runs_scripts_and_the_tests_under_the_checkers_and_keeps_what_a_timeout_cut_short() -> None:
    # (the loop of train.py runs until the timeout; the tests must finish before it on a loaded machine too)
    run = jaxlint(PROJECT, "--verify=run", "--verify-timeout", "40", "--output-format", "json",
                  "train.py", "mlpkg", "tests", timeout=300)
    assert run.returncode == 1
    assert statuses(json.loads(run.stdout)) == {
        ("train.py", 13, "JAX306"): ("confirmed", "a tracer reached print here while tracing"),
        ("augment.py", 13, "JAX012"): ("confirmed", "jax.debug_key_reuse: KeyReuseError raised by the tests"),
    }
    assert run.stderr == ("jaxlint: `python train.py`: timed out after 40 s (--verify-timeout); "
                          "what it did until then is kept\n")


@pytest.mark.slow
def test_a_run_records_signatures_that_plain_verify_replays(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project, ignore=shutil.ignore_patterns("train.py", "__pycache__", ".jaxlint_cache"))
    recorded = jaxlint(project, "--verify=run", "mlpkg", "tests", timeout=300)
    assert recorded.returncode == 1, recorded.stderr  # augment.py's key reuse
    model = project / "mlpkg" / "model.py"
    model.write_text(model.read_text().replace(
        '    return jnp.tanh(x @ params["w"] + params["b"])',
        '    h = x @ params["w"] + params["b"]\n    if h.sum() > 0:\n        h = -h\n    return jnp.tanh(h)'))
    replayed = jaxlint(project, "--verify", "--output-format", "json", "mlpkg/model.py", timeout=300)
    assert statuses(json.loads(replayed.stdout)) == {("model.py", 10, "JAX301"): (
        "confirmed", "tracing `predict` with the arguments a run recorded raised TracerBoolConversionError here")}
    made_up = jaxlint(project, "--verify", "--no-cache", "--output-format", "json", "mlpkg/model.py", timeout=300)
    [(status, detail)] = statuses(json.loads(made_up.stdout)).values()
    assert status == "unverified"  # made-up arguments that fail differently say nothing
    assert detail.startswith("tracing `predict` with made-up arguments stopped first at line 9: ")


@pytest.mark.slow
def test_a_module_run_with_python_m_that_raises_is_a_finding_at_the_innermost_project_line(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project, ignore=shutil.ignore_patterns("train.py", "tests", "__pycache__"))
    write(project / "pyproject.toml", '[tool.jaxlint.verify]\nrun = ["python -m mlpkg.evaluate"]\n')
    run = jaxlint(project, "--verify=run", "--output-format", "json", "mlpkg", timeout=300)
    assert run.returncode == 1, run.stderr
    found = {(Path(d["filename"]).name, d["location"]["row"], d["code"]): d for d in json.loads(run.stdout)}
    crash = found.pop(("model.py", 9, "JAX010"))  # predict's matmul, called from evaluate.main
    assert crash["message"].startswith("Running `python -m mlpkg.evaluate` raised TypeError: dot_general requires")
    assert crash["verify"] == {"status": "confirmed", "detail": "found by running `python -m mlpkg.evaluate`"}
    assert not found  # augment.py's key reuse shows only when its tests run


@pytest.mark.slow
def test_code_under_the_main_guard_is_run_by_verify_run_only() -> None:
    _, imported = verify_json("--verify", "main_block.py")
    assert statuses(imported) == {("main_block.py", 6, "JAX101"): (
        "unverified", 'under `if __name__ == "__main__":`, which an import skips (--verify=run runs it)')}
    _, ran = verify_json("--verify=run", "main_block.py")
    assert statuses(ran) == {("main_block.py", 6, "JAX101"): (
        "confirmed", "running `python main_block.py` raised TypeError here")}


ARGUMENTS = VERIFY / "arguments"


@pytest.mark.slow
def test_without_a_recorded_signature_arguments_come_from_annotations_then_calls_then_guesses() -> None:
    """Annotations (jaxtyping dims shared by parameters, a static `int`, a tuple) and calls the module
    makes with arrays built from literals (under the main guard too; before a `jax.Array` annotation's
    made-up shapes) reach bugs made-up arguments cannot; guessed arguments that fail with another error leave the finding unverified; the corrected
    versions, every jitted function traced, give nothing."""
    files = ["annotated.py", "called.py", "guessed.py", "correct.py"]
    code, found = verify_json("--verify=all", *files, cwd=ARGUMENTS)
    expected = {(name, row, rule) for name in files for row, _, rule in expectations((ARGUMENTS / name).read_text())}
    assert set(statuses(found)) == expected and code == 1
    assert statuses(found) == {
        ("annotated.py", 19, "JAX301"): ("confirmed", "tracing `split_heads` with arguments built from its "
                                                      "annotations raised TracerBoolConversionError here"),
        ("annotated.py", 29, "JAX303"): ("confirmed", "tracing `masked_mean` with arguments built from its "
                                                      "annotations raised ConcretizationTypeError here"),
        ("annotated.py", 41, "JAX403"): ("confirmed", "tracing `nearest` with arguments built from its "
                                                      "annotations raised ConcretizationTypeError here"),
        ("called.py", 20, "JAX301"): ("confirmed", "tracing `forward` with the arguments of its call at line 43 "
                                                   "raised TracerBoolConversionError here"),
        ("called.py", 28, "JAX303"): ("confirmed", "tracing `predict` with the arguments of its call at line 49 "
                                                   "raised ConcretizationTypeError here"),
        ("called.py", 35, "JAX301"): ("confirmed", "tracing `channel_means` with the arguments of its call at "
                                                   "line 44 raised TracerBoolConversionError here"),
        ("guessed.py", 18, "JAX301"): ("unverified", "tracing `to_gray` with arguments built from its annotations "
                                                     "stopped first at line 16: ValueError: too many values to "
                                                     "unpack (expected 3)"),
        ("guessed.py", 26, "JAX301"): ("unverified", "tracing `normalize` with made-up arguments stopped first at "
                                                     "line 25: TypeError: JAX does not support string indexing; "
                                                     "got idx='images'"),
    }


@pytest.mark.slow
def test_a_recorded_signature_comes_before_the_annotations(tmp_path: Path) -> None:
    """The annotation says 3 channels are any number; the run recorded the real 3, which reaches the bug."""
    write(tmp_path / "pyproject.toml", '[tool.jaxlint.verify]\nrun = ["python drive.py"]\n')
    write(tmp_path / "drive.py",
          "import jax.numpy as jnp\n\nfrom gray import to_gray\n\nto_gray(jnp.ones((4, 5, 3)))\n")
    guessed = (ARGUMENTS / "guessed.py").read_text()
    write(tmp_path / "gray.py", guessed.replace("    if gray.max() > 1.0:", "    if False:"))
    recorded = jaxlint(tmp_path, "--verify=run", "gray.py", timeout=300)
    assert recorded.returncode == 1, recorded.stderr  # normalize's finding, unverified
    write(tmp_path / "gray.py", guessed)
    code, found = verify_json("--verify", "gray.py", cwd=tmp_path)
    assert statuses(found)[("gray.py", 18, "JAX301")] == (
        "confirmed", "tracing `to_gray` with the arguments a run recorded raised TracerBoolConversionError here")
