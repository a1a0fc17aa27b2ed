"""Where NumPy meets JAX: which NumPy functions take a tracer, and which JAX functions hand to NumPy.

Each entry was checked under `jax.jit` with jax 0.10.2 and NumPy 2.
"""

from __future__ import annotations

# These read only the shape or dtype of what they are given: any argument may be a tracer.
READS_SHAPE_OR_DTYPE = frozenset(
    "numpy." + name
    for name in """
    shape ndim size result_type dtype iinfo finfo issubdtype promote_types can_cast isdtype
    broadcast_shapes isscalar iscomplexobj isrealobj isreal
    """.split()
)
# Given a JAX array or a tracer as their array argument, these work while tracing: they slice it
# (`np.split`) or hand it to its own method (`np.sum(x)` calls `x.sum()`). Their other arguments
# (sections, axes, shapes, counts) must still be concrete.
TAKES_TRACED_ARRAY = frozenset(
    "numpy." + name
    for name in """
    all any amax amin max min argmax argmin around round cumprod cumsum mean prod std sum var
    moveaxis repeat reshape squeeze swapaxes transpose flip real imag
    split array_split hsplit vsplit dsplit
    """.split()
)
# The names NumPy gives the array argument of those functions, when it is passed by keyword.
ARRAY_KEYWORDS = frozenset({"a", "ary", "m", "x", "arr", "val"})

# The `math` functions that compute with their arguments' own operators and never convert them: on tracers they
# give tracers. `math.prod(xs, start=s)` is `s * x0 * x1 * ...` (checked under `jax.jit` with jax 0.10.2, a list
# and a generator, with and without `start`); `math.sumprod(p, q)` (Python 3.12) is `sum(map(operator.mul, p,
# q))` (checked on CPython 3.12 and 3.13 with operands whose `__float__` and `__index__` raise, as a tracer's do).
# Every other `math` function converts its arguments to a C double or int (`math.sqrt`, `exp`, `log`, `floor`,
# `isnan`, `fsum`, `hypot`, `isclose`...), which raises on a tracer: ConcretizationTypeError, or a TypeError for
# the integer ones (`factorial`, `comb`, `gcd`, `isqrt`, `trunc`).
MATH_BY_OPERATORS = frozenset({"math.prod", "math.sumprod"})

# NumPy functions that use one argument only in arithmetic with its own operators (`np.fft.fftfreq(n, d)` computes
# `results * (1.0 / (n * d))`): a tracer there gives a traced result, the others must be concrete (checked under
# `jax.jit` with jax 0.10.2 and NumPy 2: a traced `d` works, a traced `n` raises). By (position, keyword).
ARITHMETIC_ARGUMENTS = {"numpy.fft.fftfreq": (1, "d"), "numpy.fft.rfftfreq": (1, "d")}

# SciPy's result containers: dict subclasses that keep what they are given, converting nothing (`OdeResult(t=ts,
# y=ys)` of a solver written in JAX holds its tracers; checked under `jax.jit` with SciPy 1.16 and jax 0.10.2).
STORES_AS_GIVEN = frozenset(
    {
        "scipy.optimize.OptimizeResult",
        "scipy.optimize._optimize.OptimizeResult",
        "scipy.integrate._ivp.ivp.OdeResult",
    }
)

# `jax.numpy` functions that take a Python list or tuple of arrays; the others raise TypeError on one
# (`jnp.mean([x, y])`: "mean requires ndarray or scalar arguments").
TAKE_SEQUENCES = frozenset("array asarray stack concatenate vstack hstack dstack column_stack block".split())

# `jax.numpy` functions that read a Python list's shape through NumPy: a list holding tracers
# raises TracerArrayConversionError (`jnp.ndim([x, y])` under jit).
LIST_THROUGH_NUMPY = frozenset({"jax.numpy.ndim", "jax.numpy.shape", "jax.numpy.size"})

# Transforms that keep a weak reference to the function they wrap. NumPy's functions (array-function
# dispatchers and ufuncs) cannot be weakly referenced: `jax.jit(np.cumsum)(x)` raises TypeError.
WEAKLY_REFERENCING = frozenset(
    {
        "jax.jit",
        "jax.pjit",
        "jax.experimental.pjit.pjit",
        "jax.checkpoint",
        "jax.remat",
        "jax.ad_checkpoint.checkpoint",
        "jax.eval_shape",
    }
)

# NumPy functions that hand a tracer to the array's own method with keywords jax's method does not take, so they
# raise TypeError before any conversion: `np.argsort(x)` passes `kind=None, order=None, stable=None` to
# `x.argsort` (numpy 2.x, checked under `jax.jit` with jax 0.10.2).
RAISES_TYPE_ERROR = frozenset({"numpy.argsort"})

# What NumPy and `math` raise on a tracer (TracerArrayConversionError, ConcretizationTypeError,
# TracerIntegerConversionError) and the classes above them (JAXTypeError, TypeError, Exception: their MRO on jax
# 0.10.2): a `try` whose handler names one of these catches the error, and the code goes on (a concrete-only check
# that jit skips on purpose).
NUMPY_CONVERSION_ERRORS = frozenset(
    {
        "jax.errors.TracerArrayConversionError",
        "jax.errors.ConcretizationTypeError",
        "jax.errors.TracerIntegerConversionError",
        "jax.errors.JAXTypeError",
        "jax.core.ConcretizationTypeError",
        "TypeError",
        "Exception",
        "BaseException",
    }
)
