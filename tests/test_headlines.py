"""A text line's message is its headline: one short sentence saying what is wrong (ruff's convention); the
whole message and the evidence are in the full format, JSON, SARIF and the editor. Real messages of the rules."""

from __future__ import annotations

import pytest

from jaxlint.diagnostics import headline


@pytest.mark.parametrize(("message", "short"), [
    # Short enough: whole, asides and all.
    ("in-place update of a JAX array raises TypeError (`x` holds a JAX array); use `x = x.at[0].set(1)`",
     "in-place update of a JAX array raises TypeError (`x` holds a JAX array); use `x = x.at[0].set(1)`"),
    # The asides (the evidence) go; the clauses that fit stay, up to the fix.
    ("Python `if` on a traced value raises TracerBoolConversionError: `x.sum() > 0` is traced (`x` is a traced "
     "argument of `double`, transformed by `jax.jit` at line 45); use `jnp.where` or `lax.cond`",
     "Python `if` on a traced value raises TracerBoolConversionError: `x.sum() > 0` is traced; "
     "use `jnp.where` or `lax.cond`"),
    # Parentheses and `; ` inside an aside, parentheses and colons inside code are not the message's.
    ("`logging.warning` of a traced value runs once at trace time and shows a tracer (`JitTracer(...)`; "
     "`VmapTracer(...)` under vmap), not the numbers: `h` is traced (`h` is a traced argument of `rnn_cell`, "
     "transformed by `jax.lax.scan` at line 50); use `jax.debug.print(\"... {}\", value)`",
     "`logging.warning` of a traced value runs once at trace time and shows a tracer, not the numbers: "
     "`h` is traced"),
    ("`jnp.maximum` does not take a Python list (`[0.0]` at position 1): it raises `TypeError: maximum requires "
     "ndarray or scalar arguments, got <class 'list'> at position 1`; convert it with `jnp.asarray(...)`",
     "`jnp.maximum` does not take a Python list"),
    # Code that shows the clause before it goes with it, or not at all.
    ("the result of `.at[...].set(...)` is discarded: JAX arrays are immutable, so `x` is unchanged; assign it: "
     "`x = x.at[1].set(2)`",
     "the result of `.at[...].set(...)` is discarded: JAX arrays are immutable, so `x` is unchanged"),
    # A first clause that only names code says nothing yet: the next one comes with it.
    ("`jr.key(time.time_ns())`: `time.time_ns()` is read only once, while `clock` is traced by `jax.jit` at "
     "line 139, so the key is a constant and every call draws the same numbers; pass a key in as an argument",
     "`jr.key(time.time_ns())`: `time.time_ns()` is read only once, while `clock` is traced by `jax.jit` at "
     "line 139, so the key is a constant and every call draws the same numbers"),
])
def test_the_headline_is_what_is_wrong_in_one_short_line(message: str, short: str) -> None:
    assert headline(message) == short
