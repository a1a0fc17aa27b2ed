"""JAX205 legacy-prng-key: `jax.random.PRNGKey` makes a legacy uint32 key instead of a typed key."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.key_uses import KeyUses
from jaxlint.checks.base import Rule
from jaxlint.diagnostics import UNSAFE
from jaxlint.model.keys import KEY, LEGACY_KEY


class LegacyPrngKey(Rule):
    code = "JAX205"
    name = "legacy-prng-key"
    summary = "`jax.random.PRNGKey` makes a legacy uint32 key instead of a typed key"
    default_enabled = False
    what_it_does = "Flags calls to `jax.random.PRNGKey(...)` (opt-in)."
    why_bad = (
        "Legacy keys are plain `uint32[2]` arrays: JAX cannot tell them from data, so its own key-reuse "
        "checker (`jax.config.update('jax_debug_key_reuse', True)`) ignores them, and they can be added, "
        "indexed and reshaped like numbers by mistake. `jax.random.key` makes a typed key with the same "
        "random stream semantics."
    )
    example = "key = jax.random.PRNGKey(0)\n"
    use_instead = "key = jax.random.key(0)\n"
    not_flagged = "`jax.random.key(...)` and keys received as arguments."
    verify = "Not applicable: legacy keys work; the rule is about making reuse checkable."
    fixable = True
    fix_safety = (
        "Unsafe: `PRNGKey(seed)` becomes `key(seed)`, spelled through the file's `jax.random` alias. Both "
        "give the same random numbers (and `jax.random.key_data` the same `uint32` data), but a typed key is "
        "not a `uint32[2]` array: code that saves or compares keys as numbers, or passes them to libraries "
        "expecting raw keys, needs `jax.random.key_data` at those places. No fix when the file uses the key, "
        "or a key split or folded from it, as data: indexed (`key[0]`) or unpacked, its `.shape`, `.dtype` "
        "or another attribute read, in arithmetic or a comparison, or given to a `numpy`/`jax.numpy`/"
        "`jax.lax` function, `jax.random.wrap_key_data` or `int()`/`len()`/`list()`... (jaxlint follows the "
        "names, not values passed to other modules)."
    )

    def visit_Module(self, node: cst.Module) -> None:
        self._module = node
        self._uses: KeyUses | None = None

    def visit_Call(self, node: cst.Call) -> None:
        if self.names.qualified(node.func) == LEGACY_KEY:
            if self._uses is None:
                self._uses = KeyUses(self.names)
                self._module.visit(self._uses)
            fix = None if self._uses.used_as_data(node) else self.rename(node.func, KEY, UNSAFE)
            self.report(
                node,
                (
                    "`jax.random.PRNGKey` makes a legacy uint32 key that JAX's key-reuse checker ignores; "
                    "use `jax.random.key(...)`, a typed key"
                ),
                fix,
            )
