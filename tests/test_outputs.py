"""Output formats: text, json, sarif (valid against the SARIF 2.1.0 schema), github. 1-based everywhere."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from helpers import CLEAN_SOURCE, JAX101_MESSAGE, JAX101_SOURCE, jaxlint
from jaxlint import __version__
from jaxlint.checks import ALL_RULES, BY_CODE

ROOT = Path(__file__).resolve().parents[1]
SARIF_SCHEMA = Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json"  # see tests/data/README.md

JAX102_MESSAGE = (
    "the result of `.at[...].set(...)` is discarded: JAX arrays are immutable, so `x` is unchanged; "
    "assign it: `x = x.at[1].set(2)`"
)
# Its text line: what is wrong, without the fix's code (the whole message is in JSON, SARIF and the full format).
JAX102_HEADLINE = "the result of `.at[...].set(...)` is discarded: JAX arrays are immutable, so `x` is unchanged"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """a.py: one JAX101 at 3:1-3:5; b.py: a JAX101 at 3:1 and a JAX102 at 4:1-4:15; clean.py: nothing."""
    (tmp_path / "a.py").write_text(JAX101_SOURCE)
    (tmp_path / "b.py").write_text(JAX101_SOURCE + "x.at[1].set(2)\n")
    (tmp_path / "clean.py").write_text(CLEAN_SOURCE)
    return tmp_path


# --- text ---------------------------------------------------------------------------------------------


def test_text_exact(project: Path) -> None:
    result = jaxlint(project, "a.py")
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout == f"a.py:3:1: JAX101 [*] {JAX101_MESSAGE}\nFound 1 finding (1 file checked); 1 fixable with `--fix`.\n"


def test_text_several_files_in_order(project: Path) -> None:
    result = jaxlint(project, ".")
    assert result.returncode == 1
    assert result.stdout == (
        f"a.py:3:1: JAX101 [*] {JAX101_MESSAGE}\n"
        f"b.py:3:1: JAX101 [*] {JAX101_MESSAGE}\n"
        f"b.py:4:1: JAX102 {JAX102_HEADLINE}\n"
        "Found 3 findings (3 files checked); 2 fixable with `--fix`, 1 more with `--unsafe-fixes`.\n"
    )


def test_text_clean(project: Path) -> None:
    result = jaxlint(project, "clean.py")
    assert (result.returncode, result.stdout) == (0, "All checks passed (1 file checked).\n")


# --- json ---------------------------------------------------------------------------------------------


def test_json_exact(project: Path) -> None:
    result = jaxlint(project, "--output-format", "json", "a.py")
    assert (result.returncode, result.stderr) == (1, "")
    found = json.loads(result.stdout)  # nothing but the JSON document on stdout: no summary line
    assert found == [{
        "code": "JAX101",
        "message": JAX101_MESSAGE,
        "filename": str(project.resolve() / "a.py"),
        "location": {"row": 3, "column": 1},
        "end_location": {"row": 3, "column": 5},
        "fix": {
            "applicability": "safe",
            "message": "use `x = x.at[0].set(1)`",
            "edits": [{"content": "x = x.at[0].set(1)",
                       "location": {"row": 3, "column": 1}, "end_location": {"row": 3, "column": 9}}],
        },
        "url": None,  # no `docs-url` configured: no link to a page that may not exist
        "noqa_row": 3,
        "cell": None,
        "evidence": [],  # a value jaxlint knows without a chain of steps
    }]


DOCS_URL = "https://docs.example.org/jaxlint/rules/{code}.html"


def test_json_links_each_finding_to_the_configured_docs_url(project: Path) -> None:
    (project / "pyproject.toml").write_text(f'[tool.jaxlint]\ndocs-url = "{DOCS_URL}"\n')
    found = json.loads(jaxlint(project, "--output-format", "json", ".").stdout)
    assert [(d["code"], d["url"]) for d in found] == [
        ("JAX101", "https://docs.example.org/jaxlint/rules/JAX101.html"),
        ("JAX101", "https://docs.example.org/jaxlint/rules/JAX101.html"),
        ("JAX102", "https://docs.example.org/jaxlint/rules/JAX102.html"),
    ]


def test_json_several_findings(project: Path) -> None:
    found = json.loads(jaxlint(project, "--output-format", "json", ".").stdout)
    assert [(Path(d["filename"]).name, d["code"], d["location"], d["end_location"]) for d in found] == [
        ("a.py", "JAX101", {"row": 3, "column": 1}, {"row": 3, "column": 5}),
        ("b.py", "JAX101", {"row": 3, "column": 1}, {"row": 3, "column": 5}),
        ("b.py", "JAX102", {"row": 4, "column": 1}, {"row": 4, "column": 15}),
    ]
    for finding in found:
        assert set(finding) == {"code", "message", "filename", "location", "end_location", "fix", "url",
                                "noqa_row", "cell", "evidence"}
        assert Path(finding["filename"]).is_absolute()
        assert finding["url"] is None
        assert finding["noqa_row"] == finding["location"]["row"]
    assert [finding["fix"]["applicability"] for finding in found] == ["safe", "safe", "unsafe"]


def test_json_clean_is_an_empty_list(project: Path) -> None:
    result = jaxlint(project, "--output-format", "json", "clean.py")
    assert (result.returncode, result.stdout) == (0, "[]\n")


def test_json_filename_is_absolute_from_a_subfolder(project: Path) -> None:
    (project / "sub").mkdir()
    found = json.loads(jaxlint(project / "sub", "--output-format", "json", "../a.py").stdout)
    assert [d["filename"] for d in found] == [str(project.resolve() / "a.py")]


# --- sarif --------------------------------------------------------------------------------------------


def sarif_validator():
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def assert_valid_sarif(log: dict) -> None:
    errors = sorted(sarif_validator().iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])


def test_sarif_is_valid_and_exact(project: Path) -> None:
    result = jaxlint(project, "--output-format", "sarif", "a.py")
    assert (result.returncode, result.stderr) == (1, "")
    log = json.loads(result.stdout)
    assert_valid_sarif(log)
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("jaxlint", __version__)
    (finding,) = run["results"]
    assert finding["ruleId"] == "JAX101"
    assert driver["rules"][finding["ruleIndex"]]["id"] == "JAX101"
    assert finding["message"]["text"] == JAX101_MESSAGE
    assert finding["level"] == "error"
    (location,) = finding["locations"]
    physical = location["physicalLocation"]
    assert physical["region"] == {"startLine": 3, "startColumn": 1, "endLine": 3, "endColumn": 5}
    assert physical["artifactLocation"] == {"uri": "a.py", "uriBaseId": "%SRCROOT%"}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"
    assert run.get("columnKind") == "unicodeCodePoints"


def test_sarif_rule_metadata(project: Path) -> None:
    log = json.loads(jaxlint(project, "--output-format", "sarif", "a.py").stdout)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == [rule.code for rule in ALL_RULES]
    by_id = {rule["id"]: rule for rule in rules}
    jax101 = by_id["JAX101"]
    assert jax101["name"] == "in-place-update"
    assert jax101["shortDescription"]["text"] == "Item assignment on a JAX array, which is immutable"
    assert jax101["fullDescription"]["text"] == BY_CODE["JAX101"].what_it_does
    assert "informationUri" not in log["runs"][0]["tool"]["driver"]
    for rule in rules:  # the page itself, and no link: no `docs-url` is configured
        page = (ROOT / "rules" / f"{rule['id']}.md").read_text(encoding="utf-8")
        assert rule["help"] == {"text": page, "markdown": page}
        assert "helpUri" not in rule


def test_sarif_links_each_rule_to_the_configured_docs_url(project: Path) -> None:
    (project / "pyproject.toml").write_text(f'[tool.jaxlint]\ndocs-url = "{DOCS_URL}"\n')
    log = json.loads(jaxlint(project, "--output-format", "sarif", "a.py").stdout)
    assert_valid_sarif(log)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert [rule["helpUri"] for rule in rules] == [
        f"https://docs.example.org/jaxlint/rules/{rule.code}.html" for rule in ALL_RULES]


def test_sarif_several_findings_and_bad_input_are_valid(project: Path) -> None:
    (project / "broken.py").write_text("import jax\ndef f(:\n")
    (project / "with space.py").write_text(JAX101_SOURCE)
    log = json.loads(jaxlint(project, "--output-format", "sarif", ".").stdout)
    assert_valid_sarif(log)
    results = log["runs"][0]["results"]
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
             r["locations"][0]["physicalLocation"]["region"]["startLine"],
             r["locations"][0]["physicalLocation"]["region"]["startColumn"]) for r in results] == [
        ("JAX101", "a.py", 3, 1),
        ("JAX101", "b.py", 3, 1),
        ("JAX102", "b.py", 4, 1),
        ("JAX001", "broken.py", 2, 7),
        ("JAX101", "with%20space.py", 3, 1),
    ]


def test_sarif_absolute_path_is_a_file_uri(project: Path) -> None:
    log = json.loads(jaxlint(project, "--output-format", "sarif", str(project / "a.py")).stdout)
    assert_valid_sarif(log)
    artifact = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": (project / "a.py").as_uri()}


def test_sarif_clean_is_valid_with_no_results(project: Path) -> None:
    result = jaxlint(project, "--output-format", "sarif", "clean.py")
    assert result.returncode == 0
    log = json.loads(result.stdout)
    assert_valid_sarif(log)
    assert log["runs"][0]["results"] == []


# --- github -------------------------------------------------------------------------------------------


def test_github_exact(project: Path) -> None:
    result = jaxlint(project, "--output-format", "github", "a.py")
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout == (
        f"::error file=a.py,line=3,col=1,endLine=3,endColumn=5,title=JAX101::JAX101 {JAX101_MESSAGE}\n"
    )


def test_github_several_findings(project: Path) -> None:
    result = jaxlint(project, "--output-format", "github", "b.py")
    assert result.stdout.splitlines() == [
        f"::error file=b.py,line=3,col=1,endLine=3,endColumn=5,title=JAX101::JAX101 {JAX101_MESSAGE}",
        f"::error file=b.py,line=4,col=1,endLine=4,endColumn=15,title=JAX102::JAX102 {JAX102_MESSAGE}",
    ]


def test_github_escapes_properties(project: Path) -> None:
    (project / "we,ird:name.py").write_text(JAX101_SOURCE)
    result = jaxlint(project, "--output-format", "github", "we,ird:name.py")
    assert result.stdout == (
        "::error file=we%2Cird%3Aname.py,line=3,col=1,endLine=3,endColumn=5,title=JAX101::"
        f"JAX101 {JAX101_MESSAGE}\n"
    )


def test_github_clean_prints_nothing(project: Path) -> None:
    result = jaxlint(project, "--output-format", "github", "clean.py")
    assert (result.returncode, result.stdout) == (0, "")


# --- the same 1-based code-point position in every format ------------------------------------------------


def test_every_format_agrees_on_a_position_after_non_ascii_text(tmp_path: Path) -> None:
    line = 's = "é"; x = jnp.zeros(3); x[0] = 1'
    (tmp_path / "u.py").write_text(f"import jax.numpy as jnp\n{line}\n", encoding="utf-8")
    col = line.index("x[0]") + 1  # 28: code points, not bytes (29)
    text = jaxlint(tmp_path, "--quiet", "u.py").stdout
    assert text.startswith(f"u.py:2:{col}: JAX101 ")
    (finding,) = json.loads(jaxlint(tmp_path, "--output-format", "json", "u.py").stdout)
    assert (finding["location"], finding["end_location"]) == (
        {"row": 2, "column": col}, {"row": 2, "column": col + 4})
    sarif = json.loads(jaxlint(tmp_path, "--output-format", "sarif", "u.py").stdout)
    region = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 2, "startColumn": col, "endLine": 2, "endColumn": col + 4}
    github = jaxlint(tmp_path, "--output-format", "github", "u.py").stdout
    assert github.startswith(f"::error file=u.py,line=2,col={col},endLine=2,endColumn={col + 4},title=JAX101::")
