"""Pallas, as data: the kernels it runs get mutable refs, whatever their annotations say (`o_ref[...] = v`
is a store, not an in-place update of an array)."""

from __future__ import annotations

# The callables given to these, by position and keyword.
REF_KERNELS = {
    "jax.experimental.pallas.pallas_call": ((0,), ("kernel",)),
    "jax.experimental.pallas.run_scoped": ((0,), ("f",)),
    "jax.experimental.pallas.core_map": ((0,), ("f",)),
}
