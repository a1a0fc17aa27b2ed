"""PyTorch, as data: the classes of code ported to JAX whose instances jax cannot trace.

A PyTorch `Module` is no pytree: given to `jax.jit` as `self` (a method of a port decorated with `@jax.jit`), jax
raises `TypeError` before tracing anything."""

from __future__ import annotations

NOT_PYTREE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
