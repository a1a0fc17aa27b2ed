"""Starting the processes that run the user's code, and stopping them (no jax here).

Imports and scripts run in children of one fork server: a process that imported jax once and forks a
child per job, so each file costs a fork instead of a fresh interpreter importing jax (about a second).
Run commands that are other programs (pytest) start as ordinary subprocesses. Either way each job runs
in its own session (process group), which is killed when the job ends, so whatever the user's code
started dies with it; its events stream to a file, so a timeout keeps what was seen; its stderr goes to
a named pipe whose last STDERR_TAIL bytes are kept (the last line explains a failure), or where there are no
named pipes, to a file kept under STDERR_LIMIT bytes.
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
import time
from typing import Any

from jaxlint.verify.events import read_events

HOST_DEVICES = 8  # CPU devices, so that pmap and sharding code runs
STDERR_LIMIT = 1024 * 1024
STDERR_TAIL = 4096
POLL = 0.005  # seconds between looks at a running job (most jobs take a few tens of milliseconds)
# Started without the working folder on sys.path (as `-m` would put it): a user file there named like a
# standard module (random.py) must not replace it in jaxlint or jax.
_PYTHON = [sys.executable, "-c", "import sys; del sys.path[0]; from jaxlint.verify import worker; worker.{}()"]
WORKER, SERVER = _PYTHON[:2] + [_PYTHON[2].format("start")], _PYTHON[:2] + [_PYTHON[2].format("serve")]


def worker_env() -> dict[str, str]:
    env = {"JAX_PLATFORMS": "cpu", **os.environ}  # no accelerator needed; the user's own setting wins
    flags = env.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in flags:
        env["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={HOST_DEVICES}".strip()
    return env


class Job:
    """One job's folder: the job itself (JSON), its events, its stderr and, from the fork server, its
    exit status."""

    def __init__(self, folder: str, job: dict[str, Any], cwd: str | None) -> None:
        self.path = os.path.join(folder, "job.json")
        self.events = os.path.join(folder, "events.jsonl")
        self.stderr = os.path.join(folder, "stderr")
        self.status = os.path.join(folder, "status")
        with open(self.path, "w", encoding="utf-8") as handle:
            json.dump(
                {**job, "events": self.events, "stderr": self.stderr, "status": self.status, "cwd": cwd or os.getcwd()},
                handle,
            )
        # A pipe rather than a file: a file capped while the job still writes to it loses what the job wrote
        # between reading its tail and truncating it (the last line, at times).
        self._tail = b""
        self._pipe: int | None = None
        if hasattr(os, "mkfifo"):
            os.mkfifo(self.stderr)
            self._pipe = os.open(self.stderr, os.O_RDONLY | os.O_NONBLOCK)  # open first: writers never block

    def cap_stderr(self) -> None:
        """Read what the job wrote to its stderr pipe, keeping the tail; or keep the file under STDERR_LIMIT
        (its tail stays: the job appends, so it goes on after it)."""
        if self._pipe is not None:
            self._drain()
            return
        try:
            if os.path.getsize(self.stderr) > STDERR_LIMIT:
                tail = self._file_tail()
                with open(self.stderr, "r+b") as handle:
                    handle.truncate(0)
                    handle.write(tail)
        except OSError:
            pass

    def _drain(self) -> None:
        assert self._pipe is not None
        while True:
            try:
                chunk = os.read(self._pipe, 65536)
            except BlockingIOError:
                return  # nothing more now
            except OSError:
                return
            if not chunk:
                return  # no writer (yet, or any more)
            self._tail = (self._tail + chunk)[-STDERR_TAIL:]

    def _file_tail(self) -> bytes:
        with open(self.stderr, "rb") as handle:
            handle.seek(max(0, os.path.getsize(self.stderr) - STDERR_TAIL))
            return handle.read()

    def last_stderr_line(self) -> str:
        try:
            self.cap_stderr()
            tail = self._tail if self._pipe is not None else self._file_tail()
            lines = tail.decode("utf-8", "replace").strip().splitlines()
        except OSError:
            return ""
        return lines[-1] if lines else ""

    def close(self) -> None:
        if self._pipe is not None:
            os.close(self._pipe)
            self._pipe = None


def _kill_session(pid: int) -> None:
    kills: list[Any] = [getattr(os, "killpg", None), os.kill]  # the group (the job and what it started), or the job
    for kill in kills:
        try:
            kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
            return
        except (ProcessLookupError, PermissionError, TypeError):
            continue


def _watch(job: Job, pid: int, finished, timeout: float) -> tuple[list[dict[str, Any]], str, int | None]:
    """Wait for the job (or its timeout), kill its session; (events, timeout text or "", exit code)."""
    deadline, timed_out = time.monotonic() + timeout, ""
    while (code := finished()) is None:
        if time.monotonic() > deadline:
            timed_out = f"timed out after {timeout:g} s (--verify-timeout)"
            break
        job.cap_stderr()
        time.sleep(POLL)
    _kill_session(pid)
    return read_events(job.events), timed_out, code


def _outcome(job: Job, events: list[dict[str, Any]], timed_out: str, code: int | None) -> tuple[list, str]:
    if timed_out or any(e["event"] == "done" for e in events):
        return events, timed_out
    if code is not None and code < 0:
        name = signal.Signals(-code).name if -code in signal.valid_signals() else f"signal {-code}"
        return events, f"the module crashed the worker ({name})"
    last = job.last_stderr_line()
    return events, f"the worker exited with code {code} without a result{': ' + last if last else ''}"


def run_subprocess(argv: list[str], job: dict[str, Any], timeout: float, cwd: str | None) -> tuple[list, str]:
    """Run a program on the job (its path in $JAXLINT_VERIFY_JOB): (events, why it did not finish or "")."""
    with tempfile.TemporaryDirectory(prefix="jaxlint-verify-") as folder:
        files = Job(folder, job, cwd)
        with open(files.stderr, "ab") as stderr:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                env={**worker_env(), "JAXLINT_VERIFY_JOB": files.path},
                cwd=cwd,
                start_new_session=True,
            )
        try:
            events, timed_out, code = _watch(files, process.pid, process.poll, timeout)
            process.wait()
            return _outcome(files, events, timed_out, process.returncode if code is None else code)
        finally:
            files.close()


class ForkServer:
    """A process with jax imported that forks a child per job (worker.serve), in a session of its own; it
    ends at the end of its input (close, or this process's exit). Started on first use; when it cannot
    start or dies, jobs run as fresh subprocesses instead."""

    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None
        self.broken = not hasattr(os, "fork")
        self.lock = threading.Lock()

    def start(self) -> ForkServer:
        """Start the server now, so that its jax import overlaps the static pass."""
        with self.lock:
            self._start()
        return self

    def _start(self) -> None:
        if self.process is None and not self.broken:
            self.process = subprocess.Popen(
                SERVER,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=worker_env(),
                text=True,
                # its own session, as each job has: where the kernel shares the CPU out by session
                # (autogroup), its jax import gets a share of its own instead of slowing the static pass
                start_new_session=True,
            )

    def _fork(self, job_path: str) -> int | None:
        with self.lock:
            if self.broken:
                return None
            try:
                self._start()
                process = self.process
                assert process is not None and process.stdin is not None and process.stdout is not None
                process.stdin.write(job_path + "\n")
                process.stdin.flush()
                answer = process.stdout.readline().strip()
                return None if answer == "-" else int(answer)
            except (OSError, ValueError):
                self.broken = True
                return None

    def run(self, job: dict[str, Any], timeout: float, cwd: str | None) -> tuple[list, str]:
        # the server may still write the exit status of a child that wrote its own while the folder goes
        with tempfile.TemporaryDirectory(prefix="jaxlint-verify-", ignore_cleanup_errors=True) as folder:
            files = Job(folder, job, cwd)
            pid = self._fork(files.path)
            if pid is None:
                files.close()
                return run_subprocess(WORKER, job, timeout, cwd)

            def finished() -> int | None:
                try:
                    with open(files.status, encoding="utf-8") as handle:
                        return int(handle.read())
                except (OSError, ValueError):
                    return None

            try:
                events, timed_out, code = _watch(files, pid, finished, timeout)
                return _outcome(files, events, timed_out, code)
            finally:
                files.close()

    def close(self) -> None:
        if self.process is None:
            return
        assert self.process.stdin is not None  # started with pipes
        try:
            self.process.stdin.close()  # the server exits at the end of its input
            self.process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()


_early: list[ForkServer] = []  # the server the command started before the linter loaded (start_early)


def start_early(argv: list[str]) -> None:
    """With --verify on the command line, start the fork server before the linter's own imports: its jax
    import, the longest step of --verify, then overlaps those too, not only the static pass."""
    if any(arg == "--verify" or arg.startswith("--verify=") for arg in argv) and importlib.util.find_spec("jax"):
        _early.append(ForkServer().start())


def early_server() -> ForkServer | None:
    """The server start_early started, to the first run that asks."""
    return _early.pop() if _early else None
