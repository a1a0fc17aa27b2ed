"""Precision on real code: jaxlint over pinned JAX libraries (flax, optax, equinox, dm-haiku, chex, jax)
and pinned JAX applications (RL environments and training code, simulators, an LLM trainer, a research
model; with their examples, notebooks and tests), each group counted apart.

Every finding here is presumed a false alarm until someone reads the code and shows it is a real
bug: the script prints each one, then per group the findings per 100k lines by code (the default rules,
then the opt-in ones apart), by package, and any file that crashed.

    python benchmarks/precision.py [--cache DIR] [--select CODES] [--group libraries|applications]

Packages are fetched once with `pip download --no-deps` into the cache (default: .bench-cache/).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from libraries import APPLICATIONS, LIBRARIES, count_lines, fetch

from jaxlint.config import CommandLine, build_settings
from jaxlint.rule_index import RULES
from jaxlint.runner import run

GROUPS = {"libraries": LIBRARIES, "applications": APPLICATIONS}
OPT_IN = [code for code, _, default_enabled in RULES if not default_enabled]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", default=".bench-cache", help="where the downloads and sources are kept")
    parser.add_argument("--select", help="only these rules (comma-separated), as jaxlint --select")
    parser.add_argument("--group", choices=list(GROUPS), action="append", help="only this group (repeatable)")
    args = parser.parse_args(argv)
    if args.select:
        settings = build_settings(CommandLine(select=args.select.split(",")))
    else:
        settings = build_settings(CommandLine(extend_select=OPT_IN))
    reports = [_check(group, GROUPS[group], fetch(Path(args.cache), list(GROUPS[group])), settings)
               for group in args.group or list(GROUPS)]
    print("\n".join(summary for summary, _ in reports))
    return 1 if any(crashed for _, crashed in reports) else 0


def _check(group: str, packages: dict[str, str], folders: list[Path], settings) -> tuple[str, int]:
    """Print each finding of one group; return its summary and how many files crashed."""
    result = run([str(folder) for folder in folders], settings, use_cache=False)
    for d in result.diagnostics:
        where = f"cell {d.cell}:" if d.cell is not None else ""
        print(f"{d.filename}:{where}{d.row}:{d.col}: {d.code} {d.message}")
    for message in result.internal_errors:
        print(message, file=sys.stderr)
    files = [path for folder in folders for pattern in ("*.py", "*.ipynb") for path in folder.rglob(pattern)
             if path.is_file()]
    lines = count_lines(files)
    per_100k = 100_000 / lines
    report = [f"\n== {group}: {result.files} files checked ({result.skipped} without jax skipped), "
              f"{lines} lines of Python and notebook code",
              "   " + ", ".join(f"{name} {version}" for name, version in packages.items())]
    default = [d for d in result.diagnostics if d.code not in OPT_IN]
    opt_in = [d for d in result.diagnostics if d.code in OPT_IN]
    for title, found in (("default rules", default), ("opt-in rules", opt_in)):
        report.append(f"{title}: {len(found)} findings, {len(found) * per_100k:.2f} per 100k lines")
        for code, n in sorted(Counter(d.code for d in found).items()):
            report.append(f"  {code}: {n} findings, {n * per_100k:.2f} per 100k lines")
    by_package = Counter(_package(d.filename, folders) for d in default)
    report.append("default-rule findings by package: "
                  + (", ".join(f"{name} {n}" for name, n in by_package.most_common()) or "none"))
    report.append(f"{len(result.internal_errors)} files crashed")
    return "\n".join(report), len(result.internal_errors)


def _package(filename: str, folders: list[Path]) -> str:
    path = Path(filename).resolve()
    return next((folder.name for folder in folders if path.is_relative_to(folder.resolve())), filename)


if __name__ == "__main__":
    sys.exit(main())
