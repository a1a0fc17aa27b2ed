"""`jaxlint --verify`: the real command line in a subprocess, tracing fixtures/verify/ with real jax (CPU).

Several fixture modules go into one run (one worker process per file, one parent): jax's import is the
cost, so the runs are few and each assertion names the file it is about. `--verify=run` and the signatures its
runs record are tests/test_verify_run.py's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

from helpers import JAX101_SOURCE, jaxlint, write
from test_fixtures import expectations
from test_outputs import SARIF_SCHEMA

ROOT = Path(__file__).resolve().parents[1]
VERIFY = ROOT / "fixtures" / "verify"
CONFIRMABLE = sorted(VERIFY.glob("JAX*_confirm.py"))
BROKEN = ["hangs_at_import.py", "exits_at_import.py", "crashes_at_import.py", "raises_at_import.py"]


def verify_json(*args: str, cwd: Path = VERIFY, timeout: float = 300) -> tuple[int, list[dict]]:
    run = jaxlint(cwd, "--output-format", "json", *args, timeout=timeout)
    assert run.returncode in (0, 1), run.stderr
    return run.returncode, json.loads(run.stdout)  # the modules print: stdout must still be pure json


def statuses(found: list[dict]) -> dict[tuple[str, int, str], tuple[str, str]]:
    return {(Path(d["filename"]).name, d["location"]["row"], d["code"]): (d["verify"]["status"], d["verify"]["detail"])
            for d in found}


@pytest.mark.slow
def test_every_static_finding_in_the_confirmable_fixtures_is_confirmed_and_correct_code_is_quiet() -> None:
    files = [*CONFIRMABLE, VERIFY / "helper_under_jit.py", VERIFY / "script_at_import.py", VERIFY / "correct.py"]
    code, found = verify_json("--verify", *map(str, files))
    expected = {(path.name, row, rule) for path in files for row, _, rule in expectations(path.read_text())}
    assert len(CONFIRMABLE) == 19 and len(expected) == 21
    assert {key: status for key, (status, _) in statuses(found).items()} == dict.fromkeys(expected, "confirmed")
    assert code == 1
    details = statuses(found)
    assert details[("helper_under_jit.py", 8, "JAX301")] == (
        # the helper's line, via its caller
        "confirmed", "tracing `bounded` with made-up arguments raised TracerBoolConversionError here")
    assert details[("script_at_import.py", 8, "JAX301")] == (
        "confirmed", "importing the module raised TracerBoolConversionError here")
    assert details[("JAX308_confirm.py", 9, "JAX308")] == (
        "confirmed", "jax.checking_leaks: `seen[0]` holds a JitTracer stored at line 9 while tracing `remember` (line 7)")
    # a parameter named like a key gets a typed key: nothing made up
    assert details[("JAX201_confirm.py", 8, "JAX201")] == ("confirmed", "tracing `two_draws` raised KeyReuseError here")
    assert details[("JAX501_confirm.py", 8, "JAX501")] == (
        "confirmed",
        "`<lambda>` was compiled 3 times in 3 calls at line 8: a new function object each call (jax_explain_cache_misses)")
    assert details[("JAX502_confirm.py", 13, "JAX502")] == ("confirmed", "importing the module raised ValueError here")


@pytest.mark.slow
def test_broken_modules_are_unverified_with_the_reason_and_runtime_checkers_find_new_bugs() -> None:
    files = ["runtime_only.py", "correct.py", "needs_example.py", *BROKEN]
    started = time.monotonic()
    code, found = verify_json("--verify=all", "--verify-timeout", "8", *files)
    assert time.monotonic() - started < 60  # the hanging module is killed at its timeout
    assert code == 1
    assert statuses(found) == {
        ("runtime_only.py", 11, "JAX011"): (  # the line that stored the tracer, not the function
            "confirmed", "jax.checking_leaks: `STATE.last` holds a JitTracer stored at line 11 while tracing `remember` "
                         "(line 9)"),
        ("runtime_only.py", 18, "JAX012"): (
            "confirmed", "jax.debug_key_reuse: KeyReuseError raised by tracing `noise`"),
        ("needs_example.py", 10, "JAX301"): (
            "unverified", "needs concrete data: static parameter `n` has no example"),
        ("hangs_at_import.py", 9, "JAX101"): ("unverified", "timed out after 8 s (--verify-timeout)"),
        ("exits_at_import.py", 9, "JAX101"): ("unverified", "the module called sys.exit(3) at import"),
        ("crashes_at_import.py", 10, "JAX101"): ("unverified", "the module crashed the worker (SIGSEGV)"),
        ("raises_at_import.py", 7, "JAX101"): ("unverified", "import failed: RuntimeError: no config file"),
        ("raises_at_import.py", 11, "JAX010"): ("confirmed", "found by importing the module"),
    }
    leak = next(d for d in found if d["code"] == "JAX011")
    assert leak["message"].startswith("a tracer leaked: `STATE.last` holds a JitTracer stored here while tracing "
                                      "`remember`")
    assert leak["location"] == {"row": 11, "column": 5}


@pytest.mark.slow
def test_text_output_marks_each_finding_and_fail_on_confirmed_ignores_unverified_ones() -> None:
    run = jaxlint(VERIFY, "--verify", "--fail-on", "confirmed", "needs_example.py", "correct.py", timeout=300)
    message = next(line for line in run.stdout.splitlines() if "JAX301" in line)
    assert message.startswith("needs_example.py:10:8: JAX301 Python `if` on a traced value")
    assert message.endswith(" [unverified: needs concrete data: static parameter `n` has no example]")
    assert run.stdout.splitlines()[1:] == [
        "Found 1 finding (2 files checked).",
        "Verify: 0 confirmed, 0 not reproduced, 1 unverified, 0 new.",
    ]
    assert (run.returncode, run.stderr) == (0, "")
    failing = jaxlint(VERIFY, "--verify", "needs_example.py", timeout=300)
    assert failing.returncode == 1  # --fail-on any (the default): every finding counts


@pytest.mark.slow
def test_config_examples_give_static_arguments_and_sarif_carries_the_status(tmp_path: Path) -> None:
    config = write(tmp_path / "pyproject.toml", (
        "[tool.jaxlint.verify]\ntimeout = 120\n"
        "[tool.jaxlint.verify.examples]\n"
        '"needs_example:first_rows" = { x = "f32[8,3]", n = 4 }\n'
    ))
    run = jaxlint(VERIFY, "--verify", "--config", str(config), "--output-format", "sarif", "needs_example.py",
                  timeout=300)
    assert (run.returncode, run.stderr) == (1, "")
    log = json.loads(run.stdout)
    jsonschema.validate(log, json.loads(SARIF_SCHEMA.read_text()))
    [result] = log["runs"][0]["results"]
    assert result["ruleId"] == "JAX301"
    assert result["properties"] == {"verify": {
        "status": "confirmed",
        "detail": "tracing `first_rows` with the config's examples raised TracerBoolConversionError here"}}
    rule_ids = [rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]]
    assert {"JAX010", "JAX011", "JAX012"} <= set(rule_ids)


def test_without_verify_the_json_has_no_verify_key() -> None:
    code, found = verify_json("needs_example.py")
    assert code == 1 and "verify" not in found[0]


@pytest.mark.slow
def test_verify_imports_a_file_without_findings_but_traces_nothing(tmp_path: Path) -> None:
    """Plain --verify imports the file (its import is fine) but traces only files with findings or
    recorded signatures; --verify=all would find runtime_only.py's bugs."""
    write(tmp_path / "quiet.py", (VERIFY / "runtime_only.py").read_text())
    run = jaxlint(tmp_path, "--verify", "quiet.py", timeout=300)
    assert (run.returncode, run.stdout, run.stderr) == (
        0, "All checks passed (1 file checked).\nVerify: 0 confirmed, 0 not reproduced, 0 unverified, 0 new.\n", "")


@pytest.mark.parametrize("table, message", [
    ("[tool.jaxlint.verify]\ntimout = 3\n", "'verify': unknown key 'timout' (did you mean 'timeout'?)"),
    ("[tool.jaxlint.verify]\ntimeout = \"3\"\n", "'verify': 'timeout' must be a positive number of seconds, got '3'"),
    ("[tool.jaxlint.verify]\ntimeout = 0\n", "'verify': 'timeout' must be a positive number of seconds, got 0"),
    ("[tool.jaxlint.verify.examples]\n\"mod.fn\" = { x = 1 }\n",
     "'verify': examples key 'mod.fn' must look like \"pkg.module:function\""),
    ("[tool.jaxlint.verify.examples]\n\"mod:fn\" = 3\n",
     "'verify': examples 'mod:fn' must be a table of parameter = value, got 3"),
    ("[tool.jaxlint.verify]\nrun = \"pytest\"\n", "'verify': 'run' must be a list of commands, got 'pytest'"),
    ("[tool.jaxlint.verify]\nrun = [\"make test\"]\n",
     "'verify': run command 'make test' must be `python SCRIPT ...`, `python -m MODULE ...` or `pytest ...`"),
])
def test_bad_verify_config_stops_the_run(run, tmp_path: Path, table: str, message: str) -> None:
    write(tmp_path / "pyproject.toml", table)
    write(tmp_path / "a.py", "import jax\n")
    outcome = run("a.py")
    assert outcome.code == 2
    assert outcome.err == f"jaxlint: error: [tool.jaxlint] in {tmp_path / 'pyproject.toml'}: {message}\n"


def test_verify_without_jax_prints_the_static_findings_then_says_how_to_install_it(tmp_path: Path) -> None:
    write(tmp_path / "a.py", "import jax.numpy as jnp\nx = jnp.zeros(3)\nx[0] = 1\n")
    script = ("import sys\nsys.modules['jax'] = None  # as if jax were not installed\n"
              "from jaxlint.cli import main\nsys.exit(main(['--verify', '--output-format', 'concise', 'a.py']))\n")
    run = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2  # what was asked for (verification) did not happen
    assert run.stdout.startswith("a.py:3:1: JAX101 [*] in-place update of a JAX array")
    assert len(run.stdout.splitlines()) == 1
    assert run.stderr == "jaxlint: error: --verify needs jax: pip install jax (the 'verify' extra of jax-sharpbits)\n"


def test_fail_on_confirmed_without_verify_is_a_usage_error(tmp_path: Path) -> None:
    write(tmp_path / "a.py", JAX101_SOURCE)
    run = jaxlint(tmp_path, "--fail-on", "confirmed", "a.py")
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr == "jaxlint: error: --fail-on confirmed needs --verify (without it no finding is confirmed)\n"


def test_notebook_findings_say_notebooks_are_not_traced() -> None:
    _, found = verify_json("--verify", str(ROOT / "fixtures" / "notebooks" / "training.ipynb"))
    assert found and {(d["verify"]["status"], d["verify"]["detail"]) for d in found} == {
        ("unverified", "notebooks are not traced: --verify imports .py modules only")}


IMPORTS = VERIFY / "imports"


@pytest.mark.slow
def test_errors_from_importing_the_users_code_are_findings_at_the_innermost_project_line() -> None:
    """Every file that imports jax is imported, findings or not; what the import raises is evidence."""
    code, found = verify_json("--verify", "imports")
    assert code == 1
    assert [(Path(d["filename"]).name, d["location"]["row"], d["location"]["column"], d["code"], d["message"],
             d["verify"]["status"], d["verify"]["detail"]) for d in found] == [
        ("concretize.py", 10, 13, "JAX303", found[0]["message"], "confirmed",
         "importing the module raised TracerIntegerConversionError here"),
        # needs_config.py reads a file that is not there: a note (below), never a finding
        # pipeline.py's jitted call fails inside shapes.py, at the line of the static finding there
        ("shapes.py", 6, 32, "JAX401", found[1]["message"], "confirmed", "importing the module raised TypeError here"),
    ]
    assert "`width` is a traced argument of `padded`, transformed by `jax.jit` at " in found[1]["message"]


@pytest.mark.parametrize("fmt", ["text", "concise", "json", "sarif", "github", "junit"])
@pytest.mark.slow
def test_a_module_that_needs_a_missing_file_is_not_verified_and_says_why_in_every_format(fmt: str) -> None:
    # a missing file or module says nothing about the code: never a finding against it
    run = jaxlint(IMPORTS, "--verify", "--output-format", fmt, "needs_config.py", timeout=300)
    assert run.returncode == 0, run.stderr
    assert "settings-that-do-not-exist.json" not in run.stdout
    assert run.stderr == (
        "jaxlint: needs_config.py: could not verify: a file it reads is not there (importing the module "
        "raised FileNotFoundError: [Errno 2] No such file or directory: 'settings-that-do-not-exist.json')\n")


@pytest.mark.slow
def test_modules_that_parse_argv_warn_spawn_children_or_shadow_the_stdlib_are_still_verified(tmp_path: Path) -> None:
    """argparse at import sees the module's own argv; a warning is recorded, not raised; random.py is
    imported by location; a folder without __init__.py uses relative imports; children die with the
    worker; pmap finds 8 host devices; code that needs legacy keys' data runs without typed keys."""
    pid_file = tmp_path / "child.pid"
    run = subprocess.run([sys.executable, "-m", "jaxlint", "--verify", "--output-format", "json", "robust"],
                         cwd=VERIFY, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "JAXLINT_TEST_CHILD_PID": str(pid_file)})
    assert run.returncode == 1, run.stderr
    assert {key: status for key, (status, _) in statuses(json.loads(run.stdout)).items()} == {
        ("train.py", 9, "JAX301"): "confirmed",
        ("random.py", 7, "JAX301"): "confirmed",
        ("spawns.py", 15, "JAX101"): "confirmed",
        ("uses_argparse.py", 13, "JAX101"): "confirmed",
        ("warns.py", 10, "JAX101"): "confirmed",
        ("warns.py", 5, "JAX701"): "confirmed",  # by jax's UserWarning at import: the dtype is truncated
        ("shards.py", 10, "JAX101"): "confirmed",  # its pmap over 8 devices at import ran
        ("legacy_key_data.py", 10, "JAX101"): "confirmed",  # imported again without typed keys
    }
    assert not running(int(pid_file.read_text()))  # killed with the worker's process group


def running(pid: int) -> bool:
    """Whether a process runs (a zombie waiting for a parent that never reaps it does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


SILENT = VERIFY / "silent"


@pytest.mark.slow
def test_silent_bugs_are_confirmed_by_the_checkers_and_observers() -> None:
    """Legacy-key reuse at module level (the import ran it), a pytree of tracers printed, a clock read
    frozen at trace time, a removed API missing from the installed jax, a removed keyword raising TypeError where the
    call runs, a deprecated API warning, a jit
    made in a loop retracing at every iteration."""
    code, found = verify_json("--verify", "silent")
    assert code == 1
    assert statuses(found) == {
        ("module_key.py", 7, "JAX201"): ("confirmed", "importing the module raised KeyReuseError here"),
        ("pytree_print.py", 8, "JAX306"): ("confirmed", "a tracer reached print here while tracing"),
        ("frozen_time.py", 9, "JAX204"): (
            "confirmed", "time.time() read while tracing: the value is frozen into the traced function"),
        ("removed_api.py", 6, "JAX801"): (
            "confirmed", f"the installed jax {installed_jax()} has no `jax.tree_map`"),
        ("removed_keyword.py", 6, "JAX801"): ("confirmed", "importing the module raised TypeError here"),
        ("deprecated_api.py", 4, "JAX802"): ("confirmed", "DeprecationWarning here: jax.experimental.pjit.pjit "
                                                          "has been deprecated. Please use `jax.jit` instead."),
        ("jit_in_loop.py", 8, "JAX501"): (
            "confirmed", "`<lambda>` was compiled 4 times in 4 calls at line 8: a new function object each call "
                         "(jax_explain_cache_misses)"),
    }


def installed_jax() -> str:
    return subprocess.run([sys.executable, "-c", "import jax; print(jax.__version__)"], capture_output=True,
                          text=True, check=True).stdout.strip()


def test_a_jitted_lambda_in_a_loop_is_counted_compiling_at_its_call_from_the_third_compile(tmp_path: Path) -> None:
    from jaxlint.verify.processes import ForkServer

    script = SILENT / "jit_in_loop.py"
    job = {"mode": "run", "path": str(script), "module": "", "project_root": str(VERIFY),
           "sys_path": [str(SILENT)], "argv": [script.name]}
    server = ForkServer()
    try:
        events, failure = server.run(job, 120, None)
    finally:
        server.close()
    assert failure == ""
    assert [e for e in events if e["event"] == "recompiled"] == [
        {"event": "recompiled", "where": [[str(script.resolve()), 8, 9]], "function": "<lambda>", "count": count,
         "calls": count, "change": "a new function object each call",
         "fix": "define and jit it once, outside the loop or function that calls it"} for count in (3, 4)]


@pytest.mark.slow
def test_the_command_starts_the_fork_server_before_the_linter_loads_only_with_verify(tmp_path: Path) -> None:
    """`jaxlint --verify` starts the server (in a session of its own) before its own imports; a run takes
    it once; without --verify nothing starts."""
    from jaxlint.verify import processes

    processes.start_early(["--verify-timeout", "5", "--select", "JAX1", "pkg"])
    assert processes.early_server() is None
    processes.start_early(["--verify=run", "train.py"])
    server = processes.early_server()
    assert server is not None and server.process is not None
    try:
        assert processes.early_server() is None
        assert os.getsid(server.process.pid) == server.process.pid
        events, failure = server.run({"mode": "import", "path": str(VERIFY / "JAX301_confirm.py"),
                                      "module": "JAX301_confirm", "project_root": str(VERIFY),
                                      "sys_path": [str(VERIFY)], "owners": [], "key_names": []}, 120, None)
    finally:
        server.close()
    assert (failure, events[-1]) == ("", {"event": "done"})
    assert server.process.returncode == 0


@pytest.mark.slow
def test_a_worker_that_exits_without_a_result_says_the_last_line_of_its_stderr(tmp_path: Path) -> None:
    write(tmp_path / "noisy.py", (
        "import os\nimport sys\n\nimport jax\n\n"
        "for _ in range(3000):\n    sys.stderr.write('x' * 1000 + '\\n')\n"
        "sys.stderr.write('giving up\\n')\nsys.stderr.flush()\nos._exit(7)\n"))
    run = jaxlint(tmp_path, "--verify", "noisy.py", timeout=300)
    assert (run.returncode, run.stdout) == (
        0, "All checks passed (1 file checked).\nVerify: 0 confirmed, 0 not reproduced, 0 unverified, 0 new.\n")
    assert run.stderr == ("jaxlint: noisy.py: not verified: the worker exited with code 7 without a result: "
                          "giving up\n")


@pytest.mark.slow
def test_a_package_init_is_imported_once_under_the_package_name(tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "__init__.py", (
        "import sys\n\nimport jax\n\n"
        "if hasattr(sys, 'pkg_initialised'):\n    raise RuntimeError('pkg initialised twice')\n"
        "sys.pkg_initialised = True\n\n\n"
        "@jax.jit\ndef relu(x):\n    if x > 0:\n        return x\n    return 0.0\n"))
    code, found = verify_json("--verify", "pkg", cwd=tmp_path)
    assert code == 1
    assert statuses(found) == {("__init__.py", 12, "JAX301"): (
        "confirmed", "tracing `relu` with made-up arguments raised TracerBoolConversionError here")}
