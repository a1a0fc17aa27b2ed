"""JAX704 unexpected-keyword: A keyword a `jax.numpy`, `jax.nn`, `jax.random` or `jax.lax` function or a JAX array's
method does not take (a PyTorch habit: `dim=`, `keepdim=`, `shifts=`; a typo)."""

from __future__ import annotations

from difflib import get_close_matches
from functools import lru_cache
from pathlib import Path

import libcst as cst

from jaxlint.analysis.expected_errors import ExpectedErrors
from jaxlint.checks.base import Rule, code
from jaxlint.model.functions import TYPE_ERRORS

KEYWORDS = Path(__file__).resolve().parents[2] / "data" / "jax_keywords.txt"
# PyTorch's (and NumPy's random) names for the parameters jax names otherwise.
_TORCH_NAMES = {"dim": "axis", "keepdim": "keepdims", "dims": "axis", "shifts": "shift", "size": "shape"}


@lru_cache(maxsize=None)
def keywords_taken(path: Path = KEYWORDS) -> dict[str, frozenset[str]]:
    """`jax.numpy.<name>` (`jax.nn.`, `jax.random.`, `jax.lax.`) or `jax.Array.<method>` -> the keywords it, NumPy's same
    function or an older jax release's takes (scripts/jax_keywords.py)."""
    table = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, *taken = line.split()
            table[name] = frozenset(taken)
    return table


class UnexpectedKeyword(ExpectedErrors, Rule):
    code = "JAX704"
    name = "unexpected-keyword"
    summary = (
        "A keyword a `jax.numpy`, `jax.nn`, `jax.random` or `jax.lax` function or a JAX array's method does not take"
    )
    what_it_does = (
        "Flags a keyword argument that a `jax.numpy`, `jax.nn`, `jax.random` or `jax.lax` function (`jnp.sum(x, "
        "dim=1)`, `jnp.roll(x, shifts=1)`, `jax.nn.softmax(x, dim=-1)`, `jax.random.normal(key, size=(3,))`, "
        "`lax.psum_scatter(x, 'i', titled=True)`) or a method of "
        "a value jaxlint knows to be a JAX array (`x.max(dim=0)`, traced or not) never took. Which keywords each "
        "takes comes from a table (`jaxlint/data/jax_keywords.txt`) read from the signatures of jax 0.10.2, of "
        "NumPy's function of the same name, and of the defs of that name in older jax releases (0.4.1 to 0.7.2): a "
        "keyword an older release took (`jnp.reshape(newshape=...)`) is not flagged here: JAX801 reports it when the "
        "target jax version no longer takes it."
    )
    why_bad = (
        "PyTorch names the axis `dim` (and `keepdim`, `shifts`); jax follows NumPy (`axis`, `keepdims`, "
        "`shift`). With jax 0.10.2 the call raises `TypeError: _sum() got an unexpected keyword argument 'dim'` "
        "(eagerly and under `jit` alike), often deep in code ported from PyTorch that only runs late in a job."
    )
    example = "import jax.numpy as jnp\n\n\ndef normalize(x):\n    return x / jnp.sum(x, dim=-1, keepdim=True)\n"
    use_instead = "import jax.numpy as jnp\n\n\ndef normalize(x):\n    return x / jnp.sum(x, axis=-1, keepdims=True)\n"
    not_flagged = (
        "Functions that take `**kwargs`, or whose NumPy twin's signature cannot be read (ufuncs), and so may take "
        "any keyword; keywords older jax releases took; methods of values jaxlint does not know to be JAX "
        "arrays (a NumPy array, a PyTorch tensor, a parameter nothing shows); keywords given through `**`."
    )
    verify = "`--verify` runs the call and expects the `TypeError` at this line."
    raises = TYPE_ERRORS  # caught around the call, the error is shown on purpose

    def visit_Call(self, node: cst.Call) -> None:
        keywords = [arg for arg in node.args if arg.keyword is not None]
        if not keywords:
            return
        taken = self._taken(node.func)
        if taken is None:
            return
        for arg in keywords:
            assert arg.keyword is not None
            given = arg.keyword.value
            if given in taken:
                continue
            instead = _TORCH_NAMES.get(given)
            if instead not in taken:
                close = get_close_matches(given, sorted(taken), n=1)
                instead = close[0] if close else None
            advice = f"use `{instead}=`" if instead else f"it takes {', '.join(f'`{k}`' for k in sorted(taken))}"
            self.report(
                arg.keyword,
                (
                    f"`{code(node.func)}` takes no keyword `{given}`: the call raises `TypeError: ... got an "
                    f"unexpected keyword argument '{given}'`; {advice}"
                ),
            )

    def _taken(self, func: cst.BaseExpression) -> frozenset[str] | None:
        """The keywords the called function takes, when the table knows it."""
        table = keywords_taken()
        qualified = self.names.qualified(func)
        if qualified is not None:
            return table.get(qualified)
        if type(func) is not cst.Attribute:
            return None
        taken = table.get(f"jax.Array.{func.attr.value}")
        if taken is None:
            return None
        held = self.facts.value_of(func.value)
        return taken if held.is_array and not held.numpy and not held.container and not held.pytree_part else None
