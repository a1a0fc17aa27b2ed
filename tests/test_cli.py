"""The command line: exit codes, exact output lines, rule selection, excludes, noqa, `jaxlint rule`.

Some tests run the real CLI in a subprocess (`python -m jaxlint`), the rest call `jaxlint.cli.main`
in-process for speed; both run with the test's temporary folder as the working directory.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import (BOTH, BOTH_SOURCE, CLEAN_SOURCE, JAX101_MESSAGE, JAX101_SOURCE, finding_files, findings,
                     jaxlint, write)
from jaxlint import __version__
from jaxlint.catalog import rule_page
from jaxlint.checks import ALL_RULES, BY_CODE

JAX101_LINE = f"a.py:3:1: JAX101 [*] {JAX101_MESSAGE}"


# --- the real process -----------------------------------------------------------------------------


def test_subprocess_finding_exits_1_with_the_exact_line(tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    result = jaxlint(tmp_path, "a.py")
    assert result.returncode == 1
    assert result.stdout == f"{JAX101_LINE}\nFound 1 finding (1 file checked); 1 fixable with `--fix`.\n"
    assert result.stderr == ""


def test_subprocess_correct_code_exits_0(tmp_path: Path) -> None:
    write(tmp_path / "a.py", CLEAN_SOURCE)
    result = jaxlint(tmp_path, "a.py")
    assert result.returncode == 0
    assert result.stdout == "All checks passed (1 file checked).\n"
    assert result.stderr == ""


def test_subprocess_default_path_is_the_current_folder(tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    write(tmp_path / "b.py", "print('no array library here')\n")
    result = jaxlint(tmp_path)
    assert result.returncode == 1
    assert result.stdout == f"{JAX101_LINE}\nFound 1 finding (2 files checked, 1 without jax skipped); 1 fixable with `--fix`.\n"


def test_subprocess_version(tmp_path: Path) -> None:
    result = jaxlint(tmp_path, "--version")
    assert result.returncode == 0
    assert result.stdout == f"jaxlint {__version__}\n"


def test_subprocess_rule_command(tmp_path: Path) -> None:
    result = jaxlint(tmp_path, "rule", "JAX101")
    assert result.returncode == 0
    assert result.stdout == rule_page(BY_CODE["JAX101"])
    assert result.stdout.startswith("# JAX101: in-place-update\n")


def test_subprocess_unknown_selector_exits_2_naming_it(tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    result = jaxlint(tmp_path, "--select", "JAX999", "a.py")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.endswith("\n")
    assert result.stderr.startswith("jaxlint: error: ")
    assert "'JAX999'" in result.stderr and "--select" in result.stderr
    assert "Traceback" not in result.stderr


def test_subprocess_exit_zero_still_prints_findings(tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    result = jaxlint(tmp_path, "--exit-zero", "a.py")
    assert result.returncode == 0
    assert result.stdout == f"{JAX101_LINE}\nFound 1 finding (1 file checked); 1 fixable with `--fix`.\n"


def test_subprocess_report_and_cache_are_complete_before_the_quick_exit(tmp_path: Path) -> None:
    """The command skips the interpreter's teardown (`cli.console`): a report larger than a pipe's
    buffer still arrives whole, with the exit code, and the cache is written."""
    write(tmp_path / "a.py", "import jax.numpy as jnp\nx = jnp.zeros(3)\n" + "x[0] = 1\n" * 3000)
    expected = "".join(f"a.py:{row}:1: JAX101 [*] {JAX101_MESSAGE}\n" for row in range(3, 3003))
    first, second = jaxlint(tmp_path, "a.py"), jaxlint(tmp_path, "a.py")
    for result in first, second:
        assert result.returncode == 1
        assert result.stdout == expected + "Found 3000 findings (1 file checked); 3000 fixable with `--fix`.\n"
        assert result.stderr == ""
    assert any(path.is_file() for path in (tmp_path / ".jaxlint_cache").rglob("*"))


# --- in-process: main(argv, out=...) ----------------------------------------------------------------


def test_main_finding_exits_1_with_the_exact_line(run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    result = run("a.py")
    assert (result.code, result.out, result.err) == (
        1, f"{JAX101_LINE}\nFound 1 finding (1 file checked); 1 fixable with `--fix`.\n", "")


def test_main_correct_code_exits_0(run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", CLEAN_SOURCE)
    result = run("a.py")
    assert (result.code, result.out, result.err) == (0, "All checks passed (1 file checked).\n", "")


def test_main_default_path_is_the_current_folder(run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    write(tmp_path / "pkg" / "b.py", BOTH_SOURCE)
    result = run()
    assert result.code == 1
    assert result.out.splitlines()[0] == JAX101_LINE
    assert finding_files(result.out) == {"a.py", "pkg/b.py"}
    assert result.out.endswith("Found 3 findings (2 files checked); 2 fixable with `--fix`, 1 more with `--unsafe-fixes`.\n")


@pytest.mark.parametrize(("args", "expected"), [
    ([], BOTH),
    (["--select", "JAX101"], {(3, 1, "JAX101")}),
    (["--select", "in-place-update"], {(3, 1, "JAX101")}),
    (["--select", "jax101"], {(3, 1, "JAX101")}),
    (["--select", "JAX102"], {(4, 1, "JAX102")}),
    (["--select", "discarded-functional-update"], {(4, 1, "JAX102")}),
    (["--select", "JAX1"], BOTH),
    (["--select", "JAX10"], BOTH),
    (["--select", "JAX"], BOTH),
    (["--select", "JAX0"], set()),
    (["--select", "JAX101,JAX102"], BOTH),
    (["--select", "JAX101, discarded-functional-update"], BOTH),
    (["--select", "JAX101", "--select", "JAX102"], BOTH),
    (["--select", "JAX101", "--extend-select", "JAX102"], BOTH),
    (["--select", "JAX101", "--extend-select", "discarded-functional-update"], BOTH),
    (["--select", "JAX0", "--extend-select", "JAX1"], BOTH),
    (["--select", "JAX0", "--extend-select", "JAX101,JAX102"], BOTH),
    (["--extend-select", "JAX101"], BOTH),
    (["--ignore", "JAX101"], {(4, 1, "JAX102")}),
    (["--ignore", "in-place-update"], {(4, 1, "JAX102")}),
    (["--ignore", "JAX102"], {(3, 1, "JAX101")}),
    (["--ignore", "JAX1"], set()),
    (["--ignore", "JAX101,JAX102"], set()),
    (["--ignore", "JAX101", "--ignore", "discarded-functional-update"], set()),
    (["--select", "JAX1", "--ignore", "JAX102"], {(3, 1, "JAX101")}),
    (["--extend-select", "JAX101", "--ignore", "JAX101"], {(4, 1, "JAX102")}),
])
def test_rule_selection(run, tmp_path: Path, args: list[str], expected: set) -> None:
    write(tmp_path / "a.py", BOTH_SOURCE)
    result = run(*args, "a.py")
    assert result.err == ""
    assert findings(result.out) == expected
    assert result.code == (1 if expected else 0)


@pytest.mark.parametrize(("args", "selector", "option"), [
    (["--select", "JAX999"], "JAX999", "--select"),
    (["--select", "JAX101,JAX999"], "JAX999", "--select"),
    (["--select", "JAX9"], "JAX9", "--select"),
    (["--select", "not-a-rule"], "not-a-rule", "--select"),
    (["--select", "E501"], "E501", "--select"),
    (["--extend-select", "JAX999"], "JAX999", "--extend-select"),
    (["--ignore", "JAX999"], "JAX999", "--ignore"),
])
def test_unknown_selector_exits_2(run, tmp_path: Path, args: list[str], selector: str, option: str) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    result = run(*args, "a.py")
    assert result.code == 2
    assert result.out == ""
    assert result.err.count("\n") == 1
    assert result.err.startswith("jaxlint: error: ")
    assert f"'{selector}'" in result.err and option in result.err


def test_exit_zero(run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    result = run("--exit-zero", "a.py")
    assert (result.code, result.out) == (0, f"{JAX101_LINE}\nFound 1 finding (1 file checked); 1 fixable with `--fix`.\n")


@pytest.mark.parametrize("flag", ["--quiet", "-q"])
def test_quiet_prints_findings_only(run, tmp_path: Path, flag: str) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    write(tmp_path / "clean.py", CLEAN_SOURCE)
    result = run(flag, "a.py")
    assert (result.code, result.out) == (1, f"{JAX101_LINE}\n")
    clean = run(flag, "clean.py")
    assert (clean.code, clean.out) == (0, "")


def test_statistics_counts_by_code(run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", BOTH_SOURCE + "x[2] = 3\n")
    write(tmp_path / "b.py", JAX101_SOURCE)
    result = run("--statistics", ".")
    assert result.code == 1
    assert result.out == (
        "3  JAX101  in-place-update\n"
        "1  JAX102  discarded-functional-update\n"
        "Found 4 findings (2 files checked); 3 fixable with `--fix`, 1 more with `--unsafe-fixes`.\n"
    )


def test_statistics_quiet_and_json(run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", BOTH_SOURCE + "x[2] = 3\n")
    assert run("--statistics", "--quiet", "a.py").out == (
        "2  JAX101  in-place-update\n1  JAX102  discarded-functional-update\n")
    result = run("--statistics", "--output-format", "json", "a.py")
    assert json.loads(result.out) == [{"code": "JAX101", "count": 2}, {"code": "JAX102", "count": 1}]


def test_version_in_process(run) -> None:
    result = run("--version")
    assert (result.code, result.out) == (0, f"jaxlint {__version__}\n")


def test_bad_output_format_is_a_usage_error(run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    result = run("--output-format", "xml", "a.py")
    assert result.code == 2
    assert "--output-format" in result.err and "xml" in result.err


# --- jaxlint rule -----------------------------------------------------------------------------------


@pytest.mark.parametrize("spelling", ["JAX101", "in-place-update", "jax101"])
def test_rule_by_code_or_name(run, spelling: str) -> None:
    result = run("rule", spelling)
    assert result.code == 0
    assert result.err == ""
    assert result.out == rule_page(BY_CODE["JAX101"])
    assert result.out.startswith(
        "# JAX101: in-place-update\n\nItem assignment on a JAX array, which is immutable.\n")
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead"):
        assert f"\n{section}\n" in result.out


def test_rule_all_lists_every_rule_in_order(run) -> None:
    result = run("rule", "--all")
    assert result.code == 0
    lines = result.out.splitlines()
    assert [line.split()[:3] for line in lines] == [
        [rule.code, rule.name, "on" if rule.default_enabled else "opt-in"] for rule in ALL_RULES
    ]
    assert lines[0].split()[:3] == ["JAX001", "syntax-error", "on"]
    assert lines[3].endswith("Item assignment on a JAX array, which is immutable")


@pytest.mark.parametrize("unknown", ["JAX999", "no-such-rule"])
def test_rule_unknown_exits_2(run, unknown: str) -> None:
    result = run("rule", unknown)
    assert result.code == 2
    assert result.out == ""
    assert result.err == f"jaxlint: error: unknown rule '{unknown}' (jaxlint rule --all lists them)\n"


def test_rule_without_argument_is_a_usage_error(run) -> None:
    result = run("rule")
    assert result.code == 2
    assert "give a rule code or name, or --all" in result.err


# --- excludes -----------------------------------------------------------------------------------------

EXCLUDED = [".venv/lib.py", "venv/lib.py", "build/gen.py", "node_modules/pkg/m.py", "dist/d.py",
            ".git/hooks/h.py", "__pycache__/c.py", ".tox/t.py", "src/build/inner.py"]
INCLUDED = ["a.py", "src/build_utils.py", "src/mybuild/m.py", "src/pkg/mod.py"]


def _excludes_tree(root: Path) -> None:
    for name in EXCLUDED + INCLUDED:
        write(root / name, JAX101_SOURCE)


def test_default_excludes_when_walking(run, tmp_path: Path) -> None:
    _excludes_tree(tmp_path)
    result = run(".")
    assert result.code == 1
    assert finding_files(result.out) == set(INCLUDED)
    n = len(INCLUDED)
    assert result.out.endswith(f"Found {n} findings ({n} files checked); {n} fixable with `--fix`.\n")


@pytest.mark.parametrize("name", [".venv/lib.py", "build/gen.py", "node_modules/pkg/m.py", "src/build/inner.py"])
def test_a_file_named_explicitly_is_checked_even_if_excluded(run, tmp_path: Path, name: str) -> None:
    _excludes_tree(tmp_path)
    result = run(name)
    assert result.code == 1
    assert result.out == f"{name}:3:1: JAX101 [*] {JAX101_MESSAGE}\nFound 1 finding (1 file checked); 1 fixable with `--fix`.\n"


@pytest.mark.parametrize("name", [".venv/lib.py", "build/gen.py", "node_modules/pkg/m.py", "src/build/inner.py"])
def test_force_exclude_applies_to_files_named_explicitly(run, tmp_path: Path, name: str) -> None:
    _excludes_tree(tmp_path)
    result = run("--force-exclude", name, "a.py")
    assert result.code == 1
    assert result.out == f"{JAX101_LINE}\nFound 1 finding (1 file checked); 1 fixable with `--fix`.\n"


def test_force_exclude_keeps_files_that_are_not_excluded(run, tmp_path: Path) -> None:
    _excludes_tree(tmp_path)
    result = run("--force-exclude", "src/build_utils.py")
    assert finding_files(result.out) == {"src/build_utils.py"}


def test_a_folder_named_explicitly_is_walked_even_if_its_name_is_excluded(run, tmp_path: Path) -> None:
    """As in ruff: excludes apply to what the walk finds below a named folder, not to the folder itself."""
    _excludes_tree(tmp_path)
    result = run("build")
    assert finding_files(result.out) == {"build/gen.py"}, result.out
    assert result.code == 1
    assert run("--force-exclude", "build").out == "All checks passed (0 files checked).\n"


def test_excludes_do_not_look_at_folders_above_the_project(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project that happens to live under a folder called `dist` (or `build`, `venv`...) is still checked."""
    write(tmp_path / "dist" / "proj" / "a.py", JAX101_SOURCE)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    result = run(str(tmp_path / "dist" / "proj"))
    assert result.code == 1, result.out
    assert finding_files(result.out) == {str(tmp_path / "dist" / "proj" / "a.py")}


# --- noqa -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("comment", "suppressed"), [
    ("# noqa", True),
    ("# NOQA", True),
    ("#noqa", True),
    ("# noqa: JAX101", True),
    ("# noqa:JAX101", True),
    ("# noqa: in-place-update", True),
    ("# noqa: JAX102, JAX101", True),
    ("# noqa: E501,JAX101", True),
    ("# noqa: JAX102", False),
    ("# noqa: discarded-functional-update", False),
    ("# noqa: E501", False),
    ("# noqa: F401, E501", False),
])
def test_line_noqa(run, tmp_path: Path, comment: str, suppressed: bool) -> None:
    write(tmp_path / "a.py", f"import jax.numpy as jnp\nx = jnp.zeros(3)\nx[0] = 1  {comment}\n")
    result = run("a.py")
    if suppressed:
        assert (result.code, result.out) == (0, "All checks passed (1 file checked).\n")
    else:
        assert result.code == 1
        assert findings(result.out) == {(3, 1, "JAX101")}


def test_noqa_on_another_line_does_not_suppress(run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", "import jax.numpy as jnp  # noqa\nx = jnp.zeros(3)  # noqa: JAX101\nx[0] = 1\n")
    assert findings(run("a.py").out) == {(3, 1, "JAX101")}


def test_line_noqa_suppresses_only_its_own_finding(run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", "import jax.numpy as jnp\nx = jnp.zeros(3)\nx[0] = 1  # noqa: JAX101\n"
                             "x.at[1].set(2)\nx[1] = 2\n")
    assert findings(run("a.py").out) == {(4, 1, "JAX102"), (5, 1, "JAX101")}


@pytest.mark.parametrize(("header", "expected"), [
    ("# jaxlint: noqa\n", set()),
    ("# JAXLINT: NOQA\n", set()),
    ("# jaxlint: noqa: JAX101\n", {(4, 1, "JAX102")}),
    ("# jaxlint: noqa: in-place-update\n", {(4, 1, "JAX102")}),
    ("# jaxlint: noqa: JAX101,JAX102\n", set()),
    ("# jaxlint: noqa: E501\n", BOTH),
    ("y = 1  # jaxlint: noqa\n", BOTH),  # not on its own line: not a file-level suppression
])
def test_file_level_noqa(run, tmp_path: Path, header: str, expected: set) -> None:
    # The header goes on line 2, so the findings of BOTH_SOURCE move down one line.
    lines = BOTH_SOURCE.splitlines(keepends=True)
    source = lines[0] + header + "".join(lines[1:])
    write(tmp_path / "a.py", source)
    result = run("a.py")
    assert findings(result.out) == {(row + 1, col, code) for row, col, code in expected}
    assert result.code == (1 if expected else 0)


def test_file_level_noqa_at_the_top_of_the_file(run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", "# jaxlint: noqa\n" + JAX101_SOURCE)
    assert run("a.py").out == "All checks passed (1 file checked).\n"


# --- a bug in jaxlint while checking one file -----------------------------------------------------------


def test_internal_error_in_one_file_exits_2_and_the_others_are_still_checked(
    run, tmp_path: Path, bug_in
) -> None:
    bug_in("boom.py")
    write(tmp_path / "a.py", JAX101_SOURCE)
    write(tmp_path / "boom.py", JAX101_SOURCE)
    result = run(".")
    assert result.code == 2
    assert result.out == (
        f"{JAX101_LINE}\n"
        "Found 1 finding and 1 internal error (2 files checked); see stderr.\n"
    )
    assert result.err.splitlines()[0] == "jaxlint: internal error while checking boom.py (please report it):"
    assert "RuntimeError: simulated bug" in result.err
    # --exit-zero does not hide a bug in jaxlint
    assert run("--exit-zero", ".").code == 2
