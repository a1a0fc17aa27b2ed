"""A folder below a checked one with a config of its own follows that config, as in ruff: every file
uses the nearest pyproject.toml with [tool.jaxlint] above it, even when jaxlint was given a folder
above that config (`jaxlint repo/` where repo/sub/pyproject.toml has its own settings)."""

from __future__ import annotations

from pathlib import Path

from helpers import BOTH_SOURCE, jaxlint, write

# BOTH_SOURCE has a JAX101 at 3:1 and a JAX102 at 4:1.
TYPE_ALIAS = "type Vector = list[float]\n"


def _repo(root: Path) -> Path:
    """repo/ ignores JAX102 and supports Python 3.11; repo/sub/ ignores JAX101 and requires 3.12,
    and ignores JAX102 too in its deep/ folder."""
    write(root / "repo" / "pyproject.toml",
          '[project]\nname = "repo"\nrequires-python = ">=3.11"\n\n[tool.jaxlint]\nignore = ["JAX102"]\n')
    write(root / "repo" / "sub" / "pyproject.toml",
          '[project]\nname = "sub"\nrequires-python = ">=3.12"\n\n[tool.jaxlint]\nignore = ["JAX101"]\n\n'
          '[tool.jaxlint.per-file-ignores]\n"deep/*.py" = ["JAX102"]\n')
    for name in ("a.py", "other/d.py", "sub/b.py", "sub/deep/c.py"):
        write(root / "repo" / name, BOTH_SOURCE)
    write(root / "repo" / "old.py", TYPE_ALIAS + BOTH_SOURCE)  # 3.12 syntax in a project for 3.11
    write(root / "repo" / "sub" / "new.py", TYPE_ALIAS + BOTH_SOURCE)  # fine in a project for 3.12
    return root / "repo"


def _lines(stdout: str) -> list[str]:
    return [" ".join(line.split()[:2]) for line in stdout.splitlines()]


EXPECTED = [
    "repo/a.py:3:1: JAX101",
    "repo/old.py:1:1: JAX001",
    "repo/other/d.py:3:1: JAX101",
    "repo/sub/b.py:4:1: JAX102",
    "repo/sub/new.py:5:1: JAX102",
]


def test_each_file_follows_the_nearest_config_above_it(tmp_path: Path) -> None:
    _repo(tmp_path)
    result = jaxlint(tmp_path, "--quiet", "--output-format", "concise", "repo")
    assert _lines(result.stdout) == EXPECTED
    assert result.returncode == 1
    assert result.stdout.splitlines()[1] == (
        "repo/old.py:1:1: JAX001 syntax error: `type` statements need Python 3.12; the code's target version "
        "is 3.11")


def test_each_config_keeps_its_own_cache_and_a_changed_nested_config_is_seen(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    assert _lines(jaxlint(tmp_path, "--quiet", "--output-format", "concise", "repo").stdout) == EXPECTED
    assert (repo / ".jaxlint_cache").is_dir() and (repo / "sub" / ".jaxlint_cache").is_dir()
    # Warm: the same findings from the caches.
    assert _lines(jaxlint(tmp_path, "--quiet", "--output-format", "concise", "repo").stdout) == EXPECTED
    write(repo / "sub" / "pyproject.toml", '[tool.jaxlint]\nignore = ["JAX102"]\n')
    assert _lines(jaxlint(tmp_path, "--quiet", "--output-format", "concise", "repo").stdout) == [
        "repo/a.py:3:1: JAX101", "repo/old.py:1:1: JAX001", "repo/other/d.py:3:1: JAX101",
        "repo/sub/b.py:3:1: JAX101", "repo/sub/new.py:4:1: JAX101", "repo/sub/deep/c.py:3:1: JAX101"]
    (repo / "sub" / "pyproject.toml").unlink()  # sub/ is part of repo/ again, with repo/'s settings
    assert _lines(jaxlint(tmp_path, "--quiet", "--output-format", "concise", "repo").stdout) == [
        "repo/a.py:3:1: JAX101", "repo/old.py:1:1: JAX001", "repo/other/d.py:3:1: JAX101",
        "repo/sub/b.py:3:1: JAX101", "repo/sub/new.py:1:1: JAX001", "repo/sub/deep/c.py:3:1: JAX101"]


def test_a_pyproject_without_a_jaxlint_table_is_not_a_config(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    write(repo / "other" / "pyproject.toml", '[project]\nname = "other"\n')
    assert _lines(jaxlint(tmp_path, "--quiet", "--output-format", "concise", "repo").stdout) == EXPECTED


def test_a_folder_the_parent_excludes_stays_excluded_with_its_own_config(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    write(repo / "pyproject.toml", '[tool.jaxlint]\nignore = ["JAX102"]\nextend-exclude = ["sub"]\n')
    assert _lines(jaxlint(tmp_path, "--quiet", "--output-format", "concise", "repo").stdout) == [
        "repo/a.py:3:1: JAX101", "repo/old.py:4:1: JAX101", "repo/other/d.py:3:1: JAX101"]


def test_nested_excludes_apply_below_the_nested_config(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    write(repo / "sub" / "pyproject.toml", '[tool.jaxlint]\nignore = ["JAX101"]\nextend-exclude = ["deep"]\n')
    assert _lines(jaxlint(tmp_path, "--quiet", "--output-format", "concise", "repo").stdout) == EXPECTED[:3] + [
        "repo/sub/b.py:4:1: JAX102", "repo/sub/new.py:5:1: JAX102"]


def test_the_config_option_applies_below_nested_configs_too(tmp_path: Path) -> None:
    _repo(tmp_path)
    write(tmp_path / "strict.toml", '[tool.jaxlint]\nselect = ["JAX102"]\ntarget-version = "3.12"\n')
    result = jaxlint(tmp_path, "--quiet", "--output-format", "concise", "--config", "strict.toml", "repo")
    assert _lines(result.stdout) == [f"repo/{name}:{row}:1: JAX102" for name, row in
                                     (("a.py", 4), ("old.py", 5), ("other/d.py", 4), ("sub/b.py", 4),
                                      ("sub/new.py", 5), ("sub/deep/c.py", 4))]


def test_a_broken_nested_config_is_a_configuration_error(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    write(repo / "sub" / "pyproject.toml", '[tool.jaxlint]\nignore = "JAX101"\n')
    result = jaxlint(tmp_path, "repo")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (f"jaxlint: error: [tool.jaxlint] in {repo / 'sub' / 'pyproject.toml'}"
                             ": 'ignore' must be a list of strings, got str 'JAX101'\n")


def test_without_a_config_the_python_version_comes_from_the_checked_projects_pyproject(tmp_path: Path) -> None:
    # Run from a project for Python 3.10 (jaxlint's own, say) on one that requires 3.12 and has no
    # [tool.jaxlint]: its `type` statement is valid code, not JAX001.
    write(tmp_path / "here" / "pyproject.toml", '[project]\nname = "here"\nrequires-python = ">=3.10"\n')
    write(tmp_path / "there" / "pyproject.toml", '[project]\nname = "there"\nrequires-python = ">=3.12"\n')
    write(tmp_path / "there" / "new.py", TYPE_ALIAS + BOTH_SOURCE)
    write(tmp_path / "here" / "old.py", TYPE_ALIAS + BOTH_SOURCE)
    result = jaxlint(tmp_path / "here", "--quiet", "--output-format", "concise", "--no-cache", "../there", "old.py")
    assert _lines(result.stdout) == ["../there/new.py:4:1: JAX101", "../there/new.py:5:1: JAX102",
                                     "old.py:1:1: JAX001"]


def test_a_nested_folder_also_named_is_checked_once(tmp_path: Path) -> None:
    _repo(tmp_path)
    for named in (["repo", "repo/sub"], ["repo", "repo/sub/b.py"], ["repo/sub", "repo"], ["repo/sub/b.py", "repo"]):
        result = jaxlint(tmp_path, "--quiet", "--output-format", "concise", "--no-cache", *named)
        assert sorted(_lines(result.stdout)) == sorted(EXPECTED), named
