"""What makes the host wait for JAX's asynchronous work, as data: the tables timing rules read."""

# Calls that wait for jax's results (or may: anything that reads an array's value on the host).
SYNCS = frozenset({"jax.block_until_ready", "jax.device_get", "jax.effects_barrier"})
BLOCK_UNTIL_READY = "jax.block_until_ready"  # what a fix adds before reading the clock
# Modules whose functions run work on the device, asynchronously (`jax.tree_util` and the like run on the host).
DISPATCHING = (
    "jax.numpy.",
    "jax.lax.",
    "jax.random.",
    "jax.nn.",
    "jax.scipy.",
    "jax.device_put",
    "jax.experimental.pallas.ops.",  # jax's own Pallas kernels (`attention.mha`), jitted
)
# jax modules whose functions run on the host only.
HOST_ONLY = ("jax.tree_util.", "jax.tree.")
# Calls whose effects a jitted function keeps though it returns nothing: its run is then still asynchronous.
EFFECTS = ("jax.debug.", "jax.pure_callback", "jax.experimental.io_callback", "jax.experimental.host_callback")
# Progress bars: they wrap an iterable on the host and read nothing of what it yields (`for b in tqdm(batches)`).
PROGRESS_BARS = frozenset(
    {
        "tqdm.tqdm",
        "tqdm.trange",
        "tqdm.auto.tqdm",
        "tqdm.auto.trange",
        "tqdm.notebook.tqdm",
        "tqdm.notebook.trange",
        "tqdm.std.tqdm",
        "tqdm.std.trange",
    }
)
# Functions that call a callable and read the clock when it returns (`timeit.timeit(f)`; a string statement is not
# followed).
TIMING_CALLABLES = frozenset({"timeit.timeit", "timeit.repeat"})
