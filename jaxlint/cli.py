"""Command line: arguments -> settings -> run -> report -> exit code (0 clean, 1 findings, 2 error)."""

from __future__ import annotations

import argparse
import io
import json
import os
import signal
import sys
import threading
import time
from dataclasses import fields, replace
from pathlib import Path
from collections import Counter
from typing import NoReturn, TextIO

from jaxlint import __version__
from jaxlint.config import (
    CommandLine,
    ConfigError,
    Settings,
    build_settings,
    find_config,
    load_table,
    nearest_pyproject,
    pinned_jax,
    requires_python,
)
from jaxlint.discovery import discover
from jaxlint.files import InputError, decode, read_bytes
from jaxlint.report import FORMATS, source, text
from jaxlint.model.apis import VERSION as JAX_VERSION
from jaxlint.results import RunResult
from jaxlint.runner import FixMode, check_stdin, fix_stdin, run

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_BROKEN_PIPE = 128 + 13  # as a process killed by SIGPIPE
EXIT_INTERRUPTED, EXIT_TERMINATED = 128 + 2, 128 + 15  # SIGINT, SIGTERM
FORMAT_NAMES = ("text", "json", "sarif", "github", "junit", "concise", "full")


def _selectors(values: list[str] | None) -> list[str] | None:
    """`--select A,B --select C` -> [A, B, C]."""
    if values is None:
        return None
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def _positive(value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {value!r}")
    return int(value)


def _per_file_ignore(value: str) -> tuple[str, list[str]]:
    glob, colon, codes = value.rpartition(":")
    if not colon or not glob or not codes.strip():
        raise argparse.ArgumentTypeError(f"expected GLOB:CODES such as 'tests/*:JAX101', got {value!r}")
    return glob, _selectors([codes]) or []


def _jax_version(value: str) -> str:
    if not JAX_VERSION.match(value):
        raise argparse.ArgumentTypeError(f"expected a jax version such as 0.4.30, got {value!r}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jaxlint",
        usage="jaxlint [check] [options] [paths ...]\n       jaxlint rule CODE | --all\n       jaxlint server",
        description="A correctness linter for JAX code.",
        epilog="commands:\n"
        "  check    check the paths (the default: `jaxlint src/` is `jaxlint check src/`)\n"
        "  rule     explain a rule (`jaxlint rule JAX201`), or list them all (`jaxlint rule --all`)\n"
        "  server   the language server, on stdin and stdout (for editors)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths", nargs="*", default=["."], help="files or folders to check (default: .); `-` reads the code from stdin"
    )
    parser.add_argument(
        "--stdin-filename", metavar="NAME", help="with `-`: the file name the code on stdin is checked and reported as"
    )
    parser.add_argument("--output-file", "-o", metavar="FILE", help="write the report to FILE, not stdout")
    parser.add_argument(
        "--select", action="append", metavar="CODES", help="only these rules: codes, names or prefixes, comma-separated"
    )
    parser.add_argument(
        "--extend-select",
        action="append",
        default=[],
        metavar="CODES",
        help="also these rules (opt-in rules by code or name)",
    )
    parser.add_argument("--ignore", action="append", default=[], metavar="CODES", help="not these rules")
    parser.add_argument(
        "--extend-ignore", action="append", default=[], metavar="CODES", help="not these rules either (as --ignore)"
    )
    parser.add_argument(
        "--per-file-ignores",
        action="append",
        type=_per_file_ignore,
        metavar="GLOB:CODES",
        help="not these rules in the files matching GLOB (`tests/*:JAX101,JAX201`); replaces the config's",
    )
    parser.add_argument(
        "--exclude", action="append", metavar="GLOBS", help="leave out these files and folders; replaces the config's"
    )
    parser.add_argument("--extend-exclude", action="append", default=[], metavar="GLOBS", help="leave out these too")
    parser.add_argument("--output-format", choices=FORMAT_NAMES, default="text")
    parser.add_argument(
        "--show-source",
        action="store_true",
        help="as --output-format full: each finding's source line, whole message and evidence (text output)",
    )
    parser.add_argument("--statistics", action="store_true", help="print counts by rule instead of findings")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    parser.add_argument("--config", metavar="FILE", help="read [tool.jaxlint] from FILE")
    parser.add_argument(
        "--target-version",
        type=_jax_version,
        metavar="VERSION",
        help="the jax release the code must run on (as target-jax-version; default: the lowest its dependencies allow)",
    )
    parser.add_argument(
        "--force-exclude",
        action="store_true",
        help="apply excludes to files named on the command line too (for pre-commit)",
    )
    parser.add_argument(
        "--respect-gitignore",
        action=argparse.BooleanOptionalAction,
        help="skip the files git ignores (.gitignore, .git/info/exclude; default: on)",
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="print findings only, no summary")
    parser.add_argument("--silent", action="store_true", help="print nothing; the exit code still tells")
    parser.add_argument("--show-files", action="store_true", help="list the files that would be checked, and stop")
    parser.add_argument(
        "--show-settings", action="store_true", help="print the settings that apply to the first path, and stop"
    )
    parser.add_argument("--watch", action="store_true", help="check again whenever a file changes (Ctrl-C stops)")
    parser.add_argument("--fix", action="store_true", help="apply the safe fixes, then report what remains")
    parser.add_argument(
        "--fix-only", action="store_true", help="apply the safe fixes and report only what was fixed (exit 0)"
    )
    parser.add_argument(
        "--exit-non-zero-on-fix", action="store_true", help="with --fix: exit 1 when something was fixed, too"
    )
    parser.add_argument(
        "--add-noqa", action="store_true", help="add a `# noqa: CODE` comment to every line with a finding"
    )
    parser.add_argument(
        "--unsafe-fixes", action="store_true", help="with --fix or --diff, also apply fixes that may change behaviour"
    )
    parser.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; write nothing")
    parser.add_argument("--show-fixes", action="store_true", help="list the findings that were fixed")
    parser.add_argument(
        "--jobs", "-j", type=_positive, metavar="N", help="check files in N processes (default: the number of cores)"
    )
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the result cache")
    parser.add_argument(
        "--cache-dir", metavar="DIR", help="keep the result cache in DIR (default: .jaxlint_cache at the project root)"
    )
    parser.add_argument("--version", action="version", version=f"jaxlint {__version__}")
    parser.add_argument(
        "--verify",
        nargs="?",
        const="flagged",
        choices=("flagged", "all", "run"),
        help="import your modules under jax's checkers and trace the flagged functions; "
        "--verify=all traces every transformed function; --verify=run also runs the "
        "named scripts and [tool.jaxlint.verify] run commands",
    )
    parser.add_argument(
        "--verify-timeout", type=float, metavar="SECONDS", help="per file and per run command (default 60)"
    )
    parser.add_argument(
        "--fail-on",
        choices=("any", "confirmed"),
        help="with --verify: exit 1 on any finding (default) or only on confirmed ones",
    )
    return parser


def _rule_command(argv: list[str], out: TextIO) -> int:
    from jaxlint.catalog import rule_page
    from jaxlint.checks import ALL_RULES, find_rule

    parser = argparse.ArgumentParser(prog="jaxlint rule", description="Explain a rule.")
    parser.add_argument("rule", nargs="?", help="a rule code (JAX101) or name (in-place-update)")
    parser.add_argument("--all", action="store_true", help="list every rule")
    args = parser.parse_args(argv)
    if args.all:
        for listed in ALL_RULES:
            default = "on" if listed.default_enabled else "opt-in"
            out.write(f"{listed.code}  {listed.name:<30} {default:<6} {listed.summary}\n")
        return EXIT_CLEAN
    if not args.rule:
        parser.error("give a rule code or name, or --all")
    rule = find_rule(args.rule)
    if rule is None:
        print(f"jaxlint: error: unknown rule '{args.rule}' (jaxlint rule --all lists them)", file=sys.stderr)
        return EXIT_ERROR
    out.write(rule_page(rule))
    return EXIT_CLEAN


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    try:
        return _main(argv, out or sys.stdout)
    except BrokenPipeError:  # `jaxlint . | head`, `jaxlint rule --all | head`: the reader has what it wanted
        _silence_stdout()
        return EXIT_BROKEN_PIPE


def _main(argv: list[str] | None, out: TextIO) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["check"]:  # `jaxlint check src/`, as `ruff check src/`
        argv = argv[1:]
    try:
        if argv[:1] == ["rule"]:
            return _rule_command(argv[1:], out)
        if argv[:1] == ["server"]:
            from jaxlint.server import main as server_command  # pygls: only for the server

            return server_command(argv[1:])
        # A bare `--verify` must not swallow the path after it as its optional value.
        args = _parser().parse_args(["--verify=flagged" if a == "--verify" else a for a in argv])
    except SystemExit as exit_:  # argparse: --help, --version, usage errors
        return int(exit_.code or 0)
    if args.fail_on == "confirmed" and not args.verify:
        print(
            "jaxlint: error: --fail-on confirmed needs --verify (without it no finding is confirmed)", file=sys.stderr
        )
        return EXIT_ERROR
    previous = _on_sigterm(_terminate)
    try:
        return _lint(args, out)
    except (KeyboardInterrupt, Terminated) as stop:  # Ctrl-C, SIGTERM: stop now, workers too
        from jaxlint.runner import kill_workers

        kill_workers()
        terminated = isinstance(stop, Terminated)
        print(f"jaxlint: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    except ConfigError as error:
        print(f"jaxlint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:  # for main
        raise
    except Exception as error:  # a bug in jaxlint: one line and exit 2, not a traceback
        print(f"jaxlint: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        _on_sigterm(previous)


def console() -> NoReturn:
    """The `jaxlint` command (and `python -m jaxlint`): main(), then an exit that skips the interpreter's
    teardown, which frees every object the run left (the syntax trees waiting for the collector): a
    sixth of a big run's CPU time. The report, the cache and the pools are done when main returns;
    stdout and stderr are flushed here. In-process callers (the language server, the flake8 plugin,
    tests) call main() and keep their interpreter."""
    code = main()
    if sys.getprofile() is not None or sys.gettrace() is not None:
        sys.exit(code)  # a profiler or coverage writes its data at the interpreter's exit
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away before the last bytes: as a process killed by SIGPIPE
        _silence_stdout()
        code = EXIT_BROKEN_PIPE
    except BaseException:  # a full disk: the interpreter's own exit reports it
        sys.exit(code)
    os._exit(code)


class Terminated(BaseException):
    """SIGTERM, raised where the run is, like KeyboardInterrupt for Ctrl-C."""


def _terminate(signum, frame) -> None:
    raise Terminated


def _on_sigterm(handler):
    """Install a SIGTERM handler (in the main thread only: signals go there); the one it replaces."""
    if handler is None or threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, handler)


def _verify(args: argparse.Namespace, settings, result, server) -> str:
    """Run the user's code with real jax (imported by the worker processes only, never here); the
    reason it could not ("" when it ran)."""
    from jaxlint.cache import DEFAULT_DIR
    from jaxlint.verify import run as verify_run  # not on the static path
    from jaxlint.verify_config import VerifyConfigError, from_table as verify_options

    if server is None:
        return verify_run.INSTALL_HINT
    table = load_table(settings.config_file).get("verify", {}) if settings.config_file else {}
    cache_dir = None if args.no_cache else str(args.cache_dir or settings.cache_dir or settings.root / DEFAULT_DIR)
    scripts = [p for p in args.paths if p.endswith(".py")]
    try:
        options = verify_options(table, args.verify, args.verify_timeout, scripts, cache_dir)
    except VerifyConfigError as error:
        raise ConfigError(str(error)) from None
    for note in verify_run.verify(args.paths, result, settings, options, server):
        print(f"jaxlint: {note}", file=sys.stderr)
    return ""


def _verify_server():
    """With --verify, the process that imports jax, started before the static pass (None without jax)."""
    from jaxlint.verify import run as verify_run  # not on the static path

    return None if verify_run.jax_missing() else verify_run.start_server()


def _lint(args: argparse.Namespace, out: TextIO) -> int:
    command_line = CommandLine(
        select=_selectors(args.select),
        extend_select=_selectors(args.extend_select) or [],
        ignore=(_selectors(args.ignore) or []) + (_selectors(args.extend_ignore) or []),
        config=args.config,
        force_exclude=args.force_exclude,
        respect_gitignore=args.respect_gitignore,
        target_jax_version=args.target_version,
        exclude=_selectors(args.exclude),
        extend_exclude=_selectors(args.extend_exclude) or [],
        per_file_ignores=args.per_file_ignores,
    )
    modes = [name for name in ("fix", "fix_only", "diff", "verify", "add_noqa", "watch") if getattr(args, name)]
    for alone in ("add_noqa", "watch"):
        others = [mode for mode in modes if mode != alone]
        if alone in modes and others:
            raise ConfigError(f"--{alone.replace('_', '-')} does not go with --{others[0].replace('_', '-')}")
    args.fix = args.fix or args.fix_only
    if args.show_settings:
        return _show_settings(args.paths, command_line, out)
    if args.show_files:
        out.write("".join(f"{path}\n" for path in _files(args.paths, command_line)))
        return EXIT_CLEAN
    if args.watch:
        return _watch(args, command_line, out)
    return _check(args, command_line, out)


def _check(args: argparse.Namespace, command_line: CommandLine, out: TextIO) -> int:
    """One run: check (or fix) the paths, report, and the exit code."""
    fix_mode = FixMode(args.unsafe_fixes, write=not args.diff) if args.fix or args.diff else None
    server = _verify_server() if args.verify else None
    if "-" in args.paths:
        if args.paths != ["-"] or args.verify or args.add_noqa or args.watch:
            raise ConfigError("`-` (stdin) is checked alone, without --verify, --add-noqa or --watch")
        [(settings, _)] = _by_config([args.stdin_filename or "-"], command_line)
        name, data = args.stdin_filename or "-", sys.stdin.buffer.read()
        if fix_mode is None:
            result = check_stdin(name, data, settings)
        else:  # as ruff: the fixed code on stdout (--diff: the diff), the findings that remain on stderr
            fixed, result = fix_stdin(name, data, settings, fix_mode)
            if fix_mode.write:
                _write_report(fixed.decode("utf-8", "surrogateescape"), args.output_file, out)
                out = sys.stderr
    else:
        groups = _by_config(args.paths, command_line)
        settings = groups[0][0]
        # Groups that walk folders first: a nested folder found there joins a group of named files with
        # its settings that is still to run (`jaxlint repo/sub/b.py repo`), and its walk lists each file once.
        groups.sort(key=lambda group: not any(os.path.isdir(path) for path in group[1]))
        result = RunResult(unsafe_fixes=args.unsafe_fixes)
        done: list[tuple[Settings, list[str]]] = []
        while groups:  # a folder below with a config of its own is a group of its own, checked after
            group_settings, paths = groups.pop(0)
            nested: list[str] | None = None if command_line.config is not None else []
            part = run(
                paths,
                group_settings,
                fix_mode,
                args.unsafe_fixes,
                jobs=args.jobs,
                cache_dir=args.cache_dir,
                use_cache=not args.no_cache,
                nested=nested,
            )
            done.append((group_settings, paths))
            _add_nested(groups, done, _by_config(nested, command_line) if nested else [])
            for name, value in vars(part).items():
                if isinstance(value, (list, int)) and not isinstance(value, bool):
                    setattr(result, name, getattr(result, name) + value)
    result.docs_url = settings.docs_url
    if args.add_noqa:
        return _add_noqa(result, args.silent, out)
    unverifiable = _verify(args, settings, result, server) if args.verify else ""
    if not args.silent:
        report = io.StringIO()
        _report(args, result, report, unverifiable)
        _write_report(report.getvalue(), args.output_file if out is not sys.stderr else None, out)
        for note in result.notes:
            print(f"jaxlint: note: {note}", file=sys.stderr)
    for message in result.fix_failures + result.internal_errors:
        print(f"jaxlint: {message}", file=sys.stderr)
    if unverifiable:  # the static findings are printed above; --verify itself could not run
        print(f"jaxlint: error: {unverifiable}", file=sys.stderr)
    if result.internal_errors or unverifiable:
        return EXIT_ERROR
    failing = [
        d
        for d in result.diagnostics
        if args.fail_on != "confirmed" or (d.verify is not None and d.verify.status == "confirmed")
    ]
    if args.fix_only:
        failing = []
    if (failing or result.diffs or (args.exit_non_zero_on_fix and result.fixed)) and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _files(paths: list[str], command_line: CommandLine) -> list[str]:
    """The files a run on `paths` checks (`--show-files`, `--watch`), each with the settings of its folder."""
    groups = _by_config(paths, command_line)
    found: list[str] = []
    while groups:
        settings, group = groups.pop(0)
        nested: list[str] | None = None if command_line.config is not None else []
        found += discover(group, settings, nested)[0]
        groups += _by_config(nested, command_line) if nested else []
    return sorted(set(found))


def _show_settings(paths: list[str], command_line: CommandLine, out: TextIO) -> int:
    """`--show-settings`: the settings that apply to the first path, one `name = value` a line."""
    [(settings, _), *_] = _by_config(paths[:1], command_line)
    out.write(f"Settings for {paths[0]}:\n")
    for field in fields(settings):
        value = getattr(settings, field.name)
        if isinstance(value, (frozenset, set)):
            value = ", ".join(sorted(value))
        elif field.name == "per_file_ignores":
            value = "; ".join(f"{glob}: {', '.join(sorted(codes))}" for glob, codes in value)
        elif isinstance(value, tuple):
            value = ", ".join(value)
        out.write(f"{field.name} = {value}\n")
    return EXIT_CLEAN


def _add_noqa(result: RunResult, silent: bool, out: TextIO) -> int:
    """`--add-noqa`: a `# noqa: CODE` comment on the line of each finding, the file written in place."""
    import tokenize

    from jaxlint.fix import FixError, write_atomically
    from jaxlint.noqa import with_noqa  # the rule catalogue: only for --add-noqa

    rows: dict[str, dict[int, set[str]]] = {}
    for d in result.diagnostics:
        if d.cell is None and not d.code.startswith("JAX0"):  # a notebook's lines are in its JSON; JAX0xx: files
            rows.setdefault(d.filename, {}).setdefault(d.noqa_row, set()).add(d.code)
    added = 0
    for path, codes in rows.items():
        try:
            data = read_bytes(path)
            source, encoding = decode(data)
            new, count = with_noqa(source, codes)
            if count:
                write_atomically(path, new.encode(encoding), data)
        except (InputError, FixError, SyntaxError, tokenize.TokenError) as error:
            print(f"jaxlint: {path}: no noqa added: {getattr(error, 'message', error)}", file=sys.stderr)
            continue
        added += count
    if not silent:
        out.write(f"Added {added} noqa comment{'s' if added != 1 else ''}.\n")
    return EXIT_CLEAN


# How often --watch looks at the files' modification times (stat only: cheap).
WATCH_INTERVAL = 0.5


def _watch(args: argparse.Namespace, command_line: CommandLine, out: TextIO) -> int:
    """Check, then check again each time a checked file, a new file or a config file changes. Ctrl-C is
    how watching ends, as in ruff: exit 0 (SIGTERM still stops it as a failure, 143)."""
    try:
        while True:
            seen = _snapshot(args.paths, command_line)
            _check(args, command_line, out)
            _write_report("Watching for file changes.\n", None, out)
            while _snapshot(args.paths, command_line) == seen:
                time.sleep(WATCH_INTERVAL)
    except KeyboardInterrupt:
        from jaxlint.runner import kill_workers

        kill_workers()
        return EXIT_CLEAN


def _snapshot(paths: list[str], command_line: CommandLine) -> dict[str, tuple[int, int]]:
    """Each checked file's and config file's modification time and size."""
    configs = [str(settings.config_file) for settings, _ in _by_config(paths, command_line) if settings.config_file]
    found = {}
    for path in [*_files(paths, command_line), *configs]:
        try:
            status = os.stat(path)
        except OSError:
            continue
        found[path] = (status.st_mtime_ns, status.st_size)
    return found


def _by_config(paths: list[str], command_line: CommandLine) -> list[tuple[Settings, list[str]]]:
    """The paths grouped by the settings that apply to them: `--config`, else the nearest pyproject.toml
    with [tool.jaxlint] at or above each path (as ruff does), else the one found from here."""
    if command_line.config is not None:
        return [(build_settings(command_line), paths)]
    groups: dict[tuple[Path | None, Path | None], list[str]] = {}
    for path in paths:
        absolute = Path(os.path.abspath(path))
        folder = absolute if os.path.isdir(absolute) else absolute.parent
        config = find_config(folder)
        groups.setdefault((config, None if config else nearest_pyproject(folder)), []).append(path)
    return [(_settings(command_line, config, project), group) for (config, project), group in groups.items()]


def _add_nested(
    pending: list[tuple[Settings, list[str]]],
    done: list[tuple[Settings, list[str]]],
    new: list[tuple[Settings, list[str]]],
) -> None:
    """Queue the nested folders, each once: in a group still to run with the same settings (whose walk
    then lists each file once), not again when it was named itself (`jaxlint repo repo/sub`)."""
    for settings, folders in new:
        named = {os.path.normpath(path) for same, paths in done if same == settings for path in paths}
        folders = [folder for folder in folders if folder not in named]
        target = next((paths for same, paths in pending if same == settings), None)
        if target is not None:
            target.extend(folders)
        elif folders:
            pending.append((settings, folders))


def _settings(command_line: CommandLine, config: Path | None, project: Path | None) -> Settings:
    """Without a config, the code's Python and jax versions still come from its own project's
    pyproject.toml (`requires-python`, the jax it depends on), not from the working folder's."""
    settings = build_settings(command_line, config.parent if config else None)
    if project is None:
        return settings
    return replace(
        settings,
        python_version=requires_python(project, project.parent),
        target_jax_version=command_line.target_jax_version or pinned_jax(project),
    )


def _write_report(report: str, output_file: str | None, out: TextIO) -> None:
    """The report to stdout or to --output-file; a disk that is full or a file that cannot be written
    is a one-line error (a closed pipe is for main to handle)."""
    try:
        if output_file is None:
            _write_all(out, report)
        else:
            with open(output_file, "w", encoding="utf-8") as handle:
                handle.write(report)
    except BrokenPipeError:
        raise
    except OSError as error:
        where = "stdout" if output_file is None else output_file
        raise ConfigError(f"cannot write the report to {where}: {error.strerror or error}") from None


def _write_all(out: TextIO, report: str) -> None:
    """Write every byte, so a reader that goes away midway is seen (BrokenPipeError). An unbuffered
    stdout (PYTHONUNBUFFERED, python -u) hands the text to one write(2), and a pipe closed during it
    takes part of it and no error: the text layer drops the rest silently."""
    raw = getattr(out, "buffer", None)
    if raw is None or not isinstance(raw, io.RawIOBase):
        out.write(report)
        out.flush()
        return
    out.flush()
    data = memoryview(report.encode(out.encoding, out.errors or "strict"))
    while data:
        data = data[raw.write(data) or 0 :]


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit does not fail again on the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


def _report(args: argparse.Namespace, result, out: TextIO, unverifiable: str = "") -> None:
    """Findings in the chosen format (with --diff: the diffs instead), what was fixed, the summary."""
    if args.fix_only and not args.diff:  # what was fixed, not what remains
        if args.show_fixes:
            out.write(text.fixes(result))
        if not args.quiet:
            fixed, files = len(result.fixed), result.files
            out.write(
                f"Fixed {fixed} finding{'s' if fixed != 1 else ''} ({files} file{'s' if files != 1 else ''} checked).\n"
            )
        return
    if args.diff:
        out.write("".join(result.diffs))
    elif args.statistics:
        if args.output_format == "json":
            counts = Counter(d.code for d in result.diagnostics)
            out.write(json.dumps([{"code": c, "count": n} for c, n in counts.most_common()], indent=2) + "\n")
        else:
            out.write(text.statistics(result))
    elif args.show_source and args.output_format == "text":
        out.write(source.render(result))
    else:
        out.write(FORMATS[args.output_format](result))
    human = args.output_format in ("text", "full") or args.diff
    if human and args.show_fixes and (args.fix or args.diff):
        out.write(text.fixes(result))
    if human and not args.quiet:
        out.write(text.summary(result))
        if args.verify and not unverifiable:
            out.write(text.verify_summary(result))
