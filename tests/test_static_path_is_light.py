"""The static path never imports jax or numpy: it runs on every commit and every keystroke."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_linting_imports_neither_jax_nor_numpy(tmp_path: Path) -> None:
    bug = tmp_path / "bug.py"
    bug.write_text("import jax\nimport jax.numpy as jnp\nimport numpy as np\nx = jnp.zeros(3)\nx[0] = 1\n")
    script = (
        "import sys\n"
        "from jaxlint.cli import main\n"
        f"code = main([{str(bug)!r}, '--quiet'])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('jax', 'jaxlib', 'numpy'))\n"
        "print('exit', code, 'heavy', heavy)\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-1] == "exit 1 heavy []"
    assert f"{bug}:5:1: JAX101" in run.stdout
