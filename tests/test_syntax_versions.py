"""Code is parsed as the Python version it is written for (`target-version`, else `requires-python`,
else the newest syntax jaxlint knows), not as the Python that runs jaxlint: 3.12-3.14 syntax is checked
on 3.10 and 3.11 too, and only what the code's own version cannot parse is JAX001."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from helpers import findings, jaxlint, write
from jaxlint.diagnostics import headline

SYNTAX = Path(__file__).resolve().parents[1] / "fixtures" / "syntax"
NEEDS = "(`target-version`, or `requires-python`)"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for fixture in SYNTAX.glob("py3*.py"):
        shutil.copy(fixture, tmp_path / fixture.name)
    return tmp_path


def test_new_syntax_is_checked_when_the_project_requires_that_python(project: Path) -> None:
    write(project / "pyproject.toml", '[project]\nname = "p"\nrequires-python = ">=3.14"\n')
    result = jaxlint(project, "--quiet", "--no-cache", "--output-format", "concise", ".")
    assert result.returncode == 1, result.stderr
    assert {(name, int(row), int(col), rest.split()[0])
            for name, row, col, rest in (line.split(":", 3) for line in result.stdout.splitlines())} == {
        ("py312.py", 17, 9, "JAX101"), ("py312.py", 27, 8, "JAX301"), ("py312.py", 29, 5, "JAX306"),
        ("py312.py", 30, 21, "JAX307"), ("py312.py", 36, 31, "JAX201"),
        ("py313.py", 15, 5, "JAX101"), ("py313.py", 16, 11, "JAX301"),
        ("py314.py", 16, 9, "JAX101"), ("py314.py", 23, 31, "JAX201"),
    }


@pytest.mark.parametrize(("config", "expected"), [
    ('[tool.jaxlint]\ntarget-version = "3.11"\n', [
        ("py312.py:7:1", "`type` statements need Python 3.12; the code's target version is 3.11"),
        ("py313.py:5:1", "`type` statements need Python 3.12; the code's target version is 3.11"),
        ("py314.py:7:12", "template strings (t-strings) need Python 3.14; the code's target version is 3.11"),
    ]),
    ('[tool.jaxlint]\ntarget-version = "3.12"\n', [
        ("py313.py:5:12", "type parameter defaults need Python 3.13; the code's target version is 3.12"),
        ("py314.py:7:12", "template strings (t-strings) need Python 3.14; the code's target version is 3.12"),
    ]),
    ('[project]\nname = "p"\nrequires-python = ">=3.10,<4"\n[tool.jaxlint]\n', [
        ("py312.py:7:1", "`type` statements need Python 3.12; the code's target version is 3.10"),
        ("py313.py:5:1", "`type` statements need Python 3.12; the code's target version is 3.10"),
        ("py314.py:7:12", "template strings (t-strings) need Python 3.14; the code's target version is 3.10"),
    ]),
    ('[project]\nname = "p"\nrequires-python = "~=3.13"\n', [
        ("py314.py:7:12", "template strings (t-strings) need Python 3.14; the code's target version is 3.13"),
    ]),
])
def test_only_syntax_the_target_version_lacks_is_jax001(project: Path, config: str, expected: list) -> None:
    write(project / "pyproject.toml", config)
    result = jaxlint(project, "--quiet", "--no-cache", "--select", "JAX001", ".")
    assert result.stdout == "".join(f"{where}: JAX001 {headline(f'syntax error: {what} {NEEDS}')}\n"
                                    for where, what in expected)


def test_older_syntax_gates(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.jaxlint]\ntarget-version = "3.10"\n')
    write(tmp_path / "m.py", "import jax\ntry:\n    pass\nexcept* ValueError:\n    pass\n"
                             "match jax.__version__:\n    case _:\n        pass\n")
    result = jaxlint(tmp_path, "--quiet", "--no-cache", "m.py")
    assert result.stdout == f"m.py:2:1: JAX001 syntax error: `except*` need Python 3.11; the code's target " \
                            f"version is 3.10 {NEEDS}\n"
    write(tmp_path / "pyproject.toml", '[tool.jaxlint]\ntarget-version = "3.9"\n')
    write(tmp_path / "m.py", "import jax\nmatch jax.__version__:\n    case _:\n        pass\n")
    result = jaxlint(tmp_path, "--quiet", "--no-cache", "m.py")
    assert result.stdout == "m.py:2:1: JAX001 syntax error: `match` statements need Python 3.10; the code's " \
                            "target version is 3.9\n"  # the line's headline: the config keys are in the full message


def test_a_real_syntax_error_in_new_syntax_code_is_still_jax001(tmp_path: Path) -> None:
    write(tmp_path / "m.py", "import jax\ntype X = int\ndef f(:\n    pass\n")
    result = jaxlint(tmp_path, "--quiet", "--no-cache", "m.py")
    if sys.version_info >= (3, 12):  # Python knows `type`: its own message, where it reports it
        assert result.stdout == "m.py:3:7: JAX001 syntax error: invalid syntax\n"
    else:  # Python would refuse the valid `type` line: libcst's message
        assert result.stdout == "m.py:4:1: JAX001 syntax error: expected one of ), *, **, NAME\n"


def test_a_tokenizer_error_is_where_python_finds_it(tmp_path: Path) -> None:
    # An f-string line may be newer syntax (PEP 701), so libcst's message stands; its tokenizer gives no position.
    write(tmp_path / "m.py", "import jax\nx = 1\nprint(f'train: {x} edges at l'epoch.')\n")
    result = jaxlint(tmp_path, "--quiet", "--no-cache", "--output-format", "json", "m.py")
    [error] = json.loads(result.stdout)
    assert (error["location"]["row"], error["message"]) == (3, "syntax error: tokenizer error: unterminated string literal")


def test_plain_syntax_errors_keep_pythons_message(tmp_path: Path) -> None:
    write(tmp_path / "m.py", "import jax\nx = (1,\ny = 2\n")
    result = jaxlint(tmp_path, "--quiet", "--no-cache", "m.py")
    assert result.stdout == "m.py:2:5: JAX001 syntax error: '(' was never closed\n"


@pytest.mark.parametrize("value", ['"3.1x"', '"py312"', "3.12", '"3"'])
def test_a_bad_target_version_stops_the_run(tmp_path: Path, value: str) -> None:
    write(tmp_path / "pyproject.toml", f"[tool.jaxlint]\ntarget-version = {value}\n")
    write(tmp_path / "m.py", "import jax\n")
    result = jaxlint(tmp_path, "m.py")
    assert result.returncode == 2
    assert result.stderr.startswith(f"jaxlint: error: [tool.jaxlint] in {tmp_path / 'pyproject.toml'}: "
                                    "'target-version' must be a Python version such as \"3.12\", got ")


def test_the_target_version_is_part_of_the_cache_key(project: Path) -> None:
    write(project / "pyproject.toml", '[tool.jaxlint]\ntarget-version = "3.14"\n')
    assert "JAX001" not in jaxlint(project, "--quiet", "py312.py").stdout
    write(project / "pyproject.toml", '[tool.jaxlint]\ntarget-version = "3.11"\n')
    assert jaxlint(project, "--quiet", "--select", "JAX001", "py312.py").stdout.startswith("py312.py:7:1: JAX001")


# --- nesting that would crash libcst's parser --------------------------------------------------------

@pytest.mark.parametrize(("body", "expected"), [
    ("x = [" + ", ".join(f"-{i}.5" for i in range(20_000)) + "]", set()),  # long, but flat
    ("x = (" + " +\n    ".join(["a.b"] * 2_000) + ")", set()),
    ("x = a" + ".b" * 5_000, {(1, 1, "JAX003")}),
    ("x = f" + "()" * 5_000, {(1, 1, "JAX003")}),
    ("x = " + "not " * 5_000 + "a", {(1, 1, "JAX003")}),
    ("x = " + " and ".join(["a"] * 5_000), {(1, 1, "JAX003")}),
    ("x = " + "{" * 201 + "}" * 201, {(2, 205, "JAX001")}),
])
def test_nesting_guard(tmp_path: Path, body: str, expected: set) -> None:
    write(tmp_path / "m.py", f"import jax\n{body}\n")
    result = jaxlint(tmp_path, "--quiet", "--no-cache", "m.py")
    assert (result.returncode, result.stderr) == (1 if expected else 0, "")
    assert findings(result.stdout) == expected


def test_the_parse_skips_node_validation_only_for_its_own_nodes() -> None:
    """jaxlint parses without libcst's per-node validation (the parser's nodes are valid as built): the
    tree is the one libcst's own parse gives, and a node built by hand afterwards is validated again,
    after a syntax error too."""
    import libcst as cst

    from jaxlint.files import InputError
    from jaxlint.syntax import NEWEST, parse

    for source in (path.read_text(encoding="utf-8") for path in sorted(SYNTAX.glob("py3*.py"))):
        assert parse(source, NEWEST).deep_equals(cst.parse_module(source))
    with pytest.raises(InputError):
        parse("x = (\n", NEWEST)
    with pytest.raises(cst.CSTValidationError):
        cst.Name("1x")


@pytest.mark.parametrize(("source", "target", "what"), [
    ("try:\n    pass\nexcept ValueError, TypeError:\n    pass\n", (3, 13), "`except` with several"),
    ("try:\n    pass\nexcept* ValueError, TypeError:\n    pass\n", (3, 13), "`except*` with several"),
    ("match x:  # the subject\n    case _:\n        pass\n", (3, 9), "`match` statements"),
    ("type Pair = tuple[int, int]\n", (3, 11), "`type` statements"),
    ("def first[T](xs: list[T]) -> T:\n    return xs[0]\n", (3, 11), "type parameter lists"),
    ("class Box[T]:\n    pass\n", (3, 11), "type parameter lists"),
    ("name = 'x'\ngreeting = t'hi {name}'\n", (3, 13), "template strings"),
])
def test_each_newer_form_is_found_for_an_older_target(source: str, target: tuple[int, int], what: str) -> None:
    from jaxlint.files import InputError
    from jaxlint.syntax import parse

    with pytest.raises(InputError) as raised:
        parse(source, target)
    assert (raised.value.code, raised.value.message.startswith(f"syntax error: {what}")) == ("JAX001", True)


def test_names_like_newer_keywords_are_no_newer_syntax() -> None:
    """`match`, `type` and `except` as most modules write them: parsed for the oldest target, no error."""
    from jaxlint.syntax import parse

    source = ("import re\nmatch = re.match('a', 'a')\ntype = 3\ntry:\n    pass\nexcept (ValueError, TypeError):\n"
              "    pass\nexcept ValueError as error:\n    pass\n")
    assert parse(source, (3, 8)).code == source
