"""Pallas, as data: the kernels it runs get mutable refs, whatever their annotations say (`o_ref[...] = v`
is a store, not an in-place update of an array)."""

from __future__ import annotations

# The callables given to these, by position and keyword.
REF_KERNELS = {
    "jax.experimental.pallas.pallas_call": ((0,), ("kernel",)),
    "jax.experimental.pallas.run_scoped": ((0,), ("f",)),
    "jax.experimental.pallas.core_map": ((0,), ("f",)),
    # `pl.kernel(body, out_type, mesh=...)` and Mosaic GPU's `plgpu.kernel(body, out_shape, ...)`: the body gets a
    # ref for each input, output and scratch buffer (jax 0.10.2 pallas/helpers.py, mosaic_gpu/core.py).
    "jax.experimental.pallas.kernel": ((0,), ("body",)),
    "jax.experimental.pallas.mosaic_gpu.kernel": ((0,), ("body",)),
    # A TPU pipeline inside a kernel runs its body on the current block of each ref, then the scratch refs
    # (jax/_src/pallas/mosaic/pipeline.py: `body(*current_refs, *scratches)`).
    "jax.experimental.pallas.tpu.emit_pipeline": ((0,), ("body",)),
    "jax.experimental.pallas.tpu.emit_pipeline_with_allocations": ((0,), ("body",)),
}
