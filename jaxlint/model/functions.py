"""What JAX's functions, array methods and attributes give, as data: the tables the analysis reads.

Precision first: a function counts as giving one array only when every way of calling it returns one;
functions that may return a tuple, a list, a function, a dtype or a Python value are listed apart.
"""

from jaxlint.model.libraries import merged_dicts, merged_sets

# Library calls that give one array, unless given the argument (position, keyword) they then give back.
LIBRARY_ARRAY_FUNCTIONS: dict[str, tuple[int, str]] = merged_dicts("ARRAY_FUNCTIONS")

# Namespaces whose functions return one array, except those listed below.
ARRAY_NAMESPACES = ("jax.numpy.", "jax.random.", "jax.nn.", "jax.lax.")

NOT_ONE_ARRAY = (
    frozenset(
        "jax.numpy." + name
        for name in """
    shape ndim size result_type dtype promote_types can_cast issubdtype isdtype iinfo finfo
    broadcast_shapes vectorize frompyfunc split array_split hsplit vsplit dsplit unstack
    meshgrid broadcast_arrays atleast_1d atleast_2d atleast_3d nonzero unravel_index indices
    tril_indices triu_indices diag_indices mask_indices tril_indices_from triu_indices_from
    diag_indices_from histogram histogram2d histogramdd histogram_bin_edges unique unique_all
    unique_counts unique_inverse divmod frexp modf polyfit gradient einsum_path load ix_
    printoptions set_printoptions get_printoptions isscalar iscomplexobj isrealobj ndarray
    save savez
    linalg.svd linalg.eig linalg.eigh linalg.qr linalg.slogdet linalg.lstsq
    """.split()
    )
    | frozenset(
        "jax.lax." + name
        for name in """
    scan while_loop fori_loop cond switch map associative_scan custom_root custom_linear_solve
    top_k sort_key_val approx_max_k approx_min_k linalg.svd linalg.eigh linalg.eig linalg.qr
    linalg.lu linalg.schur linalg.hessenberg linalg.tridiagonal stop_gradient optimization_barrier
    psum pmean pmax pmin all_gather all_to_all ppermute axis_index reduce broadcast_shapes dtype
    axis_size platform_dependent rng_bit_generator sort create_token after_all psum_scatter pvary pcast
    pbroadcast pshuffle pswapaxes infeed outfeed with_sharding_constraint composite
    """.split()
    )
    | frozenset("jax.random." + name for name in "key_impl default_prng_impl".split())
)

NOT_ONE_ARRAY_PREFIXES = ("jax.nn.initializers.",)

# Collectives that, given a Python number, give a Python number at trace time (`lax.psum(1, "i")` is the axis size).
CONSTANT_COLLECTIVES = frozenset({"jax.lax.psum", "jax.lax.pmean", "jax.lax.pmax", "jax.lax.pmin"})
# Collectives over a named axis: under `vmap` their result no longer varies along the axis, so it is a concrete
# array there, not a tracer; under jit, pmap or shard_map, a tracer like any other result.
COLLECTIVES = CONSTANT_COLLECTIVES | frozenset(
    "jax.lax." + name for name in "psum_scatter all_gather all_to_all ppermute pshuffle pswapaxes".split()
)

# Of those, the ones whose result is no array nor pytree of arrays: Python values (shapes, dtypes, sizes),
# functions and context managers. Under a trace every other `jax.numpy`/`jax.lax`/`jax.random` result holds
# tracers (`carry, ys = lax.scan(...)` under jit), so these are the exceptions.
STATIC_RESULTS = (
    frozenset(
        "jax.numpy." + name
        for name in """
    shape ndim size result_type dtype promote_types can_cast issubdtype isdtype iinfo finfo broadcast_shapes
    vectorize frompyfunc einsum_path printoptions set_printoptions get_printoptions isscalar iscomplexobj
    isrealobj ndarray save savez load
    """.split()
    )
    | frozenset(
        "jax.lax." + name for name in "axis_size broadcast_shapes dtype create_token after_all infeed outfeed".split()
    )
    | frozenset("jax.random." + name for name in "key_impl default_prng_impl".split())
)

# Array methods and properties whose result is again an array.
ARRAY_METHODS = frozenset(
    """
    reshape astype transpose swapaxes squeeze ravel flatten sum mean max min prod std var
    cumsum cumprod dot clip round argmax argmin argsort sort take copy conj conjugate
    block_until_ready all any repeat diagonal trace view
    """.split()
)
ARRAY_PROPERTIES = frozenset("T mT real imag".split())
# Array methods whose result has the dtype of the array (JAX's promotion: a boolean array stays boolean); the
# others give numbers (`sum`/`argmax`/`argsort` of booleans are integers), but `all`/`any` (booleans) and
# `astype` (its dtype).
DTYPE_KEEPING_METHODS = frozenset(
    "reshape transpose swapaxes squeeze ravel flatten copy take repeat diagonal sort max min block_until_ready view".split()
)
TRUTH_METHODS = frozenset({"all", "any"})
# Array methods that Python's list or dict has too, for a value that may be either (a pytree of unknown
# structure): `copy` gives the same kind of value back, `list.sort` gives None.
CONTAINER_ALSO_METHODS = {"copy": "same", "sort": "none"}
# NumPy array methods that give a NumPy array again (`np.arange(12).reshape(3, 4)`).
HOST_ARRAY_METHODS = frozenset("reshape astype transpose swapaxes squeeze ravel flatten copy".split())
# `x.at[i].<method>(v)`: the functional updates of an array.
FUNCTIONAL_UPDATE_METHODS = frozenset("set add subtract multiply mul divide power min max apply".split())
# Of those, the ones a JAX array has not (`x.min()` and `x.max()` are its reductions; checked on jax 0.10.2).
UPDATE_ONLY_METHODS = FUNCTIONAL_UPDATE_METHODS - {"min", "max"}

# Namespaces whose functions give their result and keep nothing of their arguments: an array given to one leaves it
# only through the result. Not their functions that take a function (`jnp.vectorize(f)`, `np.apply_along_axis(f, ...)`,
# which may keep what they are given), nor a NumPy call given an `out=` buffer.
RESULT_ONLY_NAMESPACES = ("jax.numpy.", "numpy.", "math.")
FUNCTION_TAKING = frozenset(
    {"vectorize", "apply_along_axis", "apply_over_axes", "piecewise", "frompyfunc", "fromfunction"}
)

# Annotations that say a parameter is a JAX array (also inside jaxtyping's `Float[Array, "n"]`).
# Decorators that call the function with the arguments they are given (runtime type checkers): a call of the
# decorated function fills its parameters as a call of the def would.
ARGUMENT_KEEPING_DECORATORS = frozenset({"jaxtyping.jaxtyped", "beartype.beartype", "typeguard.typechecked"})

ARRAY_TYPES = frozenset({"jax.Array", "jax.numpy.ndarray", "jaxtyping.Array"})

# `isinstance` classes that no JAX array (concrete or a tracer) is an instance of, and those every one is.
NOT_ARRAY_CLASSES = frozenset(
    {
        "numpy.ndarray",
        "numpy.generic",
        "numpy.number",
        "int",
        "float",
        "complex",
        "bool",
        "str",
        "bytes",
    }
)
ARRAY_CLASSES = ARRAY_TYPES | {"jax.core.Tracer"}
# Attributes every JAX array and tracer has: `hasattr(x, "shape")` is true of each.
ARRAY_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "size", "at", "astype", "reshape"})

# Annotations of arguments no transform traces: jax raises TypeError ("not a valid JAX type") at the call.
UNTRACEABLE_ANNOTATIONS = frozenset({"str", "bytes"})

# NumPy calls that build an array on the host.
NUMPY_ARRAY_FACTORIES = frozenset(
    "numpy." + name
    for name in """array asarray asanyarray ascontiguousarray copy zeros ones full empty zeros_like ones_like full_like
    empty_like arange linspace logspace geomspace eye identity indices tri tril triu diag outer stack vstack hstack
    concatenate tile repeat""".split()
)

# Calls that make a mutable `jax.Ref`, or a library's mutable box of an array (`x[...] = v` writes into it, traced
# or not).
REF_FACTORIES = frozenset({"jax.new_ref", "jax.ref.new_ref", "jax.experimental.mutable_array"}) | merged_sets(
    "REF_FACTORIES"
)

# Array attributes known before tracing, and builtins whose result is a Python value.
STATIC_ATTRIBUTES = frozenset({"shape", "ndim", "dtype", "size", "itemsize", "nbytes", "weak_type"})
STATIC_BUILTINS = frozenset({"len", "isinstance", "type", "callable", "hasattr", "id", "repr", "str"})
COUNTING_BUILTINS = frozenset({"len", "id"})  # those of them that give a Python int
# Builtins and modules whose functions never change a Python list or dict given to them: a container of Python
# values passed to any other function (`fill(metrics)`) may come back holding tracers.
CONTAINER_READERS = frozenset(
    "print len sum min max sorted reversed enumerate zip map filter iter any all list tuple dict set frozenset "
    "str repr format isinstance type id hash bool int float abs round".split()
)
CONTAINER_READING_MODULES = ("jax.", "numpy.", "math.", "logging.", "absl.logging.")
# Builtins that compute with an array through its operators and give an array: `abs(x)`, `pow(x, 2)`,
# `round(x)`, `round(x, 2)` give tracers of a tracer (jax 0.10); `min`/`max` compare instead, which raises on
# tracers (JAX302).
ARITHMETIC_BUILTINS = frozenset({"abs", "pow", "round"})
# jnp functions that return an array of booleans.
BOOLEAN_FUNCTIONS = frozenset(
    "jax.numpy." + name
    for name in """
    isnan isinf isfinite isneginf isposinf isclose isin signbit iscomplex isreal logical_and
    logical_or logical_not logical_xor equal not_equal greater greater_equal less less_equal
    """.split()
)

# `jax.random` functions whose draw is a selection applied to an array argument (position, keyword):
# with one key, the same other arguments and arrays of one length, they select the same places,
# which is how two arrays are shuffled or sampled together (`permutation(key, x)`, `permutation(key, y)`).
SELECTING_SAMPLERS = {"jax.random.permutation": (1, "x"), "jax.random.choice": (1, "a")}

# Keyword arguments by which a model call turns its randomness off (flax's `deterministic=True` and
# `train=False`, haiku's `is_training=False`, equinox's `inference=True`): keys it is given are not drawn from.
RANDOMNESS_OFF = merged_dicts("RANDOMNESS_OFF")


# The handlers that show code expecting a tracer's truth value to fail, and meaning it (`try: if rate == 0:
# ... except jax.errors.ConcretizationTypeError: pass`): TracerBoolConversionError and its jax base classes.
# The handlers that catch a TypeError, by the names of its classes (a bare `except:` catches BaseException): code in
# a `try` with one shows the error on purpose (a tutorial's `try: x[0] = 1 except Exception: print(...)`, the
# TypeError of an in-place update; `caught_errors` counts no bare `except:`, which swallows whatever comes).
TYPE_ERRORS = frozenset({"TypeError", "Exception", "BaseException"})
# Calls that give back the value they are given, placed elsewhere or in another array type: the same numbers.
SAME_VALUE = frozenset(
    {"jax.device_put", "jax.device_get", "jax.block_until_ready", "jax.numpy.asarray", "numpy.asarray"}
)
VALUE_ERRORS = frozenset({"ValueError", "Exception", "BaseException"})
ATTRIBUTE_ERRORS = frozenset({"AttributeError", "Exception", "BaseException"})
# The errors jax raises while it traces a function, each with the classes a handler may name to catch it (jax
# 0.10.2's class hierarchy): a trace started in a `try` whose handler catches it shows the error on purpose.
_JAX_TYPE_ERROR = ("jax.errors.JAXTypeError", *TYPE_ERRORS)
_CONCRETIZATION_ERROR = ("jax.errors.ConcretizationTypeError", "jax.core.ConcretizationTypeError", *_JAX_TYPE_ERROR)
_INDEX_ERROR = ("IndexError", "LookupError", "Exception", "BaseException")
TRACE_ERRORS = {
    "TracerBoolConversionError": frozenset({"jax.errors.TracerBoolConversionError", *_CONCRETIZATION_ERROR}),
    "ConcretizationTypeError": frozenset(_CONCRETIZATION_ERROR),
    "TypeError": TYPE_ERRORS,  # the base of jax's conversion errors, and what a shape from a tracer raises
    "NonConcreteBooleanIndexError": frozenset(
        {"jax.errors.NonConcreteBooleanIndexError", "jax.errors.JAXIndexError", *_INDEX_ERROR}
    ),
    "IndexError": frozenset(_INDEX_ERROR),
}
# Python's containers, as the base of a class: its instances' `append`, `insert`, `update` are the container's.
CONTAINER_BASES = frozenset(
    {"list", "dict", "set", "deque", "defaultdict", "OrderedDict", "Counter", "UserList", "UserDict"}
)
# Handlers that catch whatever comes: around a traced line, they show no intent to meet that line's error.
CATCH_ALL = frozenset({"Exception", "BaseException"})
BOOL_CONVERSION_ERRORS = frozenset(
    {
        "jax.errors.TracerBoolConversionError",
        "jax.errors.ConcretizationTypeError",
        "jax.errors.JAXTypeError",
        "jax.core.ConcretizationTypeError",
    }
)

# Namespaces, as prefixes of qualified names.
JAX = "jax."  # anything of jax's own
JAX_NUMPY = "jax.numpy."
JAX_LAX = "jax.lax."
JAX_RANDOM = "jax.random."

ASARRAY = "jax.numpy.asarray"  # what fixes wrap a Python list or a host value in
DEBUG_PRINT = "jax.debug.print"  # printing traced values
PERMUTATION = "jax.random.permutation"  # `permutation(key, n)` is a sampler; `permutation(key, x)` shuffles x

# Calls that return an array (NumPy or JAX): arrays are unhashable.
ARRAY_MAKERS = frozenset(
    f"{module}.{name}"
    for module in ("numpy", "jax.numpy")
    for name in "array asarray zeros ones full empty arange linspace eye identity".split()
)
# Modules whose functions take a tuple wherever they take a list.
SEQUENCE_MODULES = ("jax.numpy.", "numpy.", "jax.lax.")

# Calls that build an optimizer: a new object at each call, never equal to the last (model/libraries/optax.py).
OPTIMIZER_FACTORIES = merged_sets("OPTIMIZER_FACTORIES")

# Calls that give an array longer than the one among their first argument (`jnp.concatenate([buf, row])`,
# `jnp.append(buf, v)`): an array rebound to one in every iteration of a loop has a new shape each time.
GROWING_FUNCTIONS = frozenset(
    f"{module}.{name}" for module in ("numpy", "jax.numpy") for name in "concatenate append vstack hstack".split()
)
# Calls that turn a Python list into an array of its length (`jnp.stack(history)`).
LIST_TO_ARRAY = frozenset(
    f"{module}.{name}" for module in ("numpy", "jax.numpy") for name in "array asarray stack".split()
)

# Python calls that never return: the program ends there (or, for `exit`/`quit`, raises SystemExit), so the
# statements after one in its block never run.
NO_RETURN = frozenset({"sys.exit", "os._exit", "os.abort"})
NO_RETURN_BUILTINS = frozenset({"exit", "quit"})

# Top-level packages whose module-level objects an operator sees as numbers or arrays (`math.pi`, `np.inf`,
# `scipy.constants.c`): a JAX array meets them in its own `__mul__`. Another library's object may take the
# operation over through its reflected operator (`jnp.zeros(3) * astropy.units.kpc` is an astropy Quantity, a
# NumPy array that takes item assignment).
NUMERIC_PACKAGES = frozenset({"jax", "jaxlib", "numpy", "math", "cmath", "scipy", "builtins", "operator"})
