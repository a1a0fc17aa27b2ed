"""The names JAX code conventionally gives its PRNG keys."""

# Parameter names (globs) that hold PRNG keys, unless the config's `key-names` says otherwise.
DEFAULT_KEY_NAMES = ("key", "rng", "prng_key", "*_key", "*_rng")
