"""The result cache: a warm run says exactly what a cold one says, never parses, and survives bad entries."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import BOTH, JAX101_SOURCE, findings, jaxlint, write

from jaxlint.analysis.interface import Exported, Interface, Outgoing
from jaxlint.cache import Cache
from jaxlint.diagnostics import Diagnostic, Edit, Evidence, Fix, Verification

CACHE = ".jaxlint_cache"


def entries(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.name != ".gitignore")


def test_an_entry_round_trips_findings_with_their_fixes_exactly(tmp_path: Path) -> None:
    fix = Fix("unsafe", "use `jax.tree.map`", (
        Edit(3, 1, 3, 13, "jax.tree.map"), Edit(1, 1, 1, 1, "import jax\r\n"), Edit(4, 2, 5, 1, "é — \"x\"\n"),
    ))
    stored = [
        Diagnostic("src/ä.py", 3, 1, "JAX101", "in-place `x[0] = 1`", 3, 9, fix),
        Diagnostic("src/ä.py", 7, 5, "JAX201", "key reused", 7, 12, None, Verification("confirmed", "why")),
        Diagnostic("nb.ipynb", 2, 1, "JAX301", "in a cell", 2, 9, cell=3),
        Diagnostic("src/ä.py", 9, 8, "JAX301", "traced", 9, 20, evidence=(
            Evidence(4, "`jax.jit` traces `step`: `x` is a tracer"), Evidence(None, "a field", 2),
        )),
    ]
    interface = Interface(
        {"mse": Exported(("params", "batch"), ("params",), "array", False)},
        (Outgoing("pkg.metrics.report", "step", "jax.jit", True, "train.py:12", (0,), ("loss",)),),
        ("pkg.metrics.report",), {"report": "pkg.metrics.report"},
    )
    cache = Cache(tmp_path / CACHE)
    cache.put("key", "digest", stored, False, interface)
    loaded, skipped, loaded_interface = Cache(tmp_path / CACHE).get("key", "digest")
    assert [(d, d.fix, d.verify, d.cell, d.evidence) for d in loaded] == [
        (d, d.fix, d.verify, d.cell, d.evidence) for d in stored
    ]
    assert skipped is False
    assert loaded_interface == interface
    assert cache.get("key", "other content") is None
    assert cache.get("other key", "digest") is None
    assert (tmp_path / CACHE / ".gitignore").read_text() == "# created by jaxlint\n*\n"


@pytest.mark.slow
def test_a_warm_run_prints_exactly_what_the_cold_run_printed(tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "a.py", JAX101_SOURCE)
    write(tmp_path / "pkg" / "b.py", "import os\n")
    write(tmp_path / "pkg" / "c.py", "import jax.numpy as jnp\nx = jnp.zeros(3)\nx.at[1].set(2)\n")
    for output_format in ("text", "json"):
        cold = jaxlint(tmp_path, "--output-format", output_format, "--no-cache", "pkg")
        assert not (tmp_path / CACHE).exists()
        first = jaxlint(tmp_path, "--output-format", output_format, "pkg")
        assert len(entries(tmp_path / CACHE)) == 3
        warm = jaxlint(tmp_path, "--output-format", output_format, "pkg")
        assert (cold.stdout, cold.returncode) == (first.stdout, first.returncode) == (warm.stdout, 1)
        shutil.rmtree(tmp_path / CACHE)
    assert [d["code"] for d in json.loads(warm.stdout)] == ["JAX101", "JAX102"]
    jaxlint(tmp_path, "pkg")
    # The files without jax stay counted as skipped when their result comes from the cache.
    assert jaxlint(tmp_path, "pkg").stdout.endswith(
        "Found 2 findings (3 files checked, 1 without jax skipped); 1 fixable with `--fix`, 1 more with `--unsafe-fixes`.\n")


def test_a_cache_hit_neither_parses_nor_imports_libcst(tmp_path: Path) -> None:
    bug = write(tmp_path / "bug.py", JAX101_SOURCE)
    assert jaxlint(tmp_path, "bug.py").returncode == 1
    script = (
        "import sys\n"
        "from jaxlint.cli import main\n"
        "code = main(['bug.py'])\n"
        "print('exit', code, [m for m in sys.modules if m.split('.')[0] == 'libcst' or m == 'jaxlint.lint'])\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert run.stdout.splitlines() == [
        f"{bug.name}:3:1: JAX101 " + jaxlint(tmp_path, "--no-cache", "bug.py").stdout.split(" JAX101 ")[1].splitlines()[0],
        "Found 1 finding (1 file checked); 1 fixable with `--fix`.",
        "exit 1 []",
    ]


def test_an_edited_file_is_checked_again(tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    assert findings(jaxlint(tmp_path, "a.py").stdout) == {(3, 1, "JAX101")}
    write(tmp_path / "a.py", JAX101_SOURCE.replace("x[0] = 1", "x = x.at[0].set(1)"))
    assert jaxlint(tmp_path, "a.py").stdout == "All checks passed (1 file checked).\n"
    assert len(entries(tmp_path / CACHE)) == 1  # the file's entry was replaced, not added to


def test_settings_that_change_results_are_part_of_the_key(tmp_path: Path) -> None:
    write(tmp_path / "a.py", "import jax.numpy as jnp\nx = jnp.zeros(3)\nx[0] = 1\nx.at[1].set(2)\n")
    assert findings(jaxlint(tmp_path, "a.py").stdout) == BOTH
    assert findings(jaxlint(tmp_path, "--ignore", "JAX101", "a.py").stdout) == {(4, 1, "JAX102")}
    write(tmp_path / "pyproject.toml", '[tool.jaxlint]\nper-file-ignores = {"a.py" = ["JAX102"]}\n')
    assert findings(jaxlint(tmp_path, "a.py").stdout) == {(3, 1, "JAX101")}


def test_the_path_is_part_of_the_key(tmp_path: Path) -> None:
    """Findings carry the path, and test files are judged differently (constant keys are fine there)."""
    source = (
        "import jax\n\n\n@jax.jit\ndef f(x):\n    key = jax.random.key(0)\n    return x + jax.random.normal(key, ())\n\n"
        "for x in range(3):\n    f(x)\n"
    )
    write(tmp_path / "a.py", source)
    write(tmp_path / "tests" / "a.py", source)
    for _ in range(2):
        run = jaxlint(tmp_path, "a.py", "tests/a.py", "./a.py")
        assert [line.split(" ")[:2] for line in run.stdout.splitlines()[:-1]] == [["a.py:6:11:", "JAX203"]]


def test_extra_transforms_and_key_names_are_part_of_the_key(tmp_path: Path) -> None:
    write(tmp_path / "a.py", (
        "import jax\nimport mylib\n\n@mylib.compile\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n\n"
        "class Sampler:\n    def draw(self):\n        return jax.random.normal(self.seed, ()) + jax.random.normal(self.seed, ())\n"
    ))
    assert findings(jaxlint(tmp_path, "a.py").stdout) == set()
    write(tmp_path / "pyproject.toml", '[tool.jaxlint]\nextra-transforms = ["mylib.compile"]\n')
    assert findings(jaxlint(tmp_path, "a.py").stdout) == {(6, 8, "JAX301")}
    write(tmp_path / "pyproject.toml", '[tool.jaxlint]\nextra-transforms = ["mylib.compile"]\nkey-names = ["seed"]\n')
    assert {code for _, _, code in findings(jaxlint(tmp_path, "a.py").stdout)} == {"JAX301", "JAX201"}


def test_corrupt_truncated_foreign_and_unreadable_entries_are_ignored_and_rewritten(tmp_path: Path) -> None:
    for name in "abcd":
        write(tmp_path / f"{name}.py", JAX101_SOURCE)
    expected = jaxlint(tmp_path, ".").stdout
    first, second, third, fourth = entries(tmp_path / CACHE)
    first.write_bytes(b"\x00\xff not json")
    second.write_bytes(second.read_bytes()[:17])
    foreign = json.loads(third.read_text())
    foreign["key"] = foreign["key"].replace('"0.', '"99.')
    third.write_text(json.dumps(foreign))
    fourth.unlink()
    fourth.mkdir()  # reading it fails, and so does replacing it
    run = jaxlint(tmp_path, ".")
    assert (run.stdout, run.stderr, run.returncode) == (expected, "", 1)
    for entry in (first, second, third):
        assert json.loads(entry.read_text())["content"]  # rewritten whole
    assert fourth.is_dir()


def test_an_unwritable_cache_folder_only_costs_speed(tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    write(tmp_path / "blocked", "a file where the cache folder would go\n")
    run = jaxlint(tmp_path, "--cache-dir", "blocked/cache", "a.py")
    assert (findings(run.stdout), run.stderr, run.returncode) == ({(3, 1, "JAX101")}, "", 1)


def test_cache_dir_and_the_default_folder_at_the_project_root(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.jaxlint]\n")
    write(tmp_path / "src" / "a.py", JAX101_SOURCE)
    jaxlint(tmp_path / "src", "a.py")
    assert len(entries(tmp_path / CACHE)) == 1 and not (tmp_path / "src" / CACHE).exists()
    jaxlint(tmp_path / "src", "--cache-dir", str(tmp_path / "elsewhere"), "a.py")
    assert len(entries(tmp_path / "elsewhere")) == 1
    assert (tmp_path / "elsewhere" / ".gitignore").read_text().splitlines()[-1] == "*"


def test_cache_dir_from_the_config_is_relative_to_its_folder(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.jaxlint]\ncache-dir = ".cache/jaxlint"\n')
    write(tmp_path / "src" / "a.py", JAX101_SOURCE)
    jaxlint(tmp_path / "src", "a.py")
    assert len(entries(tmp_path / ".cache" / "jaxlint")) == 1 and not (tmp_path / CACHE).exists()
    write(tmp_path / "pyproject.toml", "[tool.jaxlint]\ncache-dir = 1\n")
    run = jaxlint(tmp_path, "src")
    assert (run.returncode, run.stderr) == (
        2, f"jaxlint: error: [tool.jaxlint] in {tmp_path / 'pyproject.toml'}: 'cache-dir' must be a string, got int 1\n")


def test_results_of_unreadable_files_are_not_cached(tmp_path: Path) -> None:
    (tmp_path / "link.py").symlink_to(tmp_path / "missing.py")
    write(tmp_path / "binary.py", "import jax\x00\n")
    run = jaxlint(tmp_path, ".")
    assert {code for _, _, code in findings(run.stdout)} == {"JAX003", "JAX001"}
    assert entries(tmp_path / CACHE) == []
    write(tmp_path / "missing.py", JAX101_SOURCE)
    write(tmp_path / "binary.py", "import jax\n")
    assert findings(jaxlint(tmp_path, ".").stdout) == {(3, 1, "JAX101")}


@pytest.mark.slow
def test_concurrent_runs_on_one_cache_agree_and_leave_it_whole(tmp_path: Path) -> None:
    for n in range(24):
        write(tmp_path / "pkg" / f"m{n:02}.py", JAX101_SOURCE if n % 3 else "import os\n")
    expected = jaxlint(tmp_path, "--no-cache", "pkg").stdout
    for _ in range(2):  # once on an empty cache, once on a full one with a third of it corrupted
        runs = [subprocess.Popen([sys.executable, "-m", "jaxlint", "--jobs", "1", "pkg"], cwd=tmp_path,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
        outputs = [run.communicate(timeout=120) for run in runs]
        assert outputs == [(expected, "")] * 4
        stored = entries(tmp_path / CACHE)
        assert len(stored) == 24
        for entry in stored:
            assert json.loads(entry.read_text())["content"]
        for entry in stored[::3]:
            entry.write_text("{")
    assert not [p for p in (tmp_path / CACHE).rglob(".tmp-*")]


def test_a_warm_run_on_a_notebook_keeps_the_cells(tmp_path: Path) -> None:
    notebook = Path(__file__).resolve().parents[1] / "fixtures" / "notebooks" / "training.ipynb"
    shutil.copyfile(notebook, tmp_path / "training.ipynb")
    cold = jaxlint(tmp_path, "--output-format", "json", "training.ipynb")
    warm = jaxlint(tmp_path, "--output-format", "json", "training.ipynb")
    assert entries(tmp_path / CACHE)
    assert warm.stdout == cold.stdout
    found = json.loads(warm.stdout)
    assert found and all(isinstance(d["cell"], int) for d in found)
