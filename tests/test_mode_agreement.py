"""A plain run, `--fix`, `--diff` and the language server agree on the findings of one project.

fixtures/project_modes/ is a project of scripts whose findings cross modules: conf.py turns on x64, so the
float64 of b.py is no JAX701; train.py's jitted step calls helper.py's `show` with a tracer, so helper.py
(which never mentions jax) has findings, one of them with a safe fix. Every mode checks the project as a
whole, and what remains after `--fix` is what a plain run of the fixed files prints.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from helpers import jaxlint
from jaxlint.diagnostics import headline
from test_fixtures import expected_messages
from test_server import actions, apply, client, only_changes, open_file, published  # noqa: F401  (client: a fixture)

pytestmark = pytest.mark.slow  # subprocesses and a language server

PROJECT = Path(__file__).resolve().parents[1] / "fixtures" / "project_modes"
FILES = sorted(path.name for path in PROJECT.glob("*.py"))


def copy(tmp_path: Path, name: str) -> Path:
    return shutil.copytree(PROJECT, tmp_path / name)


def contents(folder: Path) -> dict[str, str]:
    return {name: (folder / name).read_text(encoding="utf-8") for name in FILES}


def findings(folder: Path, *options: str) -> tuple[int, list[tuple[str, int, int, int, int, str, str]]]:
    """The exit code and the findings of `jaxlint --output-format json [options] .` run in `folder`."""
    run = jaxlint(folder, "--no-cache", "--output-format", "json", *options, ".")
    assert run.returncode in (0, 1), run.stderr
    return run.returncode, sorted(
        (
            str(Path(f["filename"]).relative_to(folder)),
            f["location"]["row"],
            f["location"]["column"],
            f["end_location"]["row"],
            f["end_location"]["column"],
            f["code"],
            f["message"],
        )
        for f in json.loads(run.stdout)
    )


def test_a_plain_run_finds_what_crosses_modules(tmp_path: Path) -> None:
    code, found = findings(copy(tmp_path, "plain"))
    wanted = sorted(
        (name, line, col, rule)
        for name in FILES
        for line, col, rule, _ in expected_messages((PROJECT / name).read_text(encoding="utf-8"))
    )
    assert code == 1
    assert [(name, row, col, rule) for name, row, col, _, _, rule, _ in found] == wanted
    assert "called with a tracer from `step`" in found[0][6]


@pytest.mark.parametrize(
    ("options", "remain"),
    [((), ["JAX306", "JAX301"]), (("--unsafe-fixes",), ["JAX301"])],
    ids=["safe", "unsafe"],
)
def test_fix_and_diff_leave_what_a_plain_run_of_the_fixed_files_finds(
    tmp_path: Path, options: tuple[str, ...], remain: list[str]
) -> None:
    fixed = copy(tmp_path, "fixed")
    code, remaining = findings(fixed, "--fix", *options)
    assert contents(fixed) != contents(PROJECT)
    assert (code, remaining) == findings(fixed)  # what the next plain run prints, and its exit code
    assert [(name, rule) for name, _, _, _, _, rule, _ in remaining] == [("helper.py", rule) for rule in remain]
    preview = copy(tmp_path, "preview")
    diff = jaxlint(preview, "--no-cache", "--diff", *options, ".")
    assert diff.returncode == 1, diff.stderr
    assert f"({len(remaining)} would remain; 4 files checked)" in diff.stderr + diff.stdout
    assert contents(preview) == contents(PROJECT)  # --diff writes nothing
    patch = subprocess.run(["git", "apply", "-"], input=diff.stdout.split("Would fix")[0], cwd=preview,
                           capture_output=True, text=True)
    assert patch.returncode == 0, patch.stderr
    assert contents(preview) == contents(fixed)


@pytest.fixture
def in_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The project, with the server started in its folder as editors start it in their project's root."""
    folder = copy(tmp_path, "editor")
    monkeypatch.chdir(folder)
    return folder


@pytest.mark.asyncio
async def test_the_language_server_publishes_and_fixes_as_the_command_line(
    in_copy: Path, client: LanguageClient, tmp_path: Path  # noqa: F811
) -> None:
    _, found = findings(in_copy)
    uris = {name: open_file(client, in_copy / name) for name in FILES}
    for name, uri in uris.items():
        want = [(rule, ((row - 1, col - 1), (end_row - 1, end_col - 1)), headline(message))  # as its text line
                for file, row, col, end_row, end_col, rule, message in found if file == name]
        await published(client, uris[name], want)
    fixed = copy(tmp_path, "fixed")
    jaxlint(fixed, "--no-cache", "--fix", ".")
    for name in ("helper.py", "train.py"):  # each has a safe fix; helper.py's only with the project
        [fix_all] = await actions(client, uris[name], 0, 0, only=[types.CodeActionKind.SourceFixAll])
        text = (in_copy / name).read_text(encoding="utf-8")
        assert apply(text, only_changes(fix_all)[uris[name]]) == (fixed / name).read_text(encoding="utf-8")
