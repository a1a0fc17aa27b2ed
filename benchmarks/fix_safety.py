"""Do fixes keep working code working? `jaxlint --fix --unsafe-fixes` (every rule, opt-in ones included)
over copies of the libraries precision.py checks, and optionally an old jax release, then for each
fixed file: does it still parse, does it still import (compared with the untouched copy), and for a
handful of fixed test files, do the library's own tests give the same results?

    python benchmarks/fix_safety.py [--cache DIR] [--old-jax 0.2.28] [--tests 6]

Run by hand, not in CI. Importing a module runs only its top-level code, so the comparison of imports
catches module-level breakage; the libraries' tests exercise the fixed functions themselves. The
tests need the libraries' own dependencies installed (absl-py, jmp, tabulate, toolz for chex, optax
and dm-haiku); a test file whose imports fail before the fix is reported, not compared.

Prints the files fixed, the fixes per rule (safe and unsafe), and every difference found: a fixed file
that does not parse, a module that imports before the fix and not after (or differently), a test
whose outcome changed. Exit status 1 when there is any.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path

from libraries import LIBRARIES, fetch, fetch_release

from jaxlint.checks import ALL_RULES
from jaxlint.config import CommandLine, build_settings
from jaxlint.runner import FixMode, run

# Imports each module named on stdin (one per line) and prints {module: "ok" or the exception type}.
_IMPORTER = """
import importlib, json, sys, warnings
warnings.simplefilter("ignore")
result = {}
for name in sys.stdin.read().split():
    try:
        importlib.import_module(name)
        result[name] = "ok"
    except BaseException as error:  # SystemExit and KeyboardInterrupt from module code count too
        result[name] = type(error).__name__
print(json.dumps(result))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", default=".bench-cache", help="where wheels and sources are kept")
    parser.add_argument("--old-jax", help="also fix this jax release's sources (parse check only)")
    parser.add_argument("--tests", type=int, default=6, help="how many fixed test files to run, before and after")
    parser.add_argument("--test-timeout", type=float, default=900, help="seconds for one test file's run")
    args = parser.parse_args(argv)
    cache = Path(args.cache)
    originals = fetch(cache)
    old = [fetch_release(cache, "jax", args.old_jax)] if args.old_jax else []
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="jaxlint-fix-safety-") as work:
        before, after = Path(work, "before"), Path(work, "after")
        for folder in originals + old:
            shutil.copytree(folder, before / folder.name)
            shutil.copytree(folder, after / folder.name)
        every_rule = [rule.code for rule in ALL_RULES]
        settings = build_settings(CommandLine(select=every_rule))
        result = run([str(after / folder.name) for folder in originals + old], settings,
                     FixMode(unsafe=True), unsafe_fixes=True, use_cache=False)
        problems += result.internal_errors + result.fix_failures
        fixed_files = sorted({Path(d.filename) for d in result.fixed})
        report_fixes(result.fixed, len(fixed_files), result.files, after)
        problems += [f"{path}: the fixed file does not parse" for path in fixed_files if not parses(path)]
        for folder in originals:
            problems += compare_imports(before / folder.name, after / folder.name, fixed_files)
        problems += compare_tests(before, after, [p for p in fixed_files if p.name.endswith("_test.py")
                                                  and not any(p.is_relative_to(after / f.name) for f in old)],
                                  args.tests, args.test_timeout)
    print(f"\n{len(problems)} differences" + (":" if problems else ""))
    for problem in problems:
        print(f"  {problem}")
    return 1 if problems else 0


def report_fixes(fixed, files: int, checked: int, root: Path) -> None:
    counts = Counter((Path(d.filename).relative_to(root).parts[0], d.code, d.fix.applicability) for d in fixed)
    print(f"{len(fixed)} fixes in {files} files ({checked} files checked)")
    for (library, code, applicability), n in sorted(counts.items()):
        print(f"  {library}: {code} {applicability}: {n}")


def parses(path: Path) -> bool:
    try:
        ast.parse(path.read_bytes())
    except (SyntaxError, ValueError):
        return False
    return True


def module_name(path: Path, root: Path) -> str | None:
    """The dotted name `path` imports as with `root` on sys.path, when every folder on the way is a package."""
    parts = path.relative_to(root).with_suffix("").parts
    folders = [root.joinpath(*parts[:i]) for i in range(1, len(parts))]
    if not all((folder / "__init__.py").is_file() for folder in folders):
        return None
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_all(root: Path, names: list[str]) -> dict[str, str]:
    """Import the modules in a fresh interpreter with only `root` added to sys.path (and the venv's packages)."""
    env = {**os.environ, "PYTHONPATH": str(root), "JAX_PLATFORMS": "cpu"}
    done = subprocess.run([sys.executable, "-c", _IMPORTER], input="\n".join(names), cwd=root, env=env,
                          capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        return {name: f"the importer crashed: {done.stderr.strip().splitlines()[-1:]}" for name in names}
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare_imports(before: Path, after: Path, fixed: list[Path]) -> list[str]:
    names = sorted(filter(None, (module_name(path, after) for path in fixed if path.is_relative_to(after))))
    if not names:
        return []
    old, new = import_all(before, names), import_all(after, names)
    importable = [name for name in names if old.get(name) == "ok"]
    print(f"{after.name}: {len(importable)} of {len(names)} fixed modules import before the fix; "
          f"{sum(new.get(n) == 'ok' for n in importable)} after")
    return [f"{after.name}: `import {name}`: {old.get(name)} before the fix, {new.get(name)} after"
            for name in names if old.get(name) != new.get(name)]


def compare_tests(before: Path, after: Path, tests: list[Path], limit: int, timeout: float) -> list[str]:
    """Run up to `limit` fixed test files (the smallest of each library in turn) in both copies, and
    compare each test's outcome."""
    problems, ran = [], 0
    for path in _round_robin(tests, lambda p: p.relative_to(after).parts[0]):
        if ran == limit:
            break
        library = path.relative_to(after).parts[0]
        old = outcomes(before / library, before / path.relative_to(after), timeout)
        if "passed" not in old.values():
            print(f"{path.relative_to(after)}: none of its tests passes before the fix; not compared")
            continue
        new = outcomes(after / library, path, timeout)
        ran += 1
        changed = {test: (old.get(test), new.get(test)) for test in old.keys() | new.keys()
                   if old.get(test) != new.get(test)}
        print(f"{path.relative_to(after)}: {len(old)} tests, {dict(Counter(old.values()))} before the fix; "
              f"{len(changed)} changed")
        problems += [f"{path.relative_to(after)}::{test}: {was} before the fix, {now} after"
                     for test, (was, now) in sorted(changed.items())]
    return problems


def _round_robin(paths: list[Path], group) -> list[Path]:
    """The smallest file of each group, then the next smallest of each, and so on."""
    groups: dict[str, list[Path]] = {}
    for path in sorted(paths, key=lambda p: p.stat().st_size):
        groups.setdefault(group(path), []).append(path)
    ordered = []
    while any(groups.values()):
        ordered += [members.pop(0) for members in groups.values() if members]
    return ordered


def outcomes(root: Path, test_file: Path, timeout: float) -> dict[str, str]:
    """Each test's outcome (passed, failed, error, skipped) in one pytest run of the file; {} when it
    did not finish within `timeout` seconds."""
    report = test_file.with_suffix(".junit.xml")
    env = {**os.environ, "PYTHONPATH": str(root), "JAX_PLATFORMS": "cpu"}
    try:
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                        f"--junitxml={report}", str(test_file)], cwd=root, env=env, capture_output=True,
                       timeout=timeout)
    except subprocess.TimeoutExpired:
        return {}
    if not report.is_file():
        return {}
    found = {}
    for case in ElementTree.parse(report).iter("testcase"):
        kinds = {child.tag for child in case}
        outcome = next((kind for kind in ("failure", "error", "skipped") if kind in kinds), "passed")
        found[f"{case.get('classname')}.{case.get('name')}"] = outcome
    report.unlink()
    return found


if __name__ == "__main__":
    print(f"libraries: {', '.join(f'{n} {v}' for n, v in LIBRARIES.items())}")
    sys.exit(main())
