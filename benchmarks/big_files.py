"""Time and peak memory of jaxlint on one big generated file, per size: are they linear in the size?

    python benchmarks/big_files.py [--sizes 0.1,0.3,1] [--max-file-size 10MB]

Each file is fixtures/corpus/*.py repeated (functions renamed per copy) up to the size in MB, alone in
a scratch folder (a project's other modules would be analysed too). Each run is a fresh process, so
its peak RSS is its own. The last column, seconds per MB, stays flat when time is linear.
"""

from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"


def generate(path: Path, megabytes: float) -> int:
    source = "".join(p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*.py")))
    parts, size, copy = [], 0, 0
    while size < megabytes * 1_000_000:
        part = re.sub(r"\bdef (\w+)", lambda m: f"def {m.group(1)}_{copy}", source)
        parts.append(part)
        size += len(part.encode("utf-8"))
        copy += 1
    path.write_text("".join(parts), encoding="utf-8")
    return size


def measure(folder: Path, name: str, max_file_size: str) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of one jaxlint run in a fresh process."""
    (folder / "pyproject.toml").write_text(f'[tool.jaxlint]\nmax-file-size = "{max_file_size}"\n')
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "jaxlint", "--no-cache", "--quiet", name], cwd=folder,
                   stdout=subprocess.DEVNULL, check=False)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KB, the largest child so far
    return seconds, max(peak, before) / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="0.1,0.3,1", help="file sizes in MB, comma-separated, smallest first")
    parser.add_argument("--max-file-size", default="100MB", help="so that the big files are checked, not skipped")
    args = parser.parse_args()
    print(f"{'size':>8} {'seconds':>9} {'peak RSS':>10} {'s per MB':>9}")
    for megabytes in (float(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as scratch:
            folder = Path(scratch)
            size = generate(folder / "big.py", megabytes)
            seconds, peak = measure(folder, "big.py", args.max_file_size)
        print(f"{size / 1e6:>6.2f}MB {seconds:>9.1f} {peak:>8.0f}MB {seconds / (size / 1e6):>9.1f}")


if __name__ == "__main__":
    main()
