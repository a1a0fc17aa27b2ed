"""Where the target jax version comes from (issue 23, item 7): `--target-version`, `target-jax-version`,
then the lowest jax the project's dependencies allow: [project], poetry's [tool.poetry.dependencies] and
requirements*.txt. And JAX801 in an annotation nothing evaluates says what fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import jaxlint, write
from jaxlint.config import CommandLine, build_settings

DEPRECATED = "import jax\n\ntree = jax.tree_map(abs, [1])\n"  # deprecated in 0.4.26, removed in 0.6.0
REMOVED = "m.py:3:8: JAX801 [*] `jax.tree_map` was removed in jax 0.6.0; use `jax.tree.map`\n"
DEPRECATED_FINDING = "m.py:3:8: JAX802 [*] `jax.tree_map` is deprecated since jax 0.4.26; use `jax.tree.map`\n"


@pytest.mark.parametrize(("poetry", "version"), [
    ('jax = "^0.3.10"', "0.3.10"),
    ('jax = "~0.4.26"', "0.4.26"),
    ('jax = ">=0.4.20,<0.5"', "0.4.20"),
    ('jax = "0.4.30"', "0.4.30"),
    ('jax = "*"', None),
    ('jax = "<0.5"', None),
    ('jax = {version = "^0.4.26", extras = ["cuda12"]}', "0.4.26"),
    ('jax = [{version = "^0.4.26", python = ">=3.10"}, {version = "^0.4.30", python = "<3.10"}]', "0.4.30"),
    ('jaxlib = "^0.4.1"', None),
])
def test_poetry_dependencies(tmp_path: Path, poetry: str, version: str | None) -> None:
    write(tmp_path / "pyproject.toml", f'[tool.poetry.dependencies]\npython = "^3.10"\n{poetry}\n')
    assert build_settings(CommandLine(), tmp_path).target_jax_version == version


@pytest.mark.parametrize(("lines", "version"), [
    ("jax==0.4.30", "0.4.30"),
    ("numpy\njax>=0.4.20  # the first with jax.Array\n", "0.4.20"),
    ("jax[cpu]~=0.4.26", "0.4.26"),
    ("jax[cuda12] >= 0.4.20 ; python_version >= '3.10'", "0.4.20"),
    ("-r base.txt\njaxlib==0.4.1\njaxtyping==0.2.36", None),
    ("# jax==0.4.30", None),
])
def test_requirements_files(tmp_path: Path, lines: str, version: str | None) -> None:
    write(tmp_path / "requirements-dev.txt", lines + "\n")
    assert build_settings(CommandLine(), tmp_path).target_jax_version == version


def test_every_source_counts_and_the_highest_lower_bound_wins(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[project]\nname = "p"\ndependencies = ["jax>=0.4.1"]\n\n'
                                       '[tool.poetry.dependencies]\njax = "^0.4.20"\n')
    write(tmp_path / "requirements.txt", "jax>=0.4.26\n")
    assert build_settings(CommandLine(), tmp_path).target_jax_version == "0.4.26"


def test_the_version_from_the_files_decides_the_findings(tmp_path: Path) -> None:
    write(tmp_path / "m.py", DEPRECATED)
    assert jaxlint(tmp_path, "-q", "--no-cache", "m.py").stdout == REMOVED
    write(tmp_path / "requirements.txt", "jax[cpu]>=0.4.26\n")
    assert jaxlint(tmp_path, "-q", "--no-cache", "m.py").stdout == DEPRECATED_FINDING
    write(tmp_path / "pyproject.toml", '[tool.poetry]\nname = "p"\n\n[tool.poetry.dependencies]\njax = "^0.4.10"\n')
    assert jaxlint(tmp_path, "-q", "--no-cache", "m.py").stdout == DEPRECATED_FINDING  # requirements.txt: 0.4.26
    (tmp_path / "requirements.txt").unlink()
    assert jaxlint(tmp_path, "-q", "--no-cache", "m.py").stdout == ""  # 0.4.10: not deprecated yet


def test_target_version_on_the_command_line_wins(tmp_path: Path) -> None:
    write(tmp_path / "m.py", DEPRECATED)
    write(tmp_path / "pyproject.toml", '[tool.jaxlint]\ntarget-jax-version = "0.4.10"\n')
    assert jaxlint(tmp_path, "-q", "--no-cache", "--target-version", "0.4.26", "m.py").stdout == DEPRECATED_FINDING
    (tmp_path / "pyproject.toml").unlink()
    write(tmp_path / "requirements.txt", "jax==0.4.10\n")
    assert jaxlint(tmp_path, "-q", "--no-cache", "--target-version", "0.6", "m.py").stdout == REMOVED
    result = jaxlint(tmp_path, "--target-version", "latest", "m.py")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.endswith(
        "jaxlint: error: argument --target-version: expected a jax version such as 0.4.30, got 'latest'\n")


def test_removed_api_only_in_unevaluated_annotations_says_what_fails(tmp_path: Path) -> None:
    annotated = "import jax\n\n\ndef f(key: jax.random.KeyArray):\n    return key\n"
    write(tmp_path / "lazy.py", "from __future__ import annotations\n\n" + annotated)
    write(tmp_path / "eager.py", annotated)
    result = jaxlint(tmp_path, "-q", "--no-cache", "--output-format", "full", "lazy.py", "eager.py")
    assert result.stdout.splitlines() == [
        "lazy.py:6:12: JAX801 [*] `jax.random.KeyArray` was removed in jax 0.4.24; use `jax.Array`",
        "6 | def f(key: jax.random.KeyArray):",
        "  |            ^^^^^^^^^^^^^^^^^^^",
        "  = note: `jax.random.KeyArray` was removed in jax 0.4.24; use `jax.Array` (only in an "
        "annotation, unevaluated under `from __future__ import annotations`: the code runs; "
        "`typing.get_type_hints` and documentation tools fail)",
        "eager.py:4:12: JAX801 [*] `jax.random.KeyArray` was removed in jax 0.4.24; use `jax.Array`",
        "4 | def f(key: jax.random.KeyArray):",
        "  |            ^^^^^^^^^^^^^^^^^^^",
    ]
