"""`jaxlint --verify`: after the static pass, trace the flagged functions with real jax, one subprocess
per file, and mark each finding confirmed, not reproduced or unverified.

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
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from jaxlint.config import Settings
from jaxlint.diagnostics import Diagnostic
from jaxlint.files import InputError, discover, read_source
from jaxlint.lint import mentions_jax
from jaxlint.runner import RunResult
from jaxlint.verify.confirm import UNVERIFIED, confirm, with_status
from jaxlint.verify.errors import RUNTIME_CODES
from jaxlint.verify.options import VerifyOptions
from jaxlint.verify.plan import FilePlan, plan_file, wants_tracing

INSTALL_HINT = "--verify needs jax: pip install 'jaxlint[verify]'"


def jax_missing() -> bool:
    return importlib.util.find_spec("jax") is None


def _worker_failure(process: subprocess.Popen, stderr_path: str) -> str:
    if process.returncode < 0:
        return f"the module crashed the worker ({signal.Signals(-process.returncode).name})"
    with open(stderr_path, encoding="utf-8", errors="replace") as handle:
        lines = handle.read().strip().splitlines()
    last = f": {lines[-1]}" if lines else ""
    return f"the worker exited with code {process.returncode} without a result{last}"


def run_worker(job: dict[str, Any], timeout: float) -> dict[str, Any] | str:
    """The worker's report for one file, or why there is none."""
    with tempfile.TemporaryDirectory(prefix="jaxlint-verify-") as folder:
        job_path, result_path = os.path.join(folder, "job.json"), os.path.join(folder, "result.json")
        stderr_path = os.path.join(folder, "stderr")
        with open(job_path, "w", encoding="utf-8") as handle:
            json.dump(job, handle)
        env = {"JAX_PLATFORMS": "cpu", **os.environ}  # tracing needs no accelerator
        with open(stderr_path, "wb") as stderr:
            process = subprocess.Popen(
                [sys.executable, "-m", "jaxlint.verify.worker", job_path, result_path],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr, env=env,
                start_new_session=True,  # its own process group: a timeout kills whatever it started too
            )
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                return f"timed out after {timeout:g} s (--verify-timeout)"
        if not os.path.isfile(result_path):
            return _worker_failure(process, stderr_path)
        with open(result_path, encoding="utf-8") as handle:
            return json.load(handle)


def _verify_file(plan: FilePlan, options: VerifyOptions, settings: Settings) -> tuple[list[Diagnostic], str]:
    """The file's findings with their verification, and why the file could not be verified at all ("" if it was)."""
    job = {"path": plan.path, "module": plan.module, "root": plan.root,
           "owners": sorted(set(plan.owners.values())), "examples": options.examples,
           "key_names": list(settings.key_names)}
    report = run_worker(job, options.timeout)
    if isinstance(report, str):
        return with_status(plan.findings, UNVERIFIED, report), report
    failure = report.get("import_error")
    note = f"import failed: {failure['classes'][0]}: {failure['message']}" if failure else ""
    enabled = settings.enabled_for(plan.path)
    return [d for d in confirm(plan, report) if d.code not in RUNTIME_CODES or d.code in enabled], note


def _plans(paths: list[str], result: RunResult, settings: Settings, options: VerifyOptions) -> list[FilePlan]:
    by_file: dict[str, list[Diagnostic]] = defaultdict(list)
    for d in result.diagnostics:
        by_file[d.filename].append(d)
    if options.all_scopes:
        candidates, _ = discover(paths, settings)
    else:
        candidates = [name for name, found in by_file.items() if wants_tracing(found)]
    plans = []
    for path in candidates:
        if not path.endswith(".py"):
            continue
        try:
            source = read_source(path)
        except InputError:
            continue  # already reported by the static pass
        if mentions_jax(source) and not any(d.code in ("JAX001", "JAX003") for d in by_file[path]):
            plans.append(plan_file(path, source, by_file[path]))
    return plans


def verify(paths: list[str], result: RunResult, settings: Settings, options: VerifyOptions) -> list[str]:
    """Give every finding of `result` its verification, add the new findings; return notes about files
    that could not be verified and had no finding to carry the reason."""
    plans = _plans(paths, result, settings, options)
    traced = {plan.path for plan in plans}
    untraced = [d for d in result.diagnostics if d.filename not in traced]
    checked = with_status([d for d in untraced if d.cell is None], UNVERIFIED, "not observable by tracing")
    checked += with_status([d for d in untraced if d.cell is not None], UNVERIFIED,
                           "notebooks are not traced: --verify imports .py modules only")
    notes = []
    with ThreadPoolExecutor(max_workers=max(1, min(len(plans), os.cpu_count() or 1, 8))) as pool:
        for plan, (found, note) in zip(plans, pool.map(lambda p: _verify_file(p, options, settings), plans)):
            checked.extend(found)
            if note and not plan.findings:
                notes.append(f"{plan.path}: not verified: {note}")
    result.diagnostics = sorted(checked)
    return notes
