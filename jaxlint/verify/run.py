"""`jaxlint --verify`: after the static pass, run the user's code with real jax under jax's checkers,
one subprocess per file (and per run command), and mark each finding confirmed, not reproduced or
unverified; errors no finding explains become new findings.

The parent never imports jax or the user's code: a module that hangs, exits or crashes costs one
worker, never the run, and the parent's stdout carries only the report.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from jaxlint.config import Settings
from jaxlint.diagnostics import Diagnostic
from jaxlint.files import InputError, discover, read_source
from jaxlint.runner import RunResult
from jaxlint.verify import signatures
from jaxlint.verify.confirm import UNVERIFIED, Report, decide, gather, with_status
from jaxlint.verify.errors import RUNTIME_CODES, runtime_code
from jaxlint.verify.events import read_events
from jaxlint.verify.options import Command, VerifyOptions
from jaxlint.verify.plan import FilePlan, plan_file, wants_tracing

INSTALL_HINT = "--verify needs jax: pip install 'jaxlint[verify]'"
STDERR_TAIL = 64 * 1024  # bytes of a worker's stderr kept for the reason it failed
HOST_DEVICES = 8  # CPU devices, so that pmap and sharding code runs


def jax_missing() -> bool:
    return importlib.util.find_spec("jax") is None


def worker_env() -> dict[str, str]:
    env = {"JAX_PLATFORMS": "cpu", **os.environ}  # no accelerator needed; the user's own setting wins
    flags = env.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in flags:
        env["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={HOST_DEVICES}".strip()
    return env


class _Tail(threading.Thread):
    """Reads a pipe to its end, keeping only the last STDERR_TAIL bytes."""

    def __init__(self, pipe) -> None:
        super().__init__(daemon=True)
        self.pipe, self.data = pipe, b""

    def run(self) -> None:
        for chunk in iter(lambda: self.pipe.read(8192), b""):
            self.data = (self.data + chunk)[-STDERR_TAIL:]


def _failure(process: subprocess.Popen, stderr: bytes) -> str:
    if process.returncode < 0:
        return f"the module crashed the worker ({signal.Signals(-process.returncode).name})"
    lines = stderr.decode("utf-8", "replace").strip().splitlines()
    last = f": {lines[-1]}" if lines else ""
    return f"the worker exited with code {process.returncode} without a result{last}"


def run_worker(argv: list[str], job: dict[str, Any], timeout: float, cwd: str | None = None) -> tuple[list, str]:
    """Start a process on the job (its path in $JAXLINT_VERIFY_JOB); return
    its events, streamed to disk so a timeout keeps what was seen, and why it did not finish ("")."""
    with tempfile.TemporaryDirectory(prefix="jaxlint-verify-") as folder:
        job_path, events_path = os.path.join(folder, "job.json"), os.path.join(folder, "events.jsonl")
        with open(job_path, "w", encoding="utf-8") as handle:
            json.dump({**job, "events": events_path}, handle)
        env = {**worker_env(), "JAXLINT_VERIFY_JOB": job_path}
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd,
            start_new_session=True,  # its own process group: whatever the code started dies with it
        )
        tail = _Tail(process.stderr)
        tail.start()
        failure = ""
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            failure = f"timed out after {timeout:g} s (--verify-timeout)"
        finally:
            try:
                os.killpg(process.pid, signal.SIGKILL)  # the worker, and children the code left running
            except (ProcessLookupError, PermissionError):
                pass
            process.wait()
            tail.join(timeout=5)
            process.stderr.close()
        events = read_events(events_path)
        if not failure and not any(e["event"] == "done" for e in events):
            failure = _failure(process, tail.data)
        return events, failure


def _import_job(plan: FilePlan, options: VerifyOptions, settings: Settings, store: signatures.Store) -> dict:
    recorded = store.get(os.path.relpath(os.path.abspath(plan.path), settings.root), {})
    return {"mode": "import", "path": plan.path, "module": plan.module, "sys_path": plan.sys_path,
            "project_root": str(settings.root), "owners": sorted(set(plan.owners.values())),
            "trace_all": options.all_scopes or wants_tracing(plan.findings), "examples": options.examples, "key_names": list(settings.key_names),
            "probes": plan.probes, "signatures": recorded}


def _needs_plain_keys(events: list[dict[str, Any]]) -> bool:
    """An error under jax_enable_custom_prng that is not key reuse may come from the typed keys
    themselves (code that reads a legacy key's uint32 data): run once more without them."""
    return any(e["event"] == "error" and e.get("custom_prng") and runtime_code(e["classes"], e["message"]) is None
               and "key" in e.get("text", "").lower() for e in events)


# The worker, started without the working folder on sys.path (as `-m` would put it): a user file there
# named like a standard module (random.py) must not replace it in jaxlint or jax.
WORKER = [sys.executable, "-c", "import sys; del sys.path[0]; from jaxlint.verify import worker; worker.start()"]


def _worker(job: dict[str, Any], timeout: float, cwd: str | None = None) -> tuple[list, str]:
    argv = WORKER
    events, failure = run_worker(argv, job, timeout, cwd)
    if _needs_plain_keys(events):
        events, failure = run_worker(argv, {**job, "custom_prng": False}, timeout, cwd)
    return events, failure


def _command_job(command: Command, settings: Settings) -> tuple[list[str], dict[str, Any]]:
    root = str(settings.root)
    job = {"mode": command.mode, "project_root": root, "sys_path": [], "argv": [], "path": "", "module": ""}
    if command.mode == "pytest":
        return [sys.executable, "-m", "pytest", "-p", "jaxlint.verify.pytest_plugin", *command.args], job
    if command.mode == "run":
        path = os.path.join(root, command.target) if not os.path.isabs(command.target) else command.target
        job.update(path=path, argv=[command.target, *command.args], sys_path=[os.path.dirname(os.path.abspath(path))])
    else:
        job.update(module=command.target, argv=[command.target, *command.args], sys_path=[root])
    return WORKER, job


def _run_command(command: Command, settings: Settings, timeout: float) -> Report:
    argv, job = _command_job(command, settings)
    if command.mode == "pytest":
        events, failure = run_worker(argv, job, timeout, cwd=str(settings.root))
        if failure.startswith("the worker exited"):
            failure = ""  # pytest exits 1 when a test fails: its events say why
    else:
        events, failure = _worker(job, timeout, cwd=str(settings.root))
    return Report(command.text, None, events, failure)


def _plans(paths: list[str], result: RunResult, settings: Settings) -> list[FilePlan]:
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
        plan = plan_file(path, source, by_file[path], str(settings.root))
        if plan is not None:
            plans.append(plan)
    return plans


def _shown(real: str, plans: list[FilePlan]) -> str:
    """The name a new finding's file is shown under: as the user named it, else relative to here."""
    for plan in plans:
        if os.path.realpath(plan.path) == real:
            return plan.path
    relative = os.path.relpath(real)
    return real if relative.startswith("..") else relative


def verify(paths: list[str], result: RunResult, settings: Settings, options: VerifyOptions) -> list[str]:
    """Give every finding of `result` its verification, add the new findings; return notes about runs
    and files that could not be verified and had no finding to carry the reason."""
    every_plan = _plans(paths, result, settings)
    plans = list(every_plan)  # the files to import
    store = signatures.load(options.cache_dir)
    notes: list[str] = []
    reports: list[Report] = []
    scripts = {os.path.realpath(plan.path): plan for plan in plans}
    for command in options.commands:  # one at a time: they are the project's own heavy entry points
        report = _run_command(command, settings, options.timeout)
        if command.mode == "run" and os.path.realpath(command.target) in scripts:
            report.plan = scripts[os.path.realpath(command.target)]  # ran as __main__: not imported again
            plans.remove(report.plan)
        reports.append(report)
        if report.failure:
            notes.append(f"`{command.text}`: {report.failure}; what it did until then is kept")
        notes += [f"`{command.text}` exited with code {e['code']}" for e in report.of("exit")]
    if signatures.add(store, [e for r in reports for e in r.of("signature")], str(settings.root)):
        signatures.save(options.cache_dir, store)
    with ThreadPoolExecutor(max_workers=max(1, min(len(plans), os.cpu_count() or 1, 8))) as pool:
        jobs = [_import_job(plan, options, settings, store) for plan in plans]
        for plan, (events, failure) in zip(plans, pool.map(lambda job: _worker(job, options.timeout), jobs)):
            reports.append(Report(plan.path, plan, events, failure))
    evidence = gather(result.diagnostics, every_plan, reports)
    planned = {plan.path for plan in every_plan}
    untraced = [d for d in result.diagnostics if d.filename not in planned]
    checked = with_status([d for d in untraced if d.cell is None], UNVERIFIED, "not observable by tracing")
    checked += with_status([d for d in untraced if d.cell is not None], UNVERIFIED,
                           "notebooks are not traced: --verify imports .py modules only")
    for report in reports:
        if report.plan is not None:
            checked += decide(report.plan, report, evidence)
            if report.failure and not report.plan.findings:
                notes.append(f"{report.plan.path}: not verified: {report.failure}")
    for d in evidence.new.values():
        shown = _shown(d.filename, every_plan)
        if d.code in settings.enabled_for(shown) or d.code not in RUNTIME_CODES:
            checked.append(Diagnostic(shown, d.row, d.col, d.code, d.message, d.end_row, d.end_col,
                                      verify=d.verify))
    result.diagnostics = sorted(checked)
    return notes
