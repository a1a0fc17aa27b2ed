"""`jaxlint server` end to end: the real command in a subprocess, driven over stdio by a real LSP client
(pytest-lsp). Edits the server offers are applied here as an editor would (UTF-16 positions) and the
results compared byte for byte."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from helpers import jaxlint, write
from test_evidence import PROGRAM as EVIDENCE_PROGRAM
from jaxlint.catalog import rule_page
from jaxlint.checks import find_rule
from jaxlint.diagnostics import headline

pytestmark = pytest.mark.slow  # subprocesses, real jax or a language server in every test

TRAIN = '''import jax
import jax.numpy as jnp


@jax.jit
def step(state, update):
    buffer = jnp.zeros_like(state)
    buffer[0] = update
    print("buffer", buffer)
    return state + buffer


def total(params):
    return sum(jnp.sum(p) for p in params)
'''
JAX101_MESSAGE = ("in-place update of a JAX array raises TypeError (`state` is a traced argument of `step`, "
                  "transformed by `jax.jit` at line 5); use `buffer = buffer.at[0].set(update)`")
JAX306_MESSAGE = ("`print` of a traced value runs once at trace time and shows a tracer (`JitTracer(...)`; `VmapTracer(...)` under vmap), not the numbers: "
                  "`buffer` is traced (`state` is a traced argument of `step`, transformed by `jax.jit` at "
                  'line 5); use `jax.debug.print("... {}", value)`')
# What the editor shows: the headline, as on a line of `jaxlint` (the hover has the whole message).
JAX101_HEADLINE = "in-place update of a JAX array raises TypeError; use `buffer = buffer.at[0].set(update)`"
JAX306_HEADLINE = ("`print` of a traced value runs once at trace time and shows a tracer, not the numbers: "
                   "`buffer` is traced")
TRAIN_FINDINGS = [
    ("JAX101", ((7, 4), (7, 13)), JAX101_HEADLINE),
    ("JAX306", ((8, 4), (8, 27)), JAX306_HEADLINE),
]
JIT_EVIDENCE = "`jax.jit` traces `step`: `state` is a tracer"
WARNING, ERROR = types.DiagnosticSeverity.Warning, types.DiagnosticSeverity.Error

CAPABILITIES = types.ClientCapabilities(
    text_document=types.TextDocumentClientCapabilities(
        code_action=types.CodeActionClientCapabilities(
            code_action_literal_support=types.ClientCodeActionLiteralOptions(
                code_action_kind=types.ClientCodeActionKindOptions(value_set=list(types.CodeActionKind))),
            is_preferred_support=True,
        ),
        hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
    ),
    notebook_document=types.NotebookDocumentClientCapabilities(
        synchronization=types.NotebookDocumentSyncClientCapabilities()),
)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "jaxlint", "server", "--stdio"]))
async def client(lsp_client: LanguageClient, tmp_path: Path):
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=CAPABILITIES, root_uri=tmp_path.as_uri(),
        workspace_folders=[types.WorkspaceFolder(tmp_path.as_uri(), "project")]))
    yield
    await lsp_client.shutdown_session()


# What an editor does.

def open_file(client: LanguageClient, path: Path, text: str | None = None) -> str:
    uri = path.as_uri()
    text = path.read_text(encoding="utf-8") if text is None else text
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text)))
    return uri


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(version, uri),
        [types.TextDocumentContentChangeWholeDocument(text)]))


async def published(client: LanguageClient, uri: str, want=None) -> list[types.Diagnostic]:
    """The diagnostics the server published for `uri`, once there are some matching `want`."""
    for _ in range(3000):  # a guard against a hang, not a speed test: 60 s
        found = client.diagnostics.get(uri)
        if found is not None and (want is None or summary(found) == want):
            return list(found)
        await asyncio.sleep(0.02)
    raise AssertionError(f"diagnostics for {uri}: {client.diagnostics.get(uri)!r}, expected {want!r}")


def span(where: types.Range) -> tuple:
    return (where.start.line, where.start.character), (where.end.line, where.end.character)


def summary(diagnostics) -> list[tuple[str, tuple, str]]:
    return [(d.code, span(d.range), d.message) for d in diagnostics]


def related(diagnostic: types.Diagnostic) -> list[tuple[str, tuple, str]]:
    """A diagnostic's related information: (URI, span, text) of each evidence step."""
    return [(info.location.uri, span(info.location.range), info.message)
            for info in diagnostic.related_information or []]


async def actions(client: LanguageClient, uri: str, line: int, character: int,
                  only: list[str] | None = (types.CodeActionKind.QuickFix,),
                  trigger: types.CodeActionTriggerKind | None = None) -> list[types.CodeAction]:
    where = types.Position(line, character)
    found = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), types.Range(where, where),
        types.CodeActionContext(diagnostics=[], only=only and list(only), trigger_kind=trigger)))
    return list(found or [])


def apply(text: str, edits: list[types.TextEdit]) -> str:
    """Text edits applied as an editor applies them: positions in UTF-16 code units."""
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]

    def offset(position: types.Position) -> int:
        if position.line >= len(starts):
            return len(text)
        index, units = starts[position.line], 0
        while units < position.character and index < len(text) and text[index] not in "\r\n":
            units += 2 if ord(text[index]) > 0xFFFF else 1
            index += 1
        return index

    spans = sorted(((offset(e.range.start), offset(e.range.end), e.new_text) for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def only_changes(action: types.CodeAction) -> dict[str, list[types.TextEdit]]:
    assert action.edit is not None and action.edit.document_changes is None
    return dict(action.edit.changes)


# Diagnostics.

@pytest.mark.asyncio
async def test_diagnostics_on_open_with_codes_ranges_and_messages(client: LanguageClient, tmp_path: Path):
    uri = open_file(client, write(tmp_path / "train.py", TRAIN))
    found = await published(client, uri)
    assert summary(found) == TRAIN_FINDINGS
    # No `docs-url` configured: no link (the hover shows the rule's page itself).
    assert [(d.severity, d.source, d.code_description) for d in found] == [
        (WARNING, "jaxlint", None), (WARNING, "jaxlint", None)]


@pytest.mark.asyncio
async def test_an_edit_is_checked_and_a_fixed_file_clears(client: LanguageClient, tmp_path: Path):
    uri = open_file(client, write(tmp_path / "train.py", TRAIN))
    await published(client, uri, TRAIN_FINDINGS)
    # A keystroke at a time: the server may skip the texts in between, never the last one.
    fixed = TRAIN.replace("    buffer[0] = update\n", "    buffer = buffer.at[0].set(update)\n")
    fixed = fixed.replace('    print("buffer", buffer)\n', "")
    for version, text in enumerate([TRAIN.replace("buffer[0]", "buffer[0 "), fixed], start=2):
        change(client, uri, version, text)
    assert await published(client, uri, []) == []
    change(client, uri, 4, fixed.replace("    return state + buffer", "    buffer[1] = 0\n    return state + buffer"))
    [again] = await published(client, uri, [("JAX101", ((8, 4), (8, 13)), JAX101_HEADLINE.replace(
        "buffer = buffer.at[0].set(update)", "buffer = buffer.at[1].set(0)"))])
    assert again.severity == WARNING


@pytest.mark.asyncio
async def test_positions_count_utf16_units_as_lsp_clients_do(client: LanguageClient, tmp_path: Path):
    text = TRAIN.replace('print("buffer", buffer)', 'print("\U0001f642 buffer", buffer)')
    uri = open_file(client, write(tmp_path / "train.py", text))
    found = await published(client, uri)
    assert summary(found)[1][:2] == ("JAX306", ((8, 4), (8, 30)))  # the emoji is two UTF-16 units
    [fix, _] = await actions(client, uri, 8, 4)
    assert apply(text, only_changes(fix)[uri]).splitlines()[8] == '    jax.debug.print("\U0001f642 buffer {}", buffer)'


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "jaxlint", "server"]))
async def utf8_client(lsp_client: LanguageClient, tmp_path: Path):
    """A client that counts positions in UTF-8 bytes (LSP 3.17 position encodings)."""
    result = await lsp_client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(general=types.GeneralClientCapabilities(
            position_encodings=[types.PositionEncodingKind.Utf8])),
        root_uri=tmp_path.as_uri()))
    assert result.capabilities.position_encoding == types.PositionEncodingKind.Utf8
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_positions_count_utf8_bytes_when_the_client_asks(utf8_client: LanguageClient, tmp_path: Path):
    text = TRAIN.replace('print("buffer", buffer)', 'print("\U0001f642 buffer", buffer)')
    uri = open_file(utf8_client, write(tmp_path / "train.py", text))
    found = await published(utf8_client, uri)
    assert summary(found)[1][:2] == ("JAX306", ((8, 4), (8, 32)))  # the emoji is four bytes


@pytest.mark.asyncio
async def test_an_untitled_document_is_checked(client: LanguageClient):
    uri = "untitled:Untitled-1"
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, TRAIN)))
    await published(client, uri, TRAIN_FINDINGS)
    fix, _ = await actions(client, uri, 7, 4)
    assert apply(TRAIN, only_changes(fix)[uri]) == TRAIN.replace("buffer[0] = update",
                                                                 "buffer = buffer.at[0].set(update)")


@pytest.mark.asyncio
async def test_a_file_that_does_not_parse_is_one_error_until_it_does(client: LanguageClient, tmp_path: Path):
    broken = TRAIN.replace("def step(state, update):", "def step(state, update:")
    uri = open_file(client, write(tmp_path / "train.py", broken))
    [error] = await published(client, uri)
    assert summary([error]) == [("JAX001", ((5, 8), (5, 8)), "syntax error: '(' was never closed")]
    assert error.severity == ERROR
    assert await actions(client, uri, 5, 8) == []
    change(client, uri, 2, TRAIN)
    await published(client, uri, TRAIN_FINDINGS)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    assert await published(client, uri, []) == []


@pytest.mark.asyncio
async def test_diagnostics_link_the_rule_page_where_docs_url_is_configured(client: LanguageClient, tmp_path: Path):
    write(tmp_path / "pyproject.toml", '[tool.jaxlint]\ndocs-url = "https://docs.example.org/rules/{code}.html"\n')
    uri = open_file(client, write(tmp_path / "train.py", TRAIN))
    found = await published(client, uri, TRAIN_FINDINGS)
    assert [d.code_description.href for d in found] == [
        "https://docs.example.org/rules/JAX101.html", "https://docs.example.org/rules/JAX306.html"]


@pytest.mark.asyncio
async def test_the_project_config_found_from_the_file_is_honoured(client: LanguageClient, tmp_path: Path):
    write(tmp_path / "proj" / "pyproject.toml", '[tool.jaxlint]\nignore = ["print-in-traced"]\n')
    uri = open_file(client, write(tmp_path / "proj" / "src" / "train.py", TRAIN))
    await published(client, uri, TRAIN_FINDINGS[:1])
    # Outside the project the same text has both findings.
    other = open_file(client, write(tmp_path / "elsewhere" / "train.py", TRAIN))
    await published(client, other, TRAIN_FINDINGS)


@pytest.mark.asyncio
async def test_excluded_files_get_no_findings(client: LanguageClient, tmp_path: Path):
    write(tmp_path / "build" / "pyproject.toml", '[tool.jaxlint]\nextend-exclude = ["generated"]\n')
    excluded = open_file(client, write(tmp_path / "build" / "generated" / "ops" / "train.py", TRAIN))
    assert await published(client, excluded) == []
    # `build` is a default exclude, but above the project it excludes nothing.
    checked = open_file(client, write(tmp_path / "build" / "src" / "train.py", TRAIN))
    await published(client, checked, TRAIN_FINDINGS)


@pytest.mark.asyncio
async def test_a_changed_config_is_read_at_the_next_check(client: LanguageClient, tmp_path: Path):
    config = write(tmp_path / "pyproject.toml", '[tool.jaxlint]\nignore = ["JAX306"]\n')
    uri = open_file(client, write(tmp_path / "train.py", TRAIN))
    await published(client, uri, TRAIN_FINDINGS[:1])
    config.write_text('[tool.jaxlint]\nignore = ["JAX101"]\n', encoding="utf-8")
    os.utime(config, ns=(config.stat().st_atime_ns, config.stat().st_mtime_ns + 1_000_000_000))
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri)))
    await published(client, uri, TRAIN_FINDINGS[1:])


@pytest.mark.asyncio
async def test_the_result_cache_the_command_line_wrote_is_read(client: LanguageClient, tmp_path: Path):
    write(tmp_path / "pyproject.toml", "[tool.jaxlint]\n")
    path = write(tmp_path / "train.py", TRAIN)
    assert jaxlint(tmp_path, "--quiet", str(path)).returncode == 1
    [entry] = [p for p in (tmp_path / ".jaxlint_cache").rglob("*") if p.is_file() and p.name != ".gitignore"]
    stored = json.loads(entry.read_text(encoding="utf-8"))
    stored["diagnostics"][0][4] = "as the command line stored it"  # proves the server parsed nothing
    entry.write_text(json.dumps(stored), encoding="utf-8")
    uri = open_file(client, path)
    await published(client, uri, [(*TRAIN_FINDINGS[0][:2], "as the command line stored it"), TRAIN_FINDINGS[1]])
    # An edit is checked, and its result replaces the entry (there is one per file and settings).
    change(client, uri, 2, TRAIN.replace("buffer[0] = update", "buffer = buffer.at[0].set(update)"))
    await published(client, uri, TRAIN_FINDINGS[1:])
    assert not entry.read_text(encoding="utf-8").count("as the command line stored it")


@pytest.fixture
def in_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server starts in the project's folder, as editors start it in their project's root."""
    monkeypatch.chdir(tmp_path)


@pytest.mark.asyncio
async def test_the_cache_of_a_run_on_relative_paths_is_shared(in_project, client: LanguageClient, tmp_path: Path):
    write(tmp_path / "pyproject.toml", "[tool.jaxlint]\n")
    path = write(tmp_path / "src" / "train.py", TRAIN)
    assert jaxlint(tmp_path, "--quiet", ".").returncode == 1  # what pre-commit and `jaxlint` run
    [entry] = [p for p in (tmp_path / ".jaxlint_cache").rglob("*") if p.is_file() and p.name != ".gitignore"]
    stored = json.loads(entry.read_text(encoding="utf-8"))
    assert stored["diagnostics"][0][0] == "src/train.py"
    stored["diagnostics"][0][4] = "as the command line stored it"
    entry.write_text(json.dumps(stored), encoding="utf-8")
    uri = open_file(client, path)
    await published(client, uri, [(*TRAIN_FINDINGS[0][:2], "as the command line stored it"), TRAIN_FINDINGS[1]])


METRICS = """import jax.numpy as jnp


def report(values):
    if values.mean() > 0:
        print("positive")
    return jnp.abs(values)
"""
CALLER = """import jax

from metrics import report


@jax.jit
def step(x):
    return report(x * 2)
"""


def headlines(found: list[tuple[str, tuple, str]]) -> list[tuple[str, tuple, str]]:
    """The command line's JSON findings as the editor shows them: each message's headline (its text line's)."""
    return [(code, where, headline(message)) for code, where, message in found]


def command_line_findings(folder: Path, name: str) -> list[tuple[str, tuple, str]]:
    """What `jaxlint NAME` run in `folder` finds, as `summary` gives the server's (0-based positions)."""
    found = json.loads(jaxlint(folder, "--no-cache", "--output-format", "json", name).stdout)
    return [(d["code"], ((d["location"]["row"] - 1, d["location"]["column"] - 1),
                         (d["end_location"]["row"] - 1, d["end_location"]["column"] - 1)), d["message"])
            for d in found]


@pytest.mark.asyncio
async def test_a_module_created_later_joins_its_project(in_project, client: LanguageClient, tmp_path: Path):
    train = open_file(client, write(tmp_path / "train.py", CALLER))
    assert await published(client, train) == []
    write(tmp_path / "metrics.py", METRICS)
    found = command_line_findings(tmp_path, "metrics.py")
    assert [code for code, _, _ in found] == ["JAX301"]
    metrics = open_file(client, tmp_path / "metrics.py")
    await published(client, metrics, headlines(found))


@pytest.mark.asyncio
async def test_a_module_is_checked_with_its_project_as_the_command_line_does(
        in_project, client: LanguageClient, tmp_path: Path):
    write(tmp_path / "metrics.py", METRICS)
    write(tmp_path / "train.py", CALLER)
    found = command_line_findings(tmp_path, "metrics.py")
    assert found[0][0] == "JAX301" and "called with a tracer from `step` (train.py:8)" in found[0][2]
    metrics = open_file(client, tmp_path / "metrics.py")
    await published(client, metrics, headlines(found))  # first its own findings (none), then with its project
    # The caller edited (not saved): without its jit, metrics.py is not traced any more, and back.
    train = open_file(client, tmp_path / "train.py")
    assert await published(client, train) == []
    change(client, train, 2, CALLER.replace("@jax.jit\n", ""))
    assert await published(client, metrics, []) == []
    change(client, train, 3, CALLER)
    await published(client, metrics, headlines(found))
    # Closed unsaved, the caller is its file again: the one on disk has no jit.
    write(tmp_path / "train.py", CALLER.replace("@jax.jit\n", ""))
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(train)))
    assert await published(client, metrics, []) == []


FLOAT64_TEST = "import jax.numpy as jnp\n\n\ndef test_zeros():\n    return jnp.zeros(3, dtype=jnp.float64)\n"


@pytest.mark.asyncio
async def test_a_conftest_above_the_project_turns_x64_on_as_for_the_command_line(
        in_project, client: LanguageClient, tmp_path: Path):
    # tests/ and tests/sub/ have no __init__.py: two projects, but pytest imports tests/conftest.py first.
    test = open_file(client, write(tmp_path / "tests" / "sub" / "test_a.py", FLOAT64_TEST))
    found = command_line_findings(tmp_path, "tests/sub/test_a.py")
    assert [code for code, _, _ in found] == ["JAX701"]
    await published(client, test, headlines(found))
    write(tmp_path / "tests" / "conftest.py", 'import jax\n\njax.config.update("jax_enable_x64", True)\n')
    assert command_line_findings(tmp_path, "tests/sub/test_a.py") == []
    change(client, test, 2, FLOAT64_TEST + "\n")
    assert await published(client, test, []) == []


@pytest.mark.asyncio
async def test_a_package_imported_from_above_turns_x64_on_as_for_the_command_line(
        in_project, client: LanguageClient, tmp_path: Path):
    # tests/ has no __init__.py: pytest run from the repository imports the package above it, which sets x64.
    test = open_file(client, write(tmp_path / "tests" / "test_a.py", "import pkg\n" + FLOAT64_TEST))
    found = command_line_findings(tmp_path, "tests/test_a.py")
    assert [code for code, _, _ in found] == ["JAX701"]
    await published(client, test, headlines(found))
    write(tmp_path / "pkg" / "__init__.py", 'import jax\n\njax.config.update("jax_enable_x64", True)\n')
    assert command_line_findings(tmp_path, "tests/test_a.py") == []
    change(client, test, 2, "import pkg\n" + FLOAT64_TEST + "\n")
    assert await published(client, test, []) == []


@pytest.mark.asyncio
async def test_the_tests_that_turn_x64_on_for_a_package_do_so_as_for_the_command_line(
        in_project, client: LanguageClient, tmp_path: Path):
    # The repository's tests import the package from src/ and turn x64 on for their process (tests/conftest.py).
    write(tmp_path / "pyproject.toml", "[project]\nname = 'spectra'\n")
    write(tmp_path / "src" / "spectra" / "__init__.py", "")
    text = "import jax.numpy as jnp\n\n\ndef width(sigma):\n    return jnp.asarray(sigma, dtype=jnp.float64)\n"
    model = open_file(client, write(tmp_path / "src" / "spectra" / "model.py", text))
    found = command_line_findings(tmp_path, "src/spectra/model.py")
    assert [code for code, _, _ in found] == ["JAX701"]
    await published(client, model, headlines(found))
    write(tmp_path / "tests" / "conftest.py", 'import jax\n\njax.config.update("jax_enable_x64", True)\n')
    write(tmp_path / "tests" / "test_model.py", "from spectra.model import width\n")
    assert command_line_findings(tmp_path, "src/spectra/model.py") == []
    change(client, model, 2, text + "\n")
    assert await published(client, model, []) == []


@pytest.mark.asyncio
async def test_without_a_config_the_cache_is_the_one_of_the_working_folder(
        in_project, client: LanguageClient, tmp_path: Path):
    uri = open_file(client, write(tmp_path / "src" / "train.py", TRAIN))
    await published(client, uri, TRAIN_FINDINGS)
    [entry] = [p for p in (tmp_path / ".jaxlint_cache").rglob("*") if p.is_file() and p.name != ".gitignore"]
    assert json.loads(json.loads(entry.read_text(encoding="utf-8"))["key"])[1] == "src/train.py"
    # Where the command line run in the same folder finds it: it parses nothing.
    stored = json.loads(entry.read_text(encoding="utf-8"))
    stored["diagnostics"][0][4] = "as the server stored it"
    entry.write_text(json.dumps(stored), encoding="utf-8")
    run = jaxlint(tmp_path, "--output-format", "concise", "src/train.py")
    assert run.stdout.splitlines()[0] == "src/train.py:8:5: JAX101 [*] as the server stored it"


@pytest.mark.asyncio
async def test_a_config_error_is_shown_once_and_checks_nothing(client: LanguageClient, tmp_path: Path):
    write(tmp_path / "pyproject.toml", '[tool.jaxlint]\nselct = ["JAX1"]\n')
    uri = open_file(client, write(tmp_path / "train.py", TRAIN))
    assert await published(client, uri) == []
    change(client, uri, 2, TRAIN + "\n")
    change(client, uri, 3, TRAIN)
    await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri),
                                                             types.Position(7, 4)))
    errors = [m for m in client.messages if m.type == types.MessageType.Error]
    assert [m.message for m in errors] == [
        f"jaxlint: error: [tool.jaxlint] in {tmp_path / 'pyproject.toml'}: unknown key 'selct' "
        "(did you mean 'select'?)"]


# Code actions.

@pytest.mark.asyncio
async def test_quick_fixes_are_labelled_and_apply_byte_for_byte(client: LanguageClient, tmp_path: Path):
    uri = open_file(client, write(tmp_path / "train.py", TRAIN))
    await published(client, uri, TRAIN_FINDINGS)
    fix, noqa = await actions(client, uri, 7, 6)
    assert (fix.title, fix.kind, fix.is_preferred) == (
        "Fix JAX101: use `buffer = buffer.at[0].set(update)`", types.CodeActionKind.QuickFix, True)
    assert summary(fix.diagnostics) == TRAIN_FINDINGS[:1]
    assert apply(TRAIN, only_changes(fix)[uri]) == TRAIN.replace("buffer[0] = update",
                                                                 "buffer = buffer.at[0].set(update)")
    assert noqa.title == "Suppress JAX101 with # noqa"
    unsafe, _ = await actions(client, uri, 8, 10)
    assert (unsafe.title, unsafe.is_preferred) == ("Fix JAX306: use `jax.debug.print` (unsafe)", False)
    assert apply(TRAIN, only_changes(unsafe)[uri]) == TRAIN.replace('print("buffer", buffer)',
                                                                    'jax.debug.print("buffer {}", buffer)')
    assert await actions(client, uri, 12, 4) == []  # no finding on that line


@pytest.mark.asyncio
async def test_a_fix_that_needs_import_jax_adds_it(client: LanguageClient, tmp_path: Path):
    text = TRAIN.replace("import jax\nimport jax.numpy as jnp\n", "import jax.numpy as jnp\nfrom jax import jit\n")
    text = text.replace("@jax.jit", "@jit")
    uri = open_file(client, write(tmp_path / "train.py", text))
    await published(client, uri)
    unsafe, _ = await actions(client, uri, 8, 4)
    assert apply(text, only_changes(unsafe)[uri]) == text.replace(
        "from jax import jit\n", "from jax import jit\nimport jax\n").replace(
        'print("buffer", buffer)', 'jax.debug.print("buffer {}", buffer)')


@pytest.mark.asyncio
async def test_noqa_action_suppresses_the_finding(client: LanguageClient, tmp_path: Path):
    text = TRAIN.replace('print("buffer", buffer)', 'print("buffer", buffer)  # noqa: E501')
    uri = open_file(client, write(tmp_path / "train.py", text))
    await published(client, uri)
    [_, noqa] = await actions(client, uri, 7, 4)
    text = apply(text, only_changes(noqa)[uri])
    assert text.splitlines()[7] == "    buffer[0] = update  # noqa: JAX101"
    change(client, uri, 2, text)
    await published(client, uri, TRAIN_FINDINGS[1:])
    [_, noqa] = await actions(client, uri, 8, 4)
    text = apply(text, only_changes(noqa)[uri])
    assert text.splitlines()[8] == '    print("buffer", buffer)  # noqa: JAX306, E501'
    change(client, uri, 3, text)
    assert await published(client, uri, []) == []


@pytest.mark.asyncio
async def test_fix_all_applies_the_safe_fixes_only(client: LanguageClient, tmp_path: Path):
    text = TRAIN.replace("    return state + buffer", "    buffer[1] = 0\n    return state + buffer")
    uri = open_file(client, write(tmp_path / "train.py", text))
    await published(client, uri)
    [fix_all] = await actions(client, uri, 0, 0, only=[types.CodeActionKind.SourceFixAll])
    assert (fix_all.title, fix_all.kind) == ("Fix all safe jaxlint findings", "source.fixAll.jaxlint")
    assert apply(text, only_changes(fix_all)[uri]) == text.replace(
        "buffer[0] = update", "buffer = buffer.at[0].set(update)").replace(
        "buffer[1] = 0", "buffer = buffer.at[1].set(0)")
    quick = await actions(client, uri, 7, 4, only=[types.CodeActionKind.QuickFix])
    assert [a.kind for a in quick] == [types.CodeActionKind.QuickFix] * 2
    # The light bulb asks on every cursor move: fix all (a check per round) only when asked for.
    automatic = await actions(client, uri, 7, 4, only=None, trigger=types.CodeActionTriggerKind.Automatic)
    assert [a.title for a in automatic] == [a.title for a in quick]
    invoked = await actions(client, uri, 7, 4, only=None, trigger=types.CodeActionTriggerKind.Invoked)
    assert [a.title for a in invoked] == [*(a.title for a in quick), "Fix all safe jaxlint findings"]


@pytest.mark.asyncio
async def test_fixes_keep_a_files_crlf_line_breaks(client: LanguageClient, tmp_path: Path):
    text = TRAIN.replace("    return state + buffer", "    buffer[1] = 0\n    return state + buffer")
    text = text.replace("\n", "\r\n")
    uri = open_file(client, tmp_path / "train.py", text)  # as the editor holds it
    await published(client, uri)
    [fix_all] = await actions(client, uri, 0, 0, only=[types.CodeActionKind.SourceFixAll])
    assert apply(text, only_changes(fix_all)[uri]) == text.replace(
        "buffer[0] = update", "buffer = buffer.at[0].set(update)").replace(
        "buffer[1] = 0", "buffer = buffer.at[1].set(0)")
    [_, noqa] = await actions(client, uri, 8, 4)
    assert apply(text, only_changes(noqa)[uri]) == text.replace(
        'print("buffer", buffer)\r\n', 'print("buffer", buffer)  # noqa: JAX306\r\n')


# Evidence.

@pytest.mark.asyncio
async def test_each_diagnostic_gives_its_evidence_as_related_information(client: LanguageClient, tmp_path: Path):
    uri = open_file(client, write(tmp_path / "train.py", EVIDENCE_PROGRAM))
    found = await published(client, uri)
    assert summary(found) == [
        ("JAX301", ((15, 7), (15, 21)), "Python `if` on a traced value raises TracerBoolConversionError: "
                                        "`state.done > 0` is traced"),
        ("JAX301", ((23, 7), (23, 23)), "Python `if` on a traced value raises TracerBoolConversionError: "
                                        "`state.finished()` is traced")]
    # Each step at its line; a step the analysis places in no line (which its text names) at the finding.
    assert [related(d) for d in found] == [
        [(uri, ((22, 0), (22, 16)), "`step` calls `check` with a tracer for `state`, under `jax.jit`"),
         (uri, ((15, 7), (15, 21)), "`state.done` is a field of `state`: a tracer too")],
        [(uri, ((20, 0), (20, 8)), "`jax.jit` traces `step`: `state` is a tracer"),
         (uri, ((23, 7), (23, 23)), "`finished` returns a value computed from it: a tracer")],
    ]


# Hover.

@pytest.mark.asyncio
async def test_hover_on_a_finding_shows_its_rule_page(client: LanguageClient, tmp_path: Path):
    uri = open_file(client, write(tmp_path / "train.py", TRAIN))
    await published(client, uri, TRAIN_FINDINGS)
    hover = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri),
                                                                     types.Position(7, 10)))
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert hover.contents.value == (f"**JAX101**: {JAX101_MESSAGE}\n\nEvidence:\n\n- line 5: {JIT_EVIDENCE}\n"
                                    f"\n\n---\n\n{rule_page(find_rule('JAX101'))}")
    assert (hover.range.start.line, hover.range.start.character, hover.range.end.character) == (7, 4, 13)
    assert await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(6, 8))) is None


# Notebooks.

NOTEBOOK_CELLS = [
    (types.NotebookCellKind.Code, "import jax.numpy as jnp\n%matplotlib inline"),
    (types.NotebookCellKind.Markup, "# Training step\nWe update a buffer."),
    (types.NotebookCellKind.Code,
     "from jax import jit\n\n\n@jit\ndef step(state, update):\n    buffer = jnp.zeros_like(state)\n"
     "    buffer[0] = update\n    print(\"buffer\", buffer)\n    return state + buffer"),
]


@pytest.mark.asyncio
async def test_notebook_cells_are_one_program_with_diagnostics_per_cell(client: LanguageClient, tmp_path: Path):
    notebook = (tmp_path / "train.ipynb").as_uri()
    cells = [f"{notebook}#cell{n}" for n in range(len(NOTEBOOK_CELLS))]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        types.NotebookDocument(notebook, "jupyter-notebook", 1,
                               [types.NotebookCell(kind, uri) for (kind, _), uri in zip(NOTEBOOK_CELLS, cells)]),
        [types.TextDocumentItem(uri, "python" if kind == types.NotebookCellKind.Code else "markdown", 1, text)
         for (kind, text), uri in zip(NOTEBOOK_CELLS, cells)]))
    message = JAX101_MESSAGE.replace("at line 5", "at line 4 of cell 3")
    found = await published(client, cells[2])
    assert summary(found) == [("JAX101", ((6, 4), (6, 13)), JAX101_HEADLINE),
                              ("JAX306", ((7, 4), (7, 27)), JAX306_HEADLINE)]
    # The evidence is in cell 3 (the markdown cell counts): its line 4, `@jit`.
    assert related(found[0]) == [(cells[2], ((3, 0), (3, 4)), "`jax.jit` traces `step`: `state` is a tracer")]
    assert await published(client, cells[0]) == []
    # The unsafe fix of the print needs `import jax`: it goes after the imports, in cell 1.
    [fix, noqa] = await actions(client, cells[2], 7, 4)
    assert fix.title == "Fix JAX306: use `jax.debug.print` (unsafe)"
    changes = only_changes(fix)
    assert sorted(changes) == [cells[0], cells[2]]
    assert apply(NOTEBOOK_CELLS[0][1], changes[cells[0]]) == "import jax.numpy as jnp\nimport jax\n%matplotlib inline"
    assert apply(NOTEBOOK_CELLS[2][1], changes[cells[2]]).splitlines()[7] == '    jax.debug.print("buffer {}", buffer)'
    hover = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(cells[2]),
                                                                     types.Position(6, 5)))
    assert hover.contents.value.startswith(f"**JAX101**: {message}\n")
    # An edit in one cell: the program is checked again and each cell gets its findings.
    fixed = apply(NOTEBOOK_CELLS[2][1], only_changes((await actions(client, cells[2], 6, 4))[0])[cells[2]])
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        types.VersionedNotebookDocumentIdentifier(2, notebook),
        types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(text_content=[
            types.NotebookDocumentCellContentChanges(types.VersionedTextDocumentIdentifier(2, cells[2]),
                                                     [types.TextDocumentContentChangeWholeDocument(fixed)])]))))
    await published(client, cells[2], [summary(found)[1]])
    # The cell deleted: its diagnostics go with it.
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        types.VersionedNotebookDocumentIdentifier(3, notebook),
        types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(
            structure=types.NotebookDocumentCellChangeStructure(
                types.NotebookCellArrayChange(2, 1), did_close=[types.TextDocumentIdentifier(cells[2])])))))
    assert await published(client, cells[2], []) == []


# The command without pygls.

def test_without_pygls_the_command_says_how_to_install_it(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "class NoPygls:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('pygls', 'lsprotocol'):\n"
        "            raise ImportError(f'No module named {name!r}')\n"
        "sys.meta_path.insert(0, NoPygls())\n"
        "from jaxlint.cli import main\n"
        "sys.exit(main(['server']))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                         stdin=subprocess.DEVNULL, timeout=60)
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr == ("jaxlint: error: `jaxlint server` needs pygls: pip install 'pygls>=2,<3' "
                          "(the 'server' extra of jax-sharpbits)\n")


def test_server_help_names_the_transport() -> None:
    run = subprocess.run([sys.executable, "-m", "jaxlint", "server", "--help"], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0
    assert "--stdio" in run.stdout and run.stdout.startswith("usage: jaxlint server")
