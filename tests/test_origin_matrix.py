"""The origin matrix (tests/origin_matrix.py), linted: every bug cell flagged at its use, every twin silent.

A cell jaxlint gets wrong today is listed in the table (MISSES, FALSE_ALARMS) and checked to still be wrong,
so that a fix to the value analysis forces the table up to date. The summary test prints the share of bug
cells flagged per rule and per origin, and holds the share above a floor.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from jaxlint.checks import ALL_RULES
from jaxlint.lint import LintOptions, lint_source
from origin_matrix import EXTRA, FALSE_ALARMS, MISSES, Cell, cells

DEFAULT_RULES = frozenset(rule.code for rule in ALL_RULES if rule.default_enabled)
CELLS = cells()
# The share of bug cells flagged today (557/570, 97.7%); the bar is 95%.
FLOOR = 0.95


def _write(root: Path, cell: Cell) -> None:
    for name, source in cell.files.items():
        (root / f"{name}.py").write_text(source, encoding="utf-8")


@pytest.fixture(scope="module")
def findings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, set[tuple[str, int, str]]]:
    """cell id -> {(module, line, code)}: one-module cells linted in-process, the others by one project run."""
    out: dict[str, set[tuple[str, int, str]]] = {}
    several = [cell for cell in CELLS if len(cell.files) > 1]
    for cell in CELLS:
        if len(cell.files) == 1:
            found = lint_source(cell.files[cell.module], f"{cell.module}.py", LintOptions(DEFAULT_RULES))
            out[cell.id] = {(cell.module, d.row, d.code) for d in found}
    root = tmp_path_factory.mktemp("origin_matrix")
    for cell in several:
        _write(root, cell)
    run = subprocess.run([sys.executable, "-m", "jaxlint", "--no-cache", "--output-format", "json", "."],
                         cwd=root, capture_output=True, text=True, timeout=600)
    assert run.returncode in (0, 1), run.stderr
    by_module: dict[str, set[tuple[str, int, str]]] = defaultdict(set)
    for finding in json.loads(run.stdout):
        module = Path(finding["filename"]).stem
        by_module[module].add((module, finding["location"]["row"], finding["code"]))
    for cell in several:
        out[cell.id] = set().union(*(by_module[name] for name in cell.files))
    return out


def _flagged(cell: Cell, found: set[tuple[str, int, str]]) -> bool:
    return (cell.use_file, cell.line, cell.code) in found


def _extra(cell: Cell, found: set[tuple[str, int, str]]) -> set[str]:
    """Codes found anywhere in the cell but the expected one at the use."""
    return {code for module, line, code in found
            if (module, line, code) != (cell.use_file, cell.line, cell.code)} - cell.also


def test_the_table_names_only_cells_that_exist() -> None:
    ids = {(cell.origin, cell.use) for cell in CELLS}
    bugs = {(cell.origin, cell.use) for cell in CELLS if cell.bug}
    assert set(MISSES) <= bugs
    assert set(FALSE_ALARMS) <= ids - bugs
    assert set(EXTRA) <= ids
    assert len(ids) == len(CELLS)


@pytest.mark.parametrize("cell", [c for c in CELLS if c.bug], ids=lambda c: c.id)
def test_a_bug_cell_is_flagged_at_its_use(cell: Cell, findings) -> None:
    found = findings[cell.id]
    if (cell.origin, cell.use) in MISSES:
        assert not _flagged(cell, found), f"{cell.id} is flagged now: remove it from MISSES"
    else:
        assert _flagged(cell, found), f"{cell.id}: no {cell.code} at {cell.use_file}:{cell.line}"
    assert _extra(cell, found) == EXTRA.get((cell.origin, cell.use), set()), sorted(found)


@pytest.mark.parametrize("cell", [c for c in CELLS if not c.bug], ids=lambda c: c.id)
def test_a_twin_cell_is_silent(cell: Cell, findings) -> None:
    found = findings[cell.id]
    codes = {code for _, _, code in found}
    if (cell.origin, cell.use) in FALSE_ALARMS:
        assert cell.code in codes, f"{cell.id} is silent now: remove it from FALSE_ALARMS"
    else:
        assert cell.code not in codes, f"{cell.id}: false alarm {sorted(found)}"
    assert codes - {cell.code} - cell.also == EXTRA.get((cell.origin, cell.use), set()), sorted(found)


def test_the_share_of_bug_cells_flagged(findings, capsys: pytest.CaptureFixture) -> None:
    per_rule: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    per_origin: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for cell in CELLS:
        if cell.bug:
            hit = _flagged(cell, findings[cell.id])
            for table, name in ((per_rule, f"{cell.code} {cell.use}"), (per_origin, cell.origin)):
                table[name][0] += hit
                table[name][1] += 1
    flagged = sum(hit for hit, _ in per_origin.values())
    total = sum(n for _, n in per_origin.values())
    twins = [cell for cell in CELLS if not cell.bug]
    alarms = sum(cell.code in {code for _, _, code in findings[cell.id]} for cell in twins)
    with capsys.disabled():
        print(f"\norigin matrix: {flagged}/{total} bug cells flagged ({flagged / total:.1%}); "
              f"{alarms}/{len(twins)} twins flagged")
        for title, table in (("per rule", per_rule), ("per origin", per_origin)):
            print(f"  {title}:")
            for name, (hit, n) in sorted(table.items()):
                print(f"    {name:34} {hit:3}/{n:<3} {hit / n:6.1%}")
    assert flagged / total >= FLOOR
    assert total - flagged == len(MISSES)
