"""The LSP side of `jaxlint server` (pygls): documents in; diagnostics, code actions and hovers out.

Checks run in one worker thread, so the server keeps reading messages while a file is checked. Each
document has at most one check running: changes that arrive meanwhile are coalesced into one more
check of the newest text when it ends (leading and trailing debounce: an edit after a pause is checked
at once, a burst of keystrokes costs two checks), and results for a text that changed meanwhile are
never published. A module's own findings are published first, then (when they differ) those with its
project, whose first check reads every module of it. Positions: jaxlint counts code points from 1, the
client the encoding it negotiated.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace.position_codec import PositionCodec

from jaxlint import __version__
from jaxlint.diagnostics import SAFE, Diagnostic, Edit
from jaxlint.files import LINE_BREAK
from jaxlint.rule_index import rule_url
from jaxlint.server.checking import Cell, Checked, Checker
from jaxlint.server.edits import cell_edits, noqa_edit

FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.jaxlint"
FAILED = ("JAX001", "JAX003")  # the file was not checked: an error, not a warning
NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[
        types.NotebookDocumentFilterWithNotebook(notebook="*", cells=[types.NotebookCellLanguage(language="python")])
    ],
    save=True,
)

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Snapshot:
    """What one check saw: a Python document (one text, `cells` None) or a notebook's cells, in order."""

    uri: str  # the document's, or the notebook's
    version: int | None
    path: str | None
    texts: tuple[str, ...]
    cells: tuple[str, ...] | None = None  # each cell's document URI
    kinds: tuple[str, ...] = ()
    metadata: dict | None = None

    def check(self, checker: Checker, with_project: bool = True) -> Checked:
        if self.cells is None:
            return checker.check_text(self.path, self.texts[0], with_project)
        return checker.check_notebook(self.path, self.cells_for_checker(), self.metadata)

    def cells_for_checker(self) -> list[Cell]:
        return [Cell(kind, text) for kind, text in zip(self.kinds, self.texts)]

    def text_of(self, uri: str) -> tuple[str, int | None]:
        """The text of the document or cell at `uri`, and its cell number (None for a Python document)."""
        if self.cells is None:
            return self.texts[0], None
        index = self.cells.index(uri)
        return self.texts[index], index + 1

    def line(self, cell: int | None, row: int, codec: PositionCodec) -> types.Location | None:
        """Where line `row` of the document (or of cell `cell` of the notebook) is; None past its end."""
        index = 0 if self.cells is None or cell is None else cell - 1
        uri = self.uri if self.cells is None else self.cells[index]
        lines = LINE_BREAK.split(self.texts[index])
        if not 1 <= row <= len(lines):
            return None
        start, end = position(lines, row, 1, codec), position(lines, row, len(lines[row - 1]) + 1, codec)
        return types.Location(uri, types.Range(start, end))


@dataclass(frozen=True)
class Result:
    snapshot: Snapshot
    checked: Checked

    def findings(self, uri: str) -> tuple[str, list[Diagnostic]]:
        """The text of the document (or cell) at `uri` and the findings in it."""
        text, cell = self.snapshot.text_of(uri)
        return text, [d for d in self.checked.diagnostics if d.cell == cell]


class JaxlintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "jaxlint",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Full,
            notebook_document_sync=NOTEBOOK_SYNC,
        )
        self.checker = Checker(Path.cwd())
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jaxlint-check")
        self.open: set[str] = set()  # URIs of open Python documents and notebooks
        self.results: dict[str, Result] = {}
        self.dirty: set[str] = set()
        self.running: dict[str, asyncio.Task] = {}
        self.published_cells: dict[str, tuple[str, ...]] = {}
        self.told: set[str] = set()  # problems already shown to the user

    # Which documents, and in which version.

    def snapshot(self, uri: str) -> Snapshot | None:
        if uri not in self.open:
            return None
        notebook = self.workspace.get_notebook_document(notebook_uri=uri)
        if notebook is None:
            document = self.workspace.get_text_document(uri)
            return Snapshot(uri, document.version, to_fs_path(uri), (document.source,))
        texts, kinds = [], []
        for cell in notebook.cells:
            document = self.workspace.get_text_document(cell.document)
            python = cell.kind == types.NotebookCellKind.Code and document.language_id in (None, "python")
            texts.append(document.source)
            kinds.append("code" if python else "markdown")
        metadata = notebook.metadata if isinstance(notebook.metadata, dict) else None
        return Snapshot(
            uri,
            notebook.version,
            to_fs_path(uri),
            tuple(texts),
            tuple(cell.document for cell in notebook.cells),
            tuple(kinds),
            metadata,
        )

    def owner(self, uri: str) -> str:
        """The open document a URI belongs to: itself, or the notebook of a cell."""
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        return notebook.uri if notebook is not None else uri

    # Checking.

    def request_check(self, uri: str) -> None:
        self.dirty.add(uri)
        if uri not in self.running:
            self.running[uri] = asyncio.ensure_future(self._check_while_dirty(uri))

    async def _check_while_dirty(self, uri: str) -> None:
        try:
            while uri in self.dirty:
                self.dirty.discard(uri)
                snapshot = self.snapshot(uri)
                if snapshot is None:
                    return
                first = None
                if snapshot.cells is None:  # a module's own findings first: its project may take long
                    first = await self._check(snapshot, with_project=False)
                    if self.snapshot(uri) == snapshot:
                        self.publish(first)
                result = await self._check(snapshot)
                # Published unless the text changed meanwhile (then it is dirty again) or nothing did.
                if self.snapshot(uri) == snapshot and (
                    first is None or result.checked.diagnostics != first.checked.diagnostics
                ):
                    self.publish(result)
                for other in self.open:  # modules whose facts from this one changed
                    if other != uri and to_fs_path(other) in result.checked.changed:
                        self.request_check(other)
        finally:
            self.running.pop(uri, None)

    async def _check(self, snapshot: Snapshot, with_project: bool = True) -> Result:
        try:
            checked = await asyncio.get_running_loop().run_in_executor(
                self.executor, snapshot.check, self.checker, with_project
            )
        except Exception as error:  # a bug in the server: say so, and keep serving
            logger.exception("checking %s", snapshot.uri)
            checked = Checked(problem=f"jaxlint: internal error: {type(error).__name__}: {error}")
        if checked.problem:
            self.tell(checked.problem)
        result = Result(snapshot, checked)
        if snapshot.uri in self.open:
            self.results[snapshot.uri] = result
        return result

    async def fresh(self, uri: str) -> Result | None:
        """The result for the document's current text, checking it now if the last one is older."""
        snapshot = self.snapshot(uri)
        if snapshot is None:
            return None
        known = self.results.get(uri)
        if known is not None and known.snapshot == snapshot:
            return known
        return await self._check(snapshot)

    def tell(self, problem: str) -> None:
        """Show a problem once (a config error would otherwise come back at every keystroke)."""
        logger.error("%s", problem)
        if problem not in self.told:
            self.told.add(problem)
            self.window_show_message(types.ShowMessageParams(types.MessageType.Error, problem.splitlines()[0]))

    def publish(self, result: Result) -> None:
        snapshot = result.snapshot
        if snapshot.cells is None:
            self._publish(snapshot.uri, snapshot.version, result)
            return
        for uri in snapshot.cells:
            self._publish(uri, None, result)
        for gone in set(self.published_cells.get(snapshot.uri, ())) - set(snapshot.cells):
            self._publish(gone, None, None)
        self.published_cells[snapshot.uri] = snapshot.cells

    def _publish(self, uri: str, version: int | None, result: Result | None) -> None:
        """The findings of the document (or cell) at `uri`; none when `result` is None."""
        codec = self.workspace.position_codec
        diagnostics = [] if result is None else [to_lsp(d, uri, codec, result) for d in result.findings(uri)[1]]
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, diagnostics, version))

    def forget(self, uri: str) -> None:
        path = to_fs_path(uri)
        if path and uri in self.open:
            self.executor.submit(self.checker.release, path)  # in the checking thread, after its checks
            for other in self.open - {uri}:  # its file may tell them something else than its text did
                self.request_check(other)
        self.open.discard(uri)
        self.dirty.discard(uri)
        self.results.pop(uri, None)
        cells = self.published_cells.pop(uri, None)
        for target in cells or (uri,):
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(target, []))


def to_lsp(d: Diagnostic, uri: str, codec: PositionCodec, result: Result) -> types.Diagnostic:
    """A finding in the document (or cell) at `uri` as the client shows it: its headline, and its evidence
    as related information, each step at its line (a step in another module, which it names, at the
    finding); the hover shows the whole message. It links its rule's page only where `docs-url` says one
    is published (the hover shows the page itself)."""
    url = rule_url(result.checked.docs_url, d.code)
    lines = LINE_BREAK.split(result.snapshot.text_of(uri)[0])
    here = types.Location(
        uri, types.Range(position(lines, d.row, d.col, codec), position(lines, d.end_row, d.end_col, codec))
    )
    steps = [
        (step.why, None if step.row is None else result.snapshot.line(step.cell, step.row, codec))
        for step in d.evidence
    ]
    return types.Diagnostic(
        range=here.range,
        message=d.headline,
        severity=types.DiagnosticSeverity.Error if d.code in FAILED else types.DiagnosticSeverity.Warning,
        code=d.code,
        code_description=None if url is None else types.CodeDescription(href=url),
        source="jaxlint",
        related_information=[types.DiagnosticRelatedInformation(where or here, why) for why, where in steps] or None,
    )


def position(lines: list[str], row: int, col: int, codec: PositionCodec) -> types.Position:
    """A 1-based row and code-point column as an LSP position (past the last line: the end)."""
    if row > len(lines):
        row, col = len(lines), len(lines[-1]) + 1
    line = lines[row - 1]
    return types.Position(row - 1, codec.client_num_units(line[: col - 1]))


def row_col(lines: list[str], where: types.Position, codec: PositionCodec) -> tuple[int, int]:
    """An LSP position as a 1-based row and code-point column."""
    at = codec.position_from_client_units(lines, types.Position(where.line, where.character))
    return at.line + 1, at.character + 1


def text_edit(lines: list[str], edit: Edit, codec: PositionCodec) -> types.TextEdit:
    start, end = position(lines, edit.row, edit.col, codec), position(lines, edit.end_row, edit.end_col, codec)
    return types.TextEdit(types.Range(start, end), edit.content)


def overlaps(d: Diagnostic, start: tuple[int, int], end: tuple[int, int]) -> bool:
    return (d.row, d.col) <= end and start <= (d.end_row, d.end_col)


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    return only is None or any(kind == o or kind.startswith(f"{o}.") for o in only)


def code_actions(
    server: JaxlintServer, result: Result, uri: str, params: types.CodeActionParams
) -> list[types.CodeAction]:
    codec = server.workspace.position_codec
    text, findings = result.findings(uri)
    lines = LINE_BREAK.split(text)
    start, end = row_col(lines, params.range.start, codec), row_col(lines, params.range.end, codec)
    only = params.context.only
    actions = []
    for d in findings:
        if not overlaps(d, start, end) or not wanted(types.CodeActionKind.QuickFix, only):
            continue
        diagnostic = to_lsp(d, uri, codec, result)
        if d.fix is not None:
            label = "" if d.fix.applicability == SAFE else " (unsafe)"
            actions.append(
                types.CodeAction(
                    title=f"Fix {d.code}: {d.fix.message}{label}",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    is_preferred=d.fix.applicability == SAFE,
                    edit=fix_edit(server, result, uri, d),
                )
            )
        noqa = None if d.code in FAILED else noqa_edit(text, d)  # a file that was not checked needs a fix
        if noqa is not None:
            actions.append(
                types.CodeAction(
                    title=f"Suppress {d.code} with # noqa",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    edit=types.WorkspaceEdit(changes={uri: [text_edit(lines, noqa, codec)]}),
                )
            )
    # Fix all costs a check per round of fixes: offered when asked for, not on every cursor move.
    asked = only is not None or params.context.trigger_kind != types.CodeActionTriggerKind.Automatic
    if (
        result.snapshot.cells is None
        and asked
        and wanted(FIX_ALL, only)
        and any(d.fix is not None and d.fix.applicability == SAFE for d in findings)
    ):
        fixed = server.checker.fix_all(result.snapshot.path, text)
        if fixed is not None:
            actions.append(
                types.CodeAction(
                    title="Fix all safe jaxlint findings",
                    kind=FIX_ALL,
                    edit=types.WorkspaceEdit(changes={uri: [whole_edit(text, fixed, codec)]}),
                )
            )
    return actions


def fix_edit(server: JaxlintServer, result: Result, uri: str, d: Diagnostic) -> types.WorkspaceEdit:
    assert d.fix is not None  # only findings with a fix are offered
    codec = server.workspace.position_codec
    snapshot = result.snapshot
    if snapshot.cells is None:
        lines = LINE_BREAK.split(snapshot.texts[0])
        return types.WorkspaceEdit(changes={uri: [text_edit(lines, e, codec) for e in d.fix.edits]})
    changes: dict[str, list[types.TextEdit]] = {}
    for number, edit in cell_edits(snapshot.cells_for_checker(), d):
        lines = LINE_BREAK.split(snapshot.texts[number - 1])
        changes.setdefault(snapshot.cells[number - 1], []).append(text_edit(lines, edit, codec))
    return types.WorkspaceEdit(changes=changes)


def whole_edit(before: str, after: str, codec: PositionCodec) -> types.TextEdit:
    """One edit that turns `before` into `after`: the span between their common start and end."""
    start = 0
    while start < min(len(before), len(after)) and before[start] == after[start]:
        start += 1
    if before[start - 1 : start + 1] == "\r\n":
        start -= 1  # never between the two characters of one line break
    end = 0
    while end < min(len(before), len(after)) - start and before[-1 - end] == after[-1 - end]:
        end += 1
    if end and before[len(before) - end - 1 : len(before) - end + 1] == "\r\n":
        end -= 1
    lines = LINE_BREAK.split(before)

    def at(offset: int) -> types.Position:
        row = len(LINE_BREAK.findall(before, 0, offset)) + 1
        line_start = max((m.end() for m in LINE_BREAK.finditer(before, 0, offset)), default=0)
        return position(lines, row, offset - line_start + 1, codec)

    return types.TextEdit(types.Range(at(start), at(len(before) - end)), after[start : len(after) - end])


def hover(server: JaxlintServer, result: Result, uri: str, where: types.Position) -> types.Hover | None:
    from jaxlint.catalog import rule_page  # the rule classes: loaded by the first check anyway
    from jaxlint.checks import find_rule

    codec = server.workspace.position_codec
    text, findings = result.findings(uri)
    lines = LINE_BREAK.split(text)
    at = row_col(lines, where, codec)
    under = [d for d in findings if overlaps(d, at, at)]
    if not under:
        return None
    pages = []
    for d in under:
        rule = find_rule(d.code)
        steps = "".join(f"- {step.shown()}\n" for step in d.evidence)
        evidence = f"\n\nEvidence:\n\n{steps}" if steps else ""
        pages.append(f"**{d.code}**: {d.message}{evidence}\n\n---\n\n{rule_page(rule) if rule else ''}")
    first = to_lsp(under[0], uri, codec, result).range
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, "\n\n---\n\n".join(pages)), first)


def build() -> JaxlintServer:
    server = JaxlintServer()

    @server.feature(types.INITIALIZED)
    def initialized(ls: JaxlintServer, params: types.InitializedParams) -> None:
        root = ls.workspace.root_path
        if root:
            ls.checker.fallback_root = Path(root)
        ls.executor.submit(_warm_up)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: JaxlintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.open.add(params.text_document.uri)
        ls.request_check(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: JaxlintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.request_check(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: JaxlintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.request_check(params.text_document.uri)  # the settings may have changed; the text is known

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: JaxlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_open(ls: JaxlintServer, params: types.DidOpenNotebookDocumentParams) -> None:
        ls.open.add(params.notebook_document.uri)
        ls.request_check(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_change(ls: JaxlintServer, params: types.DidChangeNotebookDocumentParams) -> None:
        ls.request_check(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_save(ls: JaxlintServer, params: types.DidSaveNotebookDocumentParams) -> None:
        ls.request_check(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_close(ls: JaxlintServer, params: types.DidCloseNotebookDocumentParams) -> None:
        ls.forget(params.notebook_document.uri)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]),
    )
    async def code_action(ls: JaxlintServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        result = await ls.fresh(ls.owner(uri))
        if result is None:
            return None
        # In the checking thread: fix all checks the fixed text again.
        found = await asyncio.get_running_loop().run_in_executor(ls.executor, code_actions, ls, result, uri, params)
        return found or None

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: JaxlintServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        result = await ls.fresh(ls.owner(uri))
        return None if result is None else hover(ls, result, uri, params.position)

    return server


def _warm_up() -> None:
    """Import the checks before the first document arrives, so its diagnostics do not wait for them."""
    import jaxlint.lint  # noqa: F401


def serve() -> None:
    build().start_io()
