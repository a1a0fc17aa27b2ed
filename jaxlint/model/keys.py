"""PRNG keys, as data: the names JAX code conventionally gives them, and the calls that make them."""

# Parameter names (globs) that hold PRNG keys, unless the config's `key-names` says otherwise.
DEFAULT_KEY_NAMES = ("key", "rng", "prng_key", "*_key", "*_rng")

# Calls that make a PRNG key from a seed.
KEY_CONSTRUCTORS = frozenset({"jax.random.key", "jax.random.PRNGKey"})
KEY = "jax.random.key"  # a typed key
LEGACY_KEY = "jax.random.PRNGKey"  # a legacy uint32 key
FOLD_IN = "jax.random.fold_in"  # derives a key from a key and data
