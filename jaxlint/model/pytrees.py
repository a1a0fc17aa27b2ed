"""How classes become pytrees, and which of their fields are children (traced under a transform) and which
static (aux data: Python values, never tracers). JAX flattens an argument of a transformed function into its
leaves; only leaves are traced."""

from jaxlint.model.libraries import merged_dicts, merged_sets

# Subclasses have one child per annotated field, in order.
NAMEDTUPLE_BASES = frozenset({"typing.NamedTuple", "typing_extensions.NamedTuple"})

# Base classes and class decorators that register a dataclass as a pytree: every field a child but those
# marked static.
PYTREE_BASES = merged_sets("PYTREE_BASES")
PYTREE_DECORATORS = frozenset({"jax.tree_util.register_dataclass"}) | merged_sets("PYTREE_DECORATORS")

# Decorators that make a dataclass and change nothing about how it flattens, under a registering one.
DATACLASS_DECORATORS = frozenset({"dataclasses.dataclass"})
# The registration that names its children and static fields itself (`data_fields=[...], meta_fields=[...]`).
LISTED_REGISTRATION = "jax.tree_util.register_dataclass"

# `name: T = field(...)` marks a field static: the call, and the keyword with the value that does it.
STATIC_FIELD_SPECS = merged_dicts("STATIC_FIELD_SPECS")
# Calls whose field is always static.
STATIC_FIELD_CALLS = merged_sets("STATIC_FIELD_CALLS")
# Libraries whose calls, as a field's default, give a value and mark nothing (`jnp.zeros(3)`, `np.eye(2)`): the
# field is a child. A call of anything else may be a field marker the model does not know.
ARRAY_DEFAULT_LIBRARIES = frozenset({"jax", "numpy"})
# `dataclasses.field(metadata=dict(static=True))`: what `jax.tree_util.register_dataclass` reads as a meta field.
METADATA_FIELD_CALLS = frozenset({"dataclasses.field"})

# Annotations of fields that are never pytree children of their own.
CLASS_VARIABLE_ANNOTATIONS = frozenset({"typing.ClassVar", "dataclasses.InitVar"})
# Annotations that mark a field static (`n: jdc.Static[int]`).
STATIC_ANNOTATIONS = merged_sets("STATIC_ANNOTATIONS")

# The methods a class registered elsewhere (`register_pytree_node_class`, `register_pytree_node(cls, ...)`) flattens
# and rebuilds its instances with.
FLATTEN_METHODS = frozenset({"tree_flatten", "tree_flatten_with_keys"})
# The registration whose class has no leaves: jax passes its instances whole, as static values.
STATIC_REGISTRATION = "jax.tree_util.register_static"
# Library base classes whose instances jax takes as leaves it cannot trace (no pytree registration).
NOT_PYTREE_BASES = merged_sets("NOT_PYTREE_BASES")
# Class decorators that give the class back as it is: its instances are no pytrees for them.
ORDINARY_CLASS_DECORATORS = frozenset({"dataclasses.dataclass", "functools.total_ordering"})
# Calls that make a class a pytree (its instances then trace as arrays): the class is their first argument.
PYTREE_REGISTRATIONS = frozenset(
    {
        "jax.tree_util.register_pytree_node",
        "jax.tree_util.register_pytree_node_class",
        "jax.tree_util.register_pytree_with_keys",
        "jax.tree_util.register_pytree_with_keys_class",
        "jax.tree_util.register_dataclass",
        "jax.tree_util.register_static",
    }
)
