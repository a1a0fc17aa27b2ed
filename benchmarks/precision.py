"""Precision on real code: jaxlint over the sources of flax, optax, equinox, dm-haiku, chex and jax.

Every finding here is presumed a false alarm until someone reads the code and shows it is a real
bug: the script prints each one, the findings per 100k lines by code, and any file that crashed.

    python benchmarks/precision.py [--cache DIR] [--select CODES]

Wheels are fetched once with `pip download --no-deps` into the cache (default: .bench-cache/).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from libraries import LIBRARIES, count_lines, fetch

from jaxlint.config import CommandLine, build_settings
from jaxlint.runner import run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", default=".bench-cache", help="where wheels and sources are kept")
    parser.add_argument("--select", help="only these rules (comma-separated), as jaxlint --select")
    args = parser.parse_args(argv)
    folders = fetch(Path(args.cache))
    select = args.select.split(",") if args.select else None
    settings = build_settings(CommandLine(select=select))
    result = run([str(folder) for folder in folders], settings, use_cache=False)
    lines = count_lines([path for folder in folders for path in folder.rglob("*.py")])
    for d in result.diagnostics:
        print(f"{d.filename}:{d.row}:{d.col}: {d.code} {d.message}")
    for message in result.internal_errors:
        print(message, file=sys.stderr)
    print(f"\n{result.files} files, {lines} lines of Python ({', '.join(f'{n} {v}' for n, v in LIBRARIES.items())})")
    counts = Counter(d.code for d in result.diagnostics)
    for code, n in sorted(counts.items()):
        print(f"{code}: {n} findings, {n * 100_000 / lines:.2f} per 100k lines")
    print(f"total: {len(result.diagnostics)} findings, {len(result.diagnostics) * 100_000 / lines:.2f} "
          f"per 100k lines; {len(result.internal_errors)} files crashed")
    return 1 if result.internal_errors else 0


if __name__ == "__main__":
    sys.exit(main())
