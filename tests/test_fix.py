"""`--fix`, `--unsafe-fixes`, `--diff`, `--show-fixes`: byte-exact fix pairs, and files never damaged."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from helpers import JAX101_SOURCE, jaxlint, write
from jaxlint.checks import ALL_RULES
from jaxlint.diagnostics import SAFE, Diagnostic, Edit, Fix
from jaxlint.fix import FixError, apply_fixes, fix_source, write_atomically

FIX_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fix"
FIXED_JAX101 = "import jax.numpy as jnp\nx = jnp.zeros(3)\nx = x.at[0].set(1)\n"


def fix_pairs() -> list[Path]:
    """fixtures/fix/<name>.py with its expected result <name>.fixed.py; `unsafe` in the name: --unsafe-fixes,
    an opt-in rule's name (with `_` for `-`) in it: that rule is selected too."""
    return sorted(p for p in FIX_FIXTURES.glob("*.py") if not p.name.endswith(".fixed.py"))


def fix_args(path: Path) -> list[str]:
    args = ["--fix", "--unsafe-fixes"] if ".unsafe" in path.name else ["--fix"]
    opt_in = [rule.code for rule in ALL_RULES if not rule.default_enabled and rule.name.replace("-", "_") in path.name]
    return args + [f"--extend-select={code}" for code in opt_in]


@pytest.mark.parametrize("original", fix_pairs(), ids=lambda p: p.name)
def test_fix_pair_byte_for_byte(original: Path, tmp_path: Path) -> None:
    target = tmp_path / original.name
    shutil.copyfile(original, target)
    jaxlint(tmp_path, *fix_args(original), "-q", target.name)
    expected = original.with_name(original.name[:-3] + ".fixed.py")
    assert target.read_bytes() == expected.read_bytes()


@pytest.mark.parametrize("original", fix_pairs(), ids=lambda p: p.name)
def test_fixing_a_fixed_file_changes_nothing(original: Path, tmp_path: Path) -> None:
    fixed = original.with_name(original.name[:-3] + ".fixed.py")
    target = tmp_path / original.name
    shutil.copyfile(fixed, target)
    result = jaxlint(tmp_path, *fix_args(original), target.name)
    assert target.read_bytes() == fixed.read_bytes()
    assert "fixed" not in result.stdout and "[*]" not in result.stdout  # nothing fixed, nothing fixable


@pytest.mark.slow
def test_every_fixable_rule_has_a_fix_pair() -> None:
    fixed_codes = set()
    for original in fix_pairs():
        fixed_codes |= {d["code"] for d in json.loads(jaxlint(
            FIX_FIXTURES, "--output-format", "json", *fix_args(original)[1:], original.name).stdout) if d["fix"]}
    assert {rule.code for rule in ALL_RULES if rule.fixable} - fixed_codes == set()


def test_fix_reports_what_remains_and_exits_by_it(tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    result = jaxlint(tmp_path, "--fix", "a.py")
    assert (result.returncode, result.stdout) == (0, "Found 1 finding (1 fixed, 0 remaining; 1 file checked).\n")
    assert (tmp_path / "a.py").read_text() == FIXED_JAX101
    both = write(tmp_path / "b.py", JAX101_SOURCE + "x.at[1].set(2)\n")
    result = jaxlint(tmp_path, "--fix", "--show-fixes", "b.py")
    assert result.returncode == 1
    assert result.stdout.splitlines()[1:] == [
        "Fixed 1 finding:",
        "- b.py:",
        "    1 × JAX101 (in-place-update)",
        "Found 2 findings (1 fixed, 1 remaining; 1 file checked).",
    ]
    assert result.stdout.startswith("b.py:4:1: JAX102 the result")
    assert both.read_text() == FIXED_JAX101 + "x.at[1].set(2)\n"


def test_diff_prints_and_writes_nothing(tmp_path: Path) -> None:
    path = write(tmp_path / "a.py", JAX101_SOURCE)
    result = jaxlint(tmp_path, "--diff", "a.py")
    assert result.returncode == 1
    assert result.stdout == (
        "--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n import jax.numpy as jnp\n x = jnp.zeros(3)\n"
        "-x[0] = 1\n+x = x.at[0].set(1)\n"
        "Would fix 1 finding (0 would remain; 1 file checked).\n"
    )
    assert path.read_text() == JAX101_SOURCE


def test_text_marks_fixable_findings_and_counts_unsafe_ones(tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE + "x.at[1].set(2)\n")
    plain = jaxlint(tmp_path, "a.py").stdout.splitlines()
    assert plain[0].startswith("a.py:3:1: JAX101 [*] in-place")
    assert plain[1].startswith("a.py:4:1: JAX102 the result")
    assert plain[2] == "Found 2 findings (1 file checked); 1 fixable with `--fix`, 1 more with `--unsafe-fixes`."
    unsafe = jaxlint(tmp_path, "--unsafe-fixes", "a.py").stdout.splitlines()
    assert unsafe[1].startswith("a.py:4:1: JAX102 [*] the result")
    assert unsafe[2] == "Found 2 findings (1 file checked); 2 fixable with `--fix --unsafe-fixes`."


def test_fix_keeps_bom_crlf_encoding_and_permissions(tmp_path: Path) -> None:
    crlf = tmp_path / "crlf.py"
    crlf.write_bytes(b"\xef\xbb\xbf" + JAX101_SOURCE.replace("\n", "\r\n").encode())
    crlf.chmod(0o750)
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# -*- coding: latin-1 -*-\n" + JAX101_SOURCE.encode() + b"s = '\xe9'\n")
    jaxlint(tmp_path, "--fix", ".")
    assert crlf.read_bytes() == b"\xef\xbb\xbf" + FIXED_JAX101.replace("\n", "\r\n").encode()
    assert stat.S_IMODE(crlf.stat().st_mode) == 0o750
    assert latin.read_bytes() == b"# -*- coding: latin-1 -*-\n" + FIXED_JAX101.encode() + b"s = '\xe9'\n"


def test_fix_through_a_symlink_keeps_the_link(tmp_path: Path) -> None:
    real = write(tmp_path / "real.py", JAX101_SOURCE)
    (tmp_path / "link.py").symlink_to("real.py")
    jaxlint(tmp_path, "--fix", "link.py")
    assert (tmp_path / "link.py").is_symlink()
    assert real.read_text() == FIXED_JAX101


def test_fix_leaves_an_unparsable_file_alone(tmp_path: Path) -> None:
    broken = write(tmp_path / "broken.py", "import jax\nx[0] = (\n")
    good = write(tmp_path / "good.py", JAX101_SOURCE)
    result = jaxlint(tmp_path, "--fix", ".")
    assert result.returncode == 1
    assert result.stdout.startswith("broken.py:2:")
    assert " JAX001 " in result.stdout
    assert broken.read_text() == "import jax\nx[0] = (\n"
    assert good.read_text() == FIXED_JAX101


def test_fix_does_not_write_a_read_only_file(tmp_path: Path) -> None:
    path = write(tmp_path / "ro.py", JAX101_SOURCE)
    path.chmod(0o444)
    result = jaxlint(tmp_path, "--fix", "ro.py")
    assert result.returncode == 1
    assert result.stderr == "jaxlint: ro.py: not fixed: the file is read-only\n"
    assert result.stdout.startswith("ro.py:3:1: JAX101 [*] in-place")
    assert path.read_text() == JAX101_SOURCE
    assert stat.S_IMODE(path.stat().st_mode) == 0o444


def test_a_file_that_changed_since_it_was_read_is_not_written(tmp_path: Path) -> None:
    path = write(tmp_path / "a.py", JAX101_SOURCE)
    read = path.read_bytes()
    path.write_text(JAX101_SOURCE + "# edited in the editor meanwhile\n")
    with pytest.raises(FixError, match="changed while jaxlint was running"):
        write_atomically(str(path), FIXED_JAX101.encode(), read)
    assert path.read_text() == JAX101_SOURCE + "# edited in the editor meanwhile\n"
    assert sorted(os.listdir(tmp_path)) == ["a.py"]  # no temporary file left behind


def _finding(row: int, col: int, end_col: int, content: str, code: str = "JAX101") -> Diagnostic:
    return Diagnostic("m.py", row, col, code, "m", row, end_col, Fix(SAFE, "f", (Edit(row, col, row, end_col, content),)))


def test_overlapping_fixes_apply_one_per_round() -> None:
    first, second = _finding(1, 1, 6, "a = 1"), _finding(1, 5, 6, "2")
    text, applied = apply_fixes("x = 0\n", [second, first])
    assert (text, applied) == ("a = 1\n", [first])


def test_a_fix_that_would_break_the_code_is_skipped_and_the_others_applied() -> None:
    breaking, good = _finding(1, 1, 2, "(("), _finding(2, 1, 2, "z")

    def lint(source: str) -> list[Diagnostic]:
        return [d for d in (breaking, good) if source.splitlines()[d.row - 1][0] != d.fix.edits[0].content[0]]

    fixed = fix_source("x = 1\ny = 2\n", lint)
    assert fixed.source == "x = 1\nz = 2\n"
    assert fixed.fixed == [good]
    assert fixed.remaining == [breaking]


MAX_UNDER_JIT = "@jit\ndef f(x, lo):\n    return max(x * 2, lo)\n"


def test_import_jax_goes_after_the_first_jax_import_keeping_setup_code_first(tmp_path: Path) -> None:
    path = write(tmp_path / "a.py", 'import os\nos.environ["JAX_ENABLE_X64"] = "1"\nfrom jax import jit  # type: ignore\n'
                 + MAX_UNDER_JIT)
    jaxlint(tmp_path, "--fix", "a.py")
    assert path.read_text() == (
        'import os\nos.environ["JAX_ENABLE_X64"] = "1"\nfrom jax import jit  # type: ignore\nimport jax\n'
        "@jit\ndef f(x, lo):\n    return jax.numpy.maximum(x * 2, lo)\n")


def test_a_noqa_comment_stays_on_its_import(tmp_path: Path) -> None:
    source = "from jax import jit\nfrom jax import tree_map  # noqa: JAX801\n" + MAX_UNDER_JIT
    path = write(tmp_path / "a.py", source)
    result = jaxlint(tmp_path, "--fix", "a.py")
    assert result.stdout == "Found 1 finding (1 fixed, 0 remaining; 1 file checked).\n"
    assert path.read_text() == source.replace("# noqa: JAX801\n", "# noqa: JAX801\nimport jax\n").replace(
        "max(", "jax.numpy.maximum(")


def test_one_unparsable_fix_does_not_hold_back_the_others(tmp_path: Path) -> None:
    body = "".join(f"    x[{i}] = v\n" for i in range(15))
    path = write(tmp_path / "a.py", f"import jax\n\n\n@jax.jit\ndef f(x: jax.Array, v):\n{body}    x[99] = yield v\n    return x\n")
    result = jaxlint(tmp_path, "--fix", "a.py")
    assert result.stdout == "Found 16 findings (16 fixed, 0 remaining; 1 file checked).\n"
    assert "    x = x.at[99].set((yield v))\n" in path.read_text()
    assert jaxlint(tmp_path, "--diff", "a.py").stdout.startswith("All checks passed")


def test_diff_splits_lines_as_python_does(tmp_path: Path) -> None:
    """A form feed is not a line break for Python or patch: the diff stays a valid patch."""
    write(tmp_path / "a.py", "from jax import jit\n\n" + MAX_UNDER_JIT.replace("    return", "    y = 1\x0c\n    return"))
    result = jaxlint(tmp_path, "--diff", "a.py")
    assert result.stdout.splitlines(keepends=False)[:3] == ["--- a/a.py", "+++ b/a.py", "@@ -1,6 +1,7 @@"]
    assert "No newline" not in result.stdout and "    y = 1\x0c\n" in result.stdout
