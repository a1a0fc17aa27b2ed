"""`jaxlint --verify`: after the static pass, run the user's code with real jax under jax's checkers,
one subprocess per file (and per run command), and mark each finding confirmed, not reproduced or
unverified; errors no finding explains become new findings.

The parent never imports jax or the user's code: a module that hangs, exits or crashes costs one
worker, never the run, and the parent's stdout carries only the report.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from jaxlint.config import Settings
from jaxlint.diagnostics import Diagnostic
from jaxlint.discovery import discover
from jaxlint.files import InputError, read_source
from jaxlint.noqa import file_suppressions, is_suppressed
from jaxlint.results import RunResult
from jaxlint.verify import signatures
from jaxlint.verify.confirm import UNVERIFIED, Report, could_not_verify, decide, gather, with_status
from jaxlint.verify.errors import missing_module, runtime_code, unverifiable
from jaxlint.verify_config import Command, VerifyOptions
from jaxlint.verify.plan import FilePlan, module_name, plan_file, wants_tracing
from jaxlint.verify.processes import ForkServer, early_server, run_subprocess

INSTALL_HINT = "--verify needs jax: pip install jax (the 'verify' extra of jax-sharpbits)"


def jax_missing() -> bool:
    return importlib.util.find_spec("jax") is None


def _import_job(plan: FilePlan, options: VerifyOptions, settings: Settings, store: signatures.Store) -> dict:
    recorded = store.get(os.path.relpath(os.path.abspath(plan.path), settings.root), {})
    # A file with findings, or with signatures a run recorded (cheap and real), has its jitted functions traced.
    trace_all = options.all_scopes or wants_tracing(plan.findings) or bool(recorded)
    return {
        "mode": "import",
        "path": plan.path,
        "module": plan.module,
        "sys_path": plan.sys_path,
        "project_root": str(settings.root),
        "owners": sorted(set(plan.owners.values())),
        "trace_all": trace_all,
        "examples": options.examples,
        "key_names": list(settings.key_names),
        "probes": plan.probes,
        "signatures": recorded,
        "annotated": plan.annotated,
        "calls": plan.calls,
    }


def _needs_plain_keys(events: list[dict[str, Any]]) -> bool:
    """An error under jax_enable_custom_prng that is not jax's verdict may come from the typed keys
    themselves (code that indexes, converts or adds to a legacy key's uint32 data, with messages that
    rarely say so): run once more without them, and believe that run. A test suite is run again only
    when a failure mentions keys (tests fail for their own reasons)."""
    return any(
        e["event"] == "error"
        and e.get("custom_prng")
        and runtime_code(e["classes"], e["message"]) is None
        and (e["phase"] != "test" or "key" in e.get("text", "").lower())
        for e in events
    )


def _worker(
    server: ForkServer, job: dict[str, Any], timeout: float, cwd: str | None = None, argv: list[str] | None = None
) -> tuple[list, str]:
    """Run a job in a child of the fork server, or as the program `argv`; once more without typed keys
    when they may be what failed."""

    def once(job: dict[str, Any]) -> tuple[list, str]:
        return server.run(job, timeout, cwd) if argv is None else run_subprocess(argv, job, timeout, cwd)

    events, failure = once(job)
    if _needs_plain_keys(events):
        events, failure = once({**job, "custom_prng": False})
    return events, failure


def _command_job(command: Command, settings: Settings) -> tuple[list[str] | None, dict[str, Any]]:
    root = str(settings.root)
    job = {"mode": command.mode, "project_root": root, "sys_path": [], "argv": [], "path": "", "module": ""}
    if command.mode == "pytest":
        return [sys.executable, "-m", "pytest", "-p", "jaxlint.verify.pytest_plugin", *command.args], job
    if command.mode == "run":
        path = os.path.join(root, command.target) if not os.path.isabs(command.target) else command.target
        # its own folder first, as python puts it; then its package's and the project's, from which the
        # project imports its modules (`from mypkg.model import f` in mypkg/train.py)
        folders = [os.path.dirname(os.path.abspath(path)), *module_name(path, root)[1]]
        job.update(path=path, argv=[command.target, *command.args], sys_path=list(dict.fromkeys(folders)))
    else:
        job.update(module=command.target, argv=[command.target, *command.args], sys_path=[root])
    return None, job


def _run_command(
    server: ForkServer,
    command: Command,
    settings: Settings,
    options: VerifyOptions,
    plan: FilePlan | None,
    store: signatures.Store,
) -> Report:
    """Run a command; a script with findings (`plan`) then has its flagged functions the run never
    reached traced, as an import would trace them."""
    argv, job = _command_job(command, settings)
    if plan is not None:
        traced = _import_job(plan, options, settings, store)
        job.update(
            {
                key: traced[key]
                for key in ("module", "owners", "examples", "key_names", "signatures", "annotated", "calls")
            }
        )
    events, failure = _worker(server, job, options.timeout, str(settings.root), argv)
    if command.mode == "pytest" and failure.startswith("the worker exited"):
        failure = ""  # pytest exits 1 when a test fails: its events say why
    return Report(command.text, plan, events, failure)


def _plans(
    paths: list[str], result: RunResult, settings: Settings, options: VerifyOptions, store: signatures.Store
) -> list[FilePlan]:
    """A plan for every checked .py file that imports jax."""
    by_file: dict[str, list[Diagnostic]] = defaultdict(list)
    for d in result.diagnostics:
        by_file[d.filename].append(d)
    candidates, _ = discover(paths, settings)
    plans = []
    for path in dict.fromkeys([*candidates, *by_file]):
        if not path.endswith(".py") or any(d.code in ("JAX001", "JAX003") for d in by_file[path]):
            continue
        try:
            source = read_source(path)
        except InputError:
            continue  # already reported by the static pass
        # what will be traced: every file with --verify=all, and with signatures recorded (by now or by the runs)
        traced = (
            options.all_scopes
            or bool(options.commands)
            or os.path.relpath(os.path.abspath(path), settings.root) in store
        )
        plan = plan_file(path, source, by_file[path], str(settings.root), traced)
        if plan is not None:
            plans.append(plan)
    return plans


def _suppressed(d: Diagnostic) -> bool:
    """A new finding silenced by a `# noqa` on its line or a file-level `# jaxlint: noqa`, as a static one is."""
    try:
        source = read_source(d.filename)
    except InputError:
        return False
    lines = source.splitlines()
    return is_suppressed(d.code, lines[d.row - 1] if d.row <= len(lines) else "", file_suppressions(source))


def _shown(real: str, plans: list[FilePlan]) -> str:
    """The name a new finding's file is shown under: as the user named it, else relative to here."""
    for plan in plans:
        if os.path.realpath(plan.path) == real:
            return plan.path
    relative = os.path.relpath(real)
    return real if relative.startswith("..") else relative


def _run_all(
    server: ForkServer,
    plans: list[FilePlan],
    settings: Settings,
    options: VerifyOptions,
    store: signatures.Store,
    notes: list[str],
) -> list[Report]:
    """The run commands, one at a time (they are the project's own heavy entry points; the scripts they
    run are not imported again), then every remaining file's import, in parallel."""
    reports: list[Report] = []
    scripts = {os.path.realpath(plan.path): plan for plan in plans}
    for command in options.commands:
        plan = scripts.pop(os.path.realpath(command.target), None) if command.mode == "run" else None
        if plan is not None:
            plans.remove(plan)
        report = _run_command(server, command, settings, options, plan, store)
        reports.append(report)
        if report.failure:
            notes.append(f"`{command.text}`: {report.failure}; what it did until then is kept")
        notes += [f"`{command.text}` exited with code {e['code']}" for e in report.of("exit")]
    if signatures.add(store, [e for r in reports for e in r.of("signature")], str(settings.root)):
        signatures.save(options.cache_dir, store)
    jobs = [_import_job(plan, options, settings, store) for plan in plans]
    with ThreadPoolExecutor(max_workers=max(1, min(len(plans), os.cpu_count() or 1, 8))) as pool:
        for plan, (events, failure) in zip(plans, pool.map(lambda job: _worker(server, job, options.timeout), jobs)):
            reports.append(Report(plan.path, plan, events, failure))
    return reports


def start_server() -> ForkServer:
    """The fork server, started before the static pass (its jax import runs meanwhile), or before the
    linter loaded (processes.start_early)."""
    return early_server() or ForkServer().start()


def verify(
    paths: list[str], result: RunResult, settings: Settings, options: VerifyOptions, server: ForkServer | None = None
) -> list[str]:
    """Give every finding of `result` its verification, add the new findings; return notes about runs
    and files that could not be verified and had no finding to carry the reason."""
    store = signatures.load(options.cache_dir)
    every_plan = _plans(paths, result, settings, options, store)
    plans = list(every_plan)  # the files to import
    notes: list[str] = []
    missing: dict[str, list[str]] = {}  # a module not installed -> the files and runs that import it
    server = server or ForkServer()
    try:
        reports = _run_all(server, plans, settings, options, store, notes)
    finally:
        server.close()
    evidence = gather(result.diagnostics, every_plan, reports)
    planned = {plan.path for plan in every_plan}
    untraced = [d for d in result.diagnostics if d.filename not in planned]
    checked = with_status([d for d in untraced if d.cell is None], UNVERIFIED, "not observable by tracing")
    checked += with_status(
        [d for d in untraced if d.cell is not None],
        UNVERIFIED,
        "notebooks are not traced: --verify imports .py modules only",
    )
    for report in reports:
        if report.plan is not None:
            checked += decide(report.plan, report, evidence)
            if report.failure and not report.plan.findings:
                notes.append(f"{report.plan.path}: not verified: {report.failure}")
        label = report.plan.path if report.plan is not None else f"`{report.label}`"
        for error in report.of("error"):
            if missing_module(error):
                missing.setdefault(missing_module(error), []).append(label)
            elif unverifiable(error):
                notes.append(f"{label}: {could_not_verify(report, error)}")
    notes += [
        f"could not verify: module `{module}` is not installed (imported by {', '.join(dict.fromkeys(labels))})"
        for module, labels in missing.items()
    ]
    for d in evidence.new.values():
        shown = _shown(d.filename, every_plan)
        if d.code in settings.enabled_for(shown) and not _suppressed(d):
            checked.append(Diagnostic(shown, d.row, d.col, d.code, d.message, d.end_row, d.end_col, verify=d.verify))
    result.diagnostics = sorted(checked)
    return notes
