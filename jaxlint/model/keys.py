"""PRNG keys, as data: the names JAX code conventionally gives them, and the calls that make them."""

from jaxlint.model.initializers import DRAWING_INITIALIZER_NAMES
from jaxlint.model.libraries import merged_dicts, merged_sets

# Parameter names (globs) that hold PRNG keys, unless the config's `key-names` says otherwise.
DEFAULT_KEY_NAMES = ("key", "rng", "prng_key", "*_key", "*_rng")

# Calls that make a PRNG key from a seed.
KEY_CONSTRUCTORS = frozenset({"jax.random.key", "jax.random.PRNGKey"})
KEY = "jax.random.key"  # a typed key
LEGACY_KEY = "jax.random.PRNGKey"  # a legacy uint32 key
FOLD_IN = "jax.random.fold_in"  # derives a key from a key and data

# Calls whose result is a key (or an array of keys) made from a key or a seed.
KEY_MAKERS = frozenset(
    {
        "jax.random.key",
        "jax.random.PRNGKey",
        "jax.random.split",
        "jax.random.fold_in",
        "jax.random.wrap_key_data",
        "jax.random.clone",
    }
)
# Makers of one key (not an array of keys): a view of such a key is the key (not `clone`: of an array too).
SINGLE_KEY_MAKERS = frozenset({"jax.random.key", "jax.random.PRNGKey", "jax.random.fold_in"})
SPLIT = "jax.random.split"
# `jax.random` functions that read a key without drawing from it.
NOT_CONSUMERS = frozenset(
    {
        "jax.random.key",
        "jax.random.PRNGKey",
        "jax.random.fold_in",
        "jax.random.clone",
        "jax.random.key_data",
        "jax.random.wrap_key_data",
        "jax.random.key_impl",
        "jax.random.default_prng_impl",
    }
)
# What a key derived by each call is: an array of keys, or one key.
DERIVED_KEYS = {"jax.random.split": "array", "jax.random.fold_in": "single", "jax.random.clone": "single"}
# Modules whose functions compute on a key's data (uint32 words), and the call that makes a key from data.
KEY_DATA_MODULES = ("numpy.", "jax.numpy.", "jax.lax.")
KEY_FROM_DATA = frozenset({"jax.random.wrap_key_data"})
# Calls that give one of their alternatives (from position 1 on) for each element: keys consumed in two
# alternatives never meet in the result, as in the two arms of an `if`.
SELECTS = frozenset({"jax.lax.select", "jax.lax.select_n", "jax.numpy.where"})
# Functions reading only the shape and dtype of their first argument: its numbers never matter.
SHAPE_OF = frozenset(
    {
        "jax.numpy.zeros_like",
        "jax.numpy.ones_like",
        "jax.numpy.empty_like",
        "jax.numpy.full_like",
        "jax.numpy.shape",
        "jax.numpy.ndim",
        "jax.numpy.size",
        "numpy.shape",
        "numpy.ndim",
    }
)
# Functions giving a pytree's leaves as one flat array and a function rebuilding the tree, built from its structure,
# shapes and dtypes only (`flat, unravel = ravel_pytree(tree)`): only the flat array holds the leaves' numbers.
RAVELS = frozenset({"jax.flatten_util.ravel_pytree"})
# Calls that run one of their branch functions: a key given to several is consumed once (the libraries' own too:
# `hk.cond`, `nnx.switch`).
BRANCHING = frozenset({"jax.lax.cond", "jax.lax.switch"}) | merged_sets("BRANCHING")
# Transforms that run their function once per lane of a batch, with where their `in_axes` sits (position,
# keyword): an argument whose entry is `None` is given to every lane as it is (jax.vmap, jax.pmap).
LANE_MAPS: dict[str, tuple[int, str]] = {
    "jax.vmap": (1, "in_axes"),
    "jax.pmap": (2, "in_axes"),
}
# Of those, the ones whose operands follow two branch functions (the others: one list of branches).
CONDS = frozenset({"jax.lax.cond"}) | merged_sets("CONDS")
# Of those, the ones also taking each branch with its own operand, as five arguments: the positions of each branch
# function with its operand's (`hk.cond(pred, true_operand, true_fun, false_operand, false_fun)`).
PAIRED_BRANCHES: dict[str, tuple[tuple[int, int], ...]] = merged_dicts("PAIRED_BRANCHES")
# Functions giving the same array in another shape: of one key, the key itself.
VIEW_FUNCTIONS = frozenset(
    {
        "jax.numpy.squeeze",
        "jax.numpy.reshape",
        "jax.numpy.ravel",
        "jax.numpy.expand_dims",
        "jax.numpy.atleast_1d",
        "jax.lax.squeeze",
        "jax.lax.reshape",
        "jax.lax.expand_dims",
        # the same array on another device, or a copy on each device: each draws from the key
        "jax.device_put",
        "jax.device_put_replicated",
    }
) | merged_sets("KEY_COPIES")
# Transforms that call the function they wrap with the arguments the wrapper gets: a sampler wrapped in one
# (`jax.jit(jax.random.bits)(key)`) draws from the key given to the wrapper.
SAMPLER_WRAPPERS = frozenset({"jax.jit", "jax.vmap", "jax.pmap", "jax.checkpoint", "jax.remat"})
# Of those, the ones that call it once with those arguments as they are (not a lane map): `jax.jit(jax.vmap(f))(xs)`
# runs `jax.vmap(f)(xs)`.
SAME_CALL_WRAPPERS = SAMPLER_WRAPPERS - LANE_MAPS.keys()
EVAL_SHAPE = "jax.eval_shape"  # traces for shapes only: no key is drawn from
KEY_COMPUTING_MODULES = ("jax.", "numpy.")  # functions that may consume or compute on a key given to them
# Library functions drawing from a key given them, by (position, keyword), as `jax.random` samplers do.
LIBRARY_SAMPLERS: dict[str, tuple[int, str]] = merged_dicts("SAMPLERS")
# Library calls that draw from a key given by keyword, by the prefix of their names (model/libraries/).
LIBRARY_KEY_DRAWERS: dict[str, str] = merged_dicts("KEY_DRAWERS")
# Of the library layers made so, those whose instances draw from the key given to their call (`self.dropout(x,
# key=key)`); a layer's call that only takes a key draws nothing.
LAYERS_DRAWING_WHEN_CALLED = merged_sets("LAYERS_DRAWING_WHEN_CALLED")
# Library fits (a sampler's `run`), as the key analysis names what consumes a key (`MCMC.run`).
FIT_USES = frozenset(".".join(fit.rsplit(".", 2)[-2:]) for fit in merged_sets("FITS"))
# `jax.nn.initializers` factories (model/initializers.py): what they make draws from the key it is called with.
DRAWING_INITIALIZERS = frozenset(f"jax.nn.initializers.{name}" for name in DRAWING_INITIALIZER_NAMES)
# Library classes whose instances' methods draw from a key they are given: method -> (position, keyword); what an
# initializer factory makes is called.
LIBRARY_KEY_METHODS: dict[str, dict[str, tuple[int, str]]] = merged_dicts("KEY_DRAWING_METHODS") | {
    name: {"__call__": (0, "key")} for name in DRAWING_INITIALIZERS | merged_sets("DRAWING_INITIALIZERS")
}
# The same, for every class whose qualified name starts with a prefix (a library's distributions).
LIBRARY_KEY_METHOD_FAMILIES: dict[str, dict[str, tuple[int, str]]] = merged_dicts("KEY_DRAWING_METHOD_FAMILIES")


def key_drawing_method(made: str, method: str) -> tuple[int, str] | None:
    """Where a method of what `made` names takes the key it draws from (position, keyword), if it draws."""
    where = LIBRARY_KEY_METHODS.get(made, {}).get(method)
    if where is None:
        family = next(
            (methods for prefix, methods in LIBRARY_KEY_METHOD_FAMILIES.items() if made.startswith(prefix)), {}
        )
        where = family.get(method)
    return where


# Library objects seeding a stream of keys with each key given to them (flax's `nnx.Rngs(params=k1, dropout=k2)`).
STREAM_SEEDERS = merged_sets("STREAM_SEEDERS")
# Library base classes whose subclasses' instances have such methods (a flax Module's `init` and `apply`), and
# library classes whose fields hold one (a TrainState's `apply_fn`): method or field -> (position or None, keyword).
SUBCLASS_KEY_METHODS: dict[str, dict[str, tuple[int | None, str]]] = merged_dicts("SUBCLASS_KEY_METHODS")
# The libraries' own subclasses of those bases: name prefix -> (the base, the class names under it that are not, or
# whose methods draw nothing).
LIBRARY_SUBCLASSES: dict[str, tuple[str, frozenset[str]]] = merged_dicts("LIBRARY_SUBCLASSES")
# Keywords under which a library call takes a dict of keys by stream that it draws from (`rngs={"dropout": key}`).
STREAM_KEYWORDS = merged_sets("STREAM_KEYWORDS")
# Their methods that make a model's parameters from a key (a linen Module's `init`): the same key and inputs again
# give an exact copy, what a target network starts as.
PARAMETER_INITIALISERS = merged_sets("PARAMETER_INITIALISERS")
KEY_DRAWING_FIELDS: dict[str, dict[str, tuple[int | None, str]]] = merged_dicts("KEY_DRAWING_FIELDS")
# Functions whose result holds probabilities (each slice sums to one), not log-probabilities.
PROBABILITY_FUNCTIONS = frozenset({"jax.nn.softmax", "jax.scipy.special.softmax"}) | merged_sets(
    "PROBABILITY_FUNCTIONS"
)
# Samplers of a categorical distribution given by unnormalised log-probabilities: the logits' (position, keyword),
# no position when only a keyword gives them.
LOGITS_SAMPLERS: dict[str, tuple[int | None, str]] = {
    "jax.random.categorical": (1, "logits"),
    **merged_dicts("LOGITS_SAMPLERS"),
}

# Code that assigns no attribute of the objects it is given, so a key held in one (`state.rng`) is the same key after
# the call: jax's functions (they take arrays and pytrees and give new ones; a traced argument is a copy), and these
# builtins. Any other code an object is handed to may store another key there.
FIELD_KEEPING_PACKAGES = ("jax.", "numpy.")
FIELD_KEEPING_BUILTINS = frozenset(
    {"print", "len", "isinstance", "type", "id", "repr", "str", "hasattr", "getattr", "callable", "iter", "sorted"}
)
# Methods of pytree classes that give a changed copy and leave the object as it was: flax.struct's and chex's
# `replace`, a NamedTuple's `_replace` (the fields they are given by keyword change), brax's `tree_replace` (given a
# dict of dotted paths: their first parts change). The copy holds the other fields' objects as they were.
COPYING_METHODS = frozenset({"replace", "_replace", "tree_replace"})
PATH_REPLACING_METHODS = frozenset({"tree_replace"})
