"""What a donated array still answers once jax deleted its buffer.

After a jitted call took an array in a donated position, the array object still exists: its metadata is
held on the host, and only reading its data raises `RuntimeError: Array has been deleted`. Each entry was
checked with jax 0.10.2 on CPU, where donation is implemented (the donated array `is_deleted()` after the
call, no warning) and with flax 0.12.8 for `struct.dataclass`.
"""

from __future__ import annotations

from jaxlint.model.libraries import merged_sets

# Attributes a deleted array still answers (`x.shape`, `x.sharding`). Not `x.devices()` nor
# `x.addressable_shards`: both raise on a deleted array.
METADATA = frozenset(
    """
    shape dtype ndim size sharding aval weak_type nbytes itemsize committed format
""".split()
)

# Methods that work on a deleted array (`x.delete()` of a deleted array is a no-op), and `batch.keys()` of a
# dict of them.
NON_READING_METHODS = frozenset({"is_deleted", "delete", "keys"})

# Methods that build a new pytree holding the same leaves, reading none (`state.replace(step=s)` of a flax
# `struct.dataclass`, `model_state.unfreeze()` of a flax `FrozenDict`, which rebuilds its dicts as plain
# ones): the new object holds the deleted leaves it did not replace, and passing it to a jitted function,
# or printing it, raises.
REBUILDING_METHODS = frozenset({"replace", "unfreeze"})

# Calls that build a new mapping of the same leaves from the pytree they are given, reading none:
# `dict(batch)`, flax's `FrozenDict(d)`, `freeze(d)` and `unfreeze(d)` (an array given to any of them raises
# whether donated or not).
REBUILDING_CALLS = frozenset({"dict", "FrozenDict", "freeze", "unfreeze"})

# Methods only a mapping has (a jax or NumPy array has none): a path whose `.keys()` a function calls is a
# dict of the pytree, so `batch["inputs"][k]` reaches its item by any key without reading a buffer.
MAPPING_METHODS = frozenset({"keys", "items", "values"})

# Calls that look at their arguments without reading the data: `len(x)` and `isinstance(x, jax.Array)`
# work on a deleted array, and so do lowering and abstract evaluation (`f.lower(x)`, `jax.eval_shape`).
NON_READING_CALLS = frozenset({"len", "type", "id", "isinstance", "lower", "trace", "eval_shape"})

# Attributes of an array computed from its data: a path through one reads it (`x.T.shape` raises).
# Other attributes of a donated name are taken as fields of a pytree (`state.params`, `batch.inputs`).
DATA_ATTRIBUTES = frozenset({"T", "mT", "real", "imag", "flat", "at", "addressable_shards", "addressable_data"})

# Maps over a pytree's leaves: given a lambda that reads its leaves' metadata only
# (`jax.tree.map(lambda h: h.delete(), batch)`), they read no data.
TREE_MAPS = frozenset({"map", "tree_map", "map_with_path", "tree_map_with_path"})

# An item drawn from a Python iterator (`batch = next(it)`, `for batch in loader`) is whatever the iterator yields:
# a data pipeline's NumPy batch, which donating copies to the device and leaves intact. It is known to be on the
# device only when the iterator puts it there: a library's prefetching iterator, or `map` of a device transfer
# (`map(jax.device_put, it)`).
DEVICE_ITERATORS = merged_sets("DEVICE_ITERATORS")
DEVICE_TRANSFERS = frozenset({"jax.device_put"}) | merged_sets("DEVICE_TRANSFERS")
# Builtins that iterate the iterables they are given, item by item: `for i, batch in enumerate(loader)`.
ITERATING_BUILTINS = frozenset({"enumerate", "zip"})
