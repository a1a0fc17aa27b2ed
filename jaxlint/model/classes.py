"""Class decorators that give back the class they decorate, its methods as written: a call of the class
still makes an instance of it, and `Cls.method` / `instance.method` still call the method's body."""

from jaxlint.model.libraries import merged_dicts, merged_sets
from jaxlint.model.transform_spec import Runner

PLAIN_CLASS_DECORATORS = frozenset(
    {
        "dataclasses.dataclass",
        "functools.total_ordering",
        "typing.final",
        "jax.tree_util.register_pytree_node_class",
        "jax.tree_util.register_pytree_with_keys_class",
        "jax.tree_util.register_dataclass",
        "jax.tree_util.register_static",
    }
) | merged_sets("PLAIN_CLASS_DECORATORS")

# Class decorators that make a dataclass: a generated `__init__` takes its fields in order, by position or keyword.
DATACLASS_MAKERS = frozenset({"dataclasses.dataclass"}) | merged_sets("DATACLASS_MAKERS")

# Python classes whose instances keep any attribute set on them as a plain reference (`debug.last = x` of
# `debug = types.SimpleNamespace()`): a tracer stored there outlives its trace.
ATTRIBUTE_HOLDERS = frozenset({"types.SimpleNamespace", "argparse.Namespace"})

# Base classes that give their subclasses no method a call could run instead of one of the class's own (the ABC
# machinery only checks abstract methods when the class is called; `Generic` only adds subscription): methods
# are looked up as if they were not there.
TRANSPARENT_BASES = frozenset({"abc.ABC", "typing.Generic", "typing_extensions.Generic"})

# Library base classes of layers: a subclass's `__call__` is its forward pass, which runs at every step of training or
# inference; with how a layer gets a fresh key at each call.
LAYER_BASES: dict[str, str] = merged_dicts("LAYER_BASES")
# Library base classes whose instances run one of their methods for a runner method (`model.apply(variables, x)`
# of a flax linen Module runs `__call__(x)`).
METHOD_RUNNERS: dict[str, Runner] = merged_dicts("METHOD_RUNNERS")
# Library calls that wrap a function in an object whose methods run it (`hk.transform(f).apply`), the function
# given first; and wrappers of those objects that drop an argument of one method (haiku's `without_apply_rng`).
FUNCTION_RUNNERS: dict[str, Runner] = merged_dicts("FUNCTION_RUNNERS")
RNG_DROPPING: dict[str, str] = merged_dicts("RNG_DROPPING")
