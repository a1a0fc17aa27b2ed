"""Speed against flake8: jaxlint cold (no cache), warm (all cached) and flake8 with its default plugins,
on the same .py files of flax, optax, equinox, dm-haiku and chex, with the same number of processes;
then one small file, the pre-commit case; and jaxlint alone on code written for Python 3.12+ (MODERN).

    python benchmarks/bench.py [--cache DIR] [--jobs N]

flake8 runs from its own virtualenv (created in the cache with only flake8 pinned), so the jaxlint
plugin installed next to jaxlint does not run inside it. Every run is a fresh process, started from a
small wrapper that reports the largest resident set among the processes it waited for (the tool and
its workers). Prints wall time, lines per second, peak memory, and the ratios against the targets.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from libraries import MODERN, count_lines, fetch

LINTED = ["flax", "optax", "equinox", "dm-haiku", "chex"]
FLAKE8 = "flake8==7.3.0"  # with its defaults: pyflakes, pycodestyle, mccabe
SMALL_FILE_LINES = 100  # the pre-commit case: one file about this long

# Runs a command; prints its wall time and the largest RSS (kB on Linux) of the processes it waited for.
_MEASURE = ("import resource, subprocess, sys, time; start = time.perf_counter(); "
            "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True); "
            "print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")

TARGETS = {"cold": 0.5, "warm": 0.05, "one file": 0.5}


@dataclass
class Timing:
    seconds: float
    peak_mb: float


def measure(command: list[str], cwd: Path, repeat: int = 1) -> Timing:
    """The fastest of `repeat` runs, and the largest peak memory among them."""
    best, peak = float("inf"), 0.0
    for _ in range(repeat):
        run = subprocess.run([sys.executable, "-c", _MEASURE, *command], cwd=cwd, capture_output=True,
                             text=True, check=True)
        seconds, rss_kb = run.stdout.split()
        best, peak = min(best, float(seconds)), max(peak, int(rss_kb) / 1024)
    return Timing(best, peak)


def flake8_venv(cache: Path) -> Path:
    """A virtualenv with flake8 alone (no jaxlint plugin), created once."""
    venv = cache / f"venv-{FLAKE8.replace('==', '-')}"
    flake8 = venv / "bin" / "flake8"
    if not flake8.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", FLAKE8], check=True)
    return flake8


def small_file(files: list[Path]) -> Path:
    """A file that uses jax and is about SMALL_FILE_LINES long: what a commit usually touches."""
    sized = [(abs(len(f.read_bytes().splitlines()) - SMALL_FILE_LINES), str(f)) for f in files
             if b"jax" in f.read_bytes()]
    return Path(min(sized)[1])


def report(label: str, timing: Timing, lines: int | None = None) -> None:
    rate = f"{lines / timing.seconds:>10,.0f} lines/s" if lines else " " * 18
    print(f"  {label:<34} {timing.seconds:>8.2f} s {rate} {timing.peak_mb:>8.0f} MB peak")


def ratio(label: str, ours: Timing, theirs: Timing, target: float) -> None:
    value = ours.seconds / theirs.seconds
    verdict = "meets" if value <= target else "MISSES"
    print(f"  {label:<34} {value:>8.3f} x flake8   (target <= {target}: {verdict})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", default=".bench-cache", help="where wheels, sources and flake8's venv are kept")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes for both tools")
    parser.add_argument("--repeat", type=int, default=5, help="runs of the single-file case (the fastest counts)")
    args = parser.parse_args(argv)
    cache = Path(args.cache).resolve()
    folders = fetch(cache, LINTED)
    files = sorted(path for folder in folders for path in folder.rglob("*.py"))
    names = [str(path) for path in files]
    lines = count_lines(files)
    flake8 = flake8_venv(cache)
    jaxlint = [sys.executable, "-m", "jaxlint", "--quiet", "--exit-zero"]
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)  # no config file here for either tool
        cache_dir = ["--cache-dir", str(work / "jaxlint-cache")]
        jobs = ["--jobs", str(args.jobs)]
        print(f"{len(files)} files, {lines:,} lines ({', '.join(LINTED)}), {args.jobs} processes each\n")
        cold = measure([*jaxlint, "--no-cache", *jobs, *names], work)
        measure([*jaxlint, *cache_dir, *jobs, *names], work)  # fills the cache
        warm = measure([*jaxlint, *cache_dir, *jobs, *names], work)
        theirs = measure([str(flake8), "--isolated", "--exit-zero", *jobs, *names], work)
        report("jaxlint cold (--no-cache)", cold, lines)
        report("jaxlint warm (all cached)", warm, lines)
        report("flake8 (pyflakes, pycodestyle, mccabe)", theirs, lines)
        # Python 3.12+ code (PEP 695 generics): jaxlint alone, since a flake8 on an older Python stops at
        # a syntax error in each such file; precision.py --group modern shows it has no JAX001.
        modern_files = sorted(path for folder in fetch(cache, list(MODERN)) for path in folder.rglob("*.py"))
        modern = measure([*jaxlint, "--no-cache", *jobs, *map(str, modern_files)], work)
        report(f"jaxlint cold, Python 3.12+ code ({len(modern_files)} files)", modern, count_lines(modern_files))

        one = small_file(files)
        one_lines = len(one.read_bytes().splitlines())
        print(f"\none file: {one.relative_to(cache / 'src')} ({one_lines} lines), fastest of {args.repeat}\n")
        one_cold = measure([*jaxlint, "--no-cache", str(one)], work, args.repeat)
        measure([*jaxlint, *cache_dir, str(one)], work)
        one_warm = measure([*jaxlint, *cache_dir, str(one)], work, args.repeat)
        one_theirs = measure([str(flake8), "--isolated", "--exit-zero", str(one)], work, args.repeat)
        report("jaxlint (--no-cache)", one_cold)
        report("jaxlint (cached)", one_warm)
        report("flake8", one_theirs)

    print("\nratios")
    ratio("cold", cold, theirs, TARGETS["cold"])
    ratio("warm", warm, theirs, TARGETS["warm"])
    ratio("one file", one_cold, one_theirs, TARGETS["one file"])
    print(f"  {'one cached file':<34} {one_warm.seconds:>8.3f} s          (target <= 0.1 s: "
          f"{'meets' if one_warm.seconds <= 0.1 else 'MISSES'})")
    peak = max(cold.peak_mb, warm.peak_mb)
    print(f"  {'peak memory (largest process)':<34} {peak:>8.0f} MB         (target <= 300 MB: "
          f"{'meets' if peak <= 300 else 'MISSES'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
