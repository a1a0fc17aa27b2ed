"""Ctrl-C (SIGINT) and SIGTERM stop a run at once: the pool's workers are killed, one line says why,
the exit code is 130 or 143, and the cache stays usable. Real processes, real signals."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # subprocesses, real jax or a language server in every test

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"


def _children(pid: int) -> set[int]:
    try:
        return {int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}
    except OSError:
        return set()


def _alive(pid: int) -> bool:
    try:
        return "Z" not in Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[:1]
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads worker processes from /proc (Linux)")
@pytest.mark.parametrize(("signum", "code", "line"), [
    (signal.SIGINT, 130, "jaxlint: interrupted\n"),
    (signal.SIGTERM, 143, "jaxlint: terminated\n"),
])
def test_a_signal_stops_the_run_and_its_workers(tmp_path: Path, signum: int, code: int, line: str) -> None:
    for copy in range(16):  # enough files, and enough work in each, to keep two workers busy (seconds, not one)
        for source in CORPUS.glob("*.py"):
            shutil.copy(source, tmp_path / f"{source.stem}_{copy}.py")
    process = subprocess.Popen([sys.executable, "-m", "jaxlint", "--jobs", "2", "."], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    workers: set[int] = set()
    for _ in range(600):  # until the pool has started its workers
        workers = _children(process.pid)
        if len(workers) >= 2 or process.poll() is not None:
            break
        time.sleep(0.1)
    assert len(workers) >= 2, "the pool never started"
    os.kill(process.pid, signum)
    out, err = process.communicate(timeout=60)  # the hang this guards against was 15-25 s and more
    assert (process.returncode, err) == (code, line)
    for _ in range(100):
        if not any(_alive(worker) for worker in workers):
            break
        time.sleep(0.1)
    assert not any(_alive(worker) for worker in workers)
    cache = tmp_path / ".jaxlint_cache"
    assert not list(cache.rglob(".tmp-*"))  # no half-written entry left behind
    for copy in tmp_path.glob("*.py"):  # the first copy is enough to read back what the stopped run cached
        if not copy.stem.endswith("_0"):
            copy.unlink()
    again = subprocess.run([sys.executable, "-m", "jaxlint", "--jobs", "2", "."], cwd=tmp_path,
                           capture_output=True, text=True, timeout=600)
    assert (again.returncode, again.stderr) == (1, "")
