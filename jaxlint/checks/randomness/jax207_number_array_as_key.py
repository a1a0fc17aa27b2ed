"""JAX207 number-array-as-key: a float or boolean array given where a `jax.random` function takes a key."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.keys import sampler_key
from jaxlint.analysis.values import Kind
from jaxlint.checks.base import Rule, code
from jaxlint.model.functions import JAX_RANDOM

# A key is a typed key array or, the legacy kind, uint32 key data: jax rejects an array of any of these dtype kinds.
_NOT_KEY_DATA = {"float": "a float array", "bool": "a boolean array", "complex": "a complex array"}


class NumberArrayAsKey(Rule):
    code = "JAX207"
    name = "number-array-as-key"
    summary = "A float or boolean array given where a `jax.random` function takes a key"
    what_it_does = (
        "Flags the key argument of a `jax.random` function (a sampler, `split`) when jaxlint knows it "
        "holds numbers, not a key: the result of a float sampler (`k1, k2 = jax.random.uniform(key, (2,))`, "
        "`jax.random.normal(key, (2,))`), of a comparison or of float arithmetic, or an element of one."
    )
    why_bad = (
        "A key is a typed key array (`jax.random.key`) or legacy uint32 key data (`jax.random.PRNGKey`). Given "
        "anything else, jax raises `TypeError: JAX encountered invalid PRNG key data: expected key_data.dtype = "
        "uint32; got dtype=float32` (or `expected key_data.ndim >= 1` for one element), eagerly and under `jit` "
        "alike. Drawing numbers where keys were meant (`uniform` instead of `split`) is the usual cause."
    )
    example = (
        "import jax\n\n\n"
        "def init(key, shape):\n"
        "    w_key, b_key = jax.random.uniform(key, (2,))\n"
        "    return jax.random.normal(w_key, shape), jax.random.normal(b_key, shape[-1:])\n"
    )
    use_instead = (
        "import jax\n\n\n"
        "def init(key, shape):\n"
        "    w_key, b_key = jax.random.split(key)\n"
        "    return jax.random.normal(w_key, shape), jax.random.normal(b_key, shape[-1:])\n"
    )
    not_flagged = (
        "Keys and key data (`jax.random.split`, `jax.random.key`, `jax.random.bits`, whose uint32 results are valid "
        "key data), integer arrays (uint32 key data is one), values whose dtype jaxlint does not know (a parameter, "
        "an attribute, data loaded from a file), and the key arguments of other libraries' functions."
    )
    verify = "`--verify` runs the call and expects jax's `TypeError` about invalid PRNG key data at this line."

    def visit_Call(self, node: cst.Call) -> None:
        found = sampler_key(node, self.names)
        if found is None or not found[1].startswith(JAX_RANDOM):
            return
        key = found[0]
        held = self.facts.value_of(key)
        array = held.kind in (Kind.ARRAY, Kind.TRACED) and not held.container and not held.pytree_part
        what = _NOT_KEY_DATA.get(held.dtype or "") if array else None
        if what is None:
            return
        made = self._made_by(key)
        self.report(
            key,
            lambda line_of: (
                f"`{code(key)}` is {what}"
                f"{f' (`{code(made.func)}` gives numbers at line {line_of(made)})' if made is not None else ''}, not a key: "
                f"`{code(node.func)}` raises `TypeError: JAX encountered invalid PRNG key data`; make keys with "
                f"`jax.random.split` (or `jax.random.key`)"
            ),
            because=held,
        )

    def _made_by(self, key: cst.BaseExpression) -> cst.Call | None:
        """The call whose result (or an element of it) a name holds, when it is bound once: the evidence."""
        found = self.facts.binding(key) if type(key) is cst.Name else None
        value = found[0] if found is not None else None
        while type(value) is cst.Subscript:
            value = value.value
        return value if type(value) is cst.Call else None
