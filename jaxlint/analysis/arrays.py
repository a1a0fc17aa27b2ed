"""Which expressions are known to produce a JAX array.

Precision first: a call counts only when every way of calling it returns one array.
Functions that may return a tuple, a list, a function, a dtype or a Python value are left out.
"""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.names import Names

_ARRAY_NAMESPACES = ("jax.numpy.", "jax.random.", "jax.nn.", "jax.lax.")

_NOT_ONE_ARRAY = frozenset(
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
) | frozenset(
    "jax.lax." + name
    for name in """
    scan while_loop fori_loop cond switch map associative_scan custom_root custom_linear_solve
    top_k sort_key_val approx_max_k approx_min_k linalg.svd linalg.eigh linalg.eig linalg.qr
    linalg.lu linalg.schur linalg.hessenberg linalg.tridiagonal stop_gradient optimization_barrier
    psum pmean pmax pmin all_gather all_to_all ppermute axis_index reduce
    """.split()
) | frozenset(
    "jax.random." + name
    for name in "key_impl default_prng_impl".split()
)

_NOT_ONE_ARRAY_PREFIXES = ("jax.nn.initializers.",)

# Array methods and properties whose result is again an array.
ARRAY_METHODS = frozenset(
    """
    reshape astype transpose swapaxes squeeze ravel flatten sum mean max min prod std var
    cumsum cumprod dot clip round argmax argmin argsort sort take copy conj conjugate
    block_until_ready all any repeat diagonal trace view
    """.split()
)
ARRAY_PROPERTIES = frozenset("T mT real imag".split())
# NumPy array methods that give a NumPy array again (`np.arange(12).reshape(3, 4)`).
HOST_ARRAY_METHODS = frozenset("reshape astype transpose swapaxes squeeze ravel flatten copy".split())
FUNCTIONAL_UPDATE_METHODS = frozenset(
    "set add subtract multiply mul divide power min max apply".split()
)

_ARRAY_TYPES = frozenset({"jax.Array", "jax.numpy.ndarray", "jaxtyping.Array"})


def produces_array(call: cst.Call, names: Names) -> bool:
    """True when `call` is a jax function that always returns one array."""
    qualified = names.qualified(call.func)
    if qualified is None or not qualified.startswith(_ARRAY_NAMESPACES):
        return False
    if qualified in _NOT_ONE_ARRAY or qualified.startswith(_NOT_ONE_ARRAY_PREFIXES):
        return False
    if qualified == "jax.numpy.where" and len(call.args) < 3:
        return False  # one-argument `where` is `nonzero`: a tuple
    return True


_NUMPY_ARRAY_FACTORIES = frozenset(
    "numpy." + name for name in "array asarray zeros ones full empty arange linspace eye identity".split()
)


REF_FACTORIES = frozenset({"jax.new_ref", "jax.ref.new_ref", "jax.experimental.mutable_array"})


def produces_host_array(call: cst.Call, names: Names) -> bool:
    """A NumPy array built on the host: `np.array([...])`, `np.zeros(3)`."""
    return names.qualified(call.func) in _NUMPY_ARRAY_FACTORIES


def functional_update_receiver(call: cst.Call) -> cst.BaseExpression | None:
    """`x` for a call spelled `x.at[...].set(...)` (or another update method), else None."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in FUNCTIONAL_UPDATE_METHODS:
        return None
    indexed = func.value
    if not isinstance(indexed, cst.Subscript):
        return None
    at = indexed.value
    if isinstance(at, cst.Attribute) and at.attr.value == "at":
        return at.value
    return None


def is_array_annotation(annotation: cst.BaseExpression, names: Names) -> bool:
    """`jax.Array`, `jnp.ndarray`, or a jaxtyping annotation such as `Float[Array, "n"]`."""
    if names.qualified(annotation) in _ARRAY_TYPES:
        return True
    if isinstance(annotation, cst.Subscript):
        outer = names.qualified(annotation.value) or ""
        if outer.startswith("jaxtyping.") and annotation.slice:
            first = annotation.slice[0].slice
            if isinstance(first, cst.Index):
                return names.qualified(first.value) in _ARRAY_TYPES
    return False
