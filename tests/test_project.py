"""A project analysed as a whole: values and tracers cross module boundaries, whichever files are named.

fixtures/project/ is a small package (re-exports in `__init__.py`, a relative import, a helper used
under jit and outside it, a helper only ever called with concrete values, an import cycle). Its files
hold their expected findings inline, as the other fixtures do.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from helpers import jaxlint, write
from jaxlint import project
from jaxlint.analysis.interface import Exported, Imported, IncomingContainer, Interface
from jaxlint.checks import ALL_RULES
from jaxlint.connected import connected
from jaxlint.lint import LintOptions, lint_module
from test_fixtures import expected_messages, known_misses
from test_notebooks import notebook

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


@pytest.mark.slow
def test_the_whole_project_gets_the_findings_that_cross_modules() -> None:
    check(found(ROOT, "fixtures/project"), list(expected()))


@pytest.mark.slow
def test_one_file_gets_the_same_findings_as_in_the_whole_project() -> None:
    # The helpers module alone: its callers in train.py are found from the package's root.
    metrics = "fixtures/project/mypkg/metrics.py"
    check(found(ROOT, metrics), [metrics])
    train = "fixtures/project/mypkg/train.py"
    check(found(ROOT, train, "fixtures/project/mypkg/cycle.py"), [train, "fixtures/project/mypkg/cycle.py"])


@pytest.mark.slow
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


@pytest.mark.slow
def test_a_script_beside_the_package_gets_the_facts_of_the_package_it_imports(tmp_path: Path) -> None:
    # deeponetx's examples/: a folder of scripts, no package, importing the repository's own package from above.
    write(tmp_path / "pyproject.toml", '[project]\nname = "nets"\nversion = "0.1"\n')
    write(tmp_path / "nets" / "__init__.py", "from . import layers\n")
    write(tmp_path / "nets" / "layers.py", "import jax\n\n\ndef create(width, *, key):\n"
                                           "    return jax.random.normal(key, (width,))\n")
    write(tmp_path / "examples" / "train.py", "import jax\nimport nets\n\n\ndef get_data(key):\n"
                                              "    return jax.random.split(key, 4)\n\n\n"
                                              "key = jax.random.PRNGKey(0)\ndata = get_data(key)\n"
                                              "net = nets.layers.create(4, key=key)\n")
    [finding] = found(tmp_path, ".")
    assert (finding["filename"], finding["code"], finding["location"]["row"]) == ("examples/train.py", "JAX201", 11)
    assert "`key` was already consumed by `get_data()` at line 10; `create()`" in finding["message"]


def test_a_notebook_beside_the_package_gets_the_facts_of_the_package_it_imports(tmp_path: Path) -> None:
    # A notebook in examples/ runs in a kernel of its own, importing the repository's package from above: what the
    # package's modules tell their importers reaches it (here, that `step` is jitted, so the clock read right after
    # its call times only the dispatch; jax-clip's timing, first look round 173). Its x64 stays its own.
    write(tmp_path / "pyproject.toml", '[project]\nname = "nets"\nversion = "0.1"\n')
    write(tmp_path / "nets" / "__init__.py", "")
    write(tmp_path / "nets" / "steps.py", "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef step(x):\n"
                                          "    return jnp.tanh(x @ x)\n")
    write(tmp_path / "examples" / "bench.ipynb",
          notebook(("code", "import time\nimport jax.numpy as jnp\nfrom nets.steps import step"),
                   ("code", "x = jnp.ones((500, 500))\nstart = time.perf_counter()\ny = step(x)\n"
                            "print(time.perf_counter() - start)")))
    [finding] = found(tmp_path, ".")
    assert (finding["filename"], finding["code"], finding["location"]["row"]) == ("examples/bench.ipynb", "JAX505", 2)
    assert finding["message"].startswith("`start` times jax work that runs asynchronously")


@pytest.mark.slow
def test_each_module_alone_gets_the_findings_of_the_folder_run() -> None:
    whole = found(ROOT, "fixtures/project")
    for name in expected():
        assert found(ROOT, name) == [f for f in whole if f["filename"] == name], name


# A package whose modules are connected by calls in different ways: a re-export in __init__.py, a
# relative import, a helper made traced two calls away from the jitted function, and modules that
# nothing connects to the others.
PACKAGE = {
    "pkg/__init__.py": "from .ops import normalize\n",
    "pkg/ops.py": ("import jax.numpy as jnp\n\n\ndef normalize(x):\n    return x / jnp.linalg.norm(x)\n\n\n"
                   "def log_value(name, value):\n    print(name, value)\n"),
    "pkg/helpers.py": 'def describe(value):\n    if value > 0:\n        return "positive"\n    return "other"\n',
    "pkg/train.py": ("import jax\n\nfrom pkg import normalize\nfrom pkg.ops import log_value\nfrom . import steps\n\n\n"
                     "@jax.jit\ndef step(x):\n    y = normalize(x)\n    log_value(\"y\", y)\n"
                     "    return steps.scale(y)\n"),
    "pkg/steps.py": "from pkg.helpers import describe\n\n\ndef scale(y):\n    describe(y)\n    return y * 2\n",
    "pkg/unrelated.py": ("import jax\n\n\n@jax.jit\ndef other(x):\n    if x.sum() > 0:\n        x = -x\n"
                         "    return x\n"),
    "pkg/tools/__init__.py": "",
    "pkg/tools/report.py": ("import numpy as np\n\nfrom ..ops import normalize\n\n\ndef summary(x):\n"
                            "    return np.asarray(normalize(x))\n"),
}


def test_a_file_of_a_package_is_analysed_with_the_modules_connected_to_it_by_calls(tmp_path: Path) -> None:
    for name, text in PACKAGE.items():
        write(tmp_path / name, text)
    modules = {project.module_of(str(path))[1]: path for path in project.importable(tmp_path)}
    # helpers.describe is called by steps.scale, called by the jitted train.step, which calls ops
    # through the package's re-export: those decide whether `describe` gets a tracer; nothing else does.
    assert connected({"pkg.helpers"}, modules) == {"pkg", "pkg.helpers", "pkg.ops", "pkg.steps", "pkg.train"}
    assert connected({"pkg.ops"}, modules) == {"pkg", "pkg.helpers", "pkg.ops", "pkg.steps", "pkg.train",
                                                "pkg.tools.report"}
    assert connected({"pkg.tools.report"}, modules) == {"pkg.ops", "pkg.tools.report"}
    assert connected({"pkg.unrelated"}, modules) == {"pkg.unrelated"}
    assert project.siblings([str(tmp_path / "pkg" / "unrelated.py")]) == []


@pytest.mark.slow
def test_each_module_of_a_package_alone_gets_the_findings_of_the_folder_run(tmp_path: Path) -> None:
    for name, text in PACKAGE.items():
        write(tmp_path / name, text)
    whole = found(tmp_path, "pkg")
    assert sorted((f["filename"], f["location"]["row"], f["code"]) for f in whole) == [
        ("pkg/helpers.py", 2, "JAX301"), ("pkg/ops.py", 9, "JAX306"), ("pkg/unrelated.py", 6, "JAX301")]
    for name in PACKAGE:
        assert found(tmp_path, name) == [f for f in whole if f["filename"] == name], name


def test_a_module_this_python_cannot_parse_counts_as_calling_every_module(tmp_path: Path) -> None:
    for name, text in PACKAGE.items():
        write(tmp_path / name, text)
    # Newer syntax than the running Python's, which libcst parses for a project that requires it.
    write(tmp_path / "pkg" / "broken.py", "from pkg.unrelated import other\ndef broken(:\n")
    modules = {project.module_of(str(path))[1]: path for path in project.importable(tmp_path)}
    assert connected({"pkg.unrelated"}, modules) == set(modules)


def test_a_damaged_cache_entry_of_the_scan_is_read_again(tmp_path: Path) -> None:
    for name, text in PACKAGE.items():
        write(tmp_path / name, text)
    found(tmp_path, "pkg/helpers.py", cache=True)
    files = [entry for entry in (tmp_path / ".jaxlint_cache").rglob("*")
             if entry.is_file() and entry.name != ".gitignore"]
    scans = [(entry, json.loads(entry.read_text("utf-8"))) for entry in files]
    scans = [(entry, stored) for entry, stored in scans if "read" in stored]  # what the scan keeps of each file
    assert len(scans) == len(PACKAGE)
    for entry, stored in scans:
        entry.write_text(json.dumps({"key": stored["key"], "content": stored["content"], "calls": 3}))
    [finding] = found(tmp_path, "pkg/helpers.py", cache=True)
    assert (finding["filename"], finding["location"]["row"], finding["code"]) == ("pkg/helpers.py", 2, "JAX301")


X64_ENABLED = "fixtures/project/x64_enabled"
X64_MISSING = "fixtures/project/x64_missing"


@pytest.mark.slow
def test_a_module_that_enables_x64_silences_float64_requests_in_the_others() -> None:
    # integrate.py alone: settings.py beside it enables x64 for the whole program.
    assert found(ROOT, f"{X64_ENABLED}/integrate.py") == []
    missing = [f"{X64_MISSING}/integrate.py", f"{X64_MISSING}/settings.py"]
    check(found(ROOT, f"{X64_MISSING}/integrate.py"), missing)


@pytest.mark.slow
def test_a_namespace_folder_inside_a_package_is_part_of_it(tmp_path: Path) -> None:
    # stats/_src/ has no __init__.py: Python imports it as `stats._src` (PEP 420), so stats/__init__.py's x64
    # setting holds for it. Without the package's __init__.py, the request is truncated.
    assert found(ROOT, "fixtures/project/x64_namespace/stats/_src/accumulate/totals.py") == []
    assert found(ROOT, "fixtures/project/x64_namespace") == []
    shutil.copytree(ROOT / "fixtures/project/x64_namespace", tmp_path / "copy")
    (tmp_path / "copy/stats/__init__.py").unlink()
    rows = [(f["filename"], f["location"]["row"], f["code"]) for f in found(tmp_path, "copy")]
    assert rows == [("copy/stats/_src/accumulate/totals.py", 5, "JAX701")]


X64_CONFTEST = "fixtures/project/x64_conftest"


@pytest.mark.slow
def test_a_conftest_that_enables_x64_holds_for_the_folders_below_it() -> None:
    # pytest imports tests/conftest.py before tests/sub/test_solver.py and tests/sub/deep/test_grid.py, though
    # each folder is a project of its own (no __init__.py); unit/other/conftest.py is not imported for unit/sub/.
    files = [str(path.relative_to(ROOT)) for path in sorted((ROOT / X64_CONFTEST).rglob("test_*.py"))]
    assert len(files) == 4
    for file in files:
        check(found(ROOT, file), [file])
    check(found(ROOT, X64_CONFTEST), files)


@pytest.mark.slow
def test_conftests_above_stop_where_pytest_stops_looking_for_them(tmp_path: Path) -> None:
    # pytest looks for conftest.py up to the folder of its configuration file (its rootdir), not above it.
    test = "import jax.numpy as jnp\n\n\ndef test_zeros():\n    return jnp.zeros(3, dtype=jnp.float64)\n"
    write(tmp_path / "repo" / "tests" / "sub" / "test_a.py", test)
    write(tmp_path / "conftest.py", 'import jax\n\njax.config.update("jax_enable_x64", True)\n')
    write(tmp_path / "repo" / "pyproject.toml", "[tool.pytest.ini_options]\n")
    rows = [(f["filename"], f["location"]["row"], f["code"]) for f in found(tmp_path, "repo/tests/sub/test_a.py")]
    assert rows == [("repo/tests/sub/test_a.py", 5, "JAX701")]
    write(tmp_path / "repo" / "conftest.py", 'import os\n\nos.environ["JAX_ENABLE_X64"] = "1"\n')  # never says jax
    assert found(tmp_path, "repo/tests/sub/test_a.py") == []
    assert found(tmp_path, "repo/tests") == []


@pytest.mark.slow
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
        "run_alias.py": "from jax import enable_x64\nimport integrate\n\nwith enable_x64():\n    integrate.init(3)\n",
        "check.py": "import jax\n\nassert jax.config.jax_enable_x64, 'run with JAX_ENABLE_X64=1'\n",
    }
    for name, text in enablers.items():
        write(sim / name, text)
        assert found(tmp_path, "sim", cache=True) == [], name  # the cached modules are checked again
        (sim / name).unlink()
    assert len(found(tmp_path, "sim/integrate.py", cache=True)) == 3


TEST_OF_A_PACKAGE = "import jax.numpy as jnp\nimport {package}\n\n\ndef test_zeros():\n    return jnp.zeros(3, dtype=jnp.float64)\n"


@pytest.mark.slow
def test_a_package_that_turns_on_x64_at_import_does_so_for_the_tests_that_import_it(tmp_path: Path) -> None:
    # tests/ and checks/ have no __init__.py: each is a project of its own, but `import quantum` (found one folder
    # up, as pytest run from the repository finds it, or in src/) runs quantum/core.py's config.update, and
    # jax_enable_x64 is one flag for the process. plain/ turns nothing on: its tests' request is truncated.
    write(tmp_path / "repo" / "quantum" / "__init__.py", "from quantum.core import dense\n")
    write(tmp_path / "repo" / "quantum" / "core.py", 'import jax\n\njax.config.update("jax_enable_x64", True)\n\n\n'
                                                     "def dense(x):\n    return x\n")
    write(tmp_path / "repo" / "plain" / "__init__.py", "import jax\n")
    write(tmp_path / "repo" / "tests" / "test_quantum.py", TEST_OF_A_PACKAGE.format(package="quantum"))
    write(tmp_path / "repo" / "checks" / "test_plain.py", TEST_OF_A_PACKAGE.format(package="plain"))
    write(tmp_path / "lib" / "src" / "quantum" / "__init__.py", 'import jax\n\njax.config.update("jax_enable_x64", True)\n')
    write(tmp_path / "lib" / "tests" / "test_src.py", TEST_OF_A_PACKAGE.format(package="quantum"))
    flagged = [("repo/checks/test_plain.py", 6, "JAX701")]
    runs = {"repo": flagged, "repo/tests/test_quantum.py": [], "repo/checks/test_plain.py": flagged, "lib": [],
            "lib/tests/test_src.py": []}
    for named, wanted in runs.items():
        assert [(f["filename"], f["location"]["row"], f["code"]) for f in found(tmp_path, named)] == wanted, named


MODEL_ASKING_FLOAT64 = "import jax.numpy as jnp\n\n\ndef width(sigma):\n    return jnp.asarray(sigma, dtype=jnp.float64)\n"

def _notebook(*cells: str) -> str:
    return json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": cell}
                                 for cell in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_a_notebook_that_turns_on_x64_does_so_for_the_packages_it_imports(tmp_path: Path) -> None:
    # The kernel has one jax_enable_x64 flag: examples/pca.ipynb (first look round 139's SPax) turns it on in its
    # first cell and imports spax from the folder above, so spax's float64 request is what the notebook runs. plain/
    # is imported by a notebook that never turns it on, and other/'s notebook turns it on but imports nothing.
    x64_cell = 'import jax\njax.config.update("jax_enable_x64", True)\n'
    for package in ("spax", "plain", "other"):
        write(tmp_path / package / package / "__init__.py", MODEL_ASKING_FLOAT64)
    write(tmp_path / "spax" / "examples" / "pca.ipynb", _notebook(x64_cell, "import spax\nspax.width(1.0)\n"))
    write(tmp_path / "plain" / "examples" / "use.ipynb", _notebook("import plain\nplain.width(1.0)\n"))
    write(tmp_path / "other" / "examples" / "use.ipynb", _notebook(x64_cell, "print(1)\n"))
    runs = {"spax": [], "plain": [("plain/plain/__init__.py", 5, "JAX701")],
            "other": [("other/other/__init__.py", 5, "JAX701")]}
    for named, wanted in runs.items():
        assert [(f["filename"], f["location"]["row"], f["code"]) for f in found(tmp_path, named)] == wanted, named

X64_CONFTEST_TEXT = 'import jax\n\njax.config.update("jax_enable_x64", True)\n'


@pytest.mark.slow
def test_the_tests_that_run_a_package_with_x64_turn_it_on_for_the_package(tmp_path: Path) -> None:
    # x64 is one flag for the process: spectra's own tests turn it on (tests/conftest.py) and import spectra from
    # src/, so its float64 request is what the repository runs. In other/, the tests turn it on but never import
    # the package, and scripts/ imports it without x64: its request is truncated wherever the repository runs it.
    write(tmp_path / "spectra" / "pyproject.toml", "[project]\nname = 'spectra'\n")
    write(tmp_path / "spectra" / "src" / "spectra" / "__init__.py", "")
    write(tmp_path / "spectra" / "src" / "spectra" / "model.py", MODEL_ASKING_FLOAT64)
    write(tmp_path / "spectra" / "tests" / "conftest.py", X64_CONFTEST_TEXT)
    write(tmp_path / "spectra" / "tests" / "test_model.py", "from spectra.model import width\n\n\n"
                                                           "def test_width():\n    assert width(1.0) == 1.0\n")
    write(tmp_path / "other" / "pyproject.toml", "[project]\nname = 'other'\n")
    write(tmp_path / "other" / "other" / "__init__.py", "")
    write(tmp_path / "other" / "other" / "model.py", MODEL_ASKING_FLOAT64)
    write(tmp_path / "other" / "tests" / "conftest.py", X64_CONFTEST_TEXT)
    write(tmp_path / "other" / "tests" / "test_nothing.py", "def test_nothing():\n    pass\n")
    write(tmp_path / "other" / "scripts" / "fit.py", "from other.model import width\n\nprint(width(2.0))\n")
    # A tests/ package (smcjax's layout, first look round 49): its project is the repository's root, which imports
    # the package from its own src/.
    for path in ("spectra/src/spectra/__init__.py", "spectra/src/spectra/model.py", "spectra/tests/conftest.py",
                 "spectra/tests/test_model.py"):
        write(tmp_path / path.replace("spectra/", "packaged/", 1), (tmp_path / path).read_text())
    write(tmp_path / "packaged" / "pyproject.toml", "[project]\nname = 'spectra'\n")
    write(tmp_path / "packaged" / "tests" / "__init__.py", "")
    flagged = [("other/other/model.py", 5, "JAX701")]
    runs = {"spectra": [], "spectra/src/spectra/model.py": [], "other": flagged, "other/other/model.py": flagged,
            "packaged": [], "packaged/src/spectra/model.py": []}
    for named, wanted in runs.items():
        assert [(f["filename"], f["location"]["row"], f["code"]) for f in found(tmp_path, named)] == wanted, named


@pytest.mark.slow
def test_a_folder_without_init_that_a_script_beside_it_imports_is_a_namespace_package(tmp_path: Path) -> None:
    # meta-ot's layout (first look round 77): ot/ has no __init__.py, so ot/data.py is a project of its own when run
    # as a script, but train.py beside it turns on x64 and imports it as `ot.data` (a namespace package, PEP 420):
    # its request holds. In plain/, nothing turns x64 on; in shadowed/, `import ot` finds
    # ot.py, a regular module, before the folder.
    enable = X64_CONFTEST_TEXT + "from ot import data\n"
    for repository, script in (("ns", enable), ("dotted", enable.replace("from ot import data", "import ot.data")),
                               ("plain", "from ot import data\n"), ("shadowed", enable)):
        write(tmp_path / repository / "setup.py", "from setuptools import setup\n\nsetup(name='ot')\n")
        write(tmp_path / repository / "ot" / "data.py", MODEL_ASKING_FLOAT64)
        write(tmp_path / repository / "train.py", script)
    write(tmp_path / "plain" / "settings.py", X64_CONFTEST_TEXT.replace("True", "False"))
    write(tmp_path / "shadowed" / "ot.py", "data = None\n")
    for repository, flagged in (("ns", False), ("dotted", False), ("plain", True), ("shadowed", True)):
        wanted = [(f"{repository}/ot/data.py", 5, "JAX701")] if flagged else []
        for named in (repository, f"{repository}/ot/data.py"):
            rows = [(f["filename"], f["location"]["row"], f["code"]) for f in found(tmp_path, named)]
            assert rows == wanted, named


@pytest.mark.slow
def test_a_notebook_importing_a_module_that_turns_on_x64_runs_with_it(tmp_path: Path) -> None:
    # XLuminA's examples (first look round 83): a notebook is no module of a project, but what it imports runs in
    # its kernel, and optics.py turns x64 on when imported: from a package one folder up (examples/) or beside it.
    # plain.ipynb imports only a package none of whose modules does (a package counts whole: importing one of its
    # modules may import the others); in gated/, the switch is a literal False.
    optics = 'import jax\n\nenable_float64 = True\nif enable_float64:\n    jax.config.update("jax_enable_x64", True)\n'
    request = "import jax.numpy as jnp\n\nphase = jnp.zeros(3, dtype=jnp.float64)"
    for repository in ("repo", "gated"):
        write(tmp_path / repository / "setup.py", "from setuptools import setup\n\nsetup(name='optics')\n")
        write(tmp_path / repository / "lumina" / "__init__.py", "")
        write(tmp_path / repository / "viz" / "__init__.py", "")
        write(tmp_path / repository / "viz" / "plots.py", "import matplotlib\n")
        text = optics if repository == "repo" else optics.replace("= True", "= False", 1)
        write(tmp_path / repository / "lumina" / "optics.py", text)
        write(tmp_path / repository / "examples" / "fit.ipynb",
              notebook(("code", "from lumina.optics import *"), ("code", request)))
        write(tmp_path / repository / "beside.ipynb", notebook(("code", "import lumina.optics"), ("code", request)))
        write(tmp_path / repository / "examples" / "plain.ipynb",
              notebook(("code", "from viz import plots"), ("code", request)))
    rows = {(f["filename"], f["code"]) for f in found(tmp_path, "repo", "gated")}
    assert rows == {("repo/examples/plain.ipynb", "JAX701"), ("gated/examples/fit.ipynb", "JAX701"),
                    ("gated/beside.ipynb", "JAX701"), ("gated/examples/plain.ipynb", "JAX701")}


def test_a_module_is_checked_again_only_when_a_fact_its_analysis_read_changed(tmp_path: Path) -> None:
    # settings.py enables x64 for the project; ask.py asks for a 64-bit dtype (it reads the project's x64,
    # so the project phase checks it again), doc.py only names float64 in a docstring (it reads nothing).
    write(tmp_path / "sim" / "settings.py", 'import jax\n\njax.config.update("jax_enable_x64", True)\n')
    write(tmp_path / "sim" / "ask.py", "import jax.numpy as jnp\n\n\ndef init(n):\n"
                                       "    return jnp.zeros(n, dtype=jnp.float64)\n")
    write(tmp_path / "sim" / "doc.py", 'import jax.numpy as jnp\n\n\ndef init(n):\n'
                                       '    """Zeros; pass float64 through `astype` for more."""\n'
                                       "    return jnp.zeros(n)\n")
    run = jaxlint(tmp_path, "--cache-dir", "cache", "--output-format", "json", "sim")
    assert (run.returncode, json.loads(run.stdout)) == (0, [])
    entries = [path for path in (tmp_path / "cache").rglob("*") if path.is_file() and path.name != ".gitignore"]
    assert len(entries) == 4  # each module once, and ask.py again with the project's x64


def test_the_facts_a_module_read_leave_out_the_optional_ones_it_did_not_read() -> None:
    literal = Exported(("x",), (), None, False, "a tuple (`a, b`) at m.py:3")
    traced = Exported(("x",), ("x",), None, False)
    imported = Imported({}, {"pkg.m.pair": literal, "pkg.m.step": traced}, {}, True)
    assert project.read_facts(imported, Interface()) == Imported({}, {}, {}, False)
    assert project.read_facts(imported, Interface(read_returns=("pkg.m.step",))) == Imported(
        {}, {"pkg.m.step": traced}, {}, False)
    reads = Interface(read_x64=True, read_literals=("pkg.m.pair",), read_returns=("pkg.m.step",))
    assert project.read_facts(imported, reads) == imported


def test_the_facts_a_module_read_leave_out_the_containers_no_lookup_of_it_read() -> None:
    handed = {"report": (IncomingContainer(1), IncomingContainer("values")), "Solver.step": (IncomingContainer(0, True),)}
    containers = {"sim.state.Solver": (("history", "list"), ("names", "tuple"))}
    imported = Imported(handed=handed, containers=containers)
    assert project.read_facts(imported, Interface()) == Imported()
    reads = Interface(read_handed=(("report", 1, False), ("Solver.step", 0, False)),
                      read_containers=("sim.state.Solver.names",))
    assert project.read_facts(imported, reads) == Imported(
        handed={"report": (IncomingContainer(1),)}, containers={"sim.state.Solver": (("names", "tuple"),)})
    assert Interface.from_json(json.loads(json.dumps(reads.to_json()))) == reads


def test_a_name_other_modules_import_call_or_subclass_reaches_its_module_only_where_its_analysis_asked() -> None:
    # Calls there may construct the class or pass the function's defaulted parameter (constructions.py).
    fit = Interface(uses=("kernels.regression.Regression.fit",), reexports={"Exponential": "kernels.quasisep.Exponential"})
    sub = Interface(overrides={"kernels.regression.Base": ()})
    regression = Interface(classes=("Base", "Regression"), read_reached=("Regression",))
    facts = project.imported_facts({"kernels.fit": fit, "kernels.sub": sub, "kernels.regression": regression,
                                    "kernels.quasisep": Interface()})
    assert facts["kernels.regression"].reached == ("Base", "Regression")
    assert facts["kernels.quasisep"].reached == ("Exponential",)
    assert facts["kernels.fit"].reached == ()
    assert project.read_facts(facts["kernels.regression"], regression).reached == ("Regression",)
    assert Interface.from_json(json.loads(json.dumps(regression.to_json()))) == regression


def test_the_containers_of_eager_calls_a_module_reads_are_those_given_to_a_parameter_a_lookup_read(
        tmp_path: Path) -> None:
    # By position (through an instance: after `self`) or keyword; a closure's lookup counts; `values`, `*rest`,
    # `history` and `self` are never looked up, and `inner` is no function another module calls.
    path = write(tmp_path / "sim" / "ops.py", (
        "import jax\n\n\ndef report(label, values, *rest):\n    print(label)\n\n\n"
        "def later(items):\n    def inner():\n        return items\n    return inner\n\n\n"
        "class Solver:\n    def __init__(self, history):\n        self.size = 0\n\n"
        "    def step(self, i, states):\n        return states\n"))
    options = LintOptions(frozenset(rule.code for rule in ALL_RULES if rule.default_enabled))
    interface = lint_module(path.read_text("utf-8"), str(path), options, project.context(str(path)))[1]
    assert set(interface.read_handed) == {
        *((name, param, instance) for name, param in (("report", 0), ("report", "label"), ("later", 0),
                                                      ("later", "items"), ("Solver.step", "states"))
          for instance in (False, True)),
        ("Solver.step", 2, False), ("Solver.step", 1, True)}


# An eager call of another module giving a Python list (run.py), to a parameter that ops.py never reads (`report`'s
# `values`) or reads (`total`'s); an instance of another module's class whose `__init__` sets a list attribute,
# another attribute read (`solver.lr`) or that one (`solver.history`).
HANDED = {
    "sim/__init__.py": "",
    "sim/ops.py": "import jax\n\n\ndef report(label, values):\n    print(label)\n\n\n"
                  "def total(values):\n    return sum(values)\n",
    "sim/state.py": "import jax\n\n\nclass Solver:\n    def __init__(self, lr):\n        self.history = []\n"
                    "        self.lr = lr\n",
}


@pytest.mark.parametrize(("main", "checks"), [
    ("    ops.report('start', [n, n])\n    return n\n", 4),
    ("    return ops.total([n, n])\n", 5),
    ("    return Solver(n).lr\n", 4),
    ("    return Solver(n).history\n", 5),
])
def test_a_container_another_module_gives_checks_a_module_again_only_where_its_analysis_read_it(
        tmp_path: Path, main: str, checks: int) -> None:
    for name, text in HANDED.items():
        write(tmp_path / name, text)
    write(tmp_path / "sim" / "run.py", f"import jax\n\nfrom sim import ops\nfrom sim.state import Solver\n\n\n"
                                       f"def main(n):\n{main}")
    run = jaxlint(tmp_path, "--cache-dir", "cache", "--output-format", "json", "sim")
    assert (run.returncode, json.loads(run.stdout)) == (0, [])
    entries = [path for path in (tmp_path / "cache").rglob("*") if path.is_file() and path.name != ".gitignore"]
    assert len(entries) == checks  # each file once, and the module that read the container again


def test_the_modules_a_one_file_run_analyses_for_what_they_tell_it_keep_no_findings_in_the_cache(
        tmp_path: Path) -> None:
    # A run on helpers.py analyses train.py, steps.py, ops.py... for their interfaces alone (no rule runs in
    # them); a later run on ops.py, with the same cache, must not take that for ops.py's findings.
    for name, text in PACKAGE.items():
        write(tmp_path / name, text)
    assert [f["location"]["row"] for f in found(tmp_path, "pkg/helpers.py", cache=True)] == [2]
    assert [(f["filename"], f["location"]["row"]) for f in found(tmp_path, "pkg/ops.py", cache=True)] == [
        ("pkg/ops.py", 9)]
    assert [f["location"]["row"] for f in found(tmp_path, "pkg/helpers.py", cache=True)] == [2]
