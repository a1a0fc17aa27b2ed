"""How long `jaxlint --verify` takes on one module with 50 jitted functions, jax's import included.

Half the functions have a finding that tracing confirms (a Python `if` on a traced value), half are
correct: the run traces all 50. Prints the wall time of the whole command and how many were confirmed.

    python benchmarks/verify_bench.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FUNCTIONS = 50


def module_source(count: int) -> str:
    parts = ["import jax\nimport jax.numpy as jnp\n"]
    for i in range(count):
        body = ("    if x.sum() > 0:\n        return x * 2\n    return x\n" if i % 2 == 0
                else "    return jnp.where(x > 0, x * 2, x)\n")
        parts.append(f"\n\n@jax.jit\ndef step_{i}(x):\n{body}")
    return "".join(parts)


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fifty.py"
        path.write_text(module_source(FUNCTIONS), encoding="utf-8")
        started = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "jaxlint", "--verify", "--output-format", "json", str(path)],
                             capture_output=True, text=True)
        elapsed = time.perf_counter() - started
    found = json.loads(run.stdout)
    confirmed = sum(d["verify"]["status"] == "confirmed" for d in found)
    print(f"jaxlint --verify on {FUNCTIONS} jitted functions: {elapsed:.2f} s "
          f"({confirmed}/{len(found)} findings confirmed, exit {run.returncode})")
    return 0 if confirmed == len(found) == FUNCTIONS // 2 else 1


if __name__ == "__main__":
    sys.exit(main())
