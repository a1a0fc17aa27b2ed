"""`[tool.jaxlint]` configuration: discovery, every key, and a clear exit-2 error for every mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import BOTH, BOTH_SOURCE, Outcome, by_file, findings, jaxlint, write

ONLY_101 = {(3, 1, "JAX101")}
ONLY_102 = {(4, 1, "JAX102")}


def config(folder: Path, body: str, name: str = "pyproject.toml") -> Path:
    return write(folder / name, "[project]\nname = 'demo'\n\n[tool.jaxlint]\n" + body + "\n")


# --- discovery ----------------------------------------------------------------------------------------


def test_no_config_means_every_default_rule(run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", BOTH_SOURCE)
    assert findings(run("a.py").out) == BOTH


def test_pyproject_in_the_current_folder(run, tmp_path: Path) -> None:
    config(tmp_path, 'select = ["JAX102"]')
    write(tmp_path / "a.py", BOTH_SOURCE)
    result = run("a.py")
    assert (result.code, findings(result.out), result.err) == (1, ONLY_102, "")


def test_pyproject_in_a_parent_folder(run, tmp_path: Path) -> None:
    config(tmp_path, 'select = ["JAX102"]')
    write(tmp_path / "src" / "pkg" / "a.py", BOTH_SOURCE)
    result = run("a.py", cwd=tmp_path / "src" / "pkg")
    assert (result.code, findings(result.out)) == (1, ONLY_102)


def test_a_nearer_pyproject_without_our_table_is_passed_over(run, tmp_path: Path) -> None:
    config(tmp_path, 'select = ["JAX102"]')
    write(tmp_path / "sub" / "pyproject.toml", "[project]\nname = 'inner'\n\n[tool.black]\nline-length = 99\n")
    write(tmp_path / "sub" / "a.py", BOTH_SOURCE)
    assert findings(run("a.py", cwd=tmp_path / "sub").out) == ONLY_102


def test_the_nearest_jaxlint_table_wins(run, tmp_path: Path) -> None:
    config(tmp_path, 'select = ["JAX102"]')
    config(tmp_path / "sub", 'select = ["JAX101"]')
    write(tmp_path / "sub" / "a.py", BOTH_SOURCE)
    assert findings(run("a.py", cwd=tmp_path / "sub").out) == ONLY_101


def test_a_broken_pyproject_that_does_not_mention_jaxlint_is_not_ours_to_judge(run, tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[project\nname = \n")
    write(tmp_path / "a.py", BOTH_SOURCE)
    result = run("a.py")
    assert (result.code, findings(result.out), result.err) == (1, BOTH, "")


def test_config_option(run, tmp_path: Path) -> None:
    config(tmp_path, 'select = ["JAX101"]')  # would be found, but --config wins
    config(tmp_path / "cfg", 'select = ["JAX102"]', name="jaxlint.toml")
    write(tmp_path / "a.py", BOTH_SOURCE)
    result = run("--config", "cfg/jaxlint.toml", "a.py")
    assert (result.code, findings(result.out)) == (1, ONLY_102)
    result = run("--config", str(tmp_path / "cfg" / "jaxlint.toml"), "a.py")
    assert findings(result.out) == ONLY_102


def test_config_option_with_a_file_that_has_no_jaxlint_table(run, tmp_path: Path) -> None:
    config(tmp_path, 'select = ["JAX101"]')
    write(tmp_path / "empty.toml", "[tool.other]\nx = 1\n")
    write(tmp_path / "a.py", BOTH_SOURCE)
    assert findings(run("--config", "empty.toml", "a.py").out) == BOTH


# --- rule selection keys ------------------------------------------------------------------------------


@pytest.mark.parametrize(("body", "expected"), [
    ('select = ["JAX101"]', ONLY_101),
    ('select = ["in-place-update"]', ONLY_101),
    ('select = ["JAX1"]', BOTH),
    ('select = ["JAX0"]', set()),
    ('select = []', set()),
    ('select = ["JAX101", "discarded-functional-update"]', BOTH),
    ('select = ["JAX0"]\nextend-select = ["JAX102"]', ONLY_102),
    ('extend-select = ["JAX102"]', BOTH),
    ('ignore = ["JAX101"]', ONLY_102),
    ('ignore = ["discarded-functional-update"]', ONLY_101),
    ('ignore = ["JAX1"]', set()),
    ('select = ["JAX1"]\nignore = ["JAX102"]', ONLY_101),
])
def test_selection_keys(run, tmp_path: Path, body: str, expected: set) -> None:
    config(tmp_path, body)
    write(tmp_path / "a.py", BOTH_SOURCE)
    result = run("a.py")
    assert result.err == ""
    assert findings(result.out) == expected
    assert result.code == (1 if expected else 0)


def test_command_line_select_replaces_config_select(run, tmp_path: Path) -> None:
    config(tmp_path, 'select = ["JAX101"]')
    write(tmp_path / "a.py", BOTH_SOURCE)
    assert findings(run("--select", "JAX102", "a.py").out) == ONLY_102


def test_extend_select_from_config_and_command_line_add_up(run, tmp_path: Path) -> None:
    config(tmp_path, 'select = ["JAX0"]\nextend-select = ["JAX101"]')
    write(tmp_path / "a.py", BOTH_SOURCE)
    assert findings(run("a.py").out) == ONLY_101
    assert findings(run("--extend-select", "JAX102", "a.py").out) == BOTH


def test_ignore_from_config_and_command_line_add_up(run, tmp_path: Path) -> None:
    config(tmp_path, 'ignore = ["JAX101"]')
    write(tmp_path / "a.py", BOTH_SOURCE)
    assert findings(run("a.py").out) == ONLY_102
    assert findings(run("--ignore", "JAX102", "a.py").out) == set()


# --- per-file-ignores ---------------------------------------------------------------------------------

PER_FILE = (
    '[tool.jaxlint.per-file-ignores]\n'
    '"tests/*.py" = ["JAX101"]\n'
    '"conftest.py" = ["in-place-update", "JAX102"]\n'
    '"scripts/gen_*.py" = ["JAX1"]\n'
)


def _per_file_tree(root: Path) -> None:
    for name in ["src/a.py", "tests/test_a.py", "conftest.py", "src/conftest.py", "scripts/gen_x.py",
                 "scripts/run.py", "pkg/tests/test_b.py"]:
        write(root / name, BOTH_SOURCE)


PER_FILE_EXPECTED = {
    "src/a.py": {"JAX101", "JAX102"},
    "tests/test_a.py": {"JAX102"},
    # conftest.py and src/conftest.py: a glob without a slash matches the name anywhere
    # scripts/gen_x.py: JAX1 is a prefix, it ignores both rules
    "scripts/run.py": {"JAX101", "JAX102"},
    # a glob with a slash is anchored at the config file's folder: pkg/tests/ is not tests/
    "pkg/tests/test_b.py": {"JAX101", "JAX102"},
}


def test_per_file_ignores(run, tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.jaxlint]\n" + PER_FILE)
    _per_file_tree(tmp_path)
    result = run(".")
    assert result.err == ""
    assert by_file(result.out) == PER_FILE_EXPECTED
    assert result.code == 1


def test_per_file_ignores_are_relative_to_the_config_folder_not_the_cwd(run, tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.jaxlint]\n" + PER_FILE)
    _per_file_tree(tmp_path)
    result = run(".", cwd=tmp_path / "tests")
    assert by_file(result.out) == {"test_a.py": {"JAX102"}}
    result = run("test_b.py", cwd=tmp_path / "pkg" / "tests")
    assert by_file(result.out) == {"test_b.py": {"JAX101", "JAX102"}}
    result = run(".", cwd=tmp_path / "src")
    assert by_file(result.out) == {"a.py": {"JAX101", "JAX102"}}


def test_per_file_ignores_relative_to_a_config_given_with_the_option(run, tmp_path: Path) -> None:
    project = tmp_path / "project"
    write(tmp_path / "configs" / "jaxlint.toml", "[tool.jaxlint]\n" + PER_FILE)
    _per_file_tree(project)
    # The globs are relative to configs/, where there is no tests/ folder: only bare names apply.
    result = run("--config", "../configs/jaxlint.toml", ".", cwd=project)
    assert by_file(result.out) == {
        "src/a.py": {"JAX101", "JAX102"},
        "tests/test_a.py": {"JAX101", "JAX102"},
        "scripts/gen_x.py": {"JAX101", "JAX102"},
        "scripts/run.py": {"JAX101", "JAX102"},
        "pkg/tests/test_b.py": {"JAX101", "JAX102"},
    }


# --- exclude, extend-exclude ----------------------------------------------------------------------------


def _exclude_tree(root: Path) -> None:
    for name in ["a.py", "gen/g.py", ".venv/v.py", "build/b.py", "src/gen_a.py", "other/gen_a.py"]:
        write(root / name, BOTH_SOURCE)


def _files(text_output: str) -> set[str]:
    return set(by_file(text_output))


def test_exclude_replaces_the_defaults(run, tmp_path: Path) -> None:
    config(tmp_path, 'exclude = ["gen"]')
    _exclude_tree(tmp_path)
    assert _files(run(".").out) == {"a.py", ".venv/v.py", "build/b.py", "src/gen_a.py", "other/gen_a.py"}


def test_extend_exclude_adds_to_the_defaults(run, tmp_path: Path) -> None:
    config(tmp_path, 'extend-exclude = ["gen", "src/gen_*.py"]')
    _exclude_tree(tmp_path)
    assert _files(run(".").out) == {"a.py", "other/gen_a.py"}


def test_exclude_and_extend_exclude_together(run, tmp_path: Path) -> None:
    config(tmp_path, 'exclude = ["gen"]\nextend-exclude = ["build"]')
    _exclude_tree(tmp_path)
    assert _files(run(".").out) == {"a.py", ".venv/v.py", "src/gen_a.py", "other/gen_a.py"}


def test_configured_excludes_spare_explicit_files_unless_force_exclude(run, tmp_path: Path) -> None:
    config(tmp_path, 'extend-exclude = ["gen"]')
    _exclude_tree(tmp_path)
    assert _files(run("gen/g.py").out) == {"gen/g.py"}
    result = run("--force-exclude", "gen/g.py")
    assert (result.code, result.out) == (0, "All checks passed (0 files checked).\n")


def test_excludes_are_relative_to_the_config_folder(run, tmp_path: Path) -> None:
    config(tmp_path, 'extend-exclude = ["src/gen_*.py"]')
    _exclude_tree(tmp_path)
    assert _files(run(".", cwd=tmp_path / "src").out) == set()
    assert _files(run(".", cwd=tmp_path / "other").out) == {"gen_a.py"}


# --- errors: exit 2, one line on stderr naming the problem ----------------------------------------------


def assert_config_error(result: Outcome, *pieces: str) -> None:
    assert result.code == 2, result
    assert result.out == ""
    assert result.err.count("\n") == 1 and result.err.endswith("\n"), result.err
    assert result.err.startswith("jaxlint: error: "), result.err
    assert "Traceback" not in result.err
    for piece in pieces:
        assert piece in result.err, (piece, result.err)


@pytest.mark.parametrize(("body", "pieces"), [
    ('selct = ["JAX101"]', ["unknown key 'selct'", "did you mean 'select'?"]),
    ('extend_select = ["JAX101"]', ["unknown key 'extend_select'", "did you mean 'extend-select'?"]),
    ('per_file_ignores = {}', ["unknown key 'per_file_ignores'", "did you mean 'per-file-ignores'?"]),
    ('colour = "blue"', ["unknown key 'colour'"]),
    ('select = "JAX101"', ["'select' must be a list of strings", "str 'JAX101'"]),
    ('ignore = "JAX101"', ["'ignore' must be a list of strings", "str 'JAX101'"]),
    ('select = [101]', ["'select' must be a list of strings", "[101]"]),
    ('exclude = "build"', ["'exclude' must be a list of strings", "str 'build'"]),
    ('extend-exclude = true', ["'extend-exclude' must be a list of strings", "bool True"]),
    ('per-file-ignores = ["tests/*.py"]', ["'per-file-ignores' must be a table", "list ['tests/*.py']"]),
    ('per-file-ignores = {"tests/*.py" = "JAX101"}', ["per-file-ignores 'tests/*.py' must be a list of strings"]),
    ('select = ["JAX999"]', ["'select'", "unknown rule code or name 'JAX999'"]),
    ('select = ["JAX101", "no-such-rule"]', ["'select'", "unknown rule code or name 'no-such-rule'"]),
    ('extend-select = ["JAX999"]', ["'extend-select'", "unknown rule code or name 'JAX999'"]),
    ('ignore = ["JAX999"]', ["'ignore'", "unknown rule code or name 'JAX999'"]),
    ('per-file-ignores = {"tests/*.py" = ["JAX999"]}', ["per-file-ignores 'tests/*.py'", "'JAX999'"]),
    ('docs-url = "https://example.org/rules/"', ["'docs-url' must be an http(s) URL with {code}",
                                                 "str 'https://example.org/rules/'"]),
    ('docs-url = "rules/{code}.md"', ["'docs-url' must be an http(s) URL", "str 'rules/{code}.md'"]),
    ('docs-url = true', ["'docs-url' must be an http(s) URL", "bool True"]),
])
def test_config_errors(run, tmp_path: Path, body: str, pieces: list[str]) -> None:
    pyproject = config(tmp_path, body)
    write(tmp_path / "a.py", BOTH_SOURCE)
    result = run("a.py")
    assert_config_error(result, str(pyproject), *pieces)


def test_did_you_mean_is_only_offered_for_close_keys(run, tmp_path: Path) -> None:
    config(tmp_path, 'colour = "blue"')
    write(tmp_path / "a.py", BOTH_SOURCE)
    assert "did you mean" not in run("a.py").err


@pytest.mark.parametrize("text", [
    "[tool.jaxlint]\nselect = [\n",
    "[tool.jaxlint]\nselect = [\"JAX101\"\nignore = []\n",
    "[tool.jaxlint]\nselect = ['JAX101']\nselect = ['JAX102']\n",  # duplicate key
])
def test_invalid_toml(run, tmp_path: Path, text: str) -> None:
    write(tmp_path / "pyproject.toml", text)
    write(tmp_path / "a.py", BOTH_SOURCE)
    assert_config_error(run("a.py"), f"invalid TOML in {tmp_path / 'pyproject.toml'}")


def test_invalid_toml_given_with_the_config_option(run, tmp_path: Path) -> None:
    write(tmp_path / "bad.toml", "[tool.jaxlint\n")
    write(tmp_path / "a.py", BOTH_SOURCE)
    assert_config_error(run("--config", "bad.toml", "a.py"), "invalid TOML in bad.toml")


@pytest.mark.parametrize("given", ["missing.toml", "nowhere/pyproject.toml"])
def test_config_option_pointing_to_a_missing_file(run, tmp_path: Path, given: str) -> None:
    write(tmp_path / "a.py", BOTH_SOURCE)
    assert_config_error(run("--config", given, "a.py"), f"config file not found: {given}")


def test_config_error_in_a_real_process(tmp_path: Path) -> None:
    pyproject = config(tmp_path, 'selct = ["JAX101"]')
    write(tmp_path / "a.py", BOTH_SOURCE)
    result = jaxlint(tmp_path, "a.py")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"jaxlint: error: [tool.jaxlint] in {pyproject}: unknown key 'selct' (did you mean 'select'?)\n")


def test_config_error_is_reported_even_with_exit_zero(run, tmp_path: Path) -> None:
    config(tmp_path, 'select = "JAX101"')
    write(tmp_path / "a.py", BOTH_SOURCE)
    assert_config_error(run("--exit-zero", "a.py"), "'select' must be a list of strings")
