"""Precision on real code: jaxlint over pinned JAX libraries (flax, optax, equinox, dm-haiku, chex, jax)
and pinned JAX applications (RL environments and training code, simulators, an LLM trainer, a research
model, probabilistic programming, state-space models, evolution strategies, tree search; with their examples,
notebooks and tests) and code written for Python 3.12+ (benchmarks/libraries.py's
MODERN: PEP 695 generics, which must never be JAX001), each group counted apart.

Every finding is presumed a false alarm until someone reads the code and shows it is a real bug.
precision_verdicts.tsv keeps what was shown, finding by finding (the packages are pinned, so their
lines do not move): `real` (a bug, or an API that jax removed or deprecated), `false` (the analysis
believes something untrue), `harmless` (the pattern is there but meant, or has no effect). The script
prints each finding with its verdict, then per group: findings per 100k lines by code (the default
rules, then the opt-in ones apart), by package, by verdict; the findings not known to be real bugs per
100k lines (issue 11's bar: at most 1); the known real bugs no longer found; and files that crashed.

    python benchmarks/precision.py [--cache DIR] [--select CODES] [--group libraries|applications|modern]

Packages are fetched once with `pip download --no-deps` into the cache (default: .bench-cache/).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

from libraries import APPLICATIONS, LIBRARIES, MODERN, count_lines, fetch

from jaxlint.config import CommandLine, build_settings, requires_python
from jaxlint.diagnostics import Diagnostic
from jaxlint.rule_index import RULES
from jaxlint.results import RunResult
from jaxlint.runner import run

GROUPS = {"libraries": LIBRARIES, "applications": APPLICATIONS, "modern": MODERN}
OPT_IN = [code for code, _, default_enabled in RULES if not default_enabled]
VERDICTS = Path(__file__).with_name("precision_verdicts.tsv")


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
    verdicts = load_verdicts()
    reports = [_check(group, fetch(Path(args.cache), list(GROUPS[group])), settings, verdicts)
               for group in args.group or list(GROUPS)]
    print("\n".join(summary for summary, _ in reports))
    return 1 if any(crashed for _, crashed in reports) else 0


def load_verdicts() -> dict[tuple[str, str], str]:
    """(location, code) -> verdict, from precision_verdicts.tsv."""
    verdicts = {}
    for line in VERDICTS.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            location, code, verdict, _why = line.split("\t")
            verdicts[location, code] = verdict
    return verdicts


def _check(group: str, folders: list[Path], settings, verdicts: dict[tuple[str, str], str]) -> tuple[str, int]:
    """Print each finding of one group with its verdict; return the group's summary and how many files crashed."""
    result = RunResult()
    for folder in folders:  # each package parsed as the Python it is written for
        part = run([str(folder)], replace(settings, python_version=_python_of(folder)), use_cache=False)
        for name in ("diagnostics", "internal_errors"):
            getattr(result, name).extend(getattr(part, name))
        result.files, result.skipped = result.files + part.files, result.skipped + part.skipped
    default = [d for d in result.diagnostics if d.code not in OPT_IN]
    opt_in = [d for d in result.diagnostics if d.code in OPT_IN]
    keys = [(_location(d, folders), d.code) for d in default]
    found = set(keys)
    for d in result.diagnostics:
        verdict = "opt-in" if d.code in OPT_IN else verdicts.get((_location(d, folders), d.code), "not judged")
        cell = f"cell {d.cell}:" if d.cell is not None else ""
        print(f"{d.filename}:{cell}{d.row}:{d.col}: {d.code} [{verdict}] {d.message}")
    for message in result.internal_errors:
        print(message, file=sys.stderr)
    files = [path for folder in folders for pattern in ("*.py", "*.ipynb") for path in folder.rglob(pattern)
             if path.is_file()]
    lines = count_lines(files)
    per_100k = 100_000 / lines
    report = [f"\n== {group}: {result.files} files checked ({result.skipped} without jax skipped), "
              f"{lines} lines of Python and notebook code",
              "   " + ", ".join(folder.name for folder in folders)]
    for title, chosen in (("default rules", default), ("opt-in rules", opt_in)):
        report.append(f"{title}: {len(chosen)} findings, {len(chosen) * per_100k:.2f} per 100k lines")
        for code, n in sorted(Counter(d.code for d in chosen).items()):
            report.append(f"  {code}: {n} findings, {n * per_100k:.2f} per 100k lines")
    by_package = Counter(location.split("/")[0] for location, _ in keys)
    report.append("default-rule findings by package: "
                  + (", ".join(f"{name} {n}" for name, n in by_package.most_common()) or "none"))
    by_verdict = Counter(verdicts.get(key, "not judged") for key in keys)
    report.append("by verdict: " + (", ".join(f"{v} {n}" for v, n in by_verdict.most_common()) or "none"))
    not_real = len(keys) - by_verdict["real"]
    report.append(f"not known to be real bugs: {not_real} findings, {not_real * per_100k:.2f} per 100k lines "
                  "(issue 11's bar: at most 1)")
    names = {folder.name for folder in folders}
    lost = sorted(key for key, verdict in verdicts.items() if verdict == "real" and key not in found
                  and key[0].split("/")[0] in names and key[1] in settings.enabled)
    report.append(f"known real bugs no longer found: {len(lost)}"
                  + "".join(f"\n  {location} {code}" for location, code in lost))
    report.append(f"{len(result.internal_errors)} files crashed")
    return "\n".join(report), len(result.internal_errors)


def _python_of(folder: Path) -> str | None:
    """The package's Python (`requires-python` of its pyproject.toml, at the top of an sdist or a
    snapshot), as `jaxlint PACKAGE` finds it; None (the newest) for wheels, which carry none."""
    project = next((path for path in (folder / "pyproject.toml", *folder.glob("*/pyproject.toml"))
                    if path.is_file()), None)
    return requires_python(project, project.parent) if project else None


def _location(d: Diagnostic, folders: list[Path]) -> str:
    """Where a finding is, as precision_verdicts.tsv names it: `package-1.0/path[:cell N]:row`."""
    path = Path(d.filename).resolve()
    folder = next(folder.resolve() for folder in folders if path.is_relative_to(folder.resolve()))
    cell = f"cell {d.cell}:" if d.cell is not None else ""
    return f"{path.relative_to(folder.parent).as_posix()}:{cell}{d.row}"


if __name__ == "__main__":
    sys.exit(main())
