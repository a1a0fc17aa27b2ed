"""`extra-transforms`: the user's own jit wrappers make traced scopes like `jax.jit` does."""

from __future__ import annotations

import io
import os
from pathlib import Path

from jaxlint.cli import main

SOURCE = """\
import jax.numpy as jnp
from mylib import compile as fast


@fast(static_argnames=("n",))
def step(x, n):
    if n > 2:
        x = x * 2
    if x.sum() > 0:
        x = -x
    return x


def other(x):
    if x.sum() > 0:
        return x
    return -x


other_fast = fast(other)
"""


def _lint(tmp_path: Path, config: str, *options: str) -> tuple[int, str]:
    (tmp_path / "pyproject.toml").write_text(config)
    (tmp_path / "model.py").write_text(SOURCE)
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        code = main(["model.py", "--quiet", "--select", "JAX301", *options], out=out)
    finally:
        os.chdir(cwd)
    return code, out.getvalue()


def test_configured_transform_is_traced_with_its_static_arguments(tmp_path: Path) -> None:
    code, out = _lint(tmp_path, '[tool.jaxlint]\nextra-transforms = ["mylib.compile"]\n')
    rows = [line.split(" ", 2)[:2] for line in out.splitlines()]
    assert code == 1
    assert rows == [["model.py:9:8:", "JAX301"], ["model.py:15:8:", "JAX301"]]
    _, full = _lint(tmp_path, '[tool.jaxlint]\nextra-transforms = ["mylib.compile"]\n', "--output-format", "full")
    assert "transformed by `mylib.compile` at line 5" in full.splitlines()[3]  # the whole message, under the line


def test_without_the_setting_the_wrapper_is_unknown(tmp_path: Path) -> None:
    assert _lint(tmp_path, "[tool.jaxlint]\n") == (0, "")


def test_a_bad_entry_is_a_config_error(tmp_path: Path, capsys) -> None:
    code, _ = _lint(tmp_path, '[tool.jaxlint]\nextra-transforms = ["not a name"]\n')
    assert code == 2
    assert "'extra-transforms'" in capsys.readouterr().err


KEYS = """\
import jax


class Sampler:
    def sample(self, shape):
        a = jax.random.normal(self.noise_source, shape)
        b = jax.random.normal(self.noise_source, shape)
        return a, b
"""


def test_key_names_decide_which_parameters_passed_on_hold_keys(tmp_path: Path) -> None:
    """A name a `jax.random` function or a helper draws from is a key whatever it is called; an attribute of the
    instance (`self.noise_source`) is a key when named like one."""
    (tmp_path / "sample.py").write_text(KEYS)
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nkey-names = ["*_source"]\n')
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert main(["sample.py", "--quiet", "--select", "JAX201"], out=out) == 1
        (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
        assert main(["sample.py", "--quiet", "--select", "JAX201"], out=io.StringIO()) == 0
    finally:
        os.chdir(cwd)
    assert out.getvalue().startswith("sample.py:7:31: JAX201 `self.noise_source` was already consumed")
