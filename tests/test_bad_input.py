"""Bad input never stops the run: each bad file gets one clear finding, the good files are still checked."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from helpers import JAX101_MESSAGE, JAX101_SOURCE, jaxlint


def as_json(result: subprocess.CompletedProcess) -> list[dict]:
    assert "Traceback" not in result.stderr, result.stderr
    return json.loads(result.stdout)


def positions(found: list[dict]) -> set[tuple[str, int, int, str]]:
    """(file name, row, column, code) of each JSON finding."""
    return {(Path(d["filename"]).name, d["location"]["row"], d["location"]["column"], d["code"])
            for d in found}


def messages(found: list[dict]) -> dict[str, str]:
    return {Path(d["filename"]).name: d["message"] for d in found}


# --- one folder holding every kind of bad input ---------------------------------------------------------

LATIN1_FINDING_LINE = 's = "caf\xe9"; x[0] = 1\n'  # x[0] starts at code point 13 (é is one code point)


def make_bad_folder(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "unparsable.py").write_bytes(b"import jax\ndef f(:\n")
    (folder / "non_utf8.py").write_bytes(b'import jax\nx = "\xff"\n')
    (folder / "latin1_cookie.py").write_bytes(
        ("# -*- coding: latin-1 -*-\nimport jax.numpy as jnp\nx = jnp.zeros(3)\n" + LATIN1_FINDING_LINE)
        .encode("latin-1"))
    (folder / "binary.py").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00import jax\x00\x00\xff\xfe\n")
    (folder / "empty.py").write_bytes(b"")
    os.symlink("missing_target.py", folder / "bad_link.py")
    (folder / "bom.py").write_bytes(
        b"\xef\xbb\xbfimport jax.numpy as jnp\nx = jnp.zeros(3)\nx = x.at[0].set(1)\n")
    (folder / "crlf.py").write_bytes(b"import jax.numpy as jnp\r\nx = jnp.zeros(3)\r\n\r\nx[1] = 2\r\n")
    (folder / "good.py").write_bytes(JAX101_SOURCE.encode())


BAD_FOLDER_FINDINGS = {
    ("unparsable.py", 2, 7, "JAX001"),      # where Python itself reports `def f(:`
    ("non_utf8.py", 2, 6, "JAX001"),        # the 0xff byte
    ("binary.py", 1, 1, "JAX001"),
    ("bad_link.py", 1, 1, "JAX003"),
    ("latin1_cookie.py", 4, 13, "JAX101"),  # checked normally through its coding cookie
    ("crlf.py", 4, 1, "JAX101"),
    ("good.py", 3, 1, "JAX101"),
}


def test_python_reports_the_syntax_error_where_we_expect() -> None:
    with pytest.raises(SyntaxError) as error:
        compile("import jax\ndef f(:\n", "unparsable.py", "exec")
    assert (error.value.lineno, error.value.offset) == (2, 7)


def test_bad_folder_json(tmp_path: Path) -> None:
    make_bad_folder(tmp_path / "mixed")
    result = jaxlint(tmp_path, "--output-format", "json", "mixed")
    assert result.returncode == 1
    assert result.stderr == ""
    found = as_json(result)
    assert positions(found) == BAD_FOLDER_FINDINGS
    assert len(found) == len(BAD_FOLDER_FINDINGS)  # one finding per bad file, no duplicates
    text = messages(found)
    assert text["unparsable.py"] == "syntax error: invalid syntax"
    assert text["non_utf8.py"].startswith("not valid utf-8: byte 0xff at line 2, column 6")
    assert "coding" in text["non_utf8.py"]
    assert text["binary.py"] == "binary file (contains NUL bytes), not Python source"
    assert text["bad_link.py"] == "broken symlink: its target missing_target.py does not exist"
    assert text["good.py"] == JAX101_MESSAGE
    for finding in found:
        assert finding["filename"] == str((tmp_path / "mixed" / Path(finding["filename"]).name).absolute())


def test_bad_folder_text(tmp_path: Path) -> None:
    make_bad_folder(tmp_path / "mixed")
    result = jaxlint(tmp_path, "mixed")
    assert result.returncode == 1
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[-1] == "Found 7 findings (9 files checked, 1 without jax skipped); 3 fixable with `--fix`."
    assert lines[:-1] == [
        "mixed/bad_link.py:1:1: JAX003 broken symlink: its target missing_target.py does not exist",
        "mixed/binary.py:1:1: JAX001 binary file (contains NUL bytes), not Python source",
        "mixed/crlf.py:4:1: JAX101 [*] in-place update of a JAX array raises TypeError (`x` holds a JAX array); "
        "use `x = x.at[1].set(2)`",
        f"mixed/good.py:3:1: JAX101 [*] {JAX101_MESSAGE}",
        "mixed/latin1_cookie.py:4:13: JAX101 [*] in-place update of a JAX array raises TypeError "
        "(`x` holds a JAX array); use `x = x.at[0].set(1)`",
        "mixed/non_utf8.py:2:6: JAX001 not valid utf-8: byte 0xff at line 2, column 6 "
        "(declare the encoding with a coding comment, or save the file as UTF-8)",
        "mixed/unparsable.py:2:7: JAX001 syntax error: invalid syntax",
    ]


def test_bad_files_named_explicitly(tmp_path: Path) -> None:
    make_bad_folder(tmp_path)
    names = ["unparsable.py", "non_utf8.py", "latin1_cookie.py", "binary.py", "empty.py", "bad_link.py",
             "bom.py", "crlf.py", "good.py"]
    result = jaxlint(tmp_path, "--output-format", "json", *names)
    assert result.returncode == 1
    assert result.stderr == ""
    assert positions(as_json(result)) == BAD_FOLDER_FINDINGS


def test_ignoring_the_input_rules_leaves_the_real_findings(run, tmp_path: Path) -> None:
    make_bad_folder(tmp_path / "mixed")
    result = run("--ignore", "JAX001,JAX003", "--quiet", "mixed")
    assert result.code == 1
    assert result.err == ""
    assert [line.split(" ")[0] for line in result.out.splitlines()] == [
        "mixed/crlf.py:4:1:", "mixed/good.py:3:1:", "mixed/latin1_cookie.py:4:13:"]


@pytest.mark.parametrize(("name", "data", "expected"), [
    ("empty.py", b"", "All checks passed (1 file checked, 1 without jax skipped).\n"),
    ("bom.py", b"\xef\xbb\xbfimport jax.numpy as jnp\nx = jnp.zeros(3)\nx = x.at[0].set(1)\n",
     "All checks passed (1 file checked).\n"),
    ("latin1_cookie.py", "# -*- coding: latin-1 -*-\nimport jax.numpy as jnp\ns = 'caf\xe9'\n".encode("latin-1"),
     "All checks passed (1 file checked).\n"),
])
def test_good_inputs_alone_are_not_errors(run, tmp_path: Path, name: str, data: bytes, expected: str) -> None:
    (tmp_path / name).write_bytes(data)
    result = run(name)
    assert (result.code, result.out, result.err) == (0, expected, "")


# --- details of each kind of bad input --------------------------------------------------------------------


def test_bom_does_not_shift_columns(run, tmp_path: Path) -> None:
    line = "import jax.numpy as jnp; x = jnp.zeros(3); x[0] = 1"
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbf" + line.encode() + b"\n")
    result = run("bom.py")
    assert result.code == 1
    assert result.out.splitlines()[0] == f"bom.py:1:{line.index('x[0]') + 1}: JAX101 [*] {JAX101_MESSAGE}"


def test_crlf_noqa_still_applies(run, tmp_path: Path) -> None:
    (tmp_path / "crlf.py").write_bytes(
        b"import jax.numpy as jnp\r\nx = jnp.zeros(3)\r\nx[0] = 1  # noqa: JAX101\r\nx[1] = 2\r\n")
    result = run("crlf.py", "--quiet")
    assert result.out == "crlf.py:4:1: JAX101 [*] in-place update of a JAX array raises TypeError " \
                         "(`x` holds a JAX array); use `x = x.at[1].set(2)`\n"


def test_non_utf8_column_counts_code_points(run, tmp_path: Path) -> None:
    """Columns count code points everywhere: `x = "é` is 6 code points, so the bad byte is at column 7."""
    (tmp_path / "bad.py").write_bytes('import jax\nx = "é'.encode() + b'\xff"\n')
    result = run("bad.py", "--quiet")
    assert result.code == 1
    assert result.out.startswith("bad.py:2:7: JAX001 not valid utf-8: byte 0xff at line 2, column 7"), result.out


def test_unknown_coding_cookie(run, tmp_path: Path) -> None:
    (tmp_path / "k.py").write_bytes(b"# -*- coding: klingon -*-\nimport jax\n")
    result = run("k.py", "--quiet")
    assert (result.code, result.out) == (
        1, "k.py:1:1: JAX001 invalid encoding declaration: unknown encoding: klingon\n")


def test_wrong_coding_cookie_reports_the_bad_byte(run, tmp_path: Path) -> None:
    (tmp_path / "w.py").write_bytes(b"# coding: ascii\nimport jax\nx = '\xe9'\n")
    result = run("w.py", "--quiet")
    assert result.code == 1
    assert result.out.startswith("w.py:3:6: JAX001 not valid ascii: byte 0xe9 at line 3, column 6")


def test_syntax_error_after_non_ascii_text_is_at_pythons_code_point_column(run, tmp_path: Path) -> None:
    (tmp_path / "s.py").write_text('import jax\ns = "éé" + (\n', encoding="utf-8")
    result = run("s.py", "--quiet")
    assert result.out == "s.py:2:12: JAX001 syntax error: '(' was never closed\n"


def test_indentation_python_reads_and_libcst_does_not_is_no_syntax_error(run, tmp_path: Path) -> None:
    """A line indented by a tab after spaces (ESSOS, first look round 73): CPython reads it, libcst's tokenizer
    refuses it. The file is skipped as one jaxlint cannot read, not reported as invalid Python."""
    source = (
        "import jax\n\n\ndef f(arr):\n    for i in arr:\n        if i:\n            r = 1\n        else:\n"
        "    \t    r = 2\n    return r\n"
    )
    (tmp_path / "m.py").write_text(source, encoding="utf-8")
    compile(source, "m.py", "exec")
    result = run("m.py", "--output-format", "json")
    assert [(f["code"], f["location"], f["message"]) for f in json.loads(result.out)] == [(
        "JAX003",
        {"row": 9, "column": 1},
        "jaxlint's parser cannot read indentation that mixes tabs and spaces on one line, which Python accepts, so "
        "the file was skipped; indent with spaces",
    )]


def test_missing_file(run, tmp_path: Path) -> None:
    (tmp_path / "good.py").write_text(JAX101_SOURCE)
    result = run("missing.py", "good.py")
    assert result.code == 1
    assert result.out == (
        "missing.py:1:1: JAX003 no such file or directory\n"
        f"good.py:3:1: JAX101 [*] {JAX101_MESSAGE}\n"
        "Found 2 findings (2 files checked); 1 fixable with `--fix`.\n"
    )


def test_symlink_loop(run, tmp_path: Path) -> None:
    os.symlink("loop.py", tmp_path / "loop.py")
    result = run("--output-format", "json", ".")
    found = json.loads(result.out)
    assert result.code == 1
    assert [(d["code"], d["location"], Path(d["filename"]).name) for d in found] == [
        ("JAX003", {"row": 1, "column": 1}, "loop.py")]
    assert found[0]["message"].startswith("cannot read: ")


def test_symlink_to_a_good_file_is_followed(run, tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "target.py").write_text(JAX101_SOURCE)
    os.symlink("real/target.py", tmp_path / "link.py")
    result = run("link.py", "--quiet")
    assert (result.code, result.out) == (1, f"link.py:3:1: JAX101 [*] {JAX101_MESSAGE}\n")


def test_a_directory_named_like_a_python_file_is_walked_not_read(run, tmp_path: Path) -> None:
    (tmp_path / "pkg.py").mkdir()
    (tmp_path / "pkg.py" / "inner.py").write_text(JAX101_SOURCE)
    result = run("pkg.py", "--quiet")
    assert (result.code, result.out, result.err) == (1, f"pkg.py/inner.py:3:1: JAX101 [*] {JAX101_MESSAGE}\n", "")


def test_an_unparsable_file_does_not_hide_findings_when_its_rule_is_off(run, tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("import jax\ndef f(:\n")
    (tmp_path / "good.py").write_text(JAX101_SOURCE)
    result = run("--select", "JAX101", ".")
    assert (result.code, result.err) == (1, "")
    assert result.out == f"good.py:3:1: JAX101 [*] {JAX101_MESSAGE}\nFound 1 finding (2 files checked); 1 fixable with `--fix`.\n"


# --- files that exist but cannot be read ----------------------------------------------------------------

_AS_NOBODY = textwrap.dedent("""
    import io, os, sys
    from jaxlint.cli import main
    main(['--output-format', 'json', sys.argv[1]], out=io.StringIO())  # import everything lazy first
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
    sys.exit(main(sys.argv[2:]))
""")


@pytest.fixture
def workdir(tmp_path: Path):
    """A folder for permission tests, and how to run the CLI there as a user permissions apply to.

    Root reads everything, so when the tests run as root the CLI runs in a child that drops to
    uid/gid 65534 (nobody) after importing jaxlint (the interpreter itself may live where nobody
    cannot read), in a folder under /tmp that nobody can reach (pytest's tmp_path is not).
    """
    if os.geteuid() != 0:
        yield tmp_path, jaxlint
        return
    folder = Path(tempfile.mkdtemp(prefix="jaxlint-perm-", dir="/tmp"))
    folder.chmod(0o755)
    warm_up = tmp_path / "warm_up"
    warm_up.mkdir()
    (warm_up / "w.py").write_text(JAX101_SOURCE)

    def as_nobody(cwd: Path, *args: str) -> subprocess.CompletedProcess:
        result = subprocess.run([sys.executable, "-c", _AS_NOBODY, str(warm_up), *args], cwd=cwd,
                                capture_output=True, text=True, timeout=60)
        if "Operation not permitted" in result.stderr and "setuid" in result.stderr:
            pytest.skip("root without the right to drop privileges: permissions cannot be tested")
        return result

    try:
        yield folder, as_nobody
    finally:
        for path in [folder, *folder.rglob("*")]:
            if not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(folder)


def test_permission_denied(workdir) -> None:
    folder, jaxlint_as_user = workdir
    secret = folder / "secret.py"
    secret.write_text(JAX101_SOURCE)
    secret.chmod(0o000)
    (folder / "good.py").write_text(JAX101_SOURCE)
    result = jaxlint_as_user(folder, "--output-format", "json", "secret.py", "good.py")
    assert result.returncode == 1, result.stderr
    assert result.stderr == ""
    found = json.loads(result.stdout)
    assert positions(found) == {("secret.py", 1, 1, "JAX003"), ("good.py", 3, 1, "JAX101")}
    assert messages(found)["secret.py"] == "permission denied"


def test_permission_denied_when_walking(workdir) -> None:
    folder, jaxlint_as_user = workdir
    secret = folder / "src" / "secret.py"
    secret.parent.mkdir()
    secret.write_text(JAX101_SOURCE)
    secret.chmod(0o000)
    (folder / "src" / "good.py").write_text(JAX101_SOURCE)
    result = jaxlint_as_user(folder, "--output-format", "json", "src")
    assert result.returncode == 1, result.stderr
    assert positions(json.loads(result.stdout)) == {("secret.py", 1, 1, "JAX003"), ("good.py", 3, 1, "JAX101")}


def test_an_unreadable_folder_is_reported_not_silently_skipped(workdir) -> None:
    """A folder the walk cannot list hides every file in it: that gap must be reported (JAX003)."""
    folder, jaxlint_as_user = workdir
    locked = folder / "src" / "locked"
    locked.mkdir(parents=True)
    (locked / "a.py").write_text(JAX101_SOURCE)
    (folder / "src" / "good.py").write_text(JAX101_SOURCE)
    locked.chmod(0o000)
    result = jaxlint_as_user(folder, "--output-format", "json", "src")
    assert result.stderr == ""
    found = json.loads(result.stdout)
    assert ("good.py", 3, 1, "JAX101") in positions(found)
    reported = [d for d in found if d["code"] == "JAX003"]
    assert len(reported) == 1, f"the unreadable folder src/locked was skipped silently: {result.stdout}"
    assert Path(reported[0]["filename"]).name == "locked"
    assert "permission denied" in reported[0]["message"]
    assert result.returncode == 1


def test_an_unreadable_pyproject_in_a_parent_folder_is_a_config_error_not_a_crash(workdir) -> None:
    folder, jaxlint_as_user = workdir
    pyproject = folder / "pyproject.toml"
    pyproject.write_text("[tool.jaxlint]\nselect = ['JAX101']\n")
    pyproject.chmod(0o000)
    (folder / "src").mkdir()
    (folder / "src" / "good.py").write_text(JAX101_SOURCE)
    result = jaxlint_as_user(folder / "src", "good.py")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("jaxlint: error: "), result.stderr  # not "jaxlint: internal error"
    assert str(pyproject) in result.stderr and "permission denied" in result.stderr.lower()


def test_a_fifo_named_like_a_python_file_does_not_hang_the_run(tmp_path: Path) -> None:
    """Reading a FIFO blocks until someone writes to it: it is not a regular file, report it and go on."""
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "good.py").write_text(JAX101_SOURCE)
    try:
        result = jaxlint(tmp_path, "--output-format", "json", "pipe.py", "good.py", timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("jaxlint hung for 60 s opening pipe.py, a FIFO (named pipe): it must not read "
                    "non-regular files; report JAX003 and check the other files")
    assert result.returncode == 1
    found = json.loads(result.stdout)
    assert positions(found) == {("pipe.py", 1, 1, "JAX003"), ("good.py", 3, 1, "JAX101")}
