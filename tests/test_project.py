"""A project analysed as a whole: values and tracers cross module boundaries, whichever files are named.

fixtures/project/ is a small package (re-exports in `__init__.py`, a relative import, a helper used
under jit and outside it, a helper only ever called with concrete values, an import cycle). Its files
hold their expected findings inline, as the other fixtures do.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from helpers import jaxlint, write
from test_fixtures import expected_messages, known_misses

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "fixtures" / "project"


def expected(root: Path = ROOT) -> dict[str, list[tuple[int, int, str, str | None]]]:
    return {str(path.relative_to(root)): expected_messages(path.read_text("utf-8"))
            for path in sorted(PROJECT.rglob("*.py"))}


def found(cwd: Path, *paths: str, cache: bool = False) -> list[dict]:
    """The findings of the json output, with file names relative to `cwd` (json gives them absolute)."""
    run = jaxlint(cwd, *(() if cache else ("--no-cache",)), "--output-format", "json", *paths)
    assert run.returncode in (0, 1), run.stderr
    findings = json.loads(run.stdout)
    for finding in findings:
        finding["filename"] = str(Path(finding["filename"]).relative_to(cwd))
    return findings


def check(findings: list[dict], files: list[str]) -> None:
    """The findings are exactly the expected ones of `files`, messages included."""
    actual = sorted((f["filename"], f["location"]["row"], f["location"]["column"], f["code"]) for f in findings)
    wanted = sorted((name, line, col, code) for name, items in expected().items() if name in files
                    for line, col, code, _ in items)
    assert actual == wanted
    messages = {(f["filename"], f["location"]["row"], f["code"]): f["message"] for f in findings}
    for name in files:
        for line, _, code, text in expected()[name]:
            assert text is None or text in messages[(name, line, code)], (name, line, code, text)
        misses = known_misses((ROOT / name).read_text("utf-8"))
        assert misses & {(row, code) for (file, row, code) in messages if file == name} == set()


def test_the_whole_project_gets_the_findings_that_cross_modules() -> None:
    check(found(ROOT, "fixtures/project"), list(expected()))


def test_one_file_gets_the_same_findings_as_in_the_whole_project() -> None:
    # The helpers module alone: its callers in train.py are found from the package's root.
    metrics = "fixtures/project/mypkg/metrics.py"
    check(found(ROOT, metrics), [metrics])
    train = "fixtures/project/mypkg/train.py"
    check(found(ROOT, train, "fixtures/project/mypkg/cycle.py"), [train, "fixtures/project/mypkg/cycle.py"])


def test_editing_a_module_checks_again_the_modules_that_use_it(tmp_path: Path) -> None:
    shutil.copytree(PROJECT, tmp_path / "project")
    package = tmp_path / "project" / "mypkg"
    first = found(tmp_path, "project", cache=True)
    assert ("project/mypkg/train.py", 22) in {(f["filename"], f["location"]["row"]) for f in first}
    # predict no longer returns what it computes from its arguments: train.py's `if` is on a constant.
    model = (package / "model.py").read_text("utf-8")
    write(package / "model.py", model.replace("    return x @ w + b\n", "    return 0.0\n"))
    rows = {(f["filename"], f["location"]["row"]) for f in found(tmp_path, "project", cache=True)}
    assert ("project/mypkg/train.py", 22) not in rows
    assert ("project/mypkg/train.py", 25) in rows  # metrics.accuracy still returns a tracer


def test_a_helper_outside_any_package_is_found_from_a_script_beside_it(tmp_path: Path) -> None:
    write(tmp_path / "helpers.py", "import numpy as np\n\n\ndef to_host(x):\n    return np.asarray(x)\n")
    write(tmp_path / "train.py", "import jax\nfrom helpers import to_host\n\n\n@jax.jit\ndef step(x):\n"
                                 "    return to_host(x) + 1\n")
    [finding] = found(tmp_path, "helpers.py")
    assert (finding["code"], finding["location"]["row"]) == ("JAX305", 5)
    assert "`to_host` is called with a tracer from `step` (train.py:7)" in finding["message"]


X64_ENABLED = "fixtures/project/x64_enabled"
X64_MISSING = "fixtures/project/x64_missing"


def test_a_module_that_enables_x64_silences_float64_requests_in_the_others() -> None:
    # integrate.py alone: settings.py beside it enables x64 for the whole program.
    assert found(ROOT, f"{X64_ENABLED}/integrate.py") == []
    missing = [f"{X64_MISSING}/integrate.py", f"{X64_MISSING}/settings.py"]
    check(found(ROOT, f"{X64_MISSING}/integrate.py"), missing)


def test_x64_enabled_anywhere_in_the_project_as_users_do_it(tmp_path: Path) -> None:
    shutil.copytree(ROOT / X64_ENABLED, tmp_path / "sim")
    sim = tmp_path / "sim"
    (sim / "settings.py").unlink()
    rows = [(f["location"]["row"], f["code"]) for f in found(tmp_path, "sim", cache=True)]
    assert rows == [(10, "JAX701"), (16, "JAX701"), (16, "JAX701")]
    enablers = {
        "conftest.py": 'import jax\n\n\ndef pytest_configure(config):\n    jax.config.update("jax_enable_x64", True)\n',
        "env.py": 'import os\n\nos.environ["JAX_ENABLE_X64"] = "1"\nimport jax  # noqa: E402\n',
        "env_only.py": 'import os\n\nos.environ.setdefault("JAX_ENABLE_X64", "true")\n',  # never says `jax`
        "run.py": "import jax\nimport integrate\n\nwith jax.enable_x64(True):\n    integrate.init(3)\n",
        "check.py": "import jax\n\nassert jax.config.jax_enable_x64, 'run with JAX_ENABLE_X64=1'\n",
    }
    for name, text in enablers.items():
        write(sim / name, text)
        assert found(tmp_path, "sim", cache=True) == [], name  # the cached modules are checked again
        (sim / name).unlink()
    assert len(found(tmp_path, "sim/integrate.py", cache=True)) == 3
