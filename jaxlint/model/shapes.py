"""Where JAX functions take shapes, sizes and counts, as data: the tables the JAX4xx rules read."""

from jaxlint.model.functions import JAX_NUMPY

WHERE = "jax.numpy.where"  # one-argument `jnp.where(c)` has a data-dependent size; three-argument does not
REPEAT = "jax.numpy.repeat"  # `jnp.repeat(x, r)`: traced repeats need `total_repeat_length=`


def numpy_names(*names: str) -> list[str]:
    """The qualified names of `jnp` functions."""
    return [JAX_NUMPY + name for name in names]


# `jax.numpy` functions whose result size depends on the values of their data (one array, or two), unless
# given `size=`.
_SIZED_BY_ONE = (
    "where",
    "nonzero",
    "argwhere",
    "flatnonzero",
    "unique",
    "unique_values",
    "unique_counts",
    "unique_inverse",
    "unique_all",
    "extract",
    "compress",
)
_SIZED_BY_TWO = ("union1d", "intersect1d", "setdiff1d", "setxor1d")

# Arguments that set a shape, a size or a count: function -> (what they set, positions, keywords).
SHAPE_ARGUMENTS: dict[str, tuple[str, tuple[int, ...], tuple[str, ...]]] = {
    **{f: ("shape", (0,), ("shape",)) for f in numpy_names("zeros", "ones", "empty", "full")},
    **{f: ("shape", (), ("shape",)) for f in numpy_names("zeros_like", "ones_like", "empty_like", "full_like")},
    **{f: ("size", (0, 1), ("N", "M")) for f in numpy_names("eye", "tri")},
    "jax.numpy.identity": ("size", (0,), ("n",)),
    "jax.numpy.arange": ("range", (0, 1, 2), ("start", "stop", "step")),
    **{f: ("`num`", (2,), ("num",)) for f in numpy_names("linspace", "logspace", "geomspace")},
    "jax.nn.one_hot": ("`num_classes`", (1,), ("num_classes",)),
    **{
        f: ("split", (1,), ("indices_or_sections",))
        for f in numpy_names("split", "array_split", "hsplit", "vsplit", "dsplit")
    },
    "jax.numpy.reshape": ("shape", (1,), ("shape", "newshape")),
    "jax.numpy.resize": ("shape", (1,), ("new_shape",)),
    "jax.numpy.broadcast_to": ("shape", (1,), ("shape",)),
    "jax.numpy.tile": ("`reps`", (1,), ("reps",)),
    "jax.numpy.pad": ("`pad_width`", (1,), ("pad_width",)),
    REPEAT: ("`total_repeat_length`", (), ("total_repeat_length",)),
    "jax.numpy.bincount": ("length", (2,), ("minlength", "length")),
    **{f: ("`size`", (), ("size",)) for f in numpy_names(*_SIZED_BY_ONE, *_SIZED_BY_TWO)},
    "jax.lax.full": ("shape", (0,), ("shape",)),
    "jax.lax.iota": ("size", (1,), ("size",)),
    "jax.lax.broadcast": ("shape", (1,), ("sizes",)),
    "jax.lax.broadcast_in_dim": ("shape", (1,), ("shape",)),
    "jax.lax.reshape": ("shape", (1,), ("new_sizes",)),
    "jax.lax.dynamic_slice": ("slice size", (2,), ("slice_sizes",)),
    "jax.lax.dynamic_slice_in_dim": ("slice size", (2,), ("slice_size",)),
    "jax.random.split": ("number of keys", (1,), ("num",)),
    # The number of largest elements, or the partition index: a static int (jax 0.10.2 raises on a tracer).
    **{f: ("`k`", (1,), ("k",)) for f in ("jax.lax.top_k", "jax.lax.approx_max_k", "jax.lax.approx_min_k")},
    **{f: ("`kth`", (1,), ("kth",)) for f in numpy_names("partition", "argpartition")},
}
# jax.random samplers (names within JAX_RANDOM): where `shape` goes by position (any sampler takes `shape=` by keyword).
RANDOM_SHAPE_POSITION = {
    **dict.fromkeys(
        """bits uniform randint normal exponential gumbel laplace logistic cauchy
        rademacher maxwell""".split(),
        1,
    ),
    **dict.fromkeys("bernoulli choice gamma dirichlet poisson t".split(), 2),
    **dict.fromkeys("truncated_normal categorical beta multivariate_normal".split(), 3),
}

# Functions whose result size depends on the values of their data arguments, unless given a size:
# function -> (data positions and keywords, the keyword that fixes the size, its position when it may be positional).
DATA_DEPENDENT: dict[str, tuple[tuple[int | str, ...], str, int | None]] = {
    **{f: ((0,), "size", None) for f in numpy_names(*_SIZED_BY_ONE)},
    **{f: ((0, 1), "size", None) for f in numpy_names(*_SIZED_BY_TWO)},
    "jax.numpy.bincount": ((0,), "length", None),
    # The number of segments is `max(segment_ids) + 1` without `num_segments` (jax 0.10.2: ConcretizationTypeError).
    **{f"jax.ops.segment_{kind}": ((1, "segment_ids"), "num_segments", 2) for kind in ("sum", "max", "min", "prod")},
}
