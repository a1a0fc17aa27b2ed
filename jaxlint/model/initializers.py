"""The initializer factories of `jax.nn.initializers`, re-exported by flax as `linen.initializers` and
`nnx.initializers`: each makes `init(key, shape, dtype)`, which draws from its key (checked on jax 0.10.2). Not
`zeros`, `ones` or `constant(v)`: their values are the same whatever the key."""

DRAWING_INITIALIZER_NAMES = (
    "delta_orthogonal",
    "glorot_normal",
    "glorot_uniform",
    "he_normal",
    "he_uniform",
    "kaiming_normal",
    "kaiming_uniform",
    "lecun_normal",
    "lecun_uniform",
    "normal",
    "orthogonal",
    "truncated_normal",
    "uniform",
    "variance_scaling",
    "xavier_normal",
    "xavier_uniform",
)
