"""Many files: read, lint and collect, so that one bad file never stops the run.

Everything revolves around one per-file function, `check_bytes(path, data, settings)`; the cache
answers for unchanged files before it runs and a process pool runs it for many files at once.
Results come back in the order of the files, whatever order the workers finish in.
jaxlint.lint (and so libcst) is imported only when a file has to be parsed: a fully cached run
never pays for it.
"""

from __future__ import annotations

import os
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from jaxlint.cache import DEFAULT_DIR, Cache, content_hash, fingerprint
from jaxlint.config import Settings
from jaxlint.diagnostics import Diagnostic
from jaxlint.files import InputError, decode_source, discover, mentions_jax, read_bytes

# Below this many files to parse, starting worker processes costs more than it saves.
MIN_FILES_FOR_POOL = 8


@dataclass
class RunResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0
    skipped: int = 0  # files that never mention jax, not parsed
    internal_errors: list[str] = field(default_factory=list)


@dataclass
class FileResult:
    """One file's outcome. `digest` is the hash of the content it was computed from, None when
    the result must not be cached (unreadable or undecodable files, internal errors)."""

    diagnostics: list[Diagnostic]
    skipped: bool = False
    internal_error: str | None = None
    digest: str | None = None


def check_bytes(path: str, data: bytes, settings: Settings) -> FileResult:
    """The findings of one file's content (read by the caller, who hashed it for the cache); never raises."""
    try:
        source = decode_source(data)
    except InputError as error:
        return _input_error(path, error, settings)
    digest = content_hash(data)
    if not mentions_jax(source):
        return FileResult([], skipped=True, digest=digest)
    try:
        from jaxlint.lint import lint_source  # libcst: only for files that are parsed

        diagnostics = lint_source(source, path, settings.enabled_for(path), _table(settings),
                                  settings.key_names)
    except Exception:  # a bug in jaxlint: report it, keep checking the other files
        return FileResult([], internal_error=(
            f"internal error while checking {path} (please report it):\n{traceback.format_exc()}"))
    return FileResult(diagnostics, digest=digest)


_tables: dict = {}


def _table(settings: Settings):
    """The transform table of the settings' extra transforms, built once per process."""
    if settings.extra_transforms not in _tables:
        from jaxlint.analysis.traced import TransformTable

        _tables[settings.extra_transforms] = TransformTable(settings.extra_transforms)
    return _tables[settings.extra_transforms]


def _input_error(path: str, error: InputError, settings: Settings) -> FileResult:
    if error.code not in settings.enabled_for(path):
        return FileResult([])
    return FileResult([Diagnostic(path, error.row, error.col, error.code, error.message, error.row, error.col)])


def run(paths: list[str], settings: Settings, jobs: int | None = None, cache_dir: str | None = None,
        use_cache: bool = True) -> RunResult:
    """Check every file under `paths`: cached results first, the rest in `jobs` processes.

    The cache is in `cache_dir`, else the config's `cache-dir`, else `.jaxlint_cache` at the root."""
    result = RunResult()
    files, unlistable = discover(paths, settings)
    for folder, error in unlistable:
        if error.code in settings.enabled_for(folder):
            result.diagnostics.append(Diagnostic(folder, 1, 1, error.code, error.message, 1, 1))
    folder = Path(cache_dir) if cache_dir else settings.cache_dir or settings.root / DEFAULT_DIR
    cache = Cache(folder) if use_cache else None
    outcomes: list[FileResult | None] = [None] * len(files)
    misses: list[tuple[int, bytes]] = []
    for index, path in enumerate(files):
        try:
            data = read_bytes(path)
        except InputError as error:
            outcomes[index] = _input_error(path, error, settings)
            continue
        hit = cache.get(fingerprint(settings, path), content_hash(data)) if cache else None
        if hit is not None:
            outcomes[index] = FileResult(hit[0], skipped=hit[1])
        else:
            misses.append((index, data))
    for index, outcome in _check_all(files, misses, settings, jobs or os.cpu_count() or 1):
        outcomes[index] = outcome
        if cache and outcome.digest is not None:
            cache.put(fingerprint(settings, files[index]), outcome.digest, outcome.diagnostics, outcome.skipped)
    for outcome in outcomes:
        result.files += 1
        result.skipped += outcome.skipped
        result.diagnostics.extend(outcome.diagnostics)
        if outcome.internal_error:
            result.internal_errors.append(outcome.internal_error)
    return result


def _check_all(files: list[str], misses: list[tuple[int, bytes]], settings: Settings, jobs: int):
    """(index, result) of each file to check: in this process for a few, else in a pool."""
    if jobs <= 1 or len(misses) < MIN_FILES_FOR_POOL:
        for index, data in misses:
            yield index, check_bytes(files[index], data, settings)
        return
    from concurrent.futures import ProcessPoolExecutor  # not imported by runs that need no pool
    from concurrent.futures.process import BrokenProcessPool

    # Largest first, so that no big file starts last and keeps one worker busy alone at the end.
    ordered = sorted(misses, key=lambda miss: -len(miss[1]))
    with ProcessPoolExecutor(max_workers=min(jobs, len(misses))) as pool:
        futures = [(index, data, pool.submit(check_bytes, files[index], data, settings)) for index, data in ordered]
        for index, data, future in futures:
            try:
                yield index, future.result()
            except BrokenProcessPool:  # a worker died: every unfinished file again, each on its own
                yield index, _alone(files[index], data, settings)


def _alone(path: str, data: bytes, settings: Settings) -> FileResult:
    """One file in a process of its own, so that a file that kills its process (a crash in the
    parser, running out of memory) is the only one reported, and never takes the run down."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    with ProcessPoolExecutor(max_workers=1) as pool:
        try:
            return pool.submit(check_bytes, path, data, settings).result()
        except BrokenProcessPool:
            return FileResult([], internal_error=(
                f"internal error while checking {path} (please report it): the process checking it died"))
