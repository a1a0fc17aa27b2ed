"""Many files: read, lint (or fix) and collect, so that one bad file never stops the run.

Everything revolves around one per-file function, `check_bytes(path, data, settings)`; the cache
answers for unchanged files before it runs and a process pool runs it for many files at once.
Results come back in the order of the files, whatever order the workers finish in.
jaxlint.lint (and so libcst) is imported only when a file has to be parsed: a fully cached run
never pays for it. `--fix` and `--diff` check the project as a plain run does, fix the files that have
fixes (each with what its project tells it), then check the fixed files again with their project: what
remains is what a plain run of the fixed files prints.
"""

from __future__ import annotations

import difflib
import multiprocessing
import os
import signal
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterator, cast

from jaxlint import project
from jaxlint.analysis.interface import Interface, ModuleContext
from jaxlint.cache import DEFAULT_DIR, Cache, content_hash, fingerprint
from jaxlint.config import Settings
from jaxlint.diagnostics import Diagnostic
from jaxlint.discovery import discover
from jaxlint.files import LINES, InputError, check_size, decode, mentions_jax, read_bytes
from jaxlint.fix import FixError, applicable, fix_source, write_atomically
from jaxlint.notebook_outputs import unshown
from jaxlint.notebooks import Notebook, NotPython, is_notebook, line_name, locate, place_name
from jaxlint.results import FileResult, RunResult

# A notebook's size is mostly its outputs (images, tables): max-file-size applies to its code, and the
# file itself may be this many times larger.
NOTEBOOK_OUTPUTS = 20

# Below this many files to parse, starting worker processes costs more than it saves.
MIN_FILES_FOR_POOL = 8


@dataclass(frozen=True)
class FixMode:
    """`--fix` (write the files) or `--diff` (show what would change); `--unsafe-fixes` for both kinds."""

    unsafe: bool = False
    write: bool = True


def check_bytes(
    path: str,
    data: bytes,
    settings: Settings,
    fix_mode: FixMode | None = None,
    context: ModuleContext | None = None,
    findings: bool = True,
) -> FileResult:
    """The findings of one file's content (read by the caller, who hashed it for the cache), or its
    fixes with `fix_mode`; never raises. A notebook's code cells are checked as one program.
    `context` places a module in its project (jaxlint/project.py); without `findings`, only its
    interface is wanted (a module not named): the rules do not run."""
    notebook = None
    try:
        if is_notebook(path):
            check_size(len(data), settings.max_file_size * NOTEBOOK_OUTPUTS)
            notebook = Notebook.read(data)
            source, encoding = notebook.source, "utf-8"
            check_size(len(source.encode("utf-8")), settings.max_file_size)  # its code, not its outputs
        else:
            check_size(len(data), settings.max_file_size)
            source, encoding = decode(data)
    except NotPython as reason:
        return FileResult([], note=f"{path}: {reason}")
    except InputError as error:
        return _input_error(path, error, settings)
    digest = content_hash(data)
    # A module without jax is still checked when traced functions of other modules call into it, or it calls their
    # jitted functions.
    if not mentions_jax(source) and (context is None or not context.imported.checked_without_jax):
        interface = project.reexports(source, context) if context is not None and "import" in source else Interface()
        return FileResult([], skipped=True, digest=digest, interface=interface)
    try:
        from jaxlint.lint import lint_module  # libcst: only for files that are parsed

        def analyse(text: str) -> tuple[list[Diagnostic], Interface]:
            options = lint_options(
                settings,
                path,
                line_name=line_name(text) if notebook else str,
                place_name=place_name(text) if notebook else str,
                findings=findings,
            )
            return lint_module(text, path, options, context)

        if fix_mode is not None:
            return _fix_file(path, data, source, encoding, lambda text: analyse(text)[0], fix_mode, notebook)
        found, interface = analyse(source)
        return FileResult(_placed(source, found, notebook), digest=digest, interface=interface)
    except Exception:  # a bug in jaxlint: report it, keep checking the other files
        return FileResult(
            [], internal_error=(f"internal error while checking {path} (please report it):\n{traceback.format_exc()}")
        )


def lint_options(settings: Settings, path: str, **options):
    """The settings' options for linting the file at `path` (lint.LintOptions; `options`: the others)."""
    from jaxlint.lint import LintOptions  # libcst: only for files that are parsed

    return LintOptions(
        settings.enabled_for(path),
        _table(settings),
        settings.key_names,
        settings.target_jax_version,
        settings.python_version,
        **options,
    )


_tables: dict = {}


def _table(settings: Settings):
    """The transform table of the settings' extra transforms, built once per process."""
    if settings.extra_transforms not in _tables:
        from jaxlint.analysis.traced import TransformTable

        _tables[settings.extra_transforms] = TransformTable(settings.extra_transforms)
    return _tables[settings.extra_transforms]


def _placed(source: str, found: list[Diagnostic], notebook: Notebook | None) -> list[Diagnostic]:
    """The findings as they are reported: in a notebook, placed in their cells, less those its saved outputs show
    (notebook_outputs.py)."""
    return unshown(notebook.document, locate(source, found)) if notebook else found


def _input_error(path: str, error: InputError, settings: Settings) -> FileResult:
    if error.code not in settings.enabled_for(path):
        return FileResult([])
    return FileResult([Diagnostic(path, error.row, error.col, error.code, error.message, error.row, error.col)])


def _fix_file(
    path: str, data: bytes, source: str, encoding: str, lint, mode: FixMode, notebook: Notebook | None
) -> FileResult:
    """Fix one file, or diff it; when it cannot be written, its findings stay as they were.

    A notebook's program is fixed as a whole and written back into its cells (the diff is of its JSON).
    """

    def placed(text: str, found: list[Diagnostic]) -> list[Diagnostic]:
        return _placed(text, found, notebook)

    def unshown_only(text: str) -> list[Diagnostic]:
        """A notebook's findings, less those its saved outputs show: a lesson's cell that fails on purpose is
        left as it is."""
        assert notebook is not None
        found = lint(text)
        located = locate(text, found)
        kept = {id(d) for d in unshown(notebook.document, located)}
        return [d for d, in_cell in zip(found, located) if id(in_cell) in kept]

    fixed = fix_source(source, unshown_only if notebook else lint, mode.unsafe)
    if not fixed.fixed:
        return FileResult(placed(fixed.source, fixed.remaining))
    try:
        new = notebook.rewrite(fixed.source) if notebook else fixed.source.encode(encoding)
        if mode.write:
            write_atomically(path, new, data)
    except (FixError, UnicodeEncodeError) as error:
        return FileResult(placed(source, lint(source)), fix_failure=f"{path}: not fixed: {error}")
    diff = None if mode.write else _diff(path, data.decode(encoding), new.decode(encoding))
    return FileResult(placed(fixed.source, fixed.remaining), fixed=placed(source, fixed.fixed), diff=diff, content=new)


def _diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(LINES.findall(before), LINES.findall(after), f"a/{path}", f"b/{path}")
    return "".join(line if line.endswith(("\n", "\r")) else f"{line}\n\\ No newline at end of file\n" for line in lines)


def run(
    paths: list[str],
    settings: Settings,
    fix_mode: FixMode | None = None,
    unsafe_fixes: bool = False,
    jobs: int | None = None,
    cache_dir: str | None = None,
    use_cache: bool = True,
    nested: list[str] | None = None,
) -> RunResult:
    """Check (or fix) every file under `paths`: cached results first, the rest in `jobs` processes.

    The cache is in `cache_dir`, else the config's `cache-dir`, else `.jaxlint_cache` at the root.
    With a `nested` list, folders with a config of their own are left out and added to it (discovery.discover)."""
    result = RunResult(unsafe_fixes=unsafe_fixes)
    files, unlistable = discover(paths, settings, nested)
    for folder, error in unlistable:
        if error.code in settings.enabled_for(folder):
            result.diagnostics.append(Diagnostic(folder, 1, 1, error.code, error.message, 1, 1))
    cache_folder = Path(cache_dir) if cache_dir else settings.cache_dir or settings.root / DEFAULT_DIR
    cache = Cache(cache_folder) if use_cache else None
    batch, outcomes = _in_projects(files, settings, cache, jobs)  # the whole project, its files not named included
    if fix_mode is not None:
        _fix(batch, outcomes, fix_mode)
    for outcome in outcomes[: len(files)]:
        _collect(cast(FileResult, outcome), result)  # every file named was checked
    return result


def project_contexts(paths: list[str], settings: Settings, cache: Cache | None) -> dict[str, ModuleContext]:
    """What the other modules of their projects tell each of these files, by path: for the flake8
    plugin, which sees one file at a time."""
    batch, _ = _in_projects(paths, settings, cache, 1)
    return {batch.files[index]: context for index, context in batch.contexts.items()}


def _in_projects(
    paths: list[str], settings: Settings, cache: Cache | None, jobs: int | None
) -> tuple[_Batch, list[FileResult | None]]:
    """Check `paths` with the other modules of their projects (added after them, for their interfaces
    alone): the batch, with each module's context holding what the others tell it (jaxlint/project.py),
    and each file's outcome."""
    files = paths + project.siblings(paths, cache, settings.max_file_size)
    # (a notebook runs in a kernel of its own, importing the project's modules: what they tell it reaches it)
    modules = {index: path for index, path in enumerate(files) if path.endswith((".py", ".pyi", ".ipynb"))}
    linked = project.linked_packages(project.projects(modules), modules)
    contexts = {index: project.context(path, linked=linked) for index, path in modules.items()}
    batch = _Batch(files, contexts, settings, cache, jobs, None, len(paths), linked=linked)
    outcomes = _check_files(batch, dict.fromkeys(range(len(files))))
    if contexts:
        _link(batch, outcomes)
    return batch, outcomes


def _fix(batch: _Batch, outcomes: list[FileResult | None], mode: FixMode) -> None:
    """Fix (or diff) the named files that have fixes, each with what its project tells it, then check the
    fixed files again with their project (phase 2 included): their outcomes, in place, are what a plain run
    of the fixed files gives, with what was fixed."""
    todo = {
        index: None
        for index, outcome in enumerate(outcomes[: batch.named])
        if any(applicable(d, mode.unsafe) for d in cast(FileResult, outcome).diagnostics)
    }
    fixes = _check_files(replace(batch, cache=None, fix_mode=mode), todo)  # a fix is not a cached result
    contents = {index: fix.content for index in todo if (fix := cast(FileResult, fixes[index])).content is not None}
    after = replace(batch, contents=contents)
    _check_files(after, dict.fromkeys(contents), outcomes)
    if batch.contexts:
        _link(after, outcomes)
    for index in todo:
        fix, outcome = cast(FileResult, fixes[index]), cast(FileResult, outcomes[index])
        outcomes[index] = replace(
            outcome,
            fixed=fix.fixed,
            diff=fix.diff,
            fix_failure=fix.fix_failure,
            internal_error=fix.internal_error or outcome.internal_error,
        )


@dataclass(frozen=True)
class _Batch:
    """The files a run checks, and how: the first `named` of `files` are the ones asked about (their findings
    are wanted), the others are there for their interfaces. `contexts` (by index: what the other modules of
    its project tell a module) is updated in place as phase 2 learns more."""

    files: list[str]
    contexts: dict[int, ModuleContext]
    settings: Settings
    cache: Cache | None
    jobs: int | None  # None: one process per CPU
    fix_mode: FixMode | None
    named: int
    contents: dict[int, bytes] = field(default_factory=dict)  # by index: bytes to check instead of the file's
    # By project root: the modules of the run's packages it imports from above (project.linked_packages).
    linked: dict[Path, dict[str, int]] = field(default_factory=dict)

    def key(self, index: int) -> str:
        """File `index`'s cache key (cache.fingerprint)."""
        return fingerprint(self.settings, self.files[index], self.contexts.get(index), index < self.named)

    def arguments(
        self, index: int, data: bytes
    ) -> tuple[str, bytes, Settings, FixMode | None, ModuleContext | None, bool]:
        """The arguments of check_bytes for file `index`."""
        return (self.files[index], data, self.settings, self.fix_mode, self.contexts.get(index), index < self.named)


def _check_files(
    batch: _Batch, todo: dict[int, None], outcomes: list[FileResult | None] | None = None
) -> list[FileResult | None]:
    """Check the files whose indexes are in `todo`: cached results first, the rest in `batch.jobs` processes."""
    files, settings, cache = batch.files, batch.settings, batch.cache
    outcomes = outcomes if outcomes is not None else [None] * len(files)
    misses: list[tuple[int, bytes]] = []
    for index in todo:
        path = files[index]
        try:
            data = batch.contents[index] if index in batch.contents else read_bytes(path, _size_limit(path, settings))
        except InputError as error:
            outcomes[index] = _input_error(path, error, settings)
            continue
        hit = cache.get(batch.key(index), content_hash(data)) if cache else None
        if hit is not None:
            outcomes[index] = FileResult(hit[0], skipped=hit[1], interface=hit[2])
        else:
            misses.append((index, data))
    for index, outcome in _check_all(batch, misses):
        outcomes[index] = outcome
        if cache and outcome.digest is not None:
            cache.put(batch.key(index), outcome.digest, outcome.diagnostics, outcome.skipped, outcome.interface)
    return outcomes


def _size_limit(path: str, settings: Settings) -> int:
    return settings.max_file_size * (NOTEBOOK_OUTPUTS if is_notebook(path) else 1)


def _link(batch: _Batch, outcomes: list[FileResult | None]) -> None:
    """Phase 2 (jaxlint/project.py): check again each module whose facts from the others changed."""
    files, contexts = batch.files, batch.contexts
    enabled = {  # the conftest.py files that turn on x64 below them (project.conftests_above)
        Path(files[index]).absolute()
        for index in contexts
        if Path(files[index]).name == "conftest.py" and cast(FileResult, outcomes[index]).interface.x64
    }
    projects = project.projects({index: files[index] for index in contexts})

    def interfaces_of(modules: dict[str, int]) -> dict[str, Interface]:
        """(A notebook's x64 is its own and its imports' (_notebooks_importing_x64): it turns it on for no module.)"""
        found = {}
        for name, index in modules.items():
            interface = cast(FileResult, outcomes[index]).interface
            found[name] = replace(interface, x64=False, wide_dtypes=False) if is_notebook(files[index]) else interface
        return found

    # A project's modules with those of the packages of this run that it imports from the folders above it
    # (`examples/train.py` importing the repository's own package): their facts reach one another as within one.
    linked = {root: {**batch.linked.get(root, {}), **modules} for root, modules in projects.items()}

    # Every module of a project was checked (phase 1). Whether a module sets x64 is what its text says, the same
    # in every round; whether a project imports a package that does is found once for the modules that ask.
    x64 = project.x64_packages({root: interfaces_of(modules) for root, modules in projects.items()})
    _notebooks_importing_x64(batch, outcomes, x64)
    used_by_notebooks = _used_by_x64_notebooks(batch, outcomes)
    imported_x64: dict[tuple[Path, tuple[str, ...]], bool] = {}
    used_x64: dict[Path, bool] = {}
    for _ in range(project.MAX_ROUNDS):
        todo: dict[int, None] = {}
        for root, modules in projects.items():
            interfaces = interfaces_of(modules)
            asking = tuple(files[modules[name]] for name, interface in interfaces.items() if interface.wide_dtypes)
            if asking and not x64[root]:
                if (root, asking) not in imported_x64:
                    imported_x64[root, asking] = project.x64_imported(root, list(asking), x64)
                if root not in used_x64:
                    used_x64[root] = project.x64_used(root, x64)
            from_above = (
                project.x64_above(root, enabled)
                or imported_x64.get((root, asking), False)
                or bool(asking)
                and (used_x64.get(root, False) or root.absolute() in used_by_notebooks)
            )
            for name, imported in project.imported_facts(interfaces_of(linked[root]), from_above).items():
                if name not in modules:
                    continue  # a module of an imported package: its own project's round gives its facts
                index = modules[name]
                if is_notebook(files[index]):
                    imported = replace(imported, x64=contexts[index].imported.x64)
                if imported == contexts[index].imported:
                    continue
                before = contexts[index].imported
                contexts[index] = replace(contexts[index], imported=imported)
                # A fact its analysis did not read changes nothing: its outcome is the one these facts give.
                read = cast(FileResult, outcomes[index]).interface
                if project.read_facts(imported, read) != project.read_facts(before, read):
                    todo[index] = None
        if not todo:
            return
        _check_files(batch, todo, outcomes)


def _used_by_x64_notebooks(batch: _Batch, outcomes: list[FileResult | None]) -> set[Path]:
    """The project roots whose packages a notebook of the run that turns on x64 imports (project.x64_notebook_uses)."""
    found: set[Path] = set()
    for index, path in enumerate(batch.files):
        outcome = outcomes[index]
        if not is_notebook(path) or outcome is None or not outcome.interface.x64:
            continue
        source = _notebook_source(batch, index)
        if source is not None:
            found |= project.x64_notebook_uses(path, source)
    return found


def _notebook_source(batch: _Batch, index: int) -> str | None:
    """The program a notebook of the run is checked as, read again; None when it no longer reads as one."""
    path = batch.files[index]
    try:
        data = batch.contents.get(index) or read_bytes(path, _size_limit(path, batch.settings))
        return Notebook.read(data).source
    except (InputError, NotPython):
        return None


def _notebooks_importing_x64(batch: _Batch, outcomes: list[FileResult | None], x64: dict[Path, frozenset[str]]) -> None:
    """A notebook's x64 is not its project's (it runs in a kernel of its own), but the modules it imports run in
    that kernel: one whose import turns on x64 turns it on for the notebook (project.x64_in_imports). Its 64-bit
    requests are checked again with that fact."""
    todo: dict[int, None] = {}
    for index, path in enumerate(batch.files):
        outcome = outcomes[index]
        if not is_notebook(path) or outcome is None:
            continue
        if not any(d.code == "JAX701" for d in outcome.diagnostics):
            continue
        source = _notebook_source(batch, index)
        if source is not None and project.x64_in_imports(project.module_of(path)[0], source, x64):
            known = batch.contexts[index]  # (every notebook of the run has one: _in_projects)
            batch.contexts[index] = replace(known, imported=replace(known.imported, x64=True))
            todo[index] = None
    if todo:
        _check_files(batch, todo, outcomes)


def check_stdin(name: str, data: bytes, settings: Settings) -> RunResult:
    """The code read from stdin, checked as the file `name` (its settings, its kind: `.ipynb` or not)."""
    result = RunResult()
    _collect(check_bytes(name, data, settings), result)
    return result


def fix_stdin(name: str, data: bytes, settings: Settings, mode: FixMode) -> tuple[bytes, RunResult]:
    """`jaxlint --fix -` (as ruff): the code read from stdin with its fixes applied, and what remains; with
    `--diff` (`mode.write` off), the diff is in the result."""
    outcome = check_bytes(name, data, settings, FixMode(mode.unsafe, write=False))
    result = RunResult(unsafe_fixes=mode.unsafe)
    _collect(outcome if not mode.write else replace(outcome, diff=None), result)
    return outcome.content or data, result


def _collect(outcome: FileResult, result: RunResult) -> None:
    result.files += 1
    result.skipped += outcome.skipped
    result.diagnostics.extend(outcome.diagnostics)
    result.fixed.extend(outcome.fixed)
    for value, into in (
        (outcome.internal_error, result.internal_errors),
        (outcome.note, result.notes),
        (outcome.diff, result.diffs),
        (outcome.fix_failure, result.fix_failures),
    ):
        if value:
            into.append(value)


def _check_all(batch: _Batch, misses: list[tuple[int, bytes]]) -> Iterator[tuple[int, FileResult]]:
    """(index, result) of each file to check: in this process for a few, else in a pool."""
    jobs = batch.jobs or os.cpu_count() or 1
    if jobs <= 1 or len(misses) < MIN_FILES_FOR_POOL:
        for index, data in misses:
            yield index, check_bytes(*batch.arguments(index, data))
        return
    from concurrent.futures.process import BrokenProcessPool  # not imported by runs that need no pool

    if multiprocessing.get_start_method() == "fork":
        import jaxlint.lint  # noqa: F401  (libcst: imported once here, not once by each worker of each pool)
    # Largest first, so that no big file starts last and keeps one worker busy alone at the end.
    ordered = sorted(misses, key=lambda miss: -len(miss[1]))
    with _pool(min(jobs, len(misses))) as pool:
        futures = [(index, data, pool.submit(check_bytes, *batch.arguments(index, data))) for index, data in ordered]
        for index, data, future in futures:
            try:
                yield index, future.result()
            except BrokenProcessPool:  # a worker died: every unfinished file again, each on its own
                yield index, _alone(*batch.arguments(index, data))


_live_pools: set = set()


@contextmanager
def _pool(workers: int):
    """A process pool whose workers leave Ctrl-C to this process, and are killed, not waited for, when
    the run is interrupted (see kill_workers)."""
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(max_workers=workers, initializer=_leave_interrupts_to_the_parent)
    _live_pools.add(pool)
    try:
        _start_workers(pool)
        yield pool
    except BaseException:
        kill_workers()
        raise
    finally:
        _live_pools.discard(pool)
    pool.shutdown(wait=True)


def kill_workers() -> None:
    """Kill the pools' worker processes at once (an interrupted run must not wait for them)."""
    for pool in list(_live_pools):
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.kill()
        pool.shutdown(wait=False, cancel_futures=True)
        _live_pools.discard(pool)


_STOPS = {signal.SIGINT, signal.SIGTERM}


def _start_workers(pool) -> None:
    """Start the workers with Ctrl-C and SIGTERM held back: Python runs its after-fork hooks in the
    parent (logging's among them) where a KeyboardInterrupt is printed and dropped, and the run would go
    on. Held back, the signal arrives right after, where the run stops on it. (Windows has no fork.)"""
    if not hasattr(signal, "pthread_sigmask"):
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        pool.submit(int)  # with fork, the first task starts every worker
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _leave_interrupts_to_the_parent() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)  # forked while the parent held them back


def _alone(
    path: str, data: bytes, settings: Settings, fix_mode: FixMode | None, context: ModuleContext | None, findings: bool
) -> FileResult:
    """One file in a process of its own, so that a file that kills its process (a crash in the
    parser, running out of memory) is the only one reported, and never takes the run down."""
    from concurrent.futures.process import BrokenProcessPool

    with _pool(1) as pool:
        try:
            return pool.submit(check_bytes, path, data, settings, fix_mode, context, findings).result()
        except BrokenProcessPool:
            return FileResult(
                [],
                internal_error=(
                    f"internal error while checking {path} (please report it): the process checking it died"
                ),
            )
