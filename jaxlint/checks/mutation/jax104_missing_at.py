"""JAX104 missing-at: `x[i].set(v)` on a JAX array, without `.at`: the array has no `set`, AttributeError."""

from __future__ import annotations

import libcst as cst

from jaxlint.checks.base import FixPlan, Rule, code
from jaxlint.diagnostics import SAFE, UNSAFE
from jaxlint.model.functions import ATTRIBUTE_ERRORS, UPDATE_ONLY_METHODS


class MissingAt(Rule):
    code = "JAX104"
    name = "missing-at"
    summary = "`x[i].set(v)` on a JAX array, without `.at`: AttributeError"
    what_it_does = (
        "Flags a functional update method that arrays lack (`set`, `add`, `subtract`, `multiply`, `divide`, `power`, "
        "`apply`) called on an indexed JAX array written without `.at` (`x[i].set(v)`, `x[mask].add(1)`), where "
        "the analysis knows `x` holds one array: a `jax.numpy` result, a traced argument, the concrete array every "
        "call gives a parameter."
    )
    why_bad = (
        "`x[i]` reads the array and gives a new one, and JAX arrays have no `set`/`add` methods: the call raises "
        "`AttributeError: 'ArrayImpl' object has no attribute 'set'` (under a transform, the tracer's own class is "
        "named). The update was meant to go through `x.at[i]`, which gives `x` with the update applied."
    )
    example = "import jax.numpy as jnp\n\nx = jnp.zeros(4)\nx = x[0].set(1.0)\n"
    use_instead = "import jax.numpy as jnp\n\nx = jnp.zeros(4)\nx = x.at[0].set(1.0)\n"
    not_flagged = (
        "`x.at[i].set(v)`; `x[i].min()` and `x[i].max()`, an array's own reductions; values jaxlint cannot show to be one JAX array: a pytree argument indexed with what a "
        'dict or a list takes too (`params["w"]`, `parts[0]`: the item may be an object with its own `set`), a NumPy '
        "array, an instance of a class of the project, a mutable "
        "`jax.Ref`; code in a `try` whose handler catches `AttributeError`."
    )
    fixable = True
    fix_safety = (
        "Safe: `x[i].set(v)` becomes `x.at[i].set(v)`. The call raises as written, so no working code changes "
        "meaning. Unsafe when `x` is a traced argument or a loop carry, which may be a Python list: the fixed code "
        "raises too."
    )
    verify = "`--verify` confirms it by the `AttributeError` the call raises."

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) is not cst.Attribute or func.attr.value not in UPDATE_ONLY_METHODS:
            return
        indexed = func.value
        if type(indexed) is not cst.Subscript:
            return
        array = indexed.value
        if type(array) is cst.Attribute and array.attr.value == "at":
            return  # `x.at[i].set(v)`
        held = self.facts.value_of(array)
        if not held.is_array or self.facts.catches(ATTRIBUTE_ERRORS):
            return
        if (held.container or held.pytree_part) and not self.facts.array_only_index(indexed.slice):
            return  # a pytree argument may be a dict or a list: `params["w"]` may be anything
        method, base = func.attr.value, code(array)
        index = code(cst.Subscript(value=cst.Name("_"), slice=indexed.slice))[1:]
        fixed = indexed.with_changes(value=cst.Attribute(value=array, attr=cst.Name("at")))
        self.report(
            node,
            f"`{base}{index}.{method}(...)` reads an element of a JAX array, which has no `.{method}`: this raises "
            f"AttributeError; update through `.at`: `{base}.at{index}.{method}(...)`",
            FixPlan(f"use `{base}.at{index}.{method}(...)`", ((indexed, fixed),), UNSAFE if held.container else SAFE),
            because=held,
        )
