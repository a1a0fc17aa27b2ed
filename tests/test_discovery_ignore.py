"""What a walk leaves out (issue 23, item 6): what git ignores (as ruff's respect-gitignore) and any folder
holding a Python environment, whatever its name; files named on the command line are still checked."""

from __future__ import annotations

import pytest

from pathlib import Path

from helpers import JAX101_SOURCE, jaxlint, write
from jaxlint.gitignore import GitIgnore


def checked(result) -> list[str]:
    """The files with a finding (every file of these tests has one JAX101), as the concise format names them."""
    assert result.stderr == ""
    return sorted(line.split(":", 1)[0] for line in result.stdout.splitlines())


def repository(tmp_path: Path) -> Path:
    (tmp_path / ".git" / "info").mkdir(parents=True)
    write(tmp_path / ".git" / "info" / "exclude", "scratch.py\n")
    write(tmp_path / ".gitignore", "# generated\nenv/\n/out\ngen_*.py\n!gen_kept.py\ndocs/**/conf.py\n")
    for name in ("train.py", "env/lib/jax/core.py", "out/a.py", "src/out/b.py", "gen_x.py", "src/gen_y.py",
                 "gen_kept.py", "docs/en/api/conf.py", "docs/index.py", "scratch.py", "src/data/big.py",
                 "src/data/keep.py"):
        write(tmp_path / name, JAX101_SOURCE)
    write(tmp_path / "src" / "data" / ".gitignore", "*.py\n!keep.py\n")
    return tmp_path


def test_what_git_ignores_is_not_checked(tmp_path: Path) -> None:
    repository(tmp_path)
    result = jaxlint(tmp_path, "--no-cache", "-q", "--output-format", "concise", ".")
    assert checked(result) == ["docs/index.py", "gen_kept.py", "src/data/keep.py", "src/out/b.py", "train.py"]


def test_respect_gitignore_can_be_turned_off(tmp_path: Path) -> None:
    repository(tmp_path)
    everything = ["docs/en/api/conf.py", "docs/index.py", "env/lib/jax/core.py", "gen_kept.py", "gen_x.py",
                  "out/a.py", "scratch.py", "src/data/big.py", "src/data/keep.py", "src/gen_y.py", "src/out/b.py",
                  "train.py"]
    result = jaxlint(tmp_path, "--no-cache", "-q", "--output-format", "concise", "--no-respect-gitignore", ".")
    assert checked(result) == everything
    write(tmp_path / "pyproject.toml", "[tool.jaxlint]\nrespect-gitignore = false\n")
    assert checked(jaxlint(tmp_path, "--no-cache", "-q", "--output-format", "concise", ".")) == everything
    result = jaxlint(tmp_path, "--no-cache", "-q", "--output-format", "concise", "--respect-gitignore", ".")
    assert len(checked(result)) == 5


def test_a_gitignore_outside_a_git_work_tree_is_not_read(tmp_path: Path) -> None:
    write(tmp_path / ".gitignore", "gen_*.py\n")
    write(tmp_path / "gen_x.py", JAX101_SOURCE)
    assert checked(jaxlint(tmp_path, "--no-cache", "-q", "--output-format", "concise", ".")) == ["gen_x.py"]


def test_files_named_on_the_command_line_are_checked_unless_force_exclude(tmp_path: Path) -> None:
    repository(tmp_path)
    named = ("gen_x.py", "env/lib/jax/core.py", "train.py")
    result = jaxlint(tmp_path, "--no-cache", "-q", "--output-format", "concise", *named)
    assert checked(result) == ["env/lib/jax/core.py", "gen_x.py", "train.py"]
    result = jaxlint(tmp_path, "--no-cache", "-q", "--output-format", "concise", "--force-exclude", *named)
    assert checked(result) == ["train.py"]


@pytest.mark.parametrize("marker", ["pyvenv.cfg", "site-packages"])
def test_a_python_environment_is_skipped_whatever_its_name(tmp_path: Path, marker: str) -> None:
    environment = tmp_path / "tools" / "py311"
    (environment / marker).mkdir(parents=True) if marker == "site-packages" else write(environment / marker, "")
    write(environment / "site-packages" / "jax" / "core.py", JAX101_SOURCE)
    write(environment / "bin" / "script.py", JAX101_SOURCE)
    write(tmp_path / "train.py", JAX101_SOURCE)
    assert checked(jaxlint(tmp_path, "--no-cache", "-q", "--output-format", "concise", ".")) == ["train.py"]
    result = jaxlint(tmp_path, "--no-cache", "-q", "--output-format", "concise", "--force-exclude",
                     "tools/py311/bin/script.py", "train.py")
    assert checked(result) == ["train.py"]
    # Named itself, it is checked (as an excluded folder is).
    result = jaxlint(tmp_path, "--no-cache", "-q", "--output-format", "concise", "tools/py311/bin")
    assert checked(result) == ["tools/py311/bin/script.py"]


def test_a_bad_respect_gitignore_value_stops_the_run(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.jaxlint]\nrespect-gitignore = "no"\n')
    result = jaxlint(tmp_path, ".")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (f"jaxlint: error: [tool.jaxlint] in {tmp_path / 'pyproject.toml'}: 'respect-gitignore' "
                             "must be true or false, got str 'no'\n")


@pytest.mark.parametrize(("patterns", "path", "is_folder", "ignored"), [
    ("*.py", "a/b/c.py", False, True),
    ("/c.py", "a/c.py", False, False),
    ("a/*.py", "a/b/c.py", False, False),
    ("a/**/c.py", "a/c.py", False, True),
    ("a/**/c.py", "a/x/y/c.py", False, True),
    ("**/b", "a/b", True, True),
    ("a/**", "a/b/c.py", False, True),
    ("b/", "a/b", False, False),
    ("b/", "a/b", True, True),
    ("c?.py", "c1.py", False, True),
    ("c[0-9].py", "cx.py", False, False),
    ("c[!0-9].py", "cx.py", False, True),
    ("\\#c.py", "#c.py", False, True),
    ("\\!c.py", "!c.py", False, True),
    ("c.py   ", "c.py", False, True),
    ("*.py\n!c.py", "c.py", False, False),
    ("!c.py\n*.py", "c.py", False, True),
])
def test_gitignore_patterns(tmp_path: Path, patterns: str, path: str, is_folder: bool, ignored: bool) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path / ".gitignore", patterns + "\n")
    assert GitIgnore().ignored(str(tmp_path / path), is_folder) is ignored
