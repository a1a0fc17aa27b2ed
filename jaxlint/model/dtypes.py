"""Dtypes, as data: which ones jax truncates without `jax_enable_x64`, and where jax functions take one."""

import re

# Dtypes jax truncates without x64 (by their names and strings), and what they become.
NARROWED = {
    "float64": "float32",
    "double": "float32",
    "f8": "float32",
    "int64": "int32",
    "longlong": "int32",
    "i8": "int32",
    "uint64": "uint32",
    "ulonglong": "uint32",
    "u8": "uint32",
    "complex128": "complex64",
    "cdouble": "complex64",
    "c16": "complex64",
}
_TYPES = ("float64", "double", "int64", "longlong", "uint64", "ulonglong", "complex128", "cdouble")
WIDE_DTYPES = frozenset(f"{module}.{name}" for module in ("jax.numpy", "numpy") for name in _TYPES)
WIDE_STRINGS = frozenset(NARROWED)
# Text that every request of a 64-bit dtype contains: a module without it asks for none.
WIDE_DTYPE_WORD = re.compile(r"\b(?:" + "|".join(sorted(NARROWED)) + r")\b")

# Functions of jax that take a dtype only to describe it, never to make an array of it.
DTYPE_QUERIES = frozenset(
    f"jax.numpy.{name}"
    for name in (
        "dtype",
        "finfo",
        "iinfo",
        "issubdtype",
        "isdtype",
        "promote_types",
        "result_type",
        "can_cast",
    )
)

# The dtype argument by position, for the array constructors that take one positionally.
DTYPE_POSITION = {
    **{
        f"jax.numpy.{name}": 1
        for name in (
            "zeros",
            "ones",
            "empty",
            "array",
            "asarray",
            "zeros_like",
            "ones_like",
            "empty_like",
        )
    },
    "jax.numpy.full": 2,
    "jax.numpy.full_like": 2,
    "jax.numpy.arange": 3,
    "jax.lax.convert_element_type": 1,
    "jax.lax.full": 2,
    "jax.lax.full_like": 2,
}

# lax binary ops that require both operands to have one dtype (no promotion), with the jnp function that promotes.
SAME_DTYPE_LAX_OPS = {
    "jax.lax.add": "jnp.add",
    "jax.lax.sub": "jnp.subtract",
    "jax.lax.mul": "jnp.multiply",
    "jax.lax.div": "jnp.divide",
    "jax.lax.rem": "jnp.remainder",
    "jax.lax.max": "jnp.maximum",
    "jax.lax.min": "jnp.minimum",
    "jax.lax.eq": "jnp.equal",
    "jax.lax.ne": "jnp.not_equal",
    "jax.lax.lt": "jnp.less",
    "jax.lax.le": "jnp.less_equal",
    "jax.lax.gt": "jnp.greater",
    "jax.lax.ge": "jnp.greater_equal",
}
# jnp functions that make a float array unless given a dtype.
FLOAT_MAKERS = frozenset(f"jax.numpy.{name}" for name in ("zeros", "ones", "empty", "zeros_like", "ones_like"))
# jnp scalar types -> their kind.
DTYPE_KINDS = {
    **{f"jax.numpy.{t}": "float" for t in ("float16", "bfloat16", "float32", "float64")},
    **{f"jax.numpy.{t}": "int" for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")},
    **{f"jax.numpy.{t}": "complex" for t in ("complex64", "complex128")},
}

# `issubdtype(x.dtype, t)`: whether a dtype is of a kind, in every spelling.
SUBDTYPE_TESTS = frozenset({"jax.numpy.issubdtype", "numpy.issubdtype", "jax.dtypes.issubdtype"})
_ALL_KINDS = frozenset({"bool", "int", "float", "complex"})
_NUMBERS = frozenset({"int", "float", "complex"})
# The abstract dtypes of `issubdtype(x, t)` -> (the kinds every dtype of which is a `t`, the kinds only some
# dtypes of which are: `jnp.signedinteger` holds for int32, not for uint8); any other kind is none (jax 0.10.2:
# bfloat16 is `floating`, bool is no `number`).
DTYPE_CLASSES = {
    f"{module}.{name}": kinds
    for module in ("jax.numpy", "numpy")
    for name, kinds in {
        "generic": (_ALL_KINDS, frozenset()),
        "number": (_NUMBERS, frozenset()),
        "integer": (frozenset({"int"}), frozenset()),
        "signedinteger": (frozenset(), frozenset({"int"})),
        "unsignedinteger": (frozenset(), frozenset({"int"})),
        "inexact": (frozenset({"float", "complex"}), frozenset()),
        "floating": (frozenset({"float"}), frozenset()),
        "complexfloating": (frozenset({"complex"}), frozenset()),
    }.items()
}
# Context managers that switch 64-bit mode on or off for what runs inside them.
X64_CONTEXTS = frozenset({"jax.enable_x64", "jax.experimental.enable_x64", "jax.experimental.disable_x64"})

# The kinds of dtype, in JAX's promotion order: an operation on two kinds gives the later one (weak Python
# numbers included: an int array times `2.0` is a float array).
KIND_ORDER = ("bool", "int", "float", "complex")
# A dtype as code names it (`jnp.int32`, `int`, `"float32"`, `np.bool_`) -> its kind.
DTYPE_SPELLINGS = {
    **DTYPE_KINDS,
    **{f"numpy.{name[len('jax.numpy.') :]}": kind for name, kind in DTYPE_KINDS.items()},
    **{name[len("jax.numpy.") :]: kind for name, kind in DTYPE_KINDS.items()},
    **{
        spelling: "bool"
        for spelling in ("bool", "bool_", "jax.numpy.bool_", "jax.numpy.bool", "numpy.bool_", "numpy.bool")
    },
    "int": "int",
    "float": "float",
    "complex": "complex",
}
# Functions whose result has one dtype kind whatever they are given (jax 0.10.2).
RESULT_KINDS = {
    **{
        f"jax.numpy.{name}": "int"
        for name in ("argmax", "argmin", "argsort", "count_nonzero", "searchsorted", "digitize", "lexsort")
    },
    "jax.random.randint": "int",
    **{
        f"jax.numpy.{name}": "float"
        for name in ("mean", "average", "std", "var", "sqrt", "exp", "log", "log1p", "expm1", "sin", "cos", "tanh")
    },
    **{
        f"jax.random.{name}": "float"
        for name in ("normal", "uniform", "truncated_normal", "exponential", "gamma", "beta", "laplace", "cauchy")
    },
    **{
        f"jax.nn.{name}": "float"
        for name in (
            "sigmoid",
            "softmax",
            "log_softmax",
            "softplus",
            "gelu",
            "silu",
            "one_hot",
        )
    },
    "jax.random.bernoulli": "bool",
    **{f"jax.numpy.{name}": "bool" for name in ("all", "any")},
}
# Functions whose result has the dtype kind of their first argument.
KIND_KEEPING = frozenset(
    f"jax.numpy.{name}"
    for name in """
    reshape transpose squeeze expand_dims ravel flip roll tile repeat sort abs negative max min amax amin copy
    broadcast_to atleast_1d atleast_2d
    """.split()
)
# `jnp.array(3)`, `jnp.asarray(x)`: an array of what they are given.
FROM_VALUES = frozenset({"jax.numpy.array", "jax.numpy.asarray"})
# `jnp.arange(3)` counts in integers, `jnp.arange(3.0)` in floats: the kind of its bounds.
ARANGE = "jax.numpy.arange"
# Sums and products: a boolean array counts as integers (`(x > 0).sum()` is an int32), other kinds keep theirs.
COUNTING = frozenset(f"jax.numpy.{name}" for name in ("sum", "cumsum", "prod", "cumprod"))
# The same as array methods (`x.argmax()`, `m.sum()`, `x.mean()`).
METHOD_RESULT_KINDS = {
    **{name: "int" for name in ("argmax", "argmin", "argsort", "nonzero")},
    **{name: "float" for name in ("mean", "std", "var")},
}
COUNTING_METHODS = frozenset({"sum", "cumsum", "prod", "cumprod"})
