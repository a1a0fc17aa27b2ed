"""The libraries JAX code is written with, one module each: which functions they trace, which classes are
pytrees and which fields static, as data. The generic tables (model/transforms.py, model/pytrees.py,
model/classes.py, model/functions.py) are built from these; a module names only what its library defines."""

from __future__ import annotations

from types import ModuleType

from jaxlint.model.libraries import (
    blackjax,
    chex,
    diffrax,
    distrax,
    dm_pix,
    equinox,
    flax,
    gymnax,
    haiku,
    jax_dataclasses,
    lineax,
    numpyro,
    optax,
    optimistix,
    pallas,
    torch,
)

LIBRARIES: tuple[ModuleType, ...] = (
    equinox,
    flax,
    haiku,
    chex,
    optax,
    numpyro,
    diffrax,
    optimistix,
    lineax,
    pallas,
    dm_pix,
    gymnax,
    torch,
    blackjax,
    distrax,
    jax_dataclasses,
)


def merged_dicts(table: str) -> dict:
    """One table, every library's entries."""
    return {name: entry for library in LIBRARIES for name, entry in getattr(library, table, {}).items()}


def merged_sets(table: str) -> frozenset[str]:
    """One set, every library's names."""
    return frozenset(name for library in LIBRARIES for name in getattr(library, table, ()))
