"""JAX8xx: APIs removed from jax, or deprecated in it, found through every spelling.

Where a finding goes, so that each use is reported once and the fixes together give code that runs:
- an import of a removed name (`from jax import tree_map`, `import jax.experimental.stax as stax`)
  is reported at the import, and its fix rewrites the import only: the names it binds keep working;
- an attribute spelling (`jax.tree_map`, `jnp.round_`, `j.experimental.stax.Dense`) is reported at
  the attribute naming the API, and its fix renames it in the user's spelling (`jnp.round`);
- a call of `jax.ops.index_*` is reported at the call, whose fix is `x.at[idx].set(v)`; when the
  function was imported by name, its import is reported too and removed once every use is fixed.
Compatibility code is left alone: anything inside a `try` that catches ImportError or AttributeError,
and `if` statements (with their `elif`/`else`) that test `hasattr(...)` or a version."""
