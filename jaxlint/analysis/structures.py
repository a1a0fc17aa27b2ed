"""The structure of the pytree a call gives a parameter, when every call shows it: jax flattens a tuple, list or
dict argument into its leaves and traces each leaf as one array, of that leaf's dtype (a Python number too: a
weakly typed array of its kind). So `step((params, 0))` makes `step`'s parameter a tuple of two tracers, and
unpacking it (`w, n = pair`) gives arrays, not subtrees; `n` is an integer array.

A structure is a Value: a container's (kind HOST, `contents` holding each item's structure) or a leaf's (an
ARRAY of a dtype kind, or of an unknown one; a REF, a mutable box that stays one under the trace). Anything else
in an argument (an unknown value, an object, a container built out of sight) leaves the structure unknown: that
part may be a subtree or static.

A function called inside a trace as it is (no transform between: a helper) gets its arguments as they are, not
flattened: a Python number or a NumPy array in a tuple it is given stays one (`build((x * 2, (0, 1)))` gives
`build` a tracer and a tuple of two ints). Its structures keep those leaves (`kept`), and an item not known
(`tuple(offsets)` of a list built out of sight) stays unknown beside the known ones, rather than making the whole
argument a tree of tracers.
"""

from __future__ import annotations

import json

from jaxlint.analysis.traced import Tracer
from jaxlint.analysis.values import Contents, Kind, Value


def structure(value: Value | None, kept: bool = False) -> Value | None:
    """The pytree structure an argument holding `value` gives a traced parameter: its containers, each item an array
    or a pytree of arrays whose structure is not known where the value does not show it; `kept`: given to a helper
    inside the trace, where a Python value or a NumPy array stays what it is, and an item not known is None."""
    if value is None:
        return None
    if value.kind is Kind.REF:
        return value  # a mutable box: so it stays under a trace
    contents = value.contents
    if kept and contents is None and (value.kind in _LEAVES or value.kind is Kind.HOST and value.numpy):
        return value  # a Python value, a NumPy array, a tracer or a pytree of tracers: as it is
    if contents is None:
        if value.kind is Kind.ARRAY or (value.kind is Kind.TRACED and not value.container):
            return Value(Kind.ARRAY, dtype=value.dtype)
        if value.kind is Kind.STATIC and value.number is not None:
            return Value(Kind.ARRAY, dtype=value.number)
        if value.kind is Kind.HOST and value.numpy:
            return Value(Kind.ARRAY)
        return None
    if not contents.items or (contents.kind == "dict" and not _literal_keys(contents)):
        return None
    items = tuple(structure(item, kept) for item in contents.items)
    if not kept:
        # jax flattens every item of the container: one the analysis knows nothing of is a pytree of arrays still
        items = tuple(
            _UNKNOWN_TREE if shape is None and _unknown(item) else shape for shape, item in zip(items, contents.items)
        )
        if any(item is None for item in items):
            return None
    return Value(Kind.HOST, contents=Contents(contents.kind, None, items, contents.keys))


def _unknown(value: Value | None) -> bool:
    """A value the analysis knows nothing of, or a pytree of arrays of a structure it does not know (not an instance
    of a class it sees, which may not be a pytree, nor a pytree class of the module, whose methods it knows)."""
    if value is None:
        return True
    if value.instance is not None or value.pytree is not None:
        return False
    return value.kind is Kind.UNKNOWN or value.kind in (Kind.ARRAY, Kind.TRACED) and value.container


def sliced(value: Value) -> Value:
    """The structure of one slice of a lax loop's `xs` holding `value`: the containers it shows, and below them arrays
    or pytrees of arrays (jax slices every leaf of `xs`, which must be arrays: a slice's leaves are never Python
    values), of an unknown structure where `value` does not show it."""
    contents = value.contents
    if contents is None or not contents.items or (contents.kind == "dict" and not _literal_keys(contents)):
        one = value.kind in (Kind.ARRAY, Kind.TRACED) and contents is None and not value.container
        return Value(Kind.ARRAY, dtype=value.dtype if one else None, container=not one)
    items = tuple(sliced(item) if item is not None else Value(Kind.ARRAY, container=True) for item in contents.items)
    return Value(Kind.HOST, contents=Contents(contents.kind, None, items, contents.keys))


def kept_text(shape: Value | None) -> str | None:
    """A helper's structure (`structure(value, kept=True)`) as text, for another module's analysis (interface.py):
    the containers with their keys, each leaf's kind, an unknown item null. None for anything but a container."""
    if shape is None or shape.contents is None:
        return None
    return json.dumps(_plain(shape), separators=(",", ":"))


def kept_of_text(text: str | None) -> Value | None:
    """The structure `kept_text` wrote."""
    return None if text is None else _from_plain(json.loads(text))


def _plain(shape: Value | None) -> object:
    if shape is None:
        return None
    contents = shape.contents
    if contents is not None:
        keys = list(contents.keys) if contents.keys is not None else None
        return {"c": contents.kind, "k": keys, "i": [_plain(item) for item in contents.items or ()]}
    if shape.kind is Kind.STATIC:
        return {"s": shape.number}
    if shape.kind is Kind.HOST and shape.numpy:
        return {"n": True}
    if shape.kind in (Kind.TRACED, Kind.ARRAY):
        return {"a": shape.dtype, "t": shape.kind is Kind.TRACED, "p": shape.container}
    return None  # a ref, or anything else: not known in the other module


def _from_plain(plain: object) -> Value | None:
    if not isinstance(plain, dict):
        return None
    if "c" in plain:
        items = tuple(_from_plain(item) for item in plain["i"])
        keys = tuple(plain["k"]) if plain["k"] is not None else None
        return Value(Kind.HOST, contents=Contents(plain["c"], None, items, keys))
    if "s" in plain:
        return Value(Kind.STATIC, number=plain["s"])
    if "n" in plain:
        return Value(Kind.HOST, numpy=True)
    return Value(Kind.TRACED if plain["t"] else Kind.ARRAY, dtype=plain["a"], container=plain["p"])


def eager_value(value: Value | None) -> Value | None:
    """What a parameter holds when a call outside any trace gives it `value`: a concrete JAX array, or a tuple or
    list of them (None for anything else: a NumPy array, which is written in place, a Python number, a dict)."""
    if value is None:
        return None
    contents = value.contents
    if contents is None:
        return Value(Kind.ARRAY, dtype=value.dtype) if value.kind is Kind.ARRAY and not value.container else None
    if not contents.items or contents.kind == "dict":
        return None
    items = tuple(eager_value(item) for item in contents.items)
    if any(item is None for item in items):
        return None
    return Value(Kind.HOST, contents=Contents(contents.kind, None, items, contents.keys))


def joined(a: Value | None, b: Value | None, kept: bool = False) -> Value | None:
    """The structure two calls agree on: the same containers, leaves of one dtype kind where both agree; `kept`:
    of a helper's structures, where an item the two disagree on is unknown."""
    if a == b:
        return a
    if a is None or b is None:
        return None
    if a.contents is None and b.contents is None:
        if a.kind in _KEPT or b.kind in _KEPT:  # kept leaves: of one kind, or unknown
            return Value(a.kind, numpy=a.numpy and b.numpy) if a.kind is b.kind else None
        # two arrays of different dtypes, or a pytree whose structure one of them does not show
        return Value(Kind.ARRAY, dtype=a.dtype if a.dtype == b.dtype else None, container=a.container or b.container)
    if a.contents is None or b.contents is None:
        return None
    ours, theirs = a.contents, b.contents
    if (ours.kind, ours.keys) != (theirs.kind, theirs.keys) or len(ours.items or ()) != len(theirs.items or ()):
        return None
    items = tuple(joined(x, y, kept) for x, y in zip(ours.items or (), theirs.items or ()))
    if any(item is None for item in items) and not kept:
        return None
    return Value(Kind.HOST, contents=Contents(ours.kind, None, items, ours.keys))


def traced_tree(shape: Value, tracer: Tracer, part: bool = False) -> Value:
    """What a parameter traced as `tracer` holds when its calls give it the structure `shape`: the same
    containers, a tracer at each leaf (named by its path: `pair[0]`, `batch["x"]`); `part`: an item of one of
    them, which, where its structure is not known, is as often a Python list as an array."""
    contents = shape.contents
    if shape.kind is Kind.REF or contents is None and shape.kind in _KEPT:
        return shape  # a mutable box, or a leaf a helper gets as it is
    if contents is None or not contents.items:
        return Value(
            Kind.TRACED, tracer, dtype=shape.dtype, container=shape.container, pytree_part=part and shape.container
        )
    keys = contents.keys if contents.kind == "dict" else range(len(contents.items))
    items = tuple(
        None
        if item is None
        else traced_tree(item, tracer.item(f'"{key}"' if isinstance(key, str) else str(key)), part=True)
        for key, item in zip(keys or (), contents.items)
    )
    if all(item is not None and item.kind in _KEPT for item in items):
        return shape  # a container of leaves a helper gets as they are (`(0, 1)`): a Python value still
    return Value(Kind.TRACED, tracer, container=True, contents=Contents(contents.kind, items[0], items, contents.keys))


_UNKNOWN_TREE = Value(Kind.ARRAY, container=True)  # a pytree of arrays whose structure is not known
_KEPT = frozenset({Kind.STATIC, Kind.HOST})  # the leaves of a helper's structures that stay what they are
_LEAVES = frozenset({Kind.STATIC, Kind.TRACED})  # the values a helper's structures keep as leaves


def _literal_keys(contents: Contents) -> bool:
    return contents.keys is not None and all(isinstance(key, (str, int)) for key in contents.keys)
