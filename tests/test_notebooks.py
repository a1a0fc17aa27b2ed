"""Notebooks: code cells checked as one program, findings reported at (cell, line within the cell, column)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from helpers import JAX101_MESSAGE, JAX101_SOURCE, write
from jaxlint.diagnostics import Diagnostic
from jaxlint.notebooks import python_lines
from test_outputs import assert_valid_sarif

NOTEBOOKS = Path(__file__).resolve().parents[1] / "fixtures" / "notebooks"

# (cell, line, column, code): cells count every cell of the file from 1, markdown included.
EXPECTED = {
    "training.ipynb": [
        (4, 4, 27, "JAX202"),  # one key for every layer, drawn in a loop
        (5, 5, 8, "JAX301"),   # `if` on a traced value in the jitted loss
        (5, 6, 9, "JAX306"),   # print of a tracer
        (7, 1, 1, "JAX505"),   # a `%%time` cell whose jax work nothing waits for
        (7, 5, 38, "JAX201"),  # the data key reused for the noise (line 5 of a `%%time` cell)
        (10, 9, 5, "JAX101"),  # losses[i] = ... on a jnp array
    ],
    "magics.ipynb": [
        (6, 1, 1, "JAX505"),   # `%%timeit` of a cell whose jax work nothing waits for
        (6, 3, 1, "JAX101"),   # inside `%%timeit`, which runs Python; `%%bash`/`%%writefile` are skipped
        (7, 5, 11, "JAX505"),  # an indented `%time` of jax work that nothing waits for
        (7, 7, 1, "JAX102"),   # after `% 2` (Python) and the `%time` (IPython); the noqa holds
    ],
    "clean.ipynb": [],
    # A lesson's saved outputs show its failing cells (cells 3 and 5: the error's traceback marks the line) and a
    # jitted print showing a tracer: runs of those findings, already in the notebook. An output of another error
    # (a NameError, cell 8), or of another print (cell 9), shows nothing of the finding there.
    "lesson.ipynb": [(7, 2, 1, "JAX101"), (8, 2, 1, "JAX101"), (9, 3, 5, "JAX306")],
    # The notebook's simulation run twice from its key (cell 4) is two experiments; a key drawn twice
    # within one experiment (cell 5) is reuse.
    "experiments.ipynb": [(5, 2, 23, "JAX201")],
    # Each cell as IPython runs it, cleaned up first: never JAX001, every finding where it is in its cell.
    "ipython_cleanup.ipynb": [
        (3, 5, 12, "JAX301"),  # after two blank lines, a cell indented by four spaces (cell 2: by one)
        (4, 1, 9, "JAX505"),   # an indented cell with `%time` and `!` lines: `%time` of an unwaited `jnp.zeros`
        (4, 4, 3, "JAX101"),
        (5, 6, 19, "JAX201"),  # after `jnp.zeros?`, `?jax.jit`, `jax.random.split??`
        (6, 5, 1, "JAX101"),   # after the autocall escapes `/print 1 2`, `,print a b`, `;print a b`
        (7, 5, 2, "JAX102"),   # a cell indented by a tab, with a string whose lines are not indented
    ],
}


def found(outcome) -> list[tuple[int, int, int, str]]:
    return [(d["cell"], d["location"]["row"], d["location"]["column"], d["code"])
            for d in json.loads(outcome.out)]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_notebook_findings(run, name: str) -> None:
    outcome = run("--output-format", "json", str(NOTEBOOKS / name))
    assert (found(outcome), outcome.err) == (EXPECTED[name], "")
    assert outcome.code == (1 if EXPECTED[name] else 0)


def test_text_names_the_cell_and_messages_point_into_cells(run) -> None:
    shutil.copy(NOTEBOOKS / "training.ipynb", "nb.ipynb")
    lines = run("nb.ipynb").out.splitlines()
    assert [line.split(" ", 3)[:3] for line in lines[:-1]] == [
        ["nb.ipynb:cell", "4:4:27:", "JAX202"],
        ["nb.ipynb:cell", "5:5:8:", "JAX301"],
        ["nb.ipynb:cell", "5:6:9:", "JAX306"],
        ["nb.ipynb:cell", "7:1:1:", "JAX505"],
        ["nb.ipynb:cell", "7:5:38:", "JAX201"],
        ["nb.ipynb:cell", "10:9:5:", "JAX101"],
    ]
    assert lines[4] == (
        "nb.ipynb:cell 7:5:38: JAX201 `key` was already consumed by `jax.random.uniform` at line 4 of cell 7; "
        "`jax.random.normal` gets the same random bits")
    assert "transformed by `jax.jit` at line 1 of cell 5)" in run("--output-format", "full", "nb.ipynb").out
    assert lines[-1] == (
        "Found 6 findings (1 file checked); 1 fixable with `--fix`, 1 more with `--unsafe-fixes`.")


def notebook(*cells: tuple[str, str], metadata: dict | None = None) -> str:
    """A notebook as Jupyter writes it (indent 1, source as a list of lines)."""
    return json.dumps({
        "cells": [{"cell_type": kind, "metadata": {}, "source": text.splitlines(keepends=True),
                   **({"execution_count": None, "outputs": []} if kind == "code" else {})}
                  for kind, text in cells],
        "metadata": {"kernelspec": {"language": "python", "name": "python3"}} if metadata is None else metadata,
        "nbformat": 4, "nbformat_minor": 5,
    }, indent=1) + "\n"


def test_analysis_sees_every_cell_and_reports_in_each(run) -> None:
    write(Path("nb.ipynb"), notebook(
        ("code", "import jax\nimport jax.numpy as jnp"),
        ("markdown", "The step function:"),
        ("code", "@jax.jit\ndef step(x):\n    if x > 0:\n        x = -x\n    return x"),
        ("code", "y = jnp.ones(2)\n\ny[0] = 3\n"),
    ))
    outcome = run("--output-format", "json", "nb.ipynb")
    assert found(outcome) == [(3, 3, 8, "JAX301"), (4, 3, 1, "JAX101")]
    assert [d["noqa_row"] for d in json.loads(outcome.out)] == [3, 3]


def test_a_cells_last_expression_is_displayed_so_its_update_is_not_discarded(run) -> None:
    """Jupyter shows the value of a cell's last expression (unless a `;` ends it): `x.at[0].set(1.0)` there is
    a look at the new array, not a lost update."""
    write(Path("nb.ipynb"), notebook(
        ("code", "import jax.numpy as jnp\nx = jnp.zeros(3)"),
        ("code", "x.at[0].set(1.0)"),
        ("code", "x.at[1].set(2.0);"),
        ("code", "x.at[2].set(3.0)\nprint(x)"),
        ("markdown", "the last code cell ends the notebook"),
        ("code", "y = x + 1\ny.at[0].set(0.0)"),
    ))
    result = run("--output-format", "concise", "nb.ipynb")
    assert [line.split(" the result")[0] for line in result.out.splitlines()] == [
        "nb.ipynb:cell 3:1:1: JAX102",
        "nb.ipynb:cell 4:1:1: JAX102",
    ]


def test_each_cell_restarts_from_the_notebooks_key_but_reuse_within_a_cell_is_found(run) -> None:
    write(Path("nb.ipynb"), notebook(
        ("code", "import jax\nkey = jax.random.key(0)"),
        ("code", "# experiment 1\nx = jax.random.normal(key, (100,))\nprint(x.mean())"),
        ("code", "# experiment 2: the same seed on purpose, a new run\ny = jax.random.uniform(key, (100,))"),
        ("code", "w = jax.random.normal(key, (3, 3))\nb = jax.random.normal(key, (3,))"),
    ))
    result = run("--output-format", "concise", "nb.ipynb")
    assert result.out.splitlines() == [
        "nb.ipynb:cell 4:2:23: JAX201 `key` was already consumed by `jax.random.normal` at line 1 of cell 4; "
        "`jax.random.normal` gets the same random bits"]


def test_a_cell_sees_the_binding_made_before_it_not_a_later_cells_def(run) -> None:
    # Cells run in order: cell 2's `jax.grad(loss_fn)` gets the lambda; the tuple-returning def of cell 3 rebinds
    # the name only after it (hypernerf sdf_2d.ipynb). Cell 4 runs after that def: its grad gets the def.
    write(Path("nb.ipynb"), notebook(
        ("code", "import jax\nimport jax.numpy as jnp"),
        ("code", "loss_fn = lambda x: x**2\ny = jax.vmap(jax.grad(loss_fn))(jnp.linspace(0.0, 1.0, 3))"),
        ("code", "@jax.jit\ndef loss_fn(p):\n    return p.sum(), {'l': p.sum()}"),
        ("code", "g = jax.grad(loss_fn)(jnp.ones(2))"),
    ))
    assert run("--output-format", "concise", "nb.ipynb").out.splitlines() == [
        "nb.ipynb:cell 4:1:5: JAX601 `jax.grad` needs `loss_fn` to return a scalar, but it returns a tuple at line 3 "
        "of cell 3"]


def test_json_of_a_notebook_finding_is_ruff_style_with_a_cell(run) -> None:
    write(Path("nb.ipynb"), notebook(("markdown", "# title"), ("code", JAX101_SOURCE)))
    assert json.loads(run("--output-format", "json", "nb.ipynb").out) == [{
        "code": "JAX101",
        "message": JAX101_MESSAGE,
        "filename": str(Path("nb.ipynb").resolve()),
        "location": {"row": 3, "column": 1},
        "end_location": {"row": 3, "column": 5},
        "fix": {"applicability": "safe", "message": "use `x = x.at[0].set(1)`", "edits": [{
            "content": "x = x.at[0].set(1)",  # cell-relative, like the finding, and naming its cell
            "location": {"row": 3, "column": 1}, "end_location": {"row": 3, "column": 9}, "cell": 2}]},
        "url": None,
        "noqa_row": 3,
        "cell": 2,
        "evidence": [],
    }]


def test_sarif_names_the_cell_and_is_valid(run) -> None:
    write(Path("nb.ipynb"), notebook(("markdown", "# title"), ("code", JAX101_SOURCE)))
    write(Path("a.py"), JAX101_SOURCE)
    log = json.loads(run("--output-format", "sarif", "nb.ipynb", "a.py").out)
    assert_valid_sarif(log)
    in_notebook, in_file = log["runs"][0]["results"]
    assert in_notebook["locations"] == [{
        "physicalLocation": {"artifactLocation": {"uri": "nb.ipynb", "uriBaseId": "%SRCROOT%"}},
        "logicalLocations": [{"name": "cell 2", "fullyQualifiedName": "nb.ipynb:cell 2"}],
    }]
    assert in_notebook["properties"] == {
        "cell": 2, "cellRegion": {"startLine": 3, "startColumn": 1, "endLine": 3, "endColumn": 5},
        "cellFix": {"description": "use `x = x.at[0].set(1)` (safe)", "replacements": [
            {"deletedRegion": {"startLine": 3, "startColumn": 1, "endLine": 3, "endColumn": 9},
             "insertedContent": {"text": "x = x.at[0].set(1)"}, "properties": {"cell": 2}}]}}
    assert "fixes" not in in_notebook and in_file["fixes"][0]["artifactChanges"][0]["replacements"] == [
        {"deletedRegion": {"startLine": 3, "startColumn": 1, "endLine": 3, "endColumn": 9},
         "insertedContent": {"text": "x = x.at[0].set(1)"}}]
    assert in_file["locations"][0]["physicalLocation"]["region"]["startLine"] == 3
    assert "properties" not in in_file


def test_github_annotates_the_notebook_file_and_names_the_cell(run) -> None:
    write(Path("nb.ipynb"), notebook(("markdown", "# title"), ("code", JAX101_SOURCE)))
    assert run("--output-format", "github", "nb.ipynb").out == (
        f"::error file=nb.ipynb,title=JAX101::cell 2:3:1: JAX101 {JAX101_MESSAGE}\n")


def test_noqa_in_a_cell_and_file_level_noqa_in_any_cell(run) -> None:
    write(Path("line.ipynb"), notebook(("code", JAX101_SOURCE.replace("x[0] = 1", "x[0] = 1  # noqa: JAX101"))))
    write(Path("file.ipynb"), notebook(("code", JAX101_SOURCE), ("code", "# jaxlint: noqa\n")))
    assert run("line.ipynb", "file.ipynb").out == "All checks passed (2 files checked).\n"


def test_syntax_error_in_a_cell_is_jax001_in_that_cell(run) -> None:
    write(Path("nb.ipynb"), notebook(("code", "import jax"), ("code", "def f(:\n    pass")))
    assert found(run("--output-format", "json", "nb.ipynb")) == [(2, 1, 7, "JAX001")]


def test_a_line_that_a_syntax_error_names_is_named_in_its_cell(run) -> None:
    """Python's message names the line of the statement the error follows; in a notebook, by its cell."""
    write(Path("nb.ipynb"), notebook(("code", "import jax\nx = 1\ny = 2"), ("code", "z = 3\nfor i in range(3):\n\nprint(i)")))
    [error] = json.loads(run("--output-format", "json", "nb.ipynb").out)
    assert (error["cell"], error["location"]["row"], error["message"]) == (
        2, 4, "syntax error: expected an indented block after 'for' statement on line 2 of cell 2")


def test_folders_are_searched_for_notebooks_and_the_prefilter_reads_code_cells_only(run) -> None:
    write(Path("src/a.ipynb"), notebook(("code", JAX101_SOURCE)))
    write(Path("src/no_jax.ipynb"), notebook(("markdown", "We use jax here."), ("code", "x = [1]\nx[0] = 2")))
    write(Path("src/b.py"), JAX101_SOURCE)
    outcome = run(".")
    assert outcome.out == (
        f"src/a.ipynb:cell 1:3:1: JAX101 [*] {JAX101_MESSAGE}\n"
        f"src/b.py:3:1: JAX101 [*] {JAX101_MESSAGE}\n"
        "Found 2 findings (3 files checked, 1 without jax skipped); 2 fixable with `--fix`.\n")


def test_a_notebook_in_another_language_is_skipped_with_a_note(run) -> None:
    r_kernel = {"kernelspec": {"language": "R", "name": "ir"}, "language_info": {"name": "R"}}
    write(Path("r.ipynb"), notebook(("code", "library(jax)\nx[0] <- 1"), metadata=r_kernel))
    outcome = run("r.ipynb")
    assert (outcome.code, outcome.out) == (0, "All checks passed (1 file checked).\n")
    assert outcome.err == "jaxlint: note: r.ipynb: skipped: a notebook in R, not Python\n"



@pytest.mark.parametrize("language", ["python3", "Python 3", "ipython3", "Python"])
def test_a_kernel_language_naming_python_with_a_version_is_python(run, language: str) -> None:
    write(Path("nb.ipynb"), notebook(("code", JAX101_SOURCE), metadata={"kernelspec": {"language": language}}))
    assert run("--output-format", "concise", "nb.ipynb").out == f"nb.ipynb:cell 1:3:1: JAX101 [*] {JAX101_MESSAGE}\n"


@pytest.mark.parametrize("language", ["julia", "R", "pythonic-dsl"])
def test_a_kernel_language_that_is_not_python_is_skipped(run, language: str) -> None:
    write(Path("nb.ipynb"), notebook(("code", JAX101_SOURCE), metadata={"kernelspec": {"language": language}}))
    assert run("nb.ipynb").err == f"jaxlint: note: nb.ipynb: skipped: a notebook in {language}, not Python\n"


INVALID = {
    "bad_json.ipynb": ('{\n "cells": [\n  {"cell_type": "code",}\n ]\n}\n',
                       3, 24, "not JSON: Expecting property name enclosed in double quotes"),
    "not_utf8.ipynb": (b'{"cells": [], "nbformat": 4, "x": "\xff"}', 1, 1, "not UTF-8 (byte 0xff)"),
    "a_list.ipynb": ("[]", 1, 1, "the top level is not a JSON object"),
    "v3.ipynb": ('{"nbformat": 3, "worksheets": []}', 1, 1,
                 "nbformat 3; jaxlint reads nbformat 4 (convert it with `jupyter nbconvert`)"),
    "no_version.ipynb": ('{"cells": []}', 1, 1,
                         "nbformat None; jaxlint reads nbformat 4 (convert it with `jupyter nbconvert`)"),
    "no_cells.ipynb": ('{"nbformat": 4, "metadata": {}}', 1, 1, "no `cells` list"),
    "cells_not_list.ipynb": ('{"nbformat": 4, "cells": {}}', 1, 1, "no `cells` list"),
    "cell_not_object.ipynb": ('{"nbformat": 4, "cells": ["import jax"]}', 1, 1,
                              "cell 1 is not an object with a `cell_type`"),
    "no_source.ipynb": ('{"nbformat": 4, "cells": [{"cell_type": "markdown", "source": ""},'
                        ' {"cell_type": "code"}]}', 1, 1, "cell 2 has no `source` string or list of strings"),
    "source_of_numbers.ipynb": ('{"nbformat": 4, "cells": [{"cell_type": "code", "source": ["x", 1]}]}', 1, 1,
                                "cell 1 has no `source` string or list of strings"),
}


def test_each_invalid_notebook_is_one_jax001_and_the_run_goes_on(run) -> None:
    for name, (content, *_) in INVALID.items():
        path = Path("bad") / name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    write(Path("bad/good.py"), JAX101_SOURCE)
    outcome = run("--output-format", "json", "bad")
    assert outcome.code == 1 and outcome.err == ""
    reported = {(Path(d["filename"]).name, d["location"]["row"], d["location"]["column"], d["code"], d["cell"],
                 d["message"]) for d in json.loads(outcome.out)}
    assert reported == {
        (name, row, col, "JAX001", None, f"not a valid Jupyter notebook: {reason}")
        for name, (_, row, col, reason) in INVALID.items()
    } | {("good.py", 3, 1, "JAX101", None, JAX101_MESSAGE)}


def test_a_missing_notebook_is_jax003(run) -> None:
    assert run("gone.ipynb").out.startswith("gone.ipynb:1:1: JAX003 no such file or directory\n")


def test_findings_sort_by_cell_before_row() -> None:
    """Rows restart in each cell, so a sort by row alone (as --verify does) would mix the cells."""
    in_cell_3 = Diagnostic("nb.ipynb", 1, 1, "JAX101", "m", 1, 2, cell=3)
    in_cell_2 = Diagnostic("nb.ipynb", 5, 1, "JAX101", "m", 5, 2, cell=2)
    in_script = Diagnostic("a.py", 9, 1, "JAX101", "m", 9, 2)
    assert [(d.filename, d.cell) for d in sorted([in_cell_3, in_cell_2, in_script])] == [
        ("a.py", None), ("nb.ipynb", 2), ("nb.ipynb", 3)]


# --- IPython syntax, line by line ---------------------------------------------------------------------


@pytest.mark.parametrize("lines, python", [
    (["%matplotlib inline", "import jax"], ["pass", "import jax"]),
    (["!pip install jax", "files = !ls", "t = %timeit -o f()", "a, b = !echo 1 2"], ["pass"] * 4),
    (["jnp.zeros?", "?jax.jit", "jax.random.*key*??"], ["pass"] * 3),
    (["%pip install \\", "    jax optax", "x = 1"], ["pass", "pass", "x = 1"]),
    # Automagic (round 137's jax-raytracing): a line magic without `%`, never Python; `pip in x`, `cd = 1` are.
    (["pip install jax", "conda install -c conda-forge jax", "cd /content/drive", "pip in x", "cd = 1"],
     ["pass", "pass", "pass", "pip in x", "cd = 1"]),
    # A timing magic of simple statements runs them: they stay, where they were, after a `pass` in the magic's place.
    (["for i in range(3):", "    %time f(i)"], ["for i in range(3):", "    pass; f(i)  # %% %time of IPython"]),
    (["%timeit -n 10 -r3 f(x)", "%time y = g(x)  # once"],
     ["pass;             f(x)  # %% %timeit of IPython", "pass; y = g(x)  # once  # %% %time of IPython"]),
    (["%timeit for i in range(3): f(i)", "%time", "%timeit f(x) \\", "    + 1", "%timeit f("], ["pass"] * 5),
    # Python, not IPython: a modulo on a continuation line, `!=`, `==`, a comment, a help-like string.
    (["y = (x", "     % 2)", "z = x != 1", "w = x == 2  # why?", 's = """', "!not a shell", '"""'],
     ["y = (x", "     % 2)", "z = x != 1", "w = x == 2  # why?", 's = """', "!not a shell", '"""']),
    (["%%time", "x = f()"], ["pass  # %% %%time of IPython", "x = f()"]),  # (the cell it times: JAX505)
    (["", "%%bash", "echo jax"], None),
    # IPython dedents a cell indented as a whole (by its first line that is not blank), then reads it.
    (["", "  x = 1", "  if x:", "      %time f()", "", "  y = \"\"\"", "z\"\"\""],
     ["", "x = 1", "if x:", "    pass; f()  # %% %time of IPython", "", "y = \"\"\"", "z\"\"\""]),
    (["\t/print 1 2", "\t,f a", "\t;f a b"], ["pass"] * 3),
    (["f(1,", ",2)", "x = (1", "/2)"], ["f(1,", ",2)", "x = (1", "/2)"]),
    (["%%writefile helper.py", "import jax"], None),
    # An assignment target spanning lines, assigned a magic's value: the target stays, its value is None.
    (["t[", "    'a'", "] = %timeit -o f()", "u = (t", ") = !ls"], ["t[", "    'a'", "] = None", "u = (t", ") = None"]),
    # Python: a comparison after a closing bracket, a modulo on a continuation line.
    (["y = (x", ") == 1", "z = [x", "] % 2"], ["y = (x", ") == 1", "z = [x", "] % 2"]),
])
def test_ipython_syntax_becomes_pass_line_for_line(lines: list[str], python: list[str] | None) -> None:
    assert python_lines(lines) == python


# --- --fix --------------------------------------------------------------------------------------------


def test_fix_pair_byte_for_byte_across_cells(run) -> None:
    """fixable.unsafe.ipynb: fixes in three cells, one adding `import jax` to the imports cell (every
    later cell moves down a row in the program), magics kept, a cell whose source is one string."""
    shutil.copy(NOTEBOOKS / "fixable.unsafe.ipynb", "nb.ipynb")
    outcome = run("--fix", "--unsafe-fixes", "nb.ipynb")
    remaining = (  # the `%%time` cell's unwaited `step(x)`, which no fix waits for
        "nb.ipynb:cell 4:1:1: JAX505 `%%time` times the cell's jax work, which runs asynchronously, and nothing in "
        "the cell waits for its result\n"
    )
    assert (outcome.code, outcome.out) == (1, remaining + "Found 6 findings (5 fixed, 1 remaining; 1 file checked).\n")
    assert Path("nb.ipynb").read_bytes() == (NOTEBOOKS / "fixable.unsafe.fixed.ipynb").read_bytes()
    again = run("--fix", "--unsafe-fixes", "nb.ipynb")
    assert (again.code, again.out) == (1, remaining + "Found 1 finding (1 file checked).\n")
    assert Path("nb.ipynb").read_bytes() == (NOTEBOOKS / "fixable.unsafe.fixed.ipynb").read_bytes()


def test_fix_leaves_the_cells_whose_saved_outputs_show_the_finding(run) -> None:
    """lesson.ipynb fails on purpose in cell 3 and prints a tracer from cell 4 (its output under cell 5): those
    cells stay as the lesson wrote them; cells 7-9, whose outputs show nothing of their findings, are fixed."""
    shutil.copy(NOTEBOOKS / "lesson.ipynb", "nb.ipynb")
    outcome = run("--fix", "--unsafe-fixes", "nb.ipynb")
    assert outcome.out == "Found 3 findings (3 fixed, 0 remaining; 1 file checked).\n"
    before = json.loads((NOTEBOOKS / "lesson.ipynb").read_text())["cells"]
    after = json.loads(Path("nb.ipynb").read_text())["cells"]
    assert [after[i]["source"] == before[i]["source"] for i in (2, 3, 4, 6, 7, 8)] == [
        True, True, True, False, False, False
    ]
    assert after[6]["source"] == ["y = jnp.zeros(3)\n", "y = y.at[1].set(2.0)"]


def test_fix_reports_what_remains_in_cells_of_the_fixed_notebook(run) -> None:
    write(Path("nb.ipynb"), notebook(
        ("code", "from jax import jit\nimport jax.numpy as jnp"),
        ("code", "@jit\ndef f(x):\n    print(x)\n    return x"),
        ("code", "y = jnp.ones(2)\ny[0] = 1\ny.at[1].set(2)\nprint(y)")))
    outcome = run("--fix", "--unsafe-fixes", "--select", "JAX306,JAX101", "nb.ipynb")
    assert outcome.out == "Found 2 findings (2 fixed, 0 remaining; 1 file checked).\n"
    # `import jax` went after the imports in cell 1; the JAX102 left in cell 3 is still at its row there.
    outcome = run("--output-format", "json", "nb.ipynb")
    assert found(outcome) == [(3, 3, 1, "JAX102")]
    cells = json.loads(Path("nb.ipynb").read_text())["cells"]
    assert cells[0]["source"] == ["from jax import jit\n", "import jax.numpy as jnp\n", "import jax"]
    assert cells[1]["source"][2] == '    jax.debug.print("{}", x)\n'


@pytest.mark.parametrize("indent, ascii_only, end", [(2, True, ""), (4, False, "\n"), (None, False, "")])
def test_fix_keeps_the_json_layout(run, indent: int | None, ascii_only: bool, end: str) -> None:
    document = json.loads(notebook(("markdown", "Schätzung — naïve"), ("code", JAX101_SOURCE)))
    Path("nb.ipynb").write_text(json.dumps(document, indent=indent, ensure_ascii=ascii_only) + end, "utf-8")
    assert run("--fix", "nb.ipynb").code == 0
    document["cells"][1]["source"][2] = "x = x.at[0].set(1)\n"
    assert Path("nb.ipynb").read_text("utf-8") == json.dumps(document, indent=indent, ensure_ascii=ascii_only) + end


def test_a_notebook_in_a_layout_jaxlint_cannot_write_back_is_left_alone(run) -> None:
    hand_written = notebook(("code", JAX101_SOURCE)).replace('"nbformat": 4', '"nbformat":   4')
    write(Path("nb.ipynb"), hand_written)
    outcome = run("--fix", "nb.ipynb")
    assert outcome.code == 1
    assert outcome.err == (
        "jaxlint: nb.ipynb: not fixed: jaxlint cannot rewrite this notebook's JSON in its own layout\n")
    assert outcome.out.startswith("nb.ipynb:cell 1:3:1: JAX101 [*] ")
    assert Path("nb.ipynb").read_text() == hand_written


def test_diff_of_a_notebook_is_of_its_json_and_writes_nothing(run) -> None:
    original = write(Path("nb.ipynb"), notebook(("code", JAX101_SOURCE))).read_text()
    outcome = run("--diff", "nb.ipynb")
    assert outcome.code == 1
    assert '-    "x[0] = 1\\n"\n+    "x = x.at[0].set(1)\\n"\n' in outcome.out
    assert outcome.out.startswith("--- a/nb.ipynb\n+++ b/nb.ipynb\n")
    assert Path("nb.ipynb").read_text() == original


def test_fix_in_an_indented_cell_keeps_its_indentation(run) -> None:
    write(Path("nb.ipynb"), notebook(("code", "  import jax.numpy as jnp\n  x = jnp.zeros(3)\n  x[0] = 1\n  %time x")))
    outcome = run("--output-format", "json", "nb.ipynb")
    assert found(outcome) == [(1, 3, 3, "JAX101")]
    edits = json.loads(outcome.out)[0]["fix"]["edits"]
    assert edits == [{"content": "x = x.at[0].set(1)", "location": {"row": 3, "column": 3},
                      "end_location": {"row": 3, "column": 11}, "cell": 1}]
    assert run("--fix", "nb.ipynb").code == 0
    assert json.loads(Path("nb.ipynb").read_text())["cells"][0]["source"] == [
        "  import jax.numpy as jnp\n", "  x = jnp.zeros(3)\n", "  x = x.at[0].set(1)\n", "  %time x"]


def test_jupyter_checkpoints_are_excluded_by_default(run) -> None:
    write(Path("nb.ipynb"), notebook(("code", JAX101_SOURCE)))
    write(Path(".ipynb_checkpoints/nb-checkpoint.ipynb"), notebook(("code", JAX101_SOURCE)))
    outcome = run("--output-format", "json", ".")
    assert [(d["filename"], d["cell"], d["code"]) for d in json.loads(outcome.out)] == [
        (str(Path("nb.ipynb").resolve()), 1, "JAX101")]


# --- fix edits in the output formats ------------------------------------------------------------------

FIX_ACROSS_CELLS = (("code", "import jax.numpy as jnp\nfrom jax import jit"),
                    ("code", "@jit\ndef f(x):\n    print(x)\n    return x"))


def _apply(cells: list[str], edits: list[dict]) -> list[str]:
    """Each edit applied to the cell it names, last first (rows and columns from 1, as printed)."""
    for edit in sorted(edits, key=lambda e: (e["cell"], e["location"]["row"], e["location"]["column"]),
                       reverse=True):
        lines = cells[edit["cell"] - 1].split("\n")
        start = sum(len(line) + 1 for line in lines[:edit["location"]["row"] - 1]) + edit["location"]["column"] - 1
        end = sum(len(line) + 1 for line in lines[:edit["end_location"]["row"] - 1]) + edit["end_location"]["column"] - 1
        text = cells[edit["cell"] - 1]
        cells[edit["cell"] - 1] = text[:start] + edit["content"] + text[end:]
    return cells


def test_fix_edits_name_their_cell_in_json_and_applying_them_is_what_fix_writes(run) -> None:
    write(Path("nb.ipynb"), notebook(*FIX_ACROSS_CELLS))
    outcome = run("--output-format", "json", "--unsafe-fixes", "nb.ipynb")
    [finding] = json.loads(outcome.out)
    assert (finding["cell"], finding["location"]) == (2, {"row": 3, "column": 5})
    # `import jax` goes after the imports, at the end of cell 1: never a row 0 of cell 2.
    assert finding["fix"]["edits"] == [
        {"content": "\nimport jax", "location": {"row": 2, "column": 20}, "end_location": {"row": 2, "column": 20},
         "cell": 1},
        {"content": 'jax.debug.print("{}", x)', "location": {"row": 3, "column": 5},
         "end_location": {"row": 3, "column": 13}, "cell": 2},
    ]
    applied = _apply([text for _, text in FIX_ACROSS_CELLS], finding["fix"]["edits"])
    assert run("--fix", "--unsafe-fixes", "nb.ipynb").code == 0
    assert ["".join(cell["source"]) for cell in json.loads(Path("nb.ipynb").read_text())["cells"]] == applied


def test_sarif_fix_edits_of_a_notebook_are_cell_relative_properties(run) -> None:
    write(Path("nb.ipynb"), notebook(*FIX_ACROSS_CELLS))
    log = json.loads(run("--output-format", "sarif", "nb.ipynb").out)
    assert_valid_sarif(log)
    [result] = log["runs"][0]["results"]
    assert "fixes" not in result  # a SARIF region counts lines of the .ipynb file, not of a cell
    assert result["properties"] == {
        "cell": 2, "cellRegion": {"startLine": 3, "startColumn": 5, "endLine": 3, "endColumn": 13},
        "cellFix": {"description": "use `jax.debug.print` (unsafe)", "replacements": [
            {"deletedRegion": {"startLine": 2, "startColumn": 20, "endLine": 2, "endColumn": 20},
             "insertedContent": {"text": "\nimport jax"}, "properties": {"cell": 1}},
            {"deletedRegion": {"startLine": 3, "startColumn": 5, "endLine": 3, "endColumn": 13},
             "insertedContent": {"text": 'jax.debug.print("{}", x)'}, "properties": {"cell": 2}},
        ]},
    }
    assert '"startLine": 0' not in json.dumps(log) and '"row": 0' not in run("--output-format", "json",
                                                                          "nb.ipynb").out


def test_timed_statements_are_checked_and_fixed_in_their_magic(run) -> None:
    """`%timeit f(x)` runs `f(x)`: an unwaited jax call there times dispatch (JAX505), a fix inside it keeps the
    magic and its options, and what it draws is thrown away (no key reuse); `%time` runs its statement once, for
    good."""
    write(Path("nb.ipynb"), notebook(
        ("code", "import jax\nimport jax.numpy as jnp\nkey = jax.random.key(0)\nx = jnp.ones(3)"),
        ("code", "%timeit -n 3 jnp.dot(x, x)\n%timeit jnp.dot(x, x).block_until_ready()"),
        ("code", "%timeit jax.random.normal(key, (3,)).block_until_ready()\n"
                 "%timeit jax.random.normal(key, (4,)).block_until_ready()"),
        ("code", "%time a = jax.random.normal(key, (3,))\nb = jax.random.normal(key, (3,))"),
        ("code", "%timeit -n 2 jax.tree_map(lambda v: v, x)")))
    outcome = run("--output-format", "json", "nb.ipynb")
    assert found(outcome) == [(2, 1, 14, "JAX505"), (4, 1, 7, "JAX505"), (4, 2, 23, "JAX201"), (5, 1, 14, "JAX801")]
    run("--fix", "--select", "JAX801", "nb.ipynb")
    cells = json.loads(Path("nb.ipynb").read_text())["cells"]
    assert "".join(cells[4]["source"]) == "%timeit -n 2 jax.tree.map(lambda v: v, x)"


def test_a_cell_timed_by_its_magic_is_checked_as_a_timed_region(run) -> None:
    """`%%timeit` (or `%%time`) on a cell's first line times the rest of the cell: jax work that nothing there waits
    for is timed as dispatch (JAX505, at the magic); a cell that waits is not flagged, and a fix elsewhere in a timed
    cell keeps the magic line as written."""
    write(Path("nb.ipynb"), notebook(
        ("code", "import jax\nimport jax.numpy as jnp\nx = jnp.ones((3, 3))\nf = jax.jit(lambda a: a @ a)"),
        ("code", "%%timeit -n 3\ny = f(x)"),
        ("code", "%%timeit\nf(x).block_until_ready()"),
        ("code", "%%time\ny = jax.tree_map(lambda v: v, f(x))\njax.block_until_ready(y)"),
        ("code", "\n%%time\nfor _ in range(3):\n    y = f(x)")))
    outcome = run("--output-format", "json", "nb.ipynb")
    assert found(outcome) == [(2, 1, 1, "JAX505"), (4, 2, 5, "JAX801"), (5, 2, 1, "JAX505")]
    assert "`%%time` times the cell's jax work" in outcome.out
    run("--fix", "--select", "JAX801", "nb.ipynb")
    cells = json.loads(Path("nb.ipynb").read_text())["cells"]
    assert "".join(cells[3]["source"]) == "%%time\ny = jax.tree.map(lambda v: v, f(x))\njax.block_until_ready(y)"
