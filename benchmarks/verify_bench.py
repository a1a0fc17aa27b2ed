"""What `jaxlint --verify` costs and how much it proves. Three measurements, each a real command line:

1. fifty: one module with 50 jitted functions, half with a Python `if` on a traced value: wall time
   of `--verify` (jax's import included) and how many findings it confirmed.
2. replay: a project of MODULES modules whose jitted functions take dicts of arrays (made-up arguments
   cannot trace them): `--verify=run` records their signatures once, then a plain `--verify` replays
   them, REPEATS times, each after an edit of every module. Prints each static run's time, each replay
   run's time, their ratios and the median ratio (the bar: at most 2x).
3. reports: benchmarks/verify_reports/, bug reports as users post them, each with its corrected version
   (`*.fixed.py`); the first word of a docstring says whether the bug raises or is silent. Prints the
   share of bugs --verify confirms or finds, by kind, and the findings on the corrected versions.

    python benchmarks/verify_bench.py [fifty|replay|reports]
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FUNCTIONS = 50
MODULES = 10
REPEATS = 3
REPORTS = Path(__file__).resolve().parent / "verify_reports"


def jaxlint(cwd: Path, *args: str) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "jaxlint", *args], cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - started, run


def module_source(count: int) -> str:
    parts = ["import jax\nimport jax.numpy as jnp\n"]
    for i in range(count):
        body = ("    if x.sum() > 0:\n        return x * 2\n    return x\n" if i % 2 == 0
                else "    return jnp.where(x > 0, x * 2, x)\n")
        parts.append(f"\n\n@jax.jit\ndef step_{i}(x):\n{body}")
    return "".join(parts)


def fifty() -> bool:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fifty.py"
        path.write_text(module_source(FUNCTIONS), encoding="utf-8")
        elapsed, run = jaxlint(Path(folder), "--verify", "--no-cache", "--output-format", "json", str(path))
    found = json.loads(run.stdout)
    confirmed = sum(d["verify"]["status"] == "confirmed" for d in found)
    print(f"fifty: --verify on {FUNCTIONS} jitted functions: {elapsed:.2f} s "
          f"({confirmed}/{len(found)} findings confirmed, exit {run.returncode})")
    return confirmed == len(found) == FUNCTIONS // 2


def _model(i: int) -> str:
    return (f'"""Layer {i}."""\nimport jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef layer_{i}(params, x):\n'
            f'    h = x @ params["w"] + params["b"]\n    if h.sum() > 0:\n        h = -h\n    return jnp.tanh(h)\n')


def replay() -> bool:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "pyproject.toml").write_text('[tool.jaxlint.verify]\nrun = ["python drive.py"]\n')
        (root / "model").mkdir()
        (root / "model" / "__init__.py").write_text("")
        for i in range(MODULES):
            (root / "model" / f"layer_{i}.py").write_text(_model(i).replace("if h.sum() > 0", "if False"))
        calls = "".join(f"from model.layer_{i} import layer_{i}\nlayer_{i}(params, x)\n" for i in range(MODULES))
        (root / "drive.py").write_text('import jax.numpy as jnp\n\nparams = {"w": jnp.ones((4, 4)), '
                                       '"b": jnp.zeros(4)}\nx = jnp.ones((2, 4))\n' + calls)
        jaxlint(root, "--verify=run", "model")  # correct code: records the signatures
        ratios, confirmed, found = [], 0, []
        for repeat in range(REPEATS):  # the machine is shared: several pairs, the median ratio
            for i in range(MODULES):  # every layer gets a bug only the real shapes reach (and misses the cache)
                (root / "model" / f"layer_{i}.py").write_text(_model(i) + f"# edit {repeat}\n")
            static, _ = jaxlint(root, "--no-cache", "model")
            replayed, run = jaxlint(root, "--verify", "--output-format", "json", "model")
            found = json.loads(run.stdout)
            confirmed = sum(d["verify"]["status"] == "confirmed" for d in found)
            ratios.append(replayed / static)
            print(f"replay: {MODULES} modules: static {static:.2f} s, --verify with recorded signatures "
                  f"{replayed:.2f} s ({replayed / static:.1f}x; {confirmed}/{len(found)} findings confirmed)")
    print(f"replay: median {statistics.median(ratios):.1f}x (the bar: at most 2x)")
    return confirmed == len(found) == MODULES


def reports() -> bool:
    _, run = jaxlint(REPORTS, "--verify", "--no-cache", "--output-format", "json", ".")
    found = json.loads(run.stdout)
    by_file: dict[str, list[dict]] = {}
    for d in found:
        by_file.setdefault(Path(d["filename"]).name, []).append(d)
    kinds: dict[str, list[bool]] = {"raises": [], "silent": []}
    false_alarms = []
    for path in sorted(REPORTS.glob("*.py")):
        if path.name.endswith(".fixed.py"):
            false_alarms += by_file.get(path.name, [])
            continue
        kind = path.read_text(encoding="utf-8").split('"""', 2)[1].split(":", 1)[0]
        hit = any(d["verify"]["status"] == "confirmed" for d in by_file.get(path.name, []))
        kinds[kind].append(hit)
        if not hit:
            print(f"  missed: {path.name}")
    for kind, hits in kinds.items():
        print(f"reports: {kind}: {sum(hits)}/{len(hits)} confirmed or found ({sum(hits) / len(hits):.0%})")
    print(f"reports: findings on the corrected versions: {len(false_alarms)}")
    for d in false_alarms:
        print(f"  {Path(d['filename']).name}:{d['location']['row']}: {d['code']} {d['message']}")
    return (sum(kinds["raises"]) >= 0.9 * len(kinds["raises"]) and sum(kinds["silent"]) >= 0.6 * len(kinds["silent"])
            and not false_alarms)


def main(argv: list[str]) -> int:
    chosen = argv or ["fifty", "replay", "reports"]
    results = [{"fifty": fifty, "replay": replay, "reports": reports}[name]() for name in chosen]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
