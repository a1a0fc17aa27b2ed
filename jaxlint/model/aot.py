"""Ahead-of-time compilation: the stages a jitted callable goes through, and which of them can be called.

`jax.jit(f, ...).lower(*args)` gives a `Lowered`, `.trace(*args)` a `Traced` whose `.lower()` gives one too, and
`Lowered.compile()` gives a `Compiled`. Every stage keeps the jit's options: calling the `Compiled` donates the
arguments `donate_argnums`/`donate_argnames` name, as the jitted call does, and lowering or compiling reads and
donates nothing. The `Compiled` takes the dynamic arguments only: static ones were fixed when it was lowered, and
passing them again raises `TypeError` (pytree mismatch). Each fact was checked with jax 0.10.2 on CPU.
"""

from __future__ import annotations

JITTED = "jitted"
COMPILED = "compiled"

# (stage, method) -> the stage the method returns.
NEXT_STAGE = {
    (JITTED, "trace"): "traced",
    (JITTED, "lower"): "lowered",
    ("traced", "lower"): "lowered",
    ("lowered", "compile"): COMPILED,
}

STAGE_METHODS = frozenset(method for _, method in NEXT_STAGE)
