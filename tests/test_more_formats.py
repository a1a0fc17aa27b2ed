"""`--output-format junit` and `concise`, and `--show-source` under text findings."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from helpers import CLEAN_SOURCE, JAX101_MESSAGE, JAX101_SOURCE, write
from test_notebooks import notebook
from test_outputs import JAX102_HEADLINE, JAX102_MESSAGE


def make_project(folder: Path) -> None:
    """a.py: one JAX101 at 3:1; b.py: JAX101 at 3:1 and JAX102 at 4:1; clean.py: nothing."""
    write(folder / "a.py", JAX101_SOURCE)
    write(folder / "b.py", JAX101_SOURCE + "x.at[1].set(2)\n")
    write(folder / "clean.py", CLEAN_SOURCE)


# --- junit --------------------------------------------------------------------------------------------


def parse_junit(stdout: str) -> ET.Element:
    assert stdout.startswith("<?xml version='1.0' encoding='utf-8'?>\n<testsuites ")
    return ET.fromstring(stdout.split("\n", 1)[1])


def test_junit_is_one_suite_with_a_failing_case_per_finding(run, tmp_path: Path) -> None:
    make_project(tmp_path)
    write(tmp_path / "nb.ipynb", notebook(("markdown", "# title"), ("code", JAX101_SOURCE)))
    result = run("--output-format", "junit", ".")
    assert (result.code, result.err) == (1, "")
    root = parse_junit(result.out)
    counts = {"tests": "4", "failures": "4", "errors": "0"}
    assert (root.tag, root.attrib) == ("testsuites", {"name": "jaxlint", **counts})
    (suite,) = root
    assert (suite.tag, suite.attrib) == ("testsuite", {"name": "jaxlint", "skipped": "0", **counts})
    cases = [(case.attrib, [(f.tag, f.attrib, f.text) for f in case]) for case in suite]
    assert cases == [
        ({"name": "JAX101 a.py:3:1", "classname": "a.py", "file": "a.py", "line": "3"},
         [("failure", {"message": JAX101_MESSAGE, "type": "JAX101"}, f"a.py:3:1: JAX101 {JAX101_MESSAGE}")]),
        ({"name": "JAX101 b.py:3:1", "classname": "b.py", "file": "b.py", "line": "3"},
         [("failure", {"message": JAX101_MESSAGE, "type": "JAX101"}, f"b.py:3:1: JAX101 {JAX101_MESSAGE}")]),
        ({"name": "JAX102 b.py:4:1", "classname": "b.py", "file": "b.py", "line": "4"},
         [("failure", {"message": JAX102_MESSAGE, "type": "JAX102"}, f"b.py:4:1: JAX102 {JAX102_MESSAGE}")]),
        # A notebook's rows are not the file's lines: no `line`, the cell is in the name and the text.
        ({"name": "JAX101 nb.ipynb:cell 2:3:1", "classname": "nb.ipynb", "file": "nb.ipynb"},
         [("failure", {"message": JAX101_MESSAGE, "type": "JAX101"},
           f"nb.ipynb:cell 2:3:1: JAX101 {JAX101_MESSAGE}")]),
    ]


def test_junit_clean_run_is_one_passing_case(run, tmp_path: Path) -> None:
    make_project(tmp_path)
    result = run("--output-format", "junit", "clean.py")
    assert result.code == 0
    root = parse_junit(result.out)
    assert root.attrib == {"name": "jaxlint", "tests": "1", "failures": "0", "errors": "0"}
    (case,) = root.find("testsuite")
    assert (case.attrib, list(case)) == (
        {"name": "All checks passed (1 file checked).", "classname": "jaxlint"}, [])


def test_junit_escapes_markup_in_messages(run, tmp_path: Path) -> None:
    write(tmp_path / "a<b>&.py", JAX101_SOURCE)
    root = parse_junit(run("--output-format", "junit", "a<b>&.py").out)
    (case,) = root.find("testsuite")
    assert case.get("file") == "a<b>&.py"
    assert case.find("failure").text == f"a<b>&.py:3:1: JAX101 {JAX101_MESSAGE}"


# --- concise ------------------------------------------------------------------------------------------


def test_concise_is_one_line_per_finding_and_no_summary(run, tmp_path: Path) -> None:
    make_project(tmp_path)
    write(tmp_path / "nb.ipynb", notebook(("code", JAX101_SOURCE)))
    result = run("--output-format", "concise", ".")
    assert (result.code, result.err) == (1, "")
    assert result.out == (
        f"a.py:3:1: JAX101 [*] {JAX101_MESSAGE}\n"
        f"b.py:3:1: JAX101 [*] {JAX101_MESSAGE}\n"
        f"b.py:4:1: JAX102 {JAX102_HEADLINE}\n"
        f"nb.ipynb:cell 1:3:1: JAX101 [*] {JAX101_MESSAGE}\n"
    )
    clean = run("--output-format", "concise", "clean.py")
    assert (clean.code, clean.out) == (0, "")


# --- --show-source ------------------------------------------------------------------------------------


def test_show_source_puts_the_line_and_a_caret_under_each_finding(run, tmp_path: Path) -> None:
    make_project(tmp_path)
    result = run("--show-source", "b.py")
    assert result.code == 1
    assert result.out == (
        f"b.py:3:1: JAX101 [*] {JAX101_MESSAGE}\n"
        "3 | x[0] = 1\n"
        "  | ^^^^\n"
        f"b.py:4:1: JAX102 {JAX102_HEADLINE}\n"
        "4 | x.at[1].set(2)\n"
        "  | ^^^^^^^^^^^^^^\n"
        f"  = note: {JAX102_MESSAGE}\n"
        "Found 2 findings (1 file checked); 1 fixable with `--fix`, 1 more with `--unsafe-fixes`.\n"
    )


def shown(run, tmp_path: Path, *lines: str) -> list[str]:
    """The source and caret lines --show-source prints for a file made of these lines (one finding)."""
    write(tmp_path / "s.py", "".join(line + "\n" for line in lines))
    return run("--show-source", "--quiet", "s.py").out.splitlines()[1:3]


def test_show_source_expands_tabs_and_keeps_the_caret_under_the_span(run, tmp_path: Path) -> None:
    assert shown(run, tmp_path, "import jax.numpy as jnp", "x = jnp.zeros(3)", "if True:", "\tx[0] = 1 # \tx") == [
        "4 |     x[0] = 1 #  x",
        "  |     ^^^^",
    ]


def test_show_source_counts_wide_and_combining_characters_by_their_width(run, tmp_path: Path) -> None:
    # 日本 is two wide characters (four cells); é written as e + a combining accent takes one cell.
    assert shown(run, tmp_path, "import jax.numpy as jnp", 'x = jnp.zeros(3); s = "日本e\u0301"; x[0] = 1') == [
        '2 | x = jnp.zeros(3); s = "日本e\u0301"; x[0] = 1',
        "  | " + " " * (len('x = jnp.zeros(3); s = "') + 4 + 1 + len('"; ')) + "^^^^",
    ]


def test_show_source_of_a_span_over_lines_underlines_to_the_end_of_the_first(run, tmp_path: Path) -> None:
    assert shown(run, tmp_path, "import jax.numpy as jnp", "x = jnp.zeros(3)", "x.at[1].set(", "    2)") == [
        "3 | x.at[1].set(",
        "  | ^^^^^^^^^^^^",
    ]


def test_show_source_in_a_notebook_shows_the_cell_line(run, tmp_path: Path) -> None:
    write(tmp_path / "nb.ipynb", notebook(
        ("code", "%matplotlib inline\nimport jax.numpy as jnp"),
        ("code", "x = jnp.zeros(12)\n\n\n\n\n\n\n\n\nx[0] = 1")))
    result = run("--show-source", "--quiet", "nb.ipynb")
    assert result.out == (
        f"nb.ipynb:cell 2:10:1: JAX101 [*] {JAX101_MESSAGE}\n"
        "10 | x[0] = 1\n"
        "   | ^^^^\n"
    )


def test_show_source_is_for_text_output_only(run, tmp_path: Path) -> None:
    make_project(tmp_path)
    assert run("--show-source", "--output-format", "concise", "a.py").out == (
        f"a.py:3:1: JAX101 [*] {JAX101_MESSAGE}\n")


# --- full ---------------------------------------------------------------------------------------------

TRACED = ("import jax\n\n\ndef clip(x):\n    if x > 1.0:\n        return 1.0\n    return x\n\n\n"
          "@jax.jit\ndef step(x):\n    return clip(x) * 2\n")
JAX301_HEADLINE = ("Python `if` on a traced value raises TracerBoolConversionError: `x > 1.0` is traced; "
                   "use `jnp.where` or `lax.cond`")


def test_full_puts_the_whole_message_and_the_evidence_under_the_short_line(run, tmp_path: Path) -> None:
    write(tmp_path / "step.py", TRACED)
    assert run("--output-format", "concise", "step.py").out == f"step.py:5:8: JAX301 {JAX301_HEADLINE}\n"
    result = run("--output-format", "full", "step.py")
    assert (result.code, result.err) == (1, "")
    assert result.out == (
        f"step.py:5:8: JAX301 {JAX301_HEADLINE}\n"
        "5 |     if x > 1.0:\n"
        "  |        ^^^^^^^\n"
        "  = note: Python `if` on a traced value raises TracerBoolConversionError: `x > 1.0` is traced (`x` is "
        "traced: `clip` is called with a tracer from `step` at line 12); use `jnp.where` or `lax.cond`\n"
        "  = evidence: line 12: `step` calls `clip` with a tracer for `x`, under `jax.jit`\n"
        "Found 1 finding (1 file checked).\n"
    )
    assert run("--show-source", "step.py").out == result.out


def test_full_names_the_cell_of_each_evidence_step_in_a_notebook(run, tmp_path: Path) -> None:
    write(tmp_path / "nb.ipynb", notebook(("code", "import jax\n\n@jax.jit\ndef step(x):\n    return clip(x)"),
                                          ("code", "def clip(x):\n    print(x)\n    return x")))
    assert run("--output-format", "full", "--quiet", "nb.ipynb").out.splitlines()[-1] == (
        "  = evidence: line 5 of cell 1: `step` calls `clip` with a tracer for `x`, under `jax.jit`")


def test_full_adds_nothing_under_a_short_message_without_evidence(run, tmp_path: Path) -> None:
    make_project(tmp_path)
    assert run("--output-format", "full", "--quiet", "a.py").out == (
        f"a.py:3:1: JAX101 [*] {JAX101_MESSAGE}\n3 | x[0] = 1\n  | ^^^^\n")
