"""PRNG key def-use: which keys may already be consumed at the point being visited.

A key is consumed by every `jax.random` sampler and by `split`; `fold_in(key, data)` derives a
new key without consuming, `clone` copies. Consuming a key again, on some path, gives identical or
correlated draws and JAX never says so (JAX201); consuming a key bound outside a loop in every
iteration, without rebinding it there, draws the same numbers each time (JAX202).

Keys are variables bound to `key/PRNGKey/split/fold_in/wrap_key_data/clone` results, parameters
that a call in the module passes a key (whatever their name: the previous round's `key_params`),
parameters named like keys (`key`, `rng`, `*_key`...), items of a split array with a literal index
(`keys[0]` and `keys[1]` are distinct), `self.<key-named attribute>` inside a method, and any name or attribute of
a name (`state.rng`) from the point a `jax.random` function draws from it (jax raises on anything but a key: values,
not names). An attribute holds the same key until it is assigned, its object is bound again, or the object is handed
to code that may assign it (`KeyFlow._keeps_field`).
The flow engine (flow.py) drives this along the control flow it follows for the traced values too.

A key is consumed wherever it goes (jax's key-reuse checker, `jax.debug_key_reuse(True)`, follows the value,
not the name): an entry of a dict display with literal keys (`keys = {"init": rng}`: `keys["init"]` is
`rng`), of a tuple or list display at a literal index (`pair[0]`), a name unpacked from those or bound to
another key's name (`x, y = pair`, `a = k`) are other names of the same key; so are the views of one key
(`key[None][0]`, `key.reshape(())`, `jnp.squeeze(key)`). An operand of `lax.cond`/`lax.switch` that a
branch draws from is consumed once by the call: only one branch runs. A call also spends the keys its function
draws from one hop away (key_hops.py): a key of the function around a nested def or lambda that draws from it, and
the key put in a dict entry the function draws from (`rngs={"dropout": key}`). A key in a lax loop's initial carry is
consumed by the loop when its body consumes that place of its carry parameter (`fori_loop(0, n, body, (x, key))`
with `x, key = carry; split(key)` in `body`). What is not known stays silent: a
dict built otherwise, an entry after the container was handed to a call or changed, a view of what may
be an array of keys (a parameter, a split).
"""

from __future__ import annotations

import fnmatch
import functools
import math
from dataclasses import dataclass, field, replace
from typing import Callable, cast

import libcst as cst

from jaxlint.analysis.bindings import (
    comprehension_targets,
    mentioned_names,
    method_of,
    parameter_names,
    rebound_names,
    statements,
    target_names,
)
from jaxlint.analysis.calls import argument, arguments
from jaxlint.analysis.decided_tests import iterations_at_most_one
from jaxlint.analysis.factories import returned
from jaxlint.analysis.flow import Domain
from jaxlint.analysis.interface import Consumes, made_name
from jaxlint.analysis.key_hops import (
    changes_entries,
    changes_fields,
    declared,
    displayed_items,
    changes_field_entries,
    entries_changed_before,
    container_item,
    name_item,
    field_arguments,
    handed_names,
    container_ref,
    item_arguments,
    live,
    local_names,
    param_field,
    Sites,
    runs_when_called,
)
from jaxlint.analysis.library_runs import library_base
from jaxlint.analysis.factories import product
from jaxlint.analysis.dead_branches import (
    Guard,
    arguments_given,
    literal_facts,
    module_parameter_guards,
    tested_names,
)
from jaxlint.analysis.loop_guards import fixed_in, runs_once
from jaxlint.analysis.module_memo import ModuleMemo
from jaxlint.analysis.names import Names, dotted
from jaxlint.analysis.notebook_cells import starts_cell, timing_magic
from jaxlint.model.keys import DEFAULT_KEY_NAMES
from jaxlint.model.functions import JAX_RANDOM, PERMUTATION, RANDOMNESS_OFF, SELECTING_SAMPLERS
from jaxlint.model.keys import (
    BRANCHING,
    CONDS,
    COPYING_METHODS,
    PATH_REPLACING_METHODS,
    EVAL_SHAPE,
    FIELD_KEEPING_BUILTINS,
    FIELD_KEEPING_PACKAGES,
    FOLD_IN,
    KEY_COMPUTING_MODULES,
    KEY_DRAWING_FIELDS,
    KEY_MAKERS,
    LANE_MAPS,
    SAME_CALL_WRAPPERS,
    LAYERS_DRAWING_WHEN_CALLED,
    LIBRARY_KEY_DRAWERS,
    key_drawing_method,
    LIBRARY_SAMPLERS,
    LIBRARY_SUBCLASSES,
    NOT_CONSUMERS,
    PAIRED_BRANCHES,
    RAVELS,
    SAMPLER_WRAPPERS,
    SELECTS,
    SHAPE_OF,
    SINGLE_KEY_MAKERS,
    SPLIT,
    STREAM_KEYWORDS,
    STREAM_SEEDERS,
    SUBCLASS_KEY_METHODS,
    VIEW_FUNCTIONS,
)
from jaxlint.analysis.scopes import every_assigned_value, rebound_by_own_methods
from jaxlint.analysis.stable_fields import stable_fields
from jaxlint.analysis.traced import AppliedTransform, Signature, none_axis, unwrap, wrapped_call
from jaxlint.analysis.tree_leaves import has_many_leaves
from jaxlint.model.transforms import (
    CARRY_WITH_OUTPUT,
    LAX_BODIES,
    LAX_CARRIES,
    LAX_OPERANDS,
    LOOP_BODIES,
    LOOP_CONDITIONS,
    ONLY_TRACE,
    PARTIAL,
    TREE_MAPS,
)
from jaxlint.traversal import TOKENS, TOKENS_BUT_NAMES, branches, children, in_order, node_types


@dataclass(frozen=True)
class Use:
    """Where a key was consumed, and by what."""

    node: cst.CSTNode
    by: str
    # Consumed by a call that handed the key back (`x, key = step(x, key)`): its next call consumes it again.
    back: bool = False
    # Drawn from through keys that `fold_in` derives from it (a flax Module's `init` and `apply`, which seed each
    # stream so): the same again with the same key, unrelated to what `split` or a sampler makes of it, which jax's
    # key-reuse checker accepts after a `fold_in` as after these.
    folded: bool = False
    other: "Use | None" = None  # the first consumption of the other kind, after this one
    # What the tests around it showed names to equal (`if name == "moons":`, `if name in ("a", "b"):`), as the
    # literals each may be: a path where one of them is another literal never made it (KeyState.tested_equal).
    when: frozenset[tuple[str, frozenset]] = frozenset()
    # Drawn from in a function of the module that returns the key afterwards (`return x, subkey`): its name. The
    # caller gets back a key already consumed.
    returned: str = ""

    def of_kind(self, folded: bool) -> "Use | None":
        """This consumption, or the later one of the other kind, whichever is of kind `folded`."""
        return self if self.folded == folded else self.other


# A value read here only for its shape and dtype: its numbers never matter (under jit, XLA drops them).
_SHAPE_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "size"})
_VIEW_METHODS = frozenset({"reshape", "squeeze", "ravel", "flatten"})
# The hot helpers below (every call, assignment and loop body asks them) test node types with `type(...)`:
# an isinstance against a libcst class runs ABCMeta's check in Python (libcst's concrete node types have
# no subclasses).
_NOT_ASSIGNING = node_types(cst.BaseExpression) | TOKENS  # what `_attribute_targets` does not enter
_COMPREHENSIONS = node_types(cst.BaseComp)


def shape_only(node: cst.CSTNode, names: Names) -> list[cst.BaseExpression]:
    """The parts of `node` whose values are read only for their shape and dtype: `x` in `x.shape`,
    `jnp.zeros_like(x)`, `jax.eval_shape(f, x)`, and the trees of `jax.tree.map(lambda s: jnp.empty(s.shape,
    s.dtype), tree)`. A key drawn from only to build such a part draws numbers nobody sees."""
    if type(node) is cst.Attribute and node.attr.value in _SHAPE_ATTRIBUTES:
        return [node.value]
    if type(node) is not cst.Call:
        return []
    qualified = names.qualified(node.func)
    if qualified in SHAPE_OF and node.args and node.args[0].keyword is None:
        return [node.args[0].value]
    if qualified == EVAL_SHAPE:
        return [arg.value for arg in node.args[1:]]
    if qualified in TREE_MAPS and node.args and isinstance(node.args[0].value, cst.Lambda):
        function = node.args[0].value
        if all(_reads_only_shape(function.body, name) for name in parameter_names(function.params)):
            return [arg.value for arg in node.args[1:] if arg.keyword is None]
    return []


def read_for_shapes(function: cst.FunctionDef, name: str, names: Names) -> bool:
    """Whether `function` binds `name` once (`name = ...`) and reads it only for its shape and dtype (`shape_only`),
    or to ravel it (`flat, unravel = ravel_pytree(name)`) into a `flat` read so too: nothing sees its numbers.
    (Called only for a name bound to what a fixed key draws: not on a hot path.)"""
    mentions: list[cst.Name] = []
    bound: set[int] = set()
    for_shapes: set[int] = set()
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        for_shapes.update(id(part) for part in shape_only(node, names) if isinstance(part, cst.Name))
        if type(node) is cst.Name and node.value == name:
            mentions.append(node)
        elif type(node) is cst.Attribute:
            stack.append(node.value)  # `a.name` is no mention
            continue
        elif type(node) is cst.Arg and node.keyword is not None:
            stack.append(node.value)  # nor is `f(name=v)`
            continue
        elif type(node) is cst.Global or type(node) is cst.Nonlocal:
            return False
        elif type(node) is cst.AssignTarget:
            targets = node.target.elements if isinstance(node.target, cst.Tuple) else [cst.Element(node.target)]
            bound.update(id(t.value) for t in targets if isinstance(t.value, cst.Name) and t.value.value == name)
        elif type(node) is cst.Assign:
            for_shapes.update(id(tree) for tree in _ravelled_for_shapes(function, node, name, names))
        stack.extend(branches(node, TOKENS_BUT_NAMES))  # (no token but a name counts)
    return len(bound) == 1 and all(id(mention) in bound | for_shapes for mention in mentions)


def _ravelled_for_shapes(function: cst.FunctionDef, node: cst.Assign, name: str, names: Names) -> list[cst.Name]:
    """`name` in `flat, unravel = ravel_pytree(name)` when `flat` is read only for its shape and dtype."""
    value, targets = node.value, node.targets
    if not (isinstance(value, cst.Call) and len(value.args) == 1 and len(targets) == 1):
        return []
    tree, target = value.args[0].value, targets[0].target
    if not (isinstance(tree, cst.Name) and tree.value == name and names.qualified(value.func) in RAVELS):
        return []
    flat = target.elements[0].value if isinstance(target, cst.Tuple) and len(target.elements) == 2 else None
    if isinstance(flat, cst.Name) and flat.value != name and read_for_shapes(function, flat.value, names):
        return [tree]
    return []


def _reads_only_shape(node: cst.CSTNode, name: str) -> bool:
    """Whether `name` appears in `node` only as `name.shape`, `name.dtype`, `name.ndim` or `name.size`."""
    if isinstance(node, cst.Attribute):
        if isinstance(node.value, cst.Name) and node.value.value == name:
            return node.attr.value in _SHAPE_ATTRIBUTES
        return _reads_only_shape(node.value, name)
    if isinstance(node, cst.Arg):
        return _reads_only_shape(node.value, name)
    if isinstance(node, cst.Name):
        return node.value != name
    if isinstance(node, cst.Lambda) and name in parameter_names(node.params):
        return True  # shadowed
    return all(_reads_only_shape(child, name) for child in children(node))


def makes_key(call: cst.Call, names: Names) -> bool:
    return names.qualified(call.func) in KEY_MAKERS


def is_sampler(qualified: str | None) -> bool:
    """Whether a function of `jax.random` consumes the key it is given (its first argument)."""
    return qualified is not None and qualified.startswith(JAX_RANDOM) and qualified not in NOT_CONSUMERS


def sampler_key(call: cst.Call, names: Names) -> tuple[cst.BaseExpression, str] | None:
    """The key argument of a `jax.random` function that consumes it (or a library function's that draws from it,
    LIBRARY_SAMPLERS), with the function's name."""
    qualified = names.qualified(call.func)
    if qualified is None or not (is_sampler(qualified) or qualified in LIBRARY_SAMPLERS):
        return None
    key = argument(call, *LIBRARY_SAMPLERS.get(qualified, (0, "key")))
    return (key, qualified) if key is not None else None


def drawn_key(call: cst.Call, names: Names) -> tuple[cst.BaseExpression, str] | None:
    """The key a library call draws from (`eqx.nn.Linear(2, 3, key=key)`: its initial weights), with the call's
    name; or a `jax.random` function's (sampler_key)."""
    qualified = names.qualified(call.func) or ""
    key = _keyword_key(call, qualified)
    return (key, qualified) if key is not None else sampler_key(call, names)


def _keyword_key(call: cst.Call, drawer: str) -> cst.BaseExpression | None:
    """The key given to a call by the keyword with which things of the library `drawer` names take their key."""
    keyword = next((word for prefix, word in LIBRARY_KEY_DRAWERS.items() if drawer.startswith(prefix)), None)
    if randomness_off(call):
        return None  # `dropout(x, key=key, inference=True)` draws nothing
    return next((arg.value for arg in call.args if keyword and arg.keyword and arg.keyword.value == keyword), None)


def key_ref(expr: cst.BaseExpression) -> str | None:
    """A trackable spelling of a key: `key`, `keys[0]`, `self.rng`, `state.rng`; None for anything else."""
    kind = type(expr)
    if kind is cst.Name:
        return cast(cst.Name, expr).value
    if kind is cst.Attribute:
        attribute = cast(cst.Attribute, expr)
        owner = attribute.value
        if type(owner) is cst.Name:
            return f"{owner.value}.{attribute.attr.value}"
        return None
    if kind is cst.Subscript:
        subscript = cast(cst.Subscript, expr)
        container = container_ref(subscript.value)
        if container is not None and len(subscript.slice) == 1:
            index = subscript.slice[0].slice
            if type(index) is cst.Index:
                literal = _literal(index.value)
                if literal is not None:
                    return f"{container}[{literal!r}]"
            elif type(index) is cst.Slice and index.step is None:
                bounds = [_bound(part) for part in (index.lower, index.upper)]
                if "" not in bounds:  # (not a literal from the start)
                    return f"{container}[{bounds[0] or ''}:{bounds[1] or ''}]"
    return None


def _bound(part: cst.BaseExpression | None) -> str | None:
    """A slice bound as a ref spells it: a non-negative integer literal, None when absent, "" for anything else
    (counted from the end, or not known)."""
    if part is None:
        return None
    literal = _literal(part)
    return str(literal) if type(literal) is int else ""


def _span(ref: str) -> tuple[int, float] | None:
    """The items of a key array a ref covers: `keys[1]` one, `keys[1:]` all from the second on; None for an entry
    (`rngs["dropout"]`) or the whole array."""
    inside = ref[len(_base(ref)) + 1 : -1] if _is_item(ref) else ""
    if ":" in inside:
        lower, upper = inside.split(":")
        return int(lower or 0), float(upper) if upper else math.inf
    return (int(inside), int(inside) + 1) if inside.isdigit() else None


def _overlap(ref: str, other: str) -> bool:
    """Whether two items or slices of one key array share a key (`keys[:2]` and `keys[1]`)."""
    span, other_span = _span(ref), _span(other)
    if span is None or other_span is None:
        return False
    return span[0] < other_span[1] and other_span[0] < span[1]


def _keyed_arm(expr: cst.BaseExpression) -> cst.BaseExpression:
    """The arm of `a if test else None` (or `None if test else a`) that is not `None`; any other expression itself."""
    if type(expr) is not cst.IfExp:
        return expr
    for arm, other in ((expr.body, expr.orelse), (expr.orelse, expr.body)):
        if type(other) is cst.Name and other.value == "None":
            return arm
    return expr


def _literal(expr: cst.BaseExpression) -> int | str | None:
    """A dict key or an index spelled as a literal: `0`, `"init"` (an f-string or a name is unknown)."""
    if type(expr) is cst.Integer:
        return int(expr.value, 0)
    if type(expr) is cst.SimpleString:
        value = expr.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _made_key_ref(expr: cst.BaseExpression, names: Names) -> str | None:
    """A key made right there from names and integers (`jax.random.key(step)`, `fold_in(key, i)`), as a ref
    (`key(step)`): made again from the same unchanged names, it is the same key (`_made_from` tells the names). Not
    from integers alone (`PRNGKey(0)`): a fixed seed written again is as often on purpose as not (a benchmark's
    inputs, a demo, a book's cells comparing models), and JAX203 and the loop rules see those."""
    if type(expr) is not cst.Call:
        return None
    maker = names.qualified(expr.func)
    if maker not in SINGLE_KEY_MAKERS or not expr.args:
        return None
    texts = []
    for arg in expr.args:
        value = arg.value
        if arg.keyword is not None or arg.star or type(value) not in (cst.Name, cst.Integer):
            return None
        texts.append(cast("cst.Name | cst.Integer", value).value)
    if not any(type(arg.value) is cst.Name for arg in expr.args):
        return None
    return f"{maker.rsplit('.', 1)[-1]}({', '.join(texts)})"


def _told(ref: str, target: str) -> str:
    """How a finding names the key `ref` names: by the key's own name for another name of it (`keys["init"]` of
    `{"init": rng}`: `rng`), by the code's name for a key made from values (`k` of `k = fold_in(rng, step)`)."""
    return target if target != ref and not _is_item(target) and not _made_from(target) else ref


def _made_from(ref: str) -> frozenset[str]:
    """The names a key `_made_key_ref` names is made from (none for any other ref)."""
    if not ref.endswith(")") or "(" not in ref:
        return frozenset()
    inside = ref[ref.index("(") + 1 : -1]
    return frozenset(part for part in inside.split(", ") if part.isidentifier())


def _is_item(ref: str) -> bool:
    return "[" in ref


@functools.lru_cache(maxsize=4096)
def _named_like_key(name: str, patterns: tuple[str, ...]) -> bool:
    """(Asked for every parameter and assignment: the same few names again and again.)"""
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


_CONSTANTS = frozenset({"None", "True", "False"})


def _base(ref: str) -> str:
    return ref.split("[", 1)[0]


def _within(ref: str, name: str) -> bool:
    """Whether `ref` is what `name` holds, an item or an attribute of it (`info['rng']`, `keys[0]` of `keys`,
    `agent.key` of `agent`): rebinding `name` (a name, an attribute or an item itself: `info["rng"], k =
    split(info["rng"])`) rebinds it."""
    return ref == name or ref.startswith((f"{name}[", f"{name}."))


def _holder(ref: str) -> str:
    """The name whose rebinding rebinds `ref`: `agent` of `agent.key`, `keys` of `keys[0]`."""
    return _base(ref).split(".", 1)[0]


def _attribute(ref: str) -> bool:
    """`agent.key`, `self.key`: an attribute of a name."""
    return "." in ref and not _is_item(ref)


@dataclass(frozen=True)
class KeyDefault:
    """A key default a call draws from: the function (its name here, qualified for another module's), the parameter
    and the default's expression (None for another module's)."""

    function: str
    param: str
    default: cst.BaseExpression | None


@dataclass
class _Iteration:
    """One run of a Python loop's body: the names bound since it began, and the first consumption of each key
    that was not (its key is the one the previous iteration left: argument, ref, use)."""

    bound: set[str]
    exposed: dict[str, tuple[cst.BaseExpression, Use]] = field(default_factory=dict)
    # For an exposed key read through another name of it (`nextkey` after `nextkey = key`): that name.
    spelled: dict[str, str] = field(default_factory=dict)
    calls: set[int] = field(default_factory=set)  # the calls that consumed a key in it
    every: set[int] = field(default_factory=set)  # of those, the ones that run in every iteration (not `if i == 0:`)

    def consume(self, expr: cst.BaseExpression, ref: str, use: Use, spelled: str) -> None:
        self.calls.add(id(use.node))
        if _base(ref) not in self.bound and ref not in self.bound and _holder(ref) not in self.bound:
            self.exposed.setdefault(ref, (expr, use))
            if spelled != ref and spelled not in self.bound and _base(spelled) not in self.bound:
                self.spelled.setdefault(ref, spelled)  # (read before the body binds it: what the last iteration left)

    def read_next(self, ref: str) -> str | None:
        """The name the next iteration reads `ref` through, when the body binds that name again: then it holds what
        the body left in it, which is no longer `ref` (`nextkey = key`, then `key, nextkey = split(nextkey)`)."""
        spelled = self.spelled.get(ref)
        return spelled if spelled is not None and (spelled in self.bound or _base(spelled) in self.bound) else None


@dataclass
class KeyState:
    """The keys of one scope: which names hold keys, and which may already be consumed."""

    key_names: tuple[str, ...]
    keys: dict[str, int] = field(default_factory=dict)  # key variable -> loop depth where bound
    consumed: dict[str, Use] = field(default_factory=dict)  # ref -> its first consumption
    params: set[str] = field(default_factory=set)  # key parameters not rebound yet
    others: set[str] = field(default_factory=set)  # the other parameters not rebound yet
    loops: list[set[str]] = field(default_factory=list)  # names rebound in each enclosing loop body
    # A key is consumed wherever it goes: `keys = {"init": rng}`, `pair = (k1, k2)`, `x, y = pair`, `a = k`
    # make `keys['init']`, `pair[0]`, `x`, `a` other names of the same key (ref -> the key's own ref).
    # (jax: `normal(keys["init"])` twice raises KeyReuseError under `jax.debug_key_reuse(True)`.)
    aliases: dict[str, str] = field(default_factory=dict)
    single: set[str] = field(default_factory=set)  # refs known to hold one key (not an array of keys)
    # Of a lax loop body: the names that get back the carry they were given (`carried_unchanged`): bound there,
    # they hold the key of every iteration, as if bound outside the loop.
    carried: frozenset[str] = frozenset()
    # Of each Python loop of this scope around this point: the names bound since its iteration began, on any
    # path (shared by every copy of the state: a branch does not unbind them).
    iterations: list["_Iteration"] = field(default_factory=list)
    # Of a lax loop body: its carry parameter, whose items (`carry[1]`, `carry["key"]`) are the places of the loop's
    # initial carry (`carry_consuming`): a name bound to one is another name of what the caller put there.
    carry: str | None = None
    # Of a lax loop body whose `return` is the next iteration's carry: its carry parameter, whether that `return`
    # pairs the carry with an output (`scan`), and its run (the first of `iterations`), whose exposed keys are what
    # the previous iteration left in the carry.
    next_carry: tuple[str, bool, "_Iteration"] | None = None
    # Names bound in the innermost loop's body to a key made from values that loop never changes (`k = PRNGKey(42)`,
    # `k = fold_in(base, step)`): the same key in every iteration, as if bound outside the loop.
    invariant: set[str] = field(default_factory=set)
    # The names the tests around this point show to equal a literal (`if name == "moons":`, `if name in ("a", "b")`),
    # with the literals each may be.
    equal: dict[str, frozenset] = field(default_factory=dict)
    # Parameters that hold None on this path (`if rng is None:` taken), and of those, the ones bound there since (a
    # fallback: `rng = jax.random.key(0)`): where the caller gave a value, they still hold it.
    nones: set[str] = field(default_factory=set)
    filled: set[str] = field(default_factory=set)
    # Names bound to a container whose items refs track (`info = state.info`, `d = info`) -> that container: one
    # dict under two names, so an entry stored or changed through either is the other's too.
    shared: dict[str, str] = field(default_factory=dict)

    def named_like_key(self, name: str) -> bool:
        return _named_like_key(name.rsplit(".", 1)[-1], self.key_names)

    def copy(self) -> "KeyState":
        return KeyState(
            self.key_names,
            dict(self.keys),
            dict(self.consumed),
            set(self.params),
            set(self.others),
            [set(loop) for loop in self.loops],
            dict(self.aliases),
            set(self.single),
            self.carried,
            self.iterations,
            self.carry,
            self.next_carry,
            set(self.invariant),
            dict(self.equal),
            set(self.nones),
            set(self.filled),
            dict(self.shared),
        )

    def restore(self, other: "KeyState") -> None:
        self.keys, self.consumed = dict(other.keys), dict(other.consumed)
        self.params, self.others = set(other.params), set(other.others)
        self.aliases, self.single = dict(other.aliases), set(other.single)
        self.invariant = set(other.invariant)
        self.equal = dict(other.equal)
        self.nones, self.filled = set(other.nones), set(other.filled)
        self.shared = dict(other.shared)

    def join(self, other: "KeyState") -> None:
        """After a branch: a key is a key if either path says so; consumed if consumed on either path.
        Another name for a key stays one only if both paths agree on which key (else: a key of its own)."""
        for ref in set(self.aliases) | set(other.aliases):
            mine, theirs = self.aliases.get(ref), other.aliases.get(ref)
            if mine != theirs:
                self.aliases.pop(ref, None)
                known = mine or theirs
                assert known is not None  # they differ: not both None
                self.keys.setdefault(ref, self.keys.get(_base(known), 0))
        self.single = (
            (self.single & other.single)
            | {r for r in self.single if not other.is_key(r)}
            | {r for r in other.single if not self.is_key(r)}
        )
        for name, depth in other.keys.items():
            self.keys.setdefault(name, depth)
        for ref, use in other.consumed.items():
            self.consumed.setdefault(ref, use)
        # `if rng is None: rng = jax.random.key(0)`: after it, `rng` is the caller's key wherever the caller gave one.
        refilled = {name for name in self.filled if name in other.params | other.others and self.is_key(name)} | {
            name for name in other.filled if name in self.params | self.others and other.is_key(name)
        }
        self.params = (self.params & other.params) | refilled
        self.nones &= other.nones
        self.filled &= other.filled
        self.others &= other.others
        self.invariant &= other.invariant
        self.equal = {name: value for name, value in self.equal.items() if other.equal.get(name, _NO_VALUE) == value}
        for name, container in other.shared.items():  # (one dict under two names on either path: changes reach both)
            self.shared.setdefault(name, container)

    def resolve(self, ref: str) -> str:
        """The key's own ref for another name of it (`keys['init']` -> `rng`)."""
        return self.aliases.get(ref, ref)

    # ------------------------------------------------------------------ bindings

    def bind(self, name: str, is_key: bool, single: bool = False) -> None:
        """`name` gets a new value: a fresh key when `is_key` (or when named like one)."""
        for alias, target in list(self.aliases.items()):
            if _within(alias, name):
                del self.aliases[alias]
            elif _within(target, name):
                self._detach(alias, target)
        self.forget_items(name)
        for ref in [r for r in self.consumed if _within(r, name)]:
            del self.consumed[ref]
        for alias, container in list(self.shared.items()):
            if alias == name or _within(container, name):
                del self.shared[alias]
        self.forget_made(name)
        if name in self.nones:
            self.filled.add(name)
        self.params.discard(name)
        self.others.discard(name)
        self.single.discard(name)
        self.invariant.discard(name)
        if name in self.equal or any(use.when for use in self.consumed.values()):
            self._forget_tests_of(name)
        for iteration in self.iterations:
            iteration.bound.add(name)
        if is_key:
            self.keys[name] = 0 if name in self.carried else len(self.loops)
            if single:
                self.single.add(name)
        else:
            self.keys.pop(name, None)

    def forget_made(self, name: str) -> None:
        """`name` changes: a key made from it (`key(step)`, _made_key_ref) made again is another key; a name bound
        to the one made before keeps that one, with its past."""
        for alias, target in list(self.aliases.items()):
            if name in _made_from(target):
                self._detach(alias, target)
        for ref in [r for r in (*self.consumed, *self.keys) if name in _made_from(r)]:
            self.consumed.pop(ref, None)
            self.keys.pop(ref, None)

    def tested_equal(self, name: str, values: frozenset) -> None:
        """On this path `name` equals one of the literals `values` (`if name == "moons":`): a consumption made where
        it equalled others (`if name == "flowers":` before, `name` unchanged since) is not on this path."""
        values = self.equal[name] & values if name in self.equal else values
        self.equal[name] = values
        for ref, use in list(self.consumed.items()):
            if any(tested == name and known.isdisjoint(values) for tested, known in use.when):
                del self.consumed[ref]

    def _forget_tests_of(self, name: str) -> None:
        """`name` gets a new value: what tests showed of it no longer holds."""
        self.equal.pop(name, None)
        for ref, use in list(self.consumed.items()):
            if any(tested == name for tested, _ in use.when):
                self.consumed[ref] = replace(use, when=frozenset(fact for fact in use.when if fact[0] != name))

    def holds_none(self, name: str) -> None:
        """On this path `name` is None: it holds no key, and what it held before was not consumed here."""
        if name in self.params or name in self.others:
            self.nones.add(name)
        self.keys.pop(name, None)
        self.aliases.pop(name, None)
        for ref in [r for r in self.consumed if _within(r, name)]:
            del self.consumed[ref]

    def keep(self, name: str) -> None:
        """`name` is bound again to the key it held (`x, key = step(x, key)` of a `step` that hands `key` back):
        consumed where that key was."""
        for iteration in self.iterations:
            iteration.bound.add(name)
        use = self.prior_use(name)
        if use is not None:
            self.consumed[self.resolve(name)] = replace(use, back=True)

    def _detach(self, alias: str, target: str) -> None:
        """The key `alias` names is no longer `target`'s (rebound): it keeps its own past."""
        del self.aliases[alias]
        if not self.is_key(target):
            return
        self.keys[alias] = self.keys.get(target, self.keys.get(_base(target), 0))
        use = self.prior_use(target)
        if use is not None:
            self.consumed[alias] = use
        if target in self.single:
            self.single.add(alias)

    def forget_items(self, name: str, ref: str | None = None, held: bool = True) -> None:
        """What `name[...]` (or just `ref`) holds is unknown again: the container was changed or rebound. A name's
        containers are its own and, when `held`, those of its attributes (`state.info[...]` of `state`)."""
        for known in [*self.aliases, *self.keys, *self.single, *self.consumed]:
            if (
                _is_item(known)
                and (_base(known) == name or held and _holder(known) == name)
                and (ref is None or known == ref)
            ):
                self.aliases.pop(known, None)
                if _base(known) not in self.keys:  # (not an item of a split array: a container's)
                    self.keys.pop(known, None)
                    self.consumed.pop(known, None)
                self.single.discard(known)

    def fields_kept(self, name: str, replaced: frozenset[str]) -> tuple[dict, dict, dict, set]:
        """What is known of the refs under the attributes of `name` but `replaced` (`state.info['rng']` of `state`
        for a copy `state.replace(obs=...)`), to give back to `name` bound to that copy (`keep_fields`)."""

        def kept(ref: str) -> bool:
            return ref.startswith(f"{name}.") and ref[len(name) + 1 :].split(".")[0].split("[")[0] not in replaced

        return (
            {ref: depth for ref, depth in self.keys.items() if kept(ref)},
            {ref: use for ref, use in self.consumed.items() if kept(ref)},
            {ref: target for ref, target in self.aliases.items() if kept(ref)},
            {ref for ref in self.single if kept(ref)},
        )

    def keep_fields(self, kept: tuple[dict, dict, dict, set]) -> None:
        keys, consumed, aliases, single = kept
        self.keys.update(keys)
        self.consumed.update(consumed)
        self.aliases.update(aliases)
        self.single |= single

    def held_containers(self, name: str) -> set[str]:
        """The dicts held in attributes of `name` whose entries are known (`state.info` of `state.info['rng']`)."""
        return {
            _base(known)
            for known in [*self.aliases, *self.keys, *self.single, *self.consumed]
            if _is_item(known) and _holder(known) == name and _base(known) != name
        }

    def changed(self, container: str, ref: str | None = None, held: bool = True) -> None:
        """The container `container` (a name, `state.info`) was changed (an entry stored, a method called, handed to a
        call): what its entries hold is unknown again (`ref`: only that entry), under every name of it (`shared`);
        with `held`, so are the entries of the dicts its attributes hold."""
        self.forget_items(container, ref, held)
        for alias, other in self.shared.items():
            if alias == container:
                self.forget_items(other)
            elif container in (other, other.split(".", 1)[0]):
                self.forget_items(alias)

    def forget_fields(self, name: str, changed: Callable[[str], bool] = lambda attribute: True) -> None:
        """What `name.x` holds is unknown again for each attribute `x` that is `changed`: the object was handed to code
        that may assign it. Another name of the key it held (`key = self.key`) keeps that key, with its past."""
        for alias, target in list(self.aliases.items()):
            if _attribute(target) and _holder(target) == name and changed(target.partition(".")[2]):
                self._detach(alias, target)
        for known in [ref for ref in self.consumed if _attribute(ref) and _holder(ref) == name]:
            if changed(known.partition(".")[2]):
                del self.consumed[known]

    def alias(self, ref: str, target: str) -> None:
        """`ref` now names the key `target` names."""
        target = self.resolve(target)
        if target != ref:
            self.aliases[ref] = target

    def item_key(self, ref: str, single: bool) -> None:
        """A fresh key stored in a container: `keys = {"init": jax.random.key(0)}`."""
        self.keys[ref] = len(self.loops)
        if single:
            self.single.add(ref)

    def add_parameter(self, name: str, given_key: bool = False) -> None:
        """A parameter holds a key when some caller passes one (`given_key`), or when it is named like one."""
        if given_key or self.named_like_key(name):
            self.keys[name] = 0
            self.params.add(name)
        else:
            self.others.add(name)

    def learnable(self, ref: str) -> bool:
        """Whether `learn` makes `ref` a key: anything but an attribute (a key-named one is a key already) and a
        constant (`None` given where a helper draws only from a key it is given)."""
        return ref not in _CONSTANTS and not _base(self.resolve(ref)).startswith("self.")

    def learn(self, ref: str) -> None:
        """`ref` is the key argument of a `jax.random` function: it holds a key whatever its name, since jax
        raises on anything else (values, not names). Attributes other than key-named ones stay unknown."""
        ref = self.resolve(ref)
        base = _base(ref)
        if _made_from(ref):
            self.keys.setdefault(ref, len(self.loops))  # made here, from this iteration's values
            return
        if _is_item(ref) and base not in self.keys and (ref[len(base) + 1] in "'\"" or base == self.carry):
            self.keys.setdefault(ref, 0)  # `rngs["dropout"]`: this entry holds a key, not `rngs`
            return
        if base not in self.keys and not base.startswith("self."):
            self.keys[base] = 0
            if base in self.others:
                self.others.discard(base)
                self.params.add(base)

    def is_key(self, ref: str) -> bool:
        ref = self.resolve(ref)
        base = _base(ref)
        if base in self.keys or ref in self.keys:
            return True
        if base.startswith("self.") and self.named_like_key(base):
            self.keys[base] = 0  # `self.rng` of the instance: a key from the method's start
            return True
        return False

    # ------------------------------------------------------------------ queries

    def prior_use(self, ref: str) -> Use | None:
        """An earlier consumption of `ref`, of the whole array it indexes, or of an item or slice of it sharing a key."""
        ref = self.resolve(ref)
        if ref in self.consumed:
            return self.consumed[ref]
        base = _base(ref)
        if ref != base:
            whole = self.consumed.get(base)
            if whole is not None:
                return whole
            return next((use for r, use in self.consumed.items() if _base(r) == base and _overlap(r, ref)), None)
        return next((use for r, use in self.consumed.items() if _base(r) == base), None)

    def reused_by_loop(self, ref: str) -> bool:
        """Bound outside the innermost loop and never rebound in its body: every iteration sees it. (A key made
        right there, `key(step)`, is made in the iteration: `_same_each_iteration` asks whether it is the same.)"""
        if not self.loops or _made_from(ref):
            return False
        written = _base(ref)
        if _is_item(ref) and written not in self.keys and {f"{written}[]", f"{_holder(ref)}[]"} & self.loops[-1]:
            return False  # `keys["init"] = ...`, `keys.update(...)` in the body: the container changes
        ref = self.resolve(ref)
        base = _base(ref)
        depth = self.keys.get(ref, self.keys.get(base, 0))
        if ref in self.invariant:
            return depth < len(self.loops)
        inner = self.loops[-1]
        return depth < len(self.loops) and base not in inner and written not in inner and _holder(ref) not in inner

    def consume(self, ref: str, use: Use) -> None:
        """The first consumption of each kind is kept (`Use.other`)."""
        ref = self.resolve(ref)
        known = self.consumed.get(ref)
        if self.equal:
            use = replace(use, when=frozenset(self.equal.items()))
        if known is None:
            self.consumed[ref] = use
        elif known.folded != use.folded and known.other is None:
            self.consumed[ref] = replace(known, other=use)


class KeyFlow(Domain):
    """Follows key bindings and consumptions through the traversal, beside the value tracker.

    Like the tracker, its visit hooks run before the rules' and its leave hooks after: a rule
    asking about a call sees the keys as they were just before it. Consumptions by same-module
    functions come from the previous round's summaries (`RoundFacts.consuming`).
    """

    # After `for layer in layers: key, sub = split(key)`, `key` is the last pass's fresh key: a reuse only a loop
    # that never runs would make is a guess about the iterable, and the pass that reuses a consumed key is the
    # body's own first one, found there.
    for_loops_run = True

    def __init__(self, tracker, module: cst.Module, key_names: tuple[str, ...] = DEFAULT_KEY_NAMES) -> None:
        self._tracker = tracker
        self._key_names = key_names
        self._states = [KeyState(key_names)]
        self._functions: list[cst.CSTNode | None] = [None]
        self._comprehensions: list[cst.BaseComp] = []  # those around this point, innermost last
        self._selects: list[tuple[cst.Call, set[int], list[KeyState]]] = []  # arms; the state before, after each
        self._notebook = False
        self._timing = False  # in a statement `%timeit` times
        self._pure: set[str] = set()  # names bound to jitted or vmapped functions
        self._unread: set[int] = set()  # calls in loop bodies whose results nobody reads
        self._loop_targets: list[set[str]] = []  # of each loop around this point, innermost last
        # Of each loop around this point: its scope's keys, how many loops are around there, and the loop.
        self._loops: list[tuple[KeyState, int, cst.CSTNode]] = []
        # Of each branch around this point: where it runs in one iteration at most of the loop (loop_guards.py),
        # the scope's keys and the depth of that loop; None for the others.
        self._once: list[tuple[KeyState, int] | None] = []
        self._written: dict[str, str] = {}  # of the last call `uses` answered: the ref told -> as written there
        # A name bound to a key made from values after a draw from that key (`k = fold_in(rng, step)` made again),
        # with the key's made form
        self._remade: dict[str, str] = {}
        self._syntax = _syntax_of(module)
        self._closed: dict[int, set[str]] = {}  # by module-level def: the names it draws, unbound (_closed_draws)
        self._bound_calls: dict[str, cst.Call | None] = {}  # by name: the call it was last bound to in the walk
        self._module = module
        self._rebound: dict[int, set[str]] = {}  # of each function: the names its body binds (_rebound_in)
        self._branch_draws: dict[int, list[tuple[cst.BaseExpression, str, frozenset[int]]]] = {}  # _branches_consuming
        self._folded_hops: set[tuple[int, str]] = set()  # (a call's function, a closed key) drawn folded there
        self._annotated: dict[tuple[int, str], cst.BaseExpression | None] = {}  # by scope and name: _module_method
        self._folded: set[int] = set()  # the key arguments drawn from through keys fold_in derives (Use.folded)
        self._seeded: set[int] = set()  # of those, the seeds of a stream that folds in only a count (STREAM_SEEDERS)
        self._again: dict[cst.CSTNode, list[tuple[cst.BaseExpression, str, str, Use]]] = {}  # consumed_again
        self._hops: dict[int, list[tuple[cst.BaseExpression, str | None]]] = {}  # of each call: _hop_consuming
        self._entries_changed: dict[tuple[int, str], bool] = {}  # of each function and parameter: changes_entries
        self._fields_changed: dict[tuple[int, str], bool] = {}  # of each function and `param.attribute`: changes_fields
        self._loop_fields: dict[tuple[int, str], bool] = {}  # of each loop and attribute: _field_changed_in_loop
        self._defaults: dict[int, dict[str, str]] = {}  # of each def: its key defaults' refs, by parameter
        self._default_of: dict[str, tuple[cst.FunctionDef, cst.Param]] = {}  # of each key default's ref
        self._imported_default_of: dict[str, tuple[str, str]] = {}  # of another module's: its function and parameter

    def _unseen_results(self, function: cst.CSTNode) -> set[int]:
        if type(function) is not cst.FunctionDef:
            return set()
        unseen = self._syntax.unseen
        if id(function) not in unseen:
            unseen[id(function)] = unseen_results(function, self._tracker.names)
        return unseen[id(function)]

    def _parameter_guards(self, function: cst.CSTNode, node: cst.CSTNode) -> tuple[Guard, ...]:
        if type(function) is not cst.FunctionDef:
            return ()
        return module_parameter_guards(self._module, function).get(id(node), ())

    @property
    def state(self) -> KeyState:
        return self._states[-1]

    def _cell_start(self, node: cst.CSTNode) -> None:
        """A notebook cell restarts from the notebook's keys: each cell's experiment is its own. A key
        used twice within one cell is still reuse; across cells it is counted once per cell."""
        if len(self._states) == 1 and starts_cell(node):
            self.state.consumed.clear()
            self._notebook = True

    visit_If = visit_With = visit_Try = visit_TryStar = _cell_start

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._cell_start(node)
        # `%timeit normal(key, (n,))`: IPython runs the statement apart, again and again, and throws its results
        # away; what it draws is no key's use.
        self._timing = timing_magic(node) == "%timeit"

    def leave_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._timing = False
        if self._loops and any(type(small) is cst.Continue for small in node.body):
            loop = self._loops[-1][2]
            if type(loop) is cst.For or type(loop) is cst.While:
                self._fresh_next_pass(loop, node)

    def _fresh_next_pass(self, loop: cst.For | cst.While, line: cst.SimpleStatementLine) -> None:
        """At a `continue`, the rest of the body runs next in the next iteration (the engine keeps this path on:
        Domain.sees_next_iteration), after the loop binds its target and the statements above the one holding the
        `continue` bind theirs again: a name they bind before any read of it holds a new key there (`rng, sub =
        split(rng)` at the top: `sub` is new, `rng` is not)."""
        fresh = set(target_names(loop.target)) if type(loop) is cst.For else set()
        read = mentioned_names(loop.test) if type(loop) is cst.While else set()
        for statement in loop.body.body if type(loop.body) is cst.IndentedBlock else ():
            if any(node is line for node, _ in in_order(statement)):
                break
            if type(statement) is not cst.SimpleStatementLine:
                read |= mentioned_names(statement)  # (an `if` or a loop may bind on some paths only)
                continue
            for small in statement.body:
                value = getattr(small, "value", None) if type(small) in (cst.Assign, cst.AnnAssign) else small
                read |= mentioned_names(value) if value is not None else set()
                fresh |= set(rebound_names([small])) - read
        else:
            return
        for ref in [ref for ref in self.state.consumed if any(_within(ref, name) for name in fresh)]:
            del self.state.consumed[ref]

    def visit_For(self, node: cst.For) -> None:
        self._cell_start(node)
        self._unread |= unread_draws(node.body, self._is_pure)

    def visit_Assign(self, node: cst.Assign) -> None:
        value = node.value
        if type(value) is cst.Call and self._tracker.names.qualified(value.func) in self._tracker.transforms.all:
            self._pure.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))

    def _is_pure(self, call: cst.Call) -> bool:
        """A call with no effect but its result: a `jax.random` draw, or a jitted or vmapped function."""
        if sampler_key(call, self._tracker.names) is not None:
            return True
        return isinstance(call.func, cst.Name) and call.func.value in self._pure

    def unread(self, call: cst.Call) -> bool:
        """A call in a loop body whose result nobody reads there (`unread_draws`)."""
        return id(call) in self._unread

    visit_ClassDef = visit_FunctionDef = _cell_start

    # ------------------------------------------------------------------ queries for rules

    def uses(self, call: cst.Call) -> list[tuple[cst.BaseExpression, str, str]]:
        """The keys this call consumes: (argument, ref, consumer name)."""
        found = []
        self._written = {}
        sampled = self._drawn_key(call)
        candidates = [sampled] if sampled else []
        # In a notebook's cells, a call of the notebook's own function is a run of an experiment (the same
        # simulation at two settings, side by side), each its own as each cell is; a script's is a draw.
        given: set[int] = set()  # the arguments a function of the project draws from: keys, whatever their names
        if not (self._notebook and len(self._states) == 1):
            for expr in self._given_to_consumers(call):
                candidates.append((expr, f"{_callee_name(call)}()"))
                given.add(id(expr))
            self._folded.update(map(id, self._tracker.known.folding.get(call, ())))
            for name in self._module_keys_drawn(call):
                if self.state.is_key(name):
                    found.append((call.func, name, f"{_callee_name(call)}()"))
            for default in (*self._defaults_drawn(call), *self._imported_defaults(call)):
                for state in self._states:
                    state.keys.setdefault(default, 0)  # made when the def ran: outside every loop of every scope
                found.append((call.func, default, f"{_callee_name(call)}()"))
            hops = self._hop_consuming(call)
            drawn_hops = {id(expr) for expr, hop in hops if (id(expr), hop) not in self._folded_hops}
            self._folded.update(id(expr) for expr, _ in hops if id(expr) not in drawn_hops)
            for expr, hop in hops:
                if hop is None:
                    candidates.append((expr, f"{_callee_name(call)}()"))
                elif (
                    self.state.is_key(hop)
                    or (name_item(hop) and _base(hop) in self.state.params | self.state.others)
                    or _attribute(hop)  # a kept attribute of the receiver (`agent.key`)
                ):
                    target = self.state.resolve(hop)
                    told = _told(hop, target)
                    self._written[told] = hop
                    found.append((expr, told, f"{_callee_name(call)}()"))
        seeded = self._stream_seeds(call)
        folded = [*self._module_keys(call), *seeded]
        self._folded.update(id(expr) for expr, _ in folded)
        self._seeded.update(id(expr) for expr, _ in seeded)
        candidates.extend(folded)
        candidates.extend(self._branch_consuming(call))
        candidates.extend(self._carry_consuming(call))
        candidates.extend((expr, by) for expr, _, by in self.drawn_per_leaf(call))
        seen: set[int] = set()
        for expr, by in candidates:
            if id(expr) in seen:
                continue  # one argument, one consumption: a callee known both here and through its import
            seen.add(id(expr))
            ref = self._key_ref(expr)
            # The key a sampler draws from holds a key whatever its name (jax raises on anything else): for the
            # rules asking before the call is left (and `learn` runs), known already.
            # So does a place of a lax loop body's carry that a sampler or a callee draws from (`perturb(carry["key"])`).
            if ref is not None and (
                self.state.is_key(ref)
                or (((sampled is not None and expr is sampled[0]) or id(expr) in given) and self.state.learnable(ref))
                or self._carry_item(ref)
            ):
                target = self.state.resolve(ref)
                # another name of a key (`keys["init"]` of `{"init": rng}`): told by the key's own name
                told = _told(ref, target)
                self._written[told] = ref
                # A key a `partial` holds is drawn where the partial is called (`draw(shape)`).
                held = sampled is not None and expr is sampled[0] and all(arg.value is not expr for arg in call.args)
                found.append((call.func if held else expr, told, by))
        for init, ref, by in self._carry_items_consumed(call):
            target = self.state.resolve(ref)
            told = _told(ref, target)
            self._written[told] = ref
            found.append((init, told, by))
        return found

    def made_from_values(self, ref: str) -> str | None:
        """Keys.made_from_values: for a name bound to it after it was consumed."""
        made = self._remade.get(ref)
        return made if made is not None and self.state.resolve(ref) == made else None

    def _module_keys_drawn(self, call: cst.Call) -> set[str]:
        """The module-level keys a module-level function of this module draws from, closing over them, when the
        call reaches the same names (not rebound around it): each call draws from them again (`@jax.jit def
        noise(): return uniform(KEY)` called twice, or `jax.grad(loss_fn)(params)` at every step; jax:
        "Previously-consumed key passed to jit-compiled function")."""
        if not self.state.keys:
            return set()  # no key here to draw again (`is_key` below)
        # (`loss_fn(x)`, `jax.grad(loss_fn)(x)`, `step(x)` of `step = jit(loss_fn)`)
        target, _ = self._called_target(call)
        if type(target) is cst.Attribute and type(target.value) is cst.Name and target.value.value == "self":
            method, _ = self._callee(call)  # `self._train_epoch(n)`: a method reads the module's names as well
            if type(method) is not cst.FunctionDef:
                return set()
            function = method
        elif type(target) is cst.Name:  # a module-level def is called by its name
            found = self._tracker.callees.bindings.binding(target, tuple(self._tracker.chain), want_def=True)
            if found is None or type(found[0]) is not cst.FunctionDef or found[2] or len(found[1]) != 1:
                return set()
            function = found[0]
        else:
            return set()
        drawn, here = self._closed_draws(function), self._functions[-1]
        if not drawn:
            return drawn
        if type(here) is cst.FunctionDef:
            return drawn - self._rebound_in(here) - set(parameter_names(here.params))
        return drawn if here is None else set()

    def _defaults_drawn(self, call: cst.Call) -> list[str]:
        """The key defaults of the def of this module a call runs that the call leaves out and the def draws from: a
        default is evaluated once, when the def runs, so every call that leaves it out draws from that one key
        (`def augment(x, key=jax.random.key(0))`, `key=next_key()`; jax: the same numbers at every call)."""
        drawn = self._tracker.known.consumes
        if not drawn:
            return []
        function, bound = self._callee(call)
        if type(function) is not cst.FunctionDef or not drawn.get(function):
            return []
        defaults = self.key_defaults(function)
        given = arguments_given(function, bound, call) if defaults else None
        if given is None or any(arg.star for arg in call.args):
            return []
        sites = self._tracker.known.drawn_sites.get(function, {})
        return [
            ref
            for param, ref in defaults.items()
            if param in drawn[function] and param not in given and live(sites.get(param, ()), function, bound, call)
        ]

    def key_defaults(self, function: cst.FunctionDef) -> dict[str, str]:
        """The parameters of a def whose default makes a key (`key=jax.random.key(0)`, a call giving one to a
        parameter named like a key), each with the ref of that one key."""
        if id(function) not in self._defaults:
            found = {}
            params = function.params
            for param in (*params.posonly_params, *params.params, *params.kwonly_params):
                default = param.default.value if type(param.default) is cst.Subscript else param.default
                name = param.name.value
                if type(default) is cst.Call and (
                    makes_key(default, self._tracker.names) or self.state.named_like_key(name)
                ):
                    ref = f"{function.name.value}:{name}:{len(self._default_of)}"  # (no name of the code's)
                    self._default_of[ref] = (function, param)
                    found[name] = ref
            self._defaults[id(function)] = found
        return self._defaults[id(function)]

    def key_default(self, ref: str) -> KeyDefault | None:
        """For the ref of a key default (`key_defaults`, `_imported_defaults`): whose default it is."""
        local = self._default_of.get(ref)
        if local is not None:
            function, param = local
            return KeyDefault(function.name.value, param.name.value, param.default)
        imported = self._imported_default_of.get(ref)
        return KeyDefault(*imported, None) if imported is not None else None

    def _imported_defaults(self, call: cst.Call) -> list[str]:
        """The key defaults of another module's function (Consumes.defaults) that a call leaves out: each call
        leaving one out draws from the one key its def made."""
        found = self._imported_call(call)
        if found is None or found.starred:
            return []
        qualified, consumes, given = found.qualified, found.consumes, found.given
        refs = []
        for param in consumes.defaults:
            if param not in given:
                ref = f"{qualified.replace('.', '/')}:{param}"  # (no name of the code's)
                self._imported_default_of[ref] = (qualified, param)
                refs.append(ref)
        return refs

    def _closed_draws(self, function: cst.FunctionDef) -> set[str]:
        """The names a module-level function draws from without binding them, itself or through the module-level
        functions it calls by name (a jitted step whose dropout helper draws from the module's `rng`): the module's
        variables, whichever function reads them."""
        closed = self._closed
        if id(function) in closed:
            return closed[id(function)]
        closed[id(function)] = set()  # (a function that calls itself adds nothing on the way)
        own = set(parameter_names(function.params)) | rebound_names(function.body)
        drawn = self._unchanged_draws(function.body) - own
        defs = self._syntax.module_defs(self._module)
        consumes = self._tracker.known.consumes
        for node, _ in in_order(function.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value not in own:
                callee = defs.get(node.func.value)
                if callee is not None and callee is not function:
                    drawn |= self._closed_draws(callee)
                    # `init_fn(rand_key, shape)` of an `init_fn` that draws from its `key`: the module's `rand_key`
                    drawn |= _handed_to(node, callee, consumes.get(callee, frozenset())) - own
        closed[id(function)] = drawn
        return drawn

    def _hop_consuming(self, call: cst.Call) -> list[tuple[cst.BaseExpression, str | None]]:
        """What a call spends one hop away (key_hops.py): the keys of the enclosing function that the nested def or
        lambda it runs draws from (the called expression, with the key's ref), and the dict entries given to a
        function that draws from them (a display's value, with None; a name, with its entry's ref)."""
        if id(call) not in self._hops:
            self._hops[id(call)] = self._find_hops(call)
        return self._hops[id(call)]

    def _find_hops(self, call: cst.Call, ahead: bool = False) -> list[tuple[cst.BaseExpression, str | None]]:
        found = self._imported_items(call) + self._imported_fields(call)
        known = self._tracker.known
        if not known.closes and not known.items and not known.fields:
            return found
        found += self._bodies_closing(call)
        function, bound = self._callee(call, ahead)
        if not isinstance(function, (cst.FunctionDef, cst.Lambda)):
            return found
        closes, items = known.closes.get(function, {}), known.items.get(function, {})
        fields = known.fields.get(function, {})
        if not (closes or items or fields) or not runs_when_called(function):  # (the cheap question first)
            return found
        receiver = call.func.value if type(call.func) is cst.Attribute else None
        if type(receiver) is cst.Name and bound == 1:  # `agent.act(x)`: its `self` is `agent`
            for ref, sites in fields.items():
                if live(sites, function, bound, call):
                    found.append((receiver, f"{receiver.value}.{ref.partition('.')[2]}"))
        folded = known.closes_folded.get(function, frozenset())
        for (ref, owner), sites in closes.items():
            if self._owner(_base(ref)) is owner and live(sites, function, bound, call):
                found.append((call.func, ref))
                if (ref, owner) in folded:
                    self._folded_hops.add((id(call.func), ref))
        drawn: dict[str, set[str | int]] = {}
        drawn_fields: dict[str, set[str]] = {}
        for ref, sites in items.items():
            if not live(sites, function, bound, call):
                continue
            if (entry := name_item(ref)) is not None:
                drawn.setdefault(entry[0], set()).add(entry[1])
            elif (attribute := param_field(ref)) is not None:
                drawn_fields.setdefault(attribute[0], set()).add(attribute[1])
        positional = Signature.of(function.params).positional[bound:]
        if drawn:
            found += item_arguments(call, positional, {name: frozenset(items) for name, items in drawn.items()})
        if drawn_fields:
            found += field_arguments(call, positional, {name: frozenset(got) for name, got in drawn_fields.items()})
        return found

    def _bodies_closing(self, call: cst.Call) -> list[tuple[cst.BaseExpression, str | None]]:
        """The keys of the enclosing function that the functions a lax call runs (`lax.scan(body, ...)`, the
        branches of `lax.cond`) draw from, each with the function given: the call spends them, once (one branch of a
        `cond` runs; a loop's body draws the same numbers at each iteration, JAX202's finding there)."""
        spec = LAX_BODIES.get(self._tracker.names.qualified(call.func) or "")
        if spec is None:
            return []
        known, chain = self._tracker.known, self._tracker.chain
        found: dict[str, cst.BaseExpression] = {}
        for position, keyword in zip(*spec):
            body = argument(call, position, keyword)
            function = self._tracker.recorder.function_at(chain, body)[0] if body is not None else None
            if not isinstance(function, (cst.FunctionDef, cst.Lambda)) or not runs_when_called(function):
                continue
            for ref, owner in known.closes.get(function, {}):
                if self._owner(_base(ref)) is owner:
                    found.setdefault(ref, cast(cst.BaseExpression, body))
        return [(body, ref) for ref, body in found.items()]

    def folded(self, expr: cst.BaseExpression) -> bool:
        """Whether `uses` gave `expr` as a key drawn from through keys fold_in derives (Use.folded)."""
        return id(expr) in self._folded

    def seeded(self, expr: cst.BaseExpression) -> bool:
        """Whether `uses` gave `expr` as the seed of a stream of keys that folds in only a count (STREAM_SEEDERS)."""
        return id(expr) in self._seeded

    def _entries_drawn(self, call: cst.Call) -> set[str]:
        """The names given to a call whose entries its callee draws from, which it never changes (`_drawn_entry`):
        `meta` of `run(meta)` for a `run` that splits `meta["key"]`."""
        return _entries(self._hop_consuming(call))

    def _entries_drawn_ahead(self, call: cst.Call) -> set[str]:
        """`_entries_drawn` for a call of a loop body asked before the walk reaches it, when less is known there
        (what its receiver is): not kept for the call's own turn."""
        return _entries(self._hops[id(call)] if id(call) in self._hops else self._find_hops(call))

    def _imported_items(self, call: cst.Call) -> list[tuple[cst.BaseExpression, str | None]]:
        """The dict entries and the attributes of objects given to another module's function that draws from them (its
        interface says)."""
        context = self._tracker.context
        if context is None or not context.imported.consumes:
            return []
        consumes = context.imported.consumes.get(self._tracker.names.qualified(call.func) or "")
        if consumes is None:
            return []
        drawn: dict[str, frozenset[str | int]] = {}
        fields: dict[str, frozenset[str]] = {}
        for ref in consumes.params:
            if (entry := name_item(ref)) is not None:
                drawn[entry[0]] = drawn.get(entry[0], frozenset()) | {entry[1]}
            elif (attribute := param_field(ref)) is not None:
                fields[attribute[0]] = fields.get(attribute[0], frozenset()) | {attribute[1]}
        found = item_arguments(call, consumes.positional, drawn) if drawn else []
        return found + field_arguments(call, consumes.positional, fields) if fields else found

    def _imported_fields(self, call: cst.Call) -> list[tuple[cst.BaseExpression, str | None]]:
        """The kept keys of an instance of another module's class whose method draws from them (its interface says:
        `self.key` among what `Agent.act` consumes), as `agent.key` for `agent.act(obs)`; none that this module may
        assign itself."""
        context, func = self._tracker.context, call.func
        if context is None or not context.imported.consumes or type(func) is not cst.Attribute:
            return []
        receiver = func.value
        if type(receiver) is not cst.Name:
            return []
        qualified, through_instance = self._tracker.project_callee(func)
        consumes = context.imported.consumes.get(qualified or "") if through_instance else None
        if consumes is None:
            return []
        stable = stable_fields(self._module)
        attributes = [ref.partition(".")[2] for ref in consumes.params if ref.startswith("self.")]
        return [(receiver, f"{receiver.value}.{name}") for name in attributes if not stable.may_store(name)]

    def _names_of(self, function: cst.FunctionDef | cst.Lambda) -> tuple[frozenset[str], frozenset[str]]:
        """The names a function binds itself, and those it declares `global` or `nonlocal`."""
        found = self._syntax.scope_names
        if id(function) not in found:
            found[id(function)] = (local_names(function), declared(function))
        return found[id(function)]

    def _unchanged_draws(self, body: cst.BaseSuite) -> set[str]:
        """_drawn_unchanged of a body of this module (found once for every round)."""
        unchanged = self._syntax.drawn_unchanged
        if id(body) not in unchanged:
            unchanged[id(body)] = _drawn_unchanged(body, self._tracker.names)
        return unchanged[id(body)]

    def _owner(self, name: str) -> cst.CSTNode | None:
        """The function whose variable `name` is where the walk is: the innermost def or lambda around this point
        that binds it. None when it is a module's or a class's name, or when a comprehension between may bind it."""
        previous = None
        for function in reversed(self._functions):
            if function is None or function is previous:
                return None  # module level or a class body; a comprehension repeats its function
            previous = function
            bound, declared_outer = self._names_of(cast("cst.FunctionDef | cst.Lambda", function))
            if name in declared_outer:
                return None
            if name in bound:
                return function
        return None

    def _closure_owner(self, ref: str) -> cst.CSTNode | None:
        """The enclosing function whose variable the key `ref` is, when the current function draws from it free."""
        here, base = self._functions[-1], _base(ref)
        if here is None or "." in base:
            return None
        owner = self._owner(base)
        return owner if owner is not here else None

    def _drawn_entry(self, function: cst.CSTNode, ref: str, call: cst.Call) -> bool:
        """Whether `ref` is an entry or a place of a parameter, as the caller gave it (`rngs['dropout']` of `rngs`,
        `args[1]` of `args`), where `call` draws from it: the function never changes its items, or changes them only
        after this draw (`info["rng"], k = split(info["rng"])`: the caller's key is drawn from first)."""
        entry = name_item(ref)
        if entry is None or entry[0] not in self.state.params | self.state.others:
            return False
        at = (id(function), entry[0])
        if at not in self._entries_changed:
            self._entries_changed[at] = changes_entries(cast("cst.FunctionDef | cst.Lambda", function), entry[0])
        if not self._entries_changed[at]:
            return True
        return not entries_changed_before(cast("cst.FunctionDef | cst.Lambda", function), entry[0], call)

    def _kept_field(self, function: cst.CSTNode, ref: str) -> bool:
        """Whether `ref` is an attribute of the method's `self` that the instance keeps from its construction
        (stable_fields.py): each call of the method draws from the one key stored there."""
        if not ref.startswith("self.") or _is_item(ref) or ref.count(".") != 1 or type(function) is not cst.FunctionDef:
            return False
        chain = self._tracker.chain
        if len(chain) < 2 or chain[-1] is not function or type(chain[-2]) is not cst.ClassDef:
            return False
        positional = Signature.of(function.params).positional
        if not positional or positional[0] != "self" or function.decorators:
            return False
        return stable_fields(self._module).keeps(chain[-2], ref[len("self.") :])

    def _branch_consuming(self, call: cst.Call) -> list[tuple[cst.BaseExpression, str]]:
        """The operands of `lax.cond(pred, true_fun, false_fun, *operands)` or `lax.switch(index, branches,
        *operands)` that some branch draws from (or the items of a display given as one, `operand=(x, key)` for a
        branch that unpacks `x, key = args`). Only one branch runs: an operand key drawn from in every
        branch is consumed once (jax's key-reuse checker accepts it), and consumed all the same (a draw
        from it after the `cond` raises KeyReuseError)."""
        return [(operand, qualified) for operand, qualified, _ in self._branches_consuming(call)]

    def _branches_consuming(self, call: cst.Call) -> list[tuple[cst.BaseExpression, str, frozenset[int]]]:
        """`_branch_consuming`, with the positions of the branches that draw from each operand (asked for the call
        and for each key it consumes: found once)."""
        if id(call) not in self._branch_draws:
            self._branch_draws[id(call)] = self._find_branch_draws(call)
        return self._branch_draws[id(call)]

    def _find_branch_draws(self, call: cst.Call) -> list[tuple[cst.BaseExpression, str, frozenset[int]]]:
        qualified = self._tracker.names.qualified(call.func)
        if qualified not in BRANCHING or any(arg.star for arg in call.args):
            return []
        values = [arg.value for arg in call.args if arg.keyword is None]
        keywords = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
        words = LAX_OPERANDS[qualified][1] if qualified in LAX_OPERANDS else ()
        if len(keywords) > 1 or set(keywords) - set(words):
            return []
        paired = PAIRED_BRANCHES.get(qualified, ())
        if not keywords and len(values) == 5 and paired:
            if all(self._branch_function(values[at]) is not None for at, _ in paired):
                return [(*found, frozenset()) for found in self._paired_consuming(values, paired, qualified)]
        if qualified in CONDS:
            if len(values) < 3:
                return []
            branches, operands = values[1:3], values[3:]
        else:
            shown = self._branch_list(values[1]) if len(values) >= 2 else None
            if shown is None:
                return []
            branches, operands = [element.value for element in shown.elements], values[2:]
        if keywords:  # `cond(pred, f, g, operand=(x, key))`: the one operand
            operands = [*operands, *keywords.values()]
        found: dict[int, tuple[cst.BaseExpression, frozenset[int]]] = {}
        for at, branch in enumerate(branches):
            for index in self._consumed_parameters(branch):
                if index < len(operands):
                    operand = operands[index]
                    found[id(operand)] = (operand, found.get(id(operand), (operand, frozenset()))[1] | {at})
            for index, drawn in self._consumed_items(branch).items():
                for item in displayed_items(operands[index], drawn) if index < len(operands) else ():
                    found[id(item)] = (item, found.get(id(item), (item, frozenset()))[1] | {at})
        return [(operand, cast(str, qualified), drawing) for operand, drawing in found.values()]

    def _branch_guard(self, function: cst.CSTNode, call: cst.Call, expr: cst.BaseExpression) -> Guard | None:
        """The test a key given to `lax.cond` is drawn under, when only one branch draws from it and its predicate
        tests parameters the function never binds again (`cond(rate > 0.0, dropout, keep, (x, key))`): a call
        whose literals decide it (`rate=0.0`) draws nothing, as `if rate > 0.0:` would (key_hops.live)."""
        qualified = self._tracker.names.qualified(call.func)
        if qualified not in CONDS or type(function) is not cst.FunctionDef or not call.args:
            return None
        drawing = next((at for operand, _, at in self._branches_consuming(call) if operand is expr), frozenset())
        predicate = call.args[0].value
        if len(drawing) != 1 or call.args[0].keyword is not None:
            return None
        if not tested_names(predicate) <= set(parameter_names(function.params)) - self._rebound_in(function):
            return None
        return predicate, 0 in drawing

    def _passed_guards(
        self, function: cst.CSTNode, call: cst.Call, expr: cst.BaseExpression
    ) -> list[tuple[Guard, ...]]:
        """The tests a callee of the module draws from the parameter given `expr` under, when each tests only
        parameters the call hands the caller's own of the same name, never bound again
        (`self._predict(params, x, key, rate)` of a `_predict` that draws under `rate > 0.0`): the caller draws
        under the same tests, so a call of the caller with `rate=0.0` draws nothing. Empty when some draw is not
        so guarded."""
        callee, bound = self._callee(call)
        if type(callee) is not cst.FunctionDef or type(function) is not cst.FunctionDef:
            return []
        given = arguments_given(callee, bound, call) or {}
        param = next((name for name, value in given.items() if value is expr), None)
        sites = self._tracker.known.drawn_sites.get(callee, {}).get(param or "", ())
        own = set(parameter_names(function.params)) - self._rebound_in(function)
        passed = [
            name for name, value in given.items() if type(value) is cst.Name and value.value == name and name in own
        ]
        if not sites or not all(
            guards and all(tested_names(test) <= set(passed) for test, _ in guards) for guards in sites
        ):
            return []
        return list(sites)

    def _site_guards(self, function: cst.CSTNode, call: cst.Call, expr: cst.BaseExpression) -> list[tuple[Guard, ...]]:
        """The tests beyond the `if`s around it that a call's draw from `expr` happens under, one tuple per draw."""
        branch = self._branch_guard(function, call, expr)
        if branch is not None:
            return [(branch,)]
        return self._passed_guards(function, call, expr) or [()]

    def _rebound_in(self, function: cst.FunctionDef) -> set[str]:
        """The names a function's body binds (its parameters among them when it binds them again). (Asked at every
        call of its body: found once.)"""
        if id(function) not in self._rebound:
            self._rebound[id(function)] = rebound_names(function.body)
        return self._rebound[id(function)]

    def drawn_per_leaf(self, call: cst.Call) -> list[tuple[cst.BaseExpression, str, str]]:
        """The keys that the function a tree map runs on each leaf (`jax.tree.map(lambda g: g + normal(rng, g.shape),
        grads)`) draws from as they are outside it, when the tree is known to have two leaves or more (tree_leaves.py):
        (the key argument of the draw, the key, what draws). Every leaf gets the same bits, as every iteration of a
        Python loop over the leaves would (jax's key-reuse checker raises KeyReuseError). Not a `permutation` of the
        leaf (`permutation(key, x, axis=0)`, `x[permutation(key, n)]`): every leaf is shuffled the same way, which
        keeps rows paired, as `[permutation(key, a) for a in arrays]` does."""
        if not self.state.keys or len(call.args) < 2:
            return []  # (no key to draw from here)
        mapped, tree = call.args[0], call.args[1]
        if any(arg.keyword is not None or arg.star for arg in (mapped, tree)) or not self._is_tree_map(call.func):
            return []
        function = self._mapped_function(mapped.value)
        if function is None or not has_many_leaves(tree.value, self._tracker.value_of):
            return []
        return self._outer_draws(function)

    def drawn_per_lane(self, call: cst.Call) -> list[tuple[cst.BaseExpression, str, str, str]]:
        """The keys that a function `jax.vmap` (or `pmap`) runs on every lane of a batch draws from unmapped: a key
        given where `in_axes` is `None` (`jax.vmap(noisy, in_axes=(0, None))(xs, key)`, the key given), or one it
        reads from outside (`jax.vmap(lambda x: x + normal(key, x.shape))(xs)`, the draw's key argument): (that
        expression, the key, what draws, the transform). Every lane gets the same key, so every lane draws the same
        numbers (the same dropout mask for every example), as every iteration of a Python loop over the rows would.
        (The call consumes them once, as a call of the function would: `uses`.)"""
        if not self.state.keys or any(arg.star or arg.keyword is not None for arg in call.args):
            return []
        mapper: cst.CSTNode | None = call.func
        if type(call.func) is cst.Name:
            binding = self._tracker.callees.bindings.binding(call.func, tuple(self._tracker.chain))
            mapper = binding[0] if binding is not None and not binding[2] else None
        transform = self._tracker.names.qualified(mapper.func) if type(mapper) is cst.Call else None
        while transform in SAME_CALL_WRAPPERS and (inner := argument(cast(cst.Call, mapper), 0, "fun")) is not None:
            mapper = inner  # `jax.jit(jax.vmap(f))`: the vmap is called with the jit's arguments
            transform = self._tracker.names.qualified(mapper.func) if type(mapper) is cst.Call else None
        spec = LANE_MAPS.get(transform or "")
        mapped = argument(cast(cst.Call, mapper), 0, "fun") if spec is not None else None
        if spec is None or mapped is None:
            return []
        name = cast(str, transform)
        found = []
        function, bound = self._tracker.recorder.function_at(tuple(self._tracker.chain), mapped)
        in_axes = argument(cast(cst.Call, mapper), *spec)
        if isinstance(function, (cst.FunctionDef, cst.Lambda)) and isinstance(in_axes, (cst.Tuple, cst.List)):
            positional = Signature.of(function.params).positional[bound:]
            drawn = self._tracker.known.drawn_sites.get(function, {})
            by = f"{_last_name(mapped) or 'the function'}()"
            for axis, param, arg in zip(in_axes.elements, positional, call.args):
                ref = self._key_ref(arg.value) if none_axis(axis.value, self._tracker.names) else None
                sites = drawn.get(param)
                if ref is not None and sites and self.state.is_key(ref) and live(sites, function, bound, call):
                    found.append((arg.value, ref, by, name))
        closing = self._mapped_function(mapped)
        return found + [(*draw, name) for draw in (self._outer_draws(closing) if closing is not None else [])]

    def _outer_draws(self, function: cst.Lambda | cst.FunctionDef) -> list[tuple[cst.BaseExpression, str, str]]:
        """The keys of this scope that a function it maps draws from, in every run of it (its whole body runs, and
        no test is around the draw), as (the draw's key argument, the key, what draws); not a `permutation` of what
        it is mapped over (`_shuffles_leaf`)."""
        if not _runs_through(function):
            return []
        own = set(parameter_names(function.params))
        if type(function) is cst.FunctionDef:
            own |= rebound_names(function.body)
        found: list[tuple[cst.BaseExpression, str, str]] = []
        for node, around in in_order(function.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            if type(node) is not cst.Call or any(type(outer) in _CONDITIONAL for outer in around):
                continue  # (a draw some runs may not reach)
            drawn = self._drawn_key(node)
            if drawn is not None and self._shuffles_leaf(node, around, function):
                continue
            draws = [drawn] if drawn is not None else []
            draws += [(expr, f"{_callee_name(node)}()") for expr in self._tracker.known.consuming.get(node, ())]
            for expr, by in draws:
                if type(expr) is cst.Name and expr.value not in own and self.state.is_key(expr.value):
                    found.append((expr, expr.value, by))
        return found

    def _shuffles_leaf(
        self, call: cst.Call, around: tuple[cst.CSTNode, ...], function: cst.Lambda | cst.FunctionDef
    ) -> bool:
        """Whether `call` is a `permutation` of the mapped function's leaf (its first parameter): of an array read
        from it, or one that indexes it (`x[permutation(key, n)]`)."""
        if self._tracker.names.qualified(call.func) != PERMUTATION:
            return False
        leaf = set(parameter_names(function.params)[:1])
        array = argument(call, *SELECTING_SAMPLERS[PERMUTATION])
        if array is not None and mentioned_names(array) & leaf:
            return True
        indexed = around[-3] if len(around) >= 3 and type(around[-1]) is cst.Index else None
        return type(indexed) is cst.Subscript and bool(mentioned_names(indexed.value) & leaf)

    def _is_tree_map(self, func: cst.BaseExpression) -> bool:
        """`jax.tree.map`, or a name this scope binds once to it (`tree_map = tree_util.tree_map`)."""
        names = self._tracker.names
        if names.qualified(func) in TREE_MAPS:
            return True
        bound = (
            self._tracker.callees.bindings.binding(func, tuple(self._tracker.chain)) if type(func) is cst.Name else None
        )
        return bound is not None and isinstance(bound[0], cst.BaseExpression) and names.qualified(bound[0]) in TREE_MAPS

    def _mapped_function(self, expr: cst.BaseExpression) -> cst.Lambda | cst.FunctionDef | None:
        """The lambda a tree map is given, or the one def or lambda of the scope around the call its name binds (whose
        free names are then the ones this scope binds)."""
        if type(expr) is cst.Lambda:
            return expr
        chain = tuple(self._tracker.chain)
        bound = self._tracker.callees.bindings.binding(expr, chain, want_def=True) if type(expr) is cst.Name else None
        if bound is None or bound[2] or bound[1] != chain:
            return None
        return bound[0] if isinstance(bound[0], (cst.Lambda, cst.FunctionDef)) else None

    def _carry_places(self, call: cst.Call) -> tuple[cst.BaseExpression, set[str], str] | None:
        """The initial carry of a lax loop (`fori_loop(0, n, body, (state, key))`, `scan(body, key, xs)`), with the
        places of it that the body (or `while_loop`'s condition) consumes: `` for all of it, `[1]`, `['key']`."""
        qualified = self._tracker.names.qualified(call.func)
        carry = LAX_CARRIES.get(qualified or "")
        bodies = LAX_BODIES.get(qualified or "")
        init = argument(call, carry[0], carry[1]) if carry is not None else None
        if init is None or carry is None or bodies is None:
            return None
        places: set[str] = set()
        for at, word in zip(*bodies):
            given = argument(call, at, word)
            function = self._branch_function(given) if given is not None else None
            if function is None or function.params.star_arg is not cst.MaybeSentinel.DEFAULT:
                continue
            positional = [*function.params.posonly_params, *function.params.params]
            if carry[2] < len(positional):
                name = positional[carry[2]].name.value
                consumed = self._tracker.known.consumes.get(function, frozenset())
                places |= {ref[len(name) :] for ref in consumed if _base(ref) == name}
        return (init, places, cast(str, qualified)) if places else None

    def _carry_consuming(self, call: cst.Call) -> list[tuple[cst.BaseExpression, str]]:
        """The keys of a lax loop's initial carry, written there (`(state, key)`, `{"key": key}`, `key`), that its
        body consumes: once the loop has run they are spent (jax's key-reuse checker raises KeyReuseError on a draw
        from them after the loop), as a call of a function that consumes its parameter spends what it is given."""
        found = self._carry_places(call)
        if found is None:
            return []
        init, places, qualified = found
        if "" in places:
            return [(init, qualified)]
        entries = self._entries(init) or ()
        return [(value, qualified) for literal, value in entries if f"[{literal!r}]" in places]

    def _carry_items_consumed(self, call: cst.Call) -> list[tuple[cst.BaseExpression, str, str]]:
        """`_carry_consuming` for a carry given by its name (`carry = {"key": key}`, then `fori_loop(..., carry)`):
        the refs of its entries the body consumes that hold keys (`carry['key']`, another name of `key`)."""
        found = self._carry_places(call)
        if found is None or type(found[0]) is not cst.Name:
            return []
        init, places, qualified = found
        refs = [f"{cast(cst.Name, init).value}{place}" for place in places if place]
        return [(init, ref, qualified) for ref in refs if self.state.is_key(ref)]

    def _paired_consuming(
        self, values: list[cst.BaseExpression], paired: tuple[tuple[int, int], ...], qualified: str
    ) -> list[tuple[cst.BaseExpression, str]]:
        """The operands of `hk.cond(pred, true_operand, true_fun, false_operand, false_fun)` their branch draws
        from: one key given as both is consumed once, as only one branch runs."""
        found: dict[str, cst.BaseExpression] = {}
        for function, operand in paired:
            if 0 in self._consumed_parameters(values[function]):
                found.setdefault(key_ref(values[operand]) or str(operand), values[operand])
        return [(operand, qualified) for operand in found.values()]

    def _branch_list(self, branches: cst.BaseExpression) -> cst.List | cst.Tuple | None:
        """The list or tuple display of `lax.switch`'s branches, written there or bound once to the name given."""
        found: cst.CSTNode | None = branches
        if type(branches) is cst.Name:
            bound = self._tracker.callees.bindings.binding(branches, tuple(self._tracker.chain))
            found = bound[0] if bound is not None and not bound[2] else None
        return found if isinstance(found, (cst.List, cst.Tuple)) else None

    def _branch_function(self, function: cst.BaseExpression) -> cst.Lambda | cst.FunctionDef | None:
        """The lambda, or the def a name binds, a branch function is; or the def a factory of the module returns, when
        the name binds a call of it (`step_fn = make_train_step(cfg)`, factories.py), nothing bound around it."""
        found: cst.CSTNode | None = function
        bindings = self._tracker.callees.bindings
        if type(function) is cst.Name:
            bound = bindings.binding(function, tuple(self._tracker.chain), want_def=True)
            found = bound[0] if bound is not None and not bound[2] else None
        if type(found) is cst.Call and type(found.func) is cst.Name:
            factory = bindings.binding(found.func, tuple(self._tracker.chain), want_def=True)
            made = (
                product(factory[0], bindings, self._tracker.names, self._tracker.transforms)
                if factory is not None and type(factory[0]) is cst.FunctionDef and not factory[2]
                else None
            )
            found = made.function if made is not None and not made.bound and not made.bound_names else None
        return found if isinstance(found, (cst.Lambda, cst.FunctionDef)) else None

    def _consumed_parameters(self, function: cst.BaseExpression) -> set[int]:
        """The positions of the parameters a branch function (a lambda, a def it names, a method of `self`) draws
        from; a `jax.random` function given as a branch (`lax.cond(p, jax.random.normal, jax.random.uniform, key)`)
        draws from its first."""
        if is_sampler(self._tracker.names.qualified(function)):
            return {0}
        found = self._branch_signature(function)
        if found is None:
            return set()
        consumes = self._tracker.known.consumes.get(found[0], frozenset())
        return {index for index, param in enumerate(found[1]) if param in consumes}

    def _consumed_items(self, function: cst.BaseExpression) -> dict[int, frozenset[str | int]]:
        """The entries and places of each positional parameter a branch function draws from, by position (`{0: {1}}`
        for a branch `def dropout(args): x, key = args` that draws from `key`)."""
        found = self._branch_signature(function)
        drawn = self._tracker.known.items.get(found[0], {}) if found is not None else {}
        if found is None or not drawn:
            return {}
        positions = {param: index for index, param in enumerate(found[1])}
        items: dict[int, frozenset[str | int]] = {}
        for ref in drawn:
            entry = name_item(ref)
            if entry is not None and entry[0] in positions:
                at = positions[entry[0]]
                items[at] = items.get(at, frozenset()) | {entry[1]}
        return items

    def _branch_signature(self, function: cst.BaseExpression) -> tuple[cst.CSTNode, list[str]] | None:
        """The function a branch is (`_branch_function`, or the method `self.f` names), with the parameters its
        operands fill, in order (none for a `*args` or positional-only signature: not followed)."""
        found: cst.CSTNode | None = self._branch_function(function)
        bound = 0
        if found is None and type(function) is cst.Attribute:
            found, bound = self._tracker.recorder.function_at(self._tracker.chain, function)
        if not isinstance(found, (cst.FunctionDef, cst.Lambda)):
            return None
        params = found.params
        if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.posonly_params:
            return None
        return found, [param.name.value for param in params.params[bound:]]

    def _key_ref(self, expr: cst.BaseExpression) -> str | None:
        """`key_ref`, seeing through views of one key: `key[None][0]`, `key.reshape(1)[0]`, `key.reshape(())`,
        `jnp.squeeze(key)`, `lax.squeeze(key[None], (0,))` are `key` itself when `key` is known to hold one key
        (jax: drawing from any of them and from `key` raises KeyReuseError). Of an array of keys (a split, a
        parameter) they may be other keys: unknown. `key if train else None` is `key` where it holds a key (what
        it is given consumes `key` on that path, as a draw under `if train:` does)."""
        expr = _keyed_arm(expr)
        inner, viewed = expr, False
        while True:
            stripped = self._view_of(inner)
            if stripped is None:
                break
            inner, viewed = stripped, True
        ref = key_ref(inner) if viewed else None
        if ref is not None and self.state.resolve(ref) in self.state.single:
            return ref
        ref = key_ref(expr)
        if ref is not None and _attribute(ref):
            return self._read_attribute(ref)
        return ref or _made_key_ref(expr, self._tracker.names)

    def _read_attribute(self, ref: str) -> str | None:
        """The key an attribute read (`self.rng_key`) gives: a property's getter runs at each read, and one that
        splits a stored key and keeps a half gives a new key each time (not known: None); one that gives a stored
        attribute as it is (`return self._key`) gives that attribute (StableFields.may_compute)."""
        holder, _, attribute = ref.partition(".")
        chain = self._tracker.chain
        cls = chain[-2] if holder == "self" and len(chain) >= 2 and type(chain[-2]) is cst.ClassDef else None
        stable = stable_fields(self._module)
        stored = stable.given_by_property(cls, attribute)
        if stored is not None:
            return f"{holder}.{stored}"
        if stable.may_compute(cls, attribute):
            return None
        if (
            cls is not None
            and cls in stable.open
            and not stable.set_here(attribute)
            and self._computed_above(cls, attribute)
        ):
            return None  # a base of another module of the project computes it
        return ref

    def _computed_above(self, cls: cst.ClassDef, attribute: str) -> bool:
        """Whether a base of `cls` from another module of the project has a property `attribute` that computes
        what it gives (Interface.computed)."""
        context = self._tracker.context
        computed = context.imported.computed if context is not None else {}
        names = self._tracker.names
        return any(
            attribute in computed.get(names.qualified(base.value) or "", ())
            for base in cls.bases
            if base.keyword is None
        )

    def _view_of(self, expr: cst.BaseExpression) -> cst.BaseExpression | None:
        """The array `expr` reshapes or indexes with `None`/`0`/`...`/`:` only, if it does."""
        kind = type(expr)
        if kind is cst.Subscript:
            subscript = cast(cst.Subscript, expr)
            for element in subscript.slice:
                index = element.slice
                if type(index) is cst.Slice:
                    if index.lower is not None or index.upper is not None or index.step is not None:
                        return None
                else:
                    value = cast(cst.Index, index).value  # (a subscript element is an Index or a Slice)
                    if not (
                        type(value) is cst.Ellipsis
                        or type(value) is cst.Name
                        and value.value == "None"
                        or type(value) is cst.Integer
                        and int(value.value, 0) == 0
                    ):
                        return None
            return subscript.value
        if kind is not cst.Call:
            return None
        call = cast(cst.Call, expr)
        func = call.func
        if type(func) is cst.Attribute and func.attr.value in _VIEW_METHODS:
            qualified = self._tracker.names.qualified(func)
            if qualified is None or not qualified.startswith(KEY_COMPUTING_MODULES):
                return func.value  # `key.reshape(1)`, `flat.squeeze()`: a method of the array
        if not call.args or call.args[0].keyword is not None or call.args[0].star:
            return None
        if self._tracker.names.qualified(func) in VIEW_FUNCTIONS:
            return call.args[0].value
        return None

    # ------------------------------------------------------------------ calls

    def visit_Call(self, node: cst.Call) -> None:
        if self._tracker.names.qualified(node.func) in SELECTS:
            arms = [arg for arg in node.args[1:] if arg.keyword is None and not arg.star]
            if len(arms) > 1:
                self._selects.append((node, {id(arg) for arg in arms}, []))

    def visit_Arg(self, node: cst.Arg) -> None:
        if self._selects and id(node) in self._selects[-1][1]:
            states = self._selects[-1][2]
            if states:
                self.state.restore(states[0])  # each alternative starts where the first did
            else:
                states.append(self.state.copy())

    def leave_Arg(self, node: cst.Arg) -> None:
        if self._selects and id(node) in self._selects[-1][1]:
            self._selects[-1][2].append(self.state.copy())

    def _leave_select(self, node: cst.Call) -> None:
        if self._selects and self._selects[-1][0] is node:
            _, _, (before, *ends) = self._selects.pop()
            self.state.restore(before)
            for end in ends:
                self.state.join(end)

    def _runs(self, call: cst.Call) -> cst.BaseExpression | cst.FunctionDef:
        """The function a call runs on its arguments: the one inside transforms called at once (`jax.grad(loss)(params,
        key)` runs `loss(params, key)`, and draws what it draws), or the one a factory of the module makes
        (`make_kernel(0.1)(state, key)`), else the called expression. A transform that only traces
        (`jax.make_jaxpr`) draws nothing."""
        expr = call.func
        while type(expr) is cst.Call:
            if self._tracker.names.qualified(expr.func) in ONLY_TRACE:
                return call.func
            expr = expr.args[0].value if expr.args else expr.func
        wrapped = wrapped_call(call, self._tracker.names, self._tracker.transforms) if expr is not call.func else None
        if wrapped is not None:
            return wrapped[0]
        made = self._branch_function(call.func) if type(call.func) is cst.Call else None
        return made if made is not None else call.func

    def leave_Call(self, node: cst.Call) -> None:
        self._leave_select(node)
        if self._timing:
            return
        sampled = self._drawn_key(node)
        ref = self._key_ref(sampled[0]) if sampled else None
        if ref is not None:
            self.state.learn(ref)
        consuming = [operand for operand, _ in (*self._branch_consuming(node), *self._carry_consuming(node))]
        if not (self._notebook and len(self._states) == 1):
            consuming += self._given_to_consumers(node)
        for operand in consuming:
            operand_ref = self._key_ref(operand)  # a branch, loop body or callee draws from it: a key (jax raises else)
            if operand_ref is not None and self.state.learnable(operand_ref):
                self.state.learn(operand_ref)
        uses = self.uses(node)
        function = self._functions[-1]
        recorder = self._tracker.recorder
        for expr, ref, by in uses:
            if self._carry_item(ref):
                self.state.learn(ref)
            resolved = self.state.resolve(ref)
            use = Use(node, by, folded=id(expr) in self._folded)
            if function is not None and (
                resolved in self.state.params
                or _base(resolved) == self.state.carry
                or self._drawn_entry(function, resolved, node)
                or self._kept_field(function, resolved)
                or self._drawn_field(function, resolved)
            ):
                if id(node) not in self._unseen_results(function):  # (numbers nobody sees: no draw for callers)
                    own = self._parameter_guards(function, node)
                    for guards in self._site_guards(function, node, expr):
                        recorder.key_consumed(function, resolved, (*own, *guards), use.folded)
            elif function is not None and (owner := self._closure_owner(resolved)) is not None:
                if id(node) not in self._unseen_results(function):
                    recorder.key_closed(function, resolved, owner, self._parameter_guards(function, node), use.folded)
            for iteration in self.state.iterations:
                iteration.consume(expr, self.state.resolve(ref), use, key_ref(expr) or ref)
            if self.state.iterations and self._in_python_loop() and self._every_iteration():
                self.state.iterations[-1].every.add(id(node))
            self.state.consume(ref, use)
        keyed = [self._holds_key(arg.value) for arg in node.args]
        if (
            any(keyed)
            or any(self._carry_item(key_ref(arg.value)) for arg in node.args)
            or self._gives_drawn_parameter(node)
        ):
            params = [self._param_given(arg.value) if function is not None else None for arg in node.args]
            recorder.key_call(tuple(self._tracker.chain), node, function, params, keyed, self._runs(node))
        # A container given to a call, or whose method is called, may be changed there: what its
        # entries hold is unknown from here (`keys.update(...)`, `refresh(keys)`); not one whose entries the callee
        # draws from, which it never changes (`_drawn_entry`): `meta["key"]` is the same spent key after `run(meta)`.
        func = node.func
        receiver = container_ref(func.value) if type(func) is cst.Attribute else None
        if receiver is not None:  # (a copying method, `state.replace(...)`, leaves the dicts of its fields)
            self.state.changed(receiver, held=not self._keeps_every_field(node, receiver))
        drawn_from = self._entries_drawn(node)
        for arg in node.args:
            given = container_ref(arg.value)
            if given is None or given in drawn_from and not self._changes_entries_given(node, arg):
                continue
            self.state.changed(given, held=type(arg.value) is not cst.Name)
            if type(arg.value) is cst.Name:
                for container in self.state.held_containers(given):
                    if not self._keeps_entries(node, arg, container.partition(".")[2]):
                        self.state.changed(container)
        self._forget_handed_fields(node)

    def _keeps_entries(self, call: cst.Call, arg: cst.Arg, attribute: str) -> bool:
        """Whether the code `call` runs, handed the name `arg` gives, leaves the entries of the dict in its
        `<attribute>` as they are: code that assigns no attribute of what it is given (`_keeps_every_field`), or a def of
        this module that only reads that dict (key_hops.changes_field_entries), given it by position or keyword."""
        name = cast(cst.Name, arg.value).value
        if self._keeps_every_field(call, name):
            return True
        function, param = self._parameter_given(call, arg)
        return function is not None and param is not None and not changes_field_entries(function, param, attribute)

    def _changes_entries_given(self, call: cst.Call, arg: cst.Arg, ahead: bool = False) -> bool:
        """Whether the def `call` runs may put other values in the entries of the dict `arg` gives it (it draws from
        one first, then stores a new key: `info["rng"], k = split(info["rng"])`); True when the def is not known.
        `ahead`: asked for a call the walk has not reached (`_callee`)."""
        function, param = self._parameter_given(call, arg, ahead)
        return function is None or param is None or changes_entries(function, param)

    def _entries_kept_ahead(self, call: cst.Call) -> set[str]:
        """The containers given to a call of a loop body whose entries its callee draws from and never changes
        (`_entries_drawn_ahead`, less those it stores a new key into)."""
        drawn = self._entries_drawn_ahead(call)
        return {
            container
            for container in drawn
            if not any(
                container_ref(arg.value) == container and self._changes_entries_given(call, arg, ahead=True)
                for arg in call.args
            )
        }

    def _parameter_given(
        self, call: cst.Call, arg: cst.Arg, ahead: bool = False
    ) -> tuple[cst.FunctionDef | None, str | None]:
        """The def of this module `call` runs, and its parameter `arg` fills (by position or keyword)."""
        function, bound = self._callee(call, ahead)
        given = arguments_given(function, bound, call) if type(function) is cst.FunctionDef else None
        if given is None:
            return None, None
        return cast(cst.FunctionDef, function), next((p for p, value in given.items() if value is arg.value), None)

    def _forget_handed_fields(self, call: cst.Call) -> None:
        """An object whose attribute held a key that was drawn from or named again (`state.rng`, `agent.key`,
        `self.rng`), handed to code (as an argument, or as the receiver of a method) that may assign that attribute:
        what it holds after the call is not known."""
        state = self.state
        holders = {_holder(ref) for ref in (*state.consumed, *state.aliases.values()) if _attribute(ref)}
        for name in handed_names(call) & holders:
            state.forget_fields(name, lambda attribute: not self._keeps_field(call, name, attribute))

    def _keeps_field(self, call: cst.Call, name: str, attribute: str, ahead: bool = False) -> bool:
        """Whether the code `call` runs, handed `name`, leaves `name.<attribute>` as it was: jax's own code and a few
        builtins (FIELD_KEEPING_*), a pytree's copying method (`state.replace(...)`), a function that draws from that
        attribute (it never changes it: `_drawn_field`), a method of the instance's own class in another module of
        the project (as the module's own code, stable_fields.py), and this module's code when nothing in the module
        assigns that attribute on an object that exists (`StableFields.may_change`). `ahead`: asked for a call the walk
        has not reached (`_callee`)."""
        if self._keeps_every_field(call, name) or f"{name}.{attribute}" in self._fields_drawn(call, ahead):
            return True
        function, _ = self._callee(call, ahead)
        if isinstance(function, (cst.FunctionDef, cst.Lambda)):
            return not stable_fields(self._module).may_change(attribute)
        return self._own_class_method(call, name)

    def _keeps_every_field(self, call: cst.Call, name: str) -> bool:
        """Whether `call` is code that assigns no attribute of what it is given: jax's own code, a few builtins
        (FIELD_KEEPING_*), `name`'s copying method (`state.replace(...)`, COPYING_METHODS)."""
        func = call.func
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == name:
            if func.attr.value in COPYING_METHODS:
                return True
        qualified = self._tracker.names.qualified(func)
        if qualified is not None:
            return qualified.startswith(FIELD_KEEPING_PACKAGES)
        return type(func) is cst.Name and func.value in FIELD_KEEPING_BUILTINS

    def _own_class_method(self, call: cst.Call, name: str) -> bool:
        """Whether `call` is `name.method(...)` of the class of the instance `name`, in another module of the
        project."""
        func, context = call.func, self._tracker.context
        if type(func) is not cst.Attribute or type(func.value) is not cst.Name or func.value.value != name:
            return False
        if context is None:
            return False
        qualified, through_instance = self._tracker.project_callee(func)
        return through_instance and qualified is not None and context.in_project(qualified)

    def _callee(self, call: cst.Call, ahead: bool = False) -> tuple[cst.CSTNode | None, int]:
        """The def or lambda a call runs, with its parameters bound (recorder.function_at). `ahead`: for a call the
        walk has not reached, whose receiver the recorder has not been told: `obj.m(...)` of a name holding an
        instance of a class of this module here runs the class's own def `m`."""
        function, bound = self._tracker.recorder.function_at(self._tracker.chain, self._runs(call))
        func = call.func
        if function is not None or not ahead or type(func) is not cst.Attribute or type(func.value) is not cst.Name:
            return function, bound
        cls = self._tracker.instance_class(func.value.value)
        method = method_of(cls, func.attr.value) if cls is not None else None
        return (method, 1) if method is not None else (None, 0)

    def _fields_drawn(self, call: cst.Call, ahead: bool = False) -> set[str]:
        """The attributes of the names given to a call that its callee draws from (`gencfg.key` of `decode(gencfg)`
        for a `decode` that draws from its parameter's `key`)."""
        hops = self._hops.get(id(call)) if ahead else None
        if hops is None:
            hops = self._find_hops(call, ahead=True) if ahead else self._hop_consuming(call)
        return {hop for _, hop in hops if hop is not None and _attribute(hop)}

    def _drawn_field(self, function: cst.CSTNode, ref: str) -> bool:
        """Whether `ref` is an attribute of a parameter (`gencfg.key` of `gencfg`) that the function never changes:
        each call draws from the key its caller put there."""
        field = param_field(ref)
        if field is None or field[0] not in self.state.params | self.state.others:
            return False
        if not isinstance(function, (cst.FunctionDef, cst.Lambda)):
            return False
        at = (id(function), ref)
        if at not in self._fields_changed:
            holder, attribute = field
            self._fields_changed[at] = changes_fields(
                function.body, holder, attribute, lambda call: self._keeps_field(call, holder, attribute, ahead=True)
            )
        return not self._fields_changed[at]

    def _drawn_key(self, call: cst.Call) -> tuple[cst.BaseExpression, str] | None:
        """The key a call draws from, with what draws: a `jax.random` function's or a library layer's
        (drawn_key), or a library object's method's (`mcmc.run(key, ...)` of `mcmc = MCMC(...)`,
        `Predictive(model)(key, ...)`)."""
        drawn = self._syntax.drawn
        if id(call) not in drawn:
            drawn[id(call)] = self._drawer_key(call)
        return drawn[id(call)]

    def _drawer_key(self, call: cst.Call) -> tuple[cst.BaseExpression, str] | None:
        drawn = drawn_key(call, self._tracker.names) or self._held_sampler_key(call)
        if drawn is not None:
            return drawn
        func = call.func
        drawer = self._field_class(func) if type(func) is cst.Attribute else None
        if drawer is not None:  # `self.dropout(x, key=key)` of a field `dropout: eqx.nn.Dropout`
            key = _keyword_key(call, drawer) if drawer in LAYERS_DRAWING_WHEN_CALLED else None
            return (key, drawer) if key is not None else None
        method, owner = (func.attr.value, func.value) if type(func) is cst.Attribute else ("__call__", func)
        alike = False  # (bound more than once, to calls of one class)
        if method == "__call__" or type(owner) is cst.Name:  # `predictive(key)`, `mcmc.run(key)`
            bindings = self._tracker.callees.bindings
            chain = tuple(self._tracker.chain)
            found = bindings.binding(owner, chain)
            if found is not None and type(found[0]) is cst.Call:
                owner = found[0]
            elif found is None and type(owner) is cst.Name:
                made_alike = bindings.made_alike(owner, chain)
                alike = made_alike is not None
                owner = made_alike or owner
        if type(owner) is not cst.Call:
            return None
        made = self._tracker.names.qualified(owner.func) or ""
        if made in PARTIAL and method == "__call__" and found is not None and not alike:
            return self._partial_sampler_key(owner, call, found[1])
        wrapped = argument(owner, 0, "fun") if made in SAMPLER_WRAPPERS and method == "__call__" and not alike else None
        sampler = self._tracker.names.qualified(wrapped) if wrapped is not None else None
        if is_sampler(sampler):  # `jax.jit(jax.random.bits)(key)`, of `sampler = jax.jit(jax.random.bits)` too
            key = argument(call, 0, "key")
            return (key, f"{made}({sampler})") if key is not None else None
        where = key_drawing_method(made, method)
        if where is None and (given := self._library_object_returned(owner)) is not None:
            made, where = given, key_drawing_method(given, method)  # `env.action_space(params).sample(key)`
        key = argument(call, *where) if where is not None else None
        if key is None and method == "__call__":  # a layer of `eqx.nn` called: `dropout(x, key=key)`
            key = _keyword_key(call, made)
        if key is None:
            return None
        short = made.rsplit(".", 1)[-1]
        return key, f"{short}.{method}" if method != "__call__" else f"{short}(...)"

    def _partial_sampler_key(
        self, made: cst.Call, call: cst.Call, where: tuple[cst.CSTNode, ...]
    ) -> tuple[cst.BaseExpression, str] | None:
        """The key a call of `partial(sampler, ...)` draws from (`draw = partial(jax.random.normal, key)`, then
        `draw(shape)`): the one the partial binds, when the name that gives it is bound once where the partial is
        made (so it names the key the partial holds), else the one the call gives."""
        names = self._tracker.names
        bound = arguments(made)
        if bound.starred or bound.double_starred or not bound.positional:
            return None
        sampler = names.qualified(bound.positional[0])
        if not (is_sampler(sampler) or sampler in LIBRARY_SAMPLERS):
            return None
        position, keyword = LIBRARY_SAMPLERS.get(cast(str, sampler), (0, "key"))
        held = bound.keywords.get(keyword)
        if held is None and position + 1 < len(bound.positional):
            held = bound.positional[position + 1]
        if held is None:
            key = argument(call, position - (len(bound.positional) - 1), keyword)
            return (key, f"partial({sampler})") if key is not None else None
        if type(held) is not cst.Name or not self._bound_once(held, where):
            return None  # the name may have named another key when the partial was made
        return held, f"partial({sampler})"

    def _bound_once(self, name: cst.Name, where: tuple[cst.CSTNode, ...]) -> bool:
        """Whether a name names one value throughout the scope where `where` ends: a parameter its function never
        binds again, or a name bound once."""
        function = where[-1]
        if type(function) is cst.FunctionDef and name.value in parameter_names(function.params):
            return name.value not in self._rebound_in(function)
        return self._tracker.callees.bindings.binding(name, where) is not None

    def _held_sampler_key(self, call: cst.Call) -> tuple[cst.BaseExpression, str] | None:
        """The key a call draws from when what it calls holds a sampler whichever of its values it has (`noise =
        jax.random.gumbel`, `self.noise = rnd.normal` or `rnd.gumbel` in `__init__`, `rnd.gumbel if g else
        rnd.normal`): a function value is the function."""
        func = call.func
        if type(func) is not cst.Name and type(func) is not cst.Attribute:
            return None
        names = self._tracker.names
        held = self._tracker.callees.bindings.values_held(func, tuple(self._tracker.chain), names)
        pending, places = list(held or ()), set()
        while pending:
            value = pending.pop()
            if type(value) is cst.IfExp:
                pending += [value.body, value.orelse]
                continue
            qualified = names.qualified(cast(cst.BaseExpression, value))
            if not (is_sampler(qualified) or qualified in LIBRARY_SAMPLERS):
                return None
            places.add(LIBRARY_SAMPLERS.get(cast(str, qualified), (0, "key")))
        key = argument(call, *places.pop()) if len(places) == 1 else None
        return (key, dotted(func) or "the sampler") if key is not None else None

    def _library_object_returned(self, call: cst.Call) -> str | None:
        """The library class whose instance a call of a function of this module gives, when every `return` of it
        makes one of that class (`def action_space(self): return spaces.Box(0, 1, (4,))`)."""
        function, _ = self._callee(call, ahead=True)
        made = returned(function) if type(function) is cst.FunctionDef else None
        classes = {
            self._tracker.names.qualified(value.func) if type(value) is cst.Call else None for value in made or ()
        }
        return classes.pop() if len(classes) == 1 and None not in classes else None

    def _module_keys(self, call: cst.Call) -> list[tuple[cst.BaseExpression, str]]:
        """The keys a library Module's method draws from (`model.init(key, x)`, `model.apply(v, x, rngs={"dropout":
        key})` of `model = MLP()`, a flax Module; `state.apply_fn(p, x, rngs=...)` of a parameter annotated as a
        TrainState), each with what draws: the key, or each value of a dict of keys by stream. None when a keyword
        turns randomness off (`deterministic=True`)."""
        func = call.func
        if randomness_off(call):
            return []
        found = None
        if type(func) is cst.Attribute and type(func.value) in (cst.Name, cst.Call) and func.attr.value in _KEY_METHODS:
            found = self._module_method(cast("cst.Name | cst.Call", func.value), func.attr.value)
        if found is None:
            return self._streams_given(call)
        (position, keyword), owner = found
        arg = argument(call, position, keyword) if position is not None else arguments(call).keywords.get(keyword)
        by = f"{owner}.{cast(cst.Attribute, func).attr.value}"
        if type(arg) is cst.Dict:
            return [(element.value, by) for element in arg.elements if type(element) is cst.DictElement]
        return [(arg, by)] if arg is not None else []

    def _streams_given(self, call: cst.Call) -> list[tuple[cst.BaseExpression, str]]:
        """The keys of a dict of keys by stream given to a function of no module of the project under a stream
        keyword (`state.apply_fn(p, x, rngs={"dropout": key})`, whatever `state` is): flax's convention, under which
        the callee draws each stream from keys `fold_in` derives from its key."""
        streams = next(
            (a.value for a in call.args if a.keyword is not None and a.keyword.value in STREAM_KEYWORDS), None
        )
        if type(streams) is not cst.Dict or self._callee(call, ahead=True)[0] is not None or self._in_project(call):
            return []
        by = dotted(call.func) or "<function>"
        return [(element.value, by) for element in streams.elements if type(element) is cst.DictElement]

    def _stream_seeds(self, call: cst.Call) -> list[tuple[cst.BaseExpression, str]]:
        """The keys a library object seeds its streams with (`nnx.Rngs(params=key, dropout=key)`), each drawn from
        through the keys `fold_in` derives from it."""
        made = self._tracker.names.qualified(call.func)
        if made not in STREAM_SEEDERS:
            return []
        name = made.rsplit(".", 1)[-1]
        return [
            (arg.value, f"{name}({arg.keyword.value}=...)" if arg.keyword is not None else f"{name}(...)")
            for arg in call.args
            if not arg.star
        ]

    def _module_method(self, owner: cst.Name | cst.Call, method: str) -> tuple[tuple[int | None, str], str] | None:
        """Where `owner.method(...)` takes the keys it draws from, with the owner's class name: an instance of a
        class of this module deriving from a library base (SUBCLASS_KEY_METHODS), or of one of the library's own
        (`nn.Dense(16).init(key, x)`, LIBRARY_SUBCLASSES), or a parameter of a function around annotated with a
        library class whose field holds such a method (KEY_DRAWING_FIELDS)."""
        tracker = self._tracker
        chain = tuple(tracker.chain)
        found = tracker.callees.bindings.binding(owner, chain) if type(owner) is cst.Name else (owner, chain)
        if found is not None and type(found[0]) is cst.Call:
            made = found[0]
            cls = tracker.callees.bindings.class_of(made.func, found[1])
            if cls is None:
                return _library_subclass_method(tracker.names.qualified(made.func), method)
            base = library_base(cls, self._module, tracker.callees.bindings, tracker.names, SUBCLASS_KEY_METHODS)
            where = SUBCLASS_KEY_METHODS[base].get(method) if base is not None else None
            return (where, cls.name.value) if where is not None else None
        if type(owner) is not cst.Name:
            return None
        at = (id(chain[-1]), owner.value)
        if at not in self._annotated:  # (asked at every such call of the function: found once)
            self._annotated[at] = _annotated_parameter(chain, owner.value, self._names_of)
        annotated = self._annotated[at]
        qualified = tracker.names.qualified(annotated) if annotated is not None else None
        where = KEY_DRAWING_FIELDS.get(qualified or "", {}).get(method)
        return (where, (qualified or "").rsplit(".", 1)[-1]) if where is not None else None

    def _field_class(self, attribute: cst.Attribute) -> str | None:
        """The class `self.name` is declared to hold (`name: eqx.nn.Dropout` in the body of the class whose
        method this is), qualified."""
        chain = self._tracker.chain
        if type(attribute.value) is not cst.Name or attribute.value.value != "self" or len(chain) < 2:
            return None
        cls = chain[-2]
        if type(cls) is not cst.ClassDef:
            return None
        for statement in cls.body.body:
            for small in statement.body if type(statement) is cst.SimpleStatementLine else ():
                if type(small) is cst.AnnAssign and type(small.target) is cst.Name:
                    if small.target.value == attribute.attr.value:
                        return self._tracker.names.qualified(small.annotation.annotation)
        return None

    def _param_given(self, expr: cst.BaseExpression) -> str | None:
        """The key parameter of the function around this call that `expr` is (or names: `pair[0]`)."""
        expr = _keyed_arm(expr)
        if type(expr) is cst.Call:  # a view or copy of a parameter (`jnp.squeeze(key)`)
            viewed = self._key_ref(expr)
            expr = cst.Name(viewed) if viewed is not None and viewed.isidentifier() else expr
        ref = key_ref(expr) if type(expr) is not cst.Name else expr.value
        if ref is None or (type(expr) is not cst.Name and ref not in self.state.aliases):
            return None
        ref = self.state.resolve(ref)
        return ref if ref in self.state.params else None

    def _in_project(self, call: cst.Call) -> bool:
        """Whether a call runs a function of another module of the project (its own analysis tells what it draws)."""
        context = self._tracker.context
        if context is None:
            return False
        qualified = self._tracker.project_callee(call.func)[0]
        return qualified is not None and context.in_project(qualified)

    def _given_to_consumers(self, call: cst.Call) -> list[cst.BaseExpression]:
        """The arguments a call gives to parameters its callee, a function of the project, draws from (or folds): they
        hold keys whatever their names (`draw(seed, z)` of a `draw` that calls `normal(seed)`), as jax raises on
        anything else."""
        return [*self._tracker.known.consuming.get(call, ()), *self._imported_consuming(call)]

    def _gives_drawn_parameter(self, call: cst.Call) -> bool:
        """Whether a call gives an argument to a parameter its callee, a def or lambda of this module, draws from on some
        path (so what it gives is a key, when that path is live for the call: RoundFacts.consuming says)."""
        consumes = self._tracker.known.consumes
        if not consumes or not call.args:
            return False
        callee, bound = self._callee(call)
        drawn = consumes.get(callee) if isinstance(callee, (cst.FunctionDef, cst.Lambda)) else None
        given = arguments_given(cast("cst.FunctionDef | cst.Lambda", callee), bound, call) if drawn else None
        return any(param in cast(frozenset, drawn) for param in given or ())

    def _imported_consuming(self, call: cst.Call) -> list[cst.BaseExpression]:
        """The arguments of a call of another module's function that it draws from (its interface says)."""
        found = self._imported_call(call)
        if found is None:
            return []
        drawn = self._imported_live(found)
        return [value for param, value in found.given.items() if param in drawn]

    def _imported_product(self, func: cst.BaseExpression) -> str | None:
        """What a call of another module's factory makes, as interfaces name it (`made_name`): called at once
        (`make_kernel(0.1)(state, key)`) or through the name bound to it (`kernel = make_kernel(0.1)`)."""
        if type(func) is cst.Name:
            found = self._tracker.callees.bindings.binding(func, tuple(self._tracker.chain))
            func = found[0] if found is not None and not found[2] and type(found[0]) is cst.Call else func
        qualified = self._tracker.names.qualified(func.func) if type(func) is cst.Call else None
        return made_name(qualified) if qualified is not None else None

    def _imported_call(self, call: cst.Call) -> _ImportedCall | None:
        """For a call of another module's function whose interface says what it draws from: its qualified name, that
        summary (Consumes), the argument the call gives each parameter before any `*args`, and whether it has a
        `*args` or `**kwargs`."""
        context = self._tracker.context
        if context is None or not context.imported.consumes:
            return None
        func, args = self._called_target(call)
        qualified, through_instance = self._tracker.names.qualified(func), False
        if qualified is None and type(func) is cst.Attribute:  # `data.get_batch(key=key)` of another module's class
            qualified, through_instance = self._tracker.project_callee(func)
            qualified = qualified if through_instance else None
        if qualified is None:
            qualified = self._imported_product(func)
        consumes = context.imported.consumes.get(qualified or "")
        if consumes is None:
            return None
        bound = 1 if through_instance and consumes.self_param else 0
        found = _ImportedCall(cast(str, qualified), consumes, {}, False, bound, cst.Call(func=func, args=args))
        positional = iter(consumes.positional[bound:])
        for arg in args:
            if arg.star:
                return replace(found, starred=True)
            param = arg.keyword.value if arg.keyword is not None else next(positional, None)
            if param is not None:
                found.given[param] = arg.value
        return found

    def _imported_live(self, found: _ImportedCall) -> set[str]:
        """The parameters a call of another module's function draws from: not one drawn from only in branches that
        the call's arguments make dead (`process(data, rng_key=key)` of a `process` drawing under `if n_data is not
        None:`, `n_data=None` by default), as key_hops.live decides for this module's functions."""
        consumes = found.consumes
        if not consumes.guarded:
            return set(consumes.params)
        if found.qualified not in self._syntax.imported_guards:
            header = cst.parse_statement(f"def _f({consumes.header}): pass")
            sites = {
                param: tuple(tuple((cst.parse_expression(test), truth) for test, truth in guards) for guards in guarded)
                for param, guarded in consumes.guarded
            }
            self._syntax.imported_guards[found.qualified] = (cast(cst.FunctionDef, header), sites)
        header, sites = self._syntax.imported_guards[found.qualified]
        return {
            param
            for param in consumes.params
            if param not in sites or live(sites[param], header, found.bound, found.call)
        }

    def _called_target(self, call: cst.Call) -> tuple[cst.BaseExpression, list[cst.Arg]]:
        """What a call runs, with the arguments it gets: through transforms or `partial` called at once, or through a
        name bound to such a wrapper (`step = jax.jit(partial(train_step))`, then `step(state, key)`), when
        `partial` binds no positional argument; else the called expression itself."""
        names, table = self._tracker.names, self._tracker.transforms
        if self._runs(call) is not call.func:
            wrapped = wrapped_call(call, names, table)
            if wrapped is not None:
                return wrapped
        if type(call.func) is cst.Name and names.qualified(call.func) is None:
            found = self._tracker.callees.bindings.binding(call.func, tuple(self._tracker.chain))
            if found is not None and type(found[0]) is cst.Call:
                target, bound, _ = unwrap(found[0], names, table)
                if target is not None and type(target) is not cst.Call and not bound:
                    return target, list(call.args)
        return call.func, list(call.args)

    def _holds_key(self, expr: cst.BaseExpression) -> bool:
        """A key variable, or a key made right there (`f(jax.random.key(0))`, `f(jax.random.split(k)[0])`)."""
        expr = _keyed_arm(expr)
        ref = key_ref(expr)
        if ref is not None and _is_item(ref) and self.state.is_key(ref):
            return True  # `f(keys["init"])`, `f(pair[0])`
        if type(expr) is cst.Subscript:
            expr = expr.value
        if type(expr) is cst.Call and makes_key(expr, self._tracker.names):
            return True
        # a key variable, or a view or copy of one (`jnp.squeeze(key)`, `jax.device_put_replicated(key, devices)`)
        ref = key_ref(expr) if type(expr) is not cst.Call else self._key_ref(expr)
        return ref is not None and self.state.is_key(ref)

    # ------------------------------------------------------------------ bindings

    def _is_key_value(self, name: str, value: cst.BaseExpression | None) -> bool:
        if type(value) is cst.Call:
            return makes_key(value, self._tracker.names) or self.state.named_like_key(name)
        ref = key_ref(value) if value is not None else None
        if ref is not None:
            return self.state.is_key(ref) or self.state.named_like_key(name)
        return False

    def _single(self, value: cst.BaseExpression | None) -> bool:
        """Whether `value` is one key: `jax.random.key(0)`, `fold_in(k, i)`, or another name of one."""
        if type(value) is cst.Call:
            return self._tracker.names.qualified(value.func) in SINGLE_KEY_MAKERS
        ref = key_ref(value) if value is not None else None
        return ref is not None and self.state.resolve(ref) in self.state.single

    def _key_named(self, value: cst.BaseExpression | None, loose: bool = False) -> str | None:
        """The key `value` names, when it is a name (or an entry) holding one: `k`, `keys["init"]`, `pair[0]`.
        `loose`: any name, a key or not yet known to be one (`pair = (k1, k2)`: `pair[0]` is whatever `k1` is)."""
        ref = self._key_ref(value) if value is not None else None  # (`batch = key[None]`: `key` itself)
        if ref is None:
            return None
        if not self.state.is_key(ref) and not (loose and (type(value) is cst.Name or ref in self.state.aliases)):
            return None
        base = _base(ref)
        if _is_item(ref) and base in self.state.keys and ref not in self.state.aliases:
            return None  # `keys[0]` of a split array: the flow follows it by its own spelling already
        return ref

    def spent_stores(self, node: cst.Assign) -> list[tuple[cst.BaseExpression, str, Use]]:
        """The attributes of `self` an assignment gives a key that the call on its right consumed and hands back as
        it got it (`(state, self.key) = self._train(state, self.key)` of a `_train` that draws from its `key` and
        returns it): the object keeps a spent key for its next call. Each as (target, the key's ref, the call's use)."""
        call = node.value
        if type(call) is not cst.Call:
            return []
        whole, items = self._tracker.given_back(call)
        found = []
        for assigned in node.targets:
            target = assigned.target
            if type(target) is cst.Tuple or type(target) is cst.List:
                places = []
                for index, element in enumerate(target.elements):
                    if type(element) is cst.StarredElement:
                        break
                    places.append((element.value, items.get(index)))
            else:
                places = [(target, whole)]
            for place, given in places:
                stored, ref = key_ref(place), self._key_ref(given) if given is not None else None
                use = self.state.prior_use(ref) if ref is not None else None
                if stored is not None and stored.startswith("self.") and use is not None and use.node is call:
                    found.append((place, cast(str, ref), use))
        return found

    def _handed_back(self, given: cst.BaseExpression | None) -> str | None:
        """The key a call hands back as it got it (tracker.given_back): the same key, spent where it was."""
        return self._key_named(given) if given is not None else None

    def _carry_place(self, name: str, place: str | None) -> str | None:
        """`place` when it is the lax loop body's carry parameter or one of its items (`key = carry["key"]`, `qf, key =
        carry`), which `name` then names (a key when named like one): what the loop's caller put there is consumed
        when the body consumes it. Not for a name the body hands back unchanged: that one stays the key of every
        iteration (`carried_unchanged`)."""
        state = self.state
        if place is None or _base(place) != state.carry or state.carry in state.keys or name in state.carried:
            return None
        if _is_item(place) and state.named_like_key(name):
            state.keys.setdefault(place, len(state.loops))
        return place

    def _given_entry(self, name: str, place: str | None) -> str | None:
        """`place` when it is an entry, a place or an attribute of a parameter (`meta["key"]`, `args[1]`,
        `sampler.key`) bound to a name like a key's (`in_key = meta["key"]`, `x, key = args`, `key = sampler.key`): the
        key the caller put there, consumed when `name` is, as the caller's `meta["key"]` (jax's key-reuse checker
        follows the value into and out of a tuple, a dict or an object's field)."""
        state = self.state
        entry = name_item(place) if place is not None else None
        holder = entry[0] if entry is not None else _holder(place) if place is not None and _attribute(place) else None
        if holder is None or holder not in state.params | state.others or not state.named_like_key(name):
            return None
        if holder == state.carry:
            return None  # a lax loop body's carry: `_carry_place` says what its places hold
        state.keys.setdefault(cast(str, place), len(state.loops))
        return place

    def _carry_item(self, ref: str | None) -> bool:
        """Whether `ref` is an item of the lax loop body's carry parameter (`carry[1]`, `carry["key"]`)."""
        return ref is not None and _is_item(ref) and _base(ref) == self.state.carry

    def _entries(self, value: cst.BaseExpression | None) -> list[tuple[int | str, cst.BaseExpression]] | None:
        """The entries of a dict, tuple or list display with literal keys: `{"init": rng}`, `(k1, k2)`."""
        kind = type(value)
        if kind is cst.Dict:
            entries = []
            for element in cast(cst.Dict, value).elements:
                literal = _literal(element.key) if type(element) is cst.DictElement else None
                if literal is None:
                    return None  # `{name: k}`, `{**other}`: which entries it has is unknown
                entries.append((literal, element.value))
            return entries
        if kind is cst.Tuple or kind is cst.List:
            entries = []
            for index, item in enumerate(cast("cst.Tuple | cst.List", value).elements):
                if type(item) is cst.StarredElement:
                    break  # `(*ks, k)`: the positions after it are unknown
                entries.append((index, item.value))
            return entries
        return None

    def _store(self, ref: str, value: cst.BaseExpression | None) -> None:
        """An entry of a container gets `value`: another name of a key, a fresh key, or something unknown."""
        named = self._key_named(value, loose=True)
        if named is not None:
            self.state.alias(ref, named)
        elif type(value) is cst.Call and makes_key(value, self._tracker.names):
            self.state.item_key(ref, self._single(value))

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if type(target) is cst.Name:
            self._bound_calls[target.value] = value if type(value) is cst.Call else None
        ref = key_ref(target) if type(target) is not cst.Subscript else None
        if ref is not None and self._none_fallback(value) == ref and ref in self.state.params | self.state.others:
            return  # `rng = rng if rng is not None else key(0)`: the caller's key wherever the caller gave one
        if ref is not None:
            named = self._key_named(value) if not ref.startswith("self.") else None
            if named is None and value is not None and not ref.startswith("self."):
                named = self._carry_place(ref, key_ref(value)) or self._given_entry(ref, key_ref(value))
            if named is None and type(value) is cst.Call and not ref.startswith("self."):
                named = self._handed_back(self._tracker.given_back(value)[0])
                if named is not None and self.state.resolve(named) == self.state.resolve(ref):
                    self.state.keep(ref)
                    return
            # (in a function: a module's key is also its functions' global, which they follow by its own name)
            in_function = self._functions[-1] is not None
            made = (
                _made_key_ref(value, self._tracker.names)
                if named is None and value is not None and in_function
                else None
            )
            self._remade.pop(ref, None)
            if made is not None and ref not in _made_from(made) and not self._same_each_iteration(value, named=True):
                # `k = fold_in(rng, step)`: the key fold_in makes of these values, the same key each time it is made
                self.state.learn(made)
                self.state.single.add(made)  # (`key(seed)`, `fold_in(k, i)`: one key, whose views are itself)
                named = made
            if named is not None and _made_from(named) and self.state.prior_use(named) is not None:
                self._remade[ref] = named  # made again after a draw from it
            entries = self._entries(value)
            if named is not None and named != ref:
                # `a = k`, `x = keys["init"]`: another name of the same key (consumed wherever it goes)
                self.state.bind(ref, False)
                self.state.alias(ref, named)
                return
            replaced = self._replaced_fields(ref, value)
            copied = self.state.fields_kept(ref, replaced) if replaced is not None else None
            self.state.bind(ref, self._is_key_value(ref, value), self._single(value))
            if copied is not None:
                self.state.keep_fields(copied)  # `state = state.replace(obs=o)`: `state.info` is the same dict
            shared = container_ref(value) if type(target) is cst.Name and value is not None else None
            if shared is not None and shared != ref:
                self.state.shared[ref] = shared  # `info = state.info`: one dict, two names
            spent = self._spent_by_callee(value).get(None)
            if spent is not None:  # `key = draw(key)` of a function that returns the key it drew from
                self.state.bind(ref, True, True)
                self.state.consume(ref, spent)
            if self._same_each_iteration(value, named=True):
                self.state.invariant.add(ref)
                self.state.keys[ref] = len(self.state.loops) - 1
            for literal, item in entries or ():
                self._store(f"{ref}[{literal!r}]", item)
        elif isinstance(target, cst.Subscript):
            # `keys["init"] = new`: that entry holds something else from here
            entry = key_ref(target)
            container = container_ref(target.value)
            if entry is not None and _base(entry) not in self.state.keys:
                self.state.changed(_base(entry), entry)
                self._store(entry, value)
            elif container is not None:
                self.state.changed(container)
        elif isinstance(target, (cst.Tuple, cst.List)):
            # `k1, k2 = split(k)`: each part is a fresh key; otherwise parts named like keys are.
            split = isinstance(value, cst.Call) and makes_key(value, self._tracker.names)
            single = split and self._tracker.names.qualified(cast(cst.Call, value).func) == SPLIT
            # `x, y = k1, k2` and `x, y = pair` (of `pair = (k1, k2)`): other names of those keys.
            parts: list[str | None] = []
            bound = set(target_names(target))
            source = key_ref(value) if value is not None else None
            entries = self._entries(value)
            back = self._tracker.given_back(value)[1] if type(value) is cst.Call else {}
            kept: set[str] = set()  # names bound again to the key they held
            spent_at = self._spent_by_callee(value)  # `x, key = kernel(key, x)` returning a key it drew from
            for index, element in enumerate(target.elements):
                if type(element) is cst.StarredElement:
                    break
                handed = self._handed_back(back.get(index))
                if handed is not None and type(element.value) is cst.Name:
                    if self.state.resolve(handed) == self.state.resolve(element.value.value):
                        kept.add(element.value.value)
                    parts.append(handed if _base(handed) not in bound else None)
                    continue
                if entries is not None:
                    found = self._key_named(entries[index][1], loose=True) if index < len(entries) else None
                elif source is not None and f"{source}[{index}]" in self.state.aliases:
                    found = self.state.resolve(f"{source}[{index}]")
                elif type(element.value) is cst.Name:
                    place = f"{source}[{index}]" if source else None
                    found = self._carry_place(element.value.value, place) or self._given_entry(
                        element.value.value, place
                    )
                else:
                    found = None
                # `k1, k2 = k2, k1`: all are bound at once; a name this statement rebinds names nothing known
                parts.append(found if found is None or _base(found) not in bound else None)
            for index, element in enumerate(target.elements):
                starred = type(element) is cst.StarredElement  # (`*rest`: its `value` is the name)
                inner = element.value
                name = key_ref(inner)
                if name in kept:
                    self.state.keep(name)
                elif name is not None:
                    if _is_item(name):
                        self.state.changed(_base(name), name)  # `state.info["rng"], k = split(...)`: a new entry
                    found = parts[index] if index < len(parts) else None
                    if found is not None and found != name:
                        self.state.bind(name, False)
                        self.state.alias(name, found)
                    else:
                        self.state.bind(name, split or self.state.named_like_key(name), single and not starred)
                    if index in spent_at and not starred:
                        self.state.bind(name, True, True)
                        self.state.consume(name, spent_at[index])
                elif isinstance(inner, cst.Subscript) and (container := container_ref(inner.value)) is not None:
                    self.state.changed(container)
                elif isinstance(inner, (cst.Tuple, cst.List)):
                    self._bind(inner, None)  # `(state, key), aux = jax.lax.scan(...)`: its names get new values

    def _replaced_fields(self, name: str, value: cst.BaseExpression | None) -> frozenset[str] | None:
        """The fields a copy of `name` made by its copying method changes (`obs` of `state.replace(obs=o)`,
        `pipeline_state` of `state.tree_replace({"pipeline_state.qd": v})`); None for any other value, or when which
        fields change is not known."""
        if type(value) is not cst.Call or type(value.func) is not cst.Attribute:
            return None
        owner, method = value.func.value, value.func.attr.value
        if type(owner) is not cst.Name or owner.value != name or method not in COPYING_METHODS:
            return None
        if method in PATH_REPLACING_METHODS:
            paths = value.args[0].value if len(value.args) == 1 and value.args[0].keyword is None else None
            entries = self._entries(paths) if type(paths) is cst.Dict else None
            if entries is None or not all(isinstance(path, str) for path, _ in entries):
                return None
            return frozenset(str(path).split(".")[0] for path, _ in entries)
        if any(arg.keyword is None for arg in value.args):
            return None  # (`**changes`: not known)
        return frozenset(cast(cst.Name, arg.keyword).value for arg in value.args)

    def _none_fallback(self, value: cst.BaseExpression | None) -> str | None:
        """`rng` of `rng if rng is not None else jax.random.key(0)` (or `key(0) if rng is None else rng`): the name
        an arm gives as it is where the test says it is not None."""
        if type(value) is not cst.IfExp:
            return None
        for kept, truth in ((value.body, True), (value.orelse, False)):
            if type(kept) is cst.Name and self._tracker.nones.said(value.test, truth).get(kept.value) is False:
                return kept.value
        return None

    def leave_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind(target.target, node.value)

    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        if type(node.target) is cst.Name:
            self.state.forget_made(node.target.value)  # `seed += 1`: `key(seed)` is another key now

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target, node.value)

    def leave_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target, node.value)

    def leave_Del(self, node: cst.Del) -> None:
        self._bind(node.target, None)

    def visit_With_body(self, node: cst.With) -> None:
        for item in node.items:
            if item.asname is not None:
                self._bind(item.asname.name, None)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.state.bind(node.name.value, False)

    # ------------------------------------------------------------------ the flow engine's domain

    sees_next_iteration = True  # a key consumed before `continue` is consumed when the body's rest runs next

    def reached(self) -> bool:
        """Whether some path reaches the current point (not code after a `return` or `raise`)."""
        return self._tracker.flow.reaches(self)

    def snapshot(self) -> KeyState:
        return self.state.copy()

    def restore(self, state: KeyState) -> None:
        self.state.restore(state)

    def join(self, a: KeyState, b: KeyState) -> KeyState:
        joined = a.copy()
        joined.join(b)
        return joined

    def enter_scope(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.FunctionDef):
            self._enter(node, node.params, node.body)
        elif isinstance(node, cst.Lambda):
            self._enter(node, node.params, None)
        elif isinstance(node, cst.ClassDef):
            # (its body and its methods read the names around the class: a module's key is a key there)
            outer = self.state
            self._states.append(KeyState(self._key_names, {n: 0 for n in outer.keys if not n.startswith("self.")}))
            self._functions.append(None)
        else:  # a comprehension: its targets are its own names
            state = self.state.copy()
            for name in comprehension_targets(cast(cst.BaseComp, node)):
                state.bind(name, False)
            self._states.append(state)
            self._functions.append(self._functions[-1])
            self._comprehensions.append(cast(cst.BaseComp, node))

    def visit_CompFor_iter(self, node: cst.CompFor) -> None:
        """A comprehension's first iterable is evaluated once, before the loop, in the scope around it: its `rng` of
        `[permutation(rng, x) for rng in split(rng, n)]` is the enclosing function's key, not the target."""
        if len(self._states) > 1 and self._outermost_clause(node):
            self._states.append(self._states[-2])

    def leave_CompFor_iter(self, node: cst.CompFor) -> None:
        if len(self._states) > 2 and self._states[-1] is self._states[-3] and self._outermost_clause(node):
            self._states.pop()

    def _outermost_clause(self, node: cst.CompFor) -> bool:
        return bool(self._comprehensions) and self._comprehensions[-1].for_in is node

    def exit_scope(self, node: cst.CSTNode) -> None:
        inner = self._states.pop()
        self._functions.pop()
        if type(node) in _COMPREHENSIONS:  # what it consumed of the keys around it stays consumed
            self._comprehensions.pop()
            own = comprehension_targets(cast(cst.BaseComp, node))  # its own names, whatever they shadow
            for ref, use in inner.consumed.items():
                if _base(ref) in self.state.keys and _base(ref) not in own:
                    self.state.consume(ref, use)

    def enter_loop(self, node: cst.CSTNode, rebound: set[str]) -> None:
        """Remembered: a key consumed in a loop body and not rebound there is consumed again by the next iteration."""
        if isinstance(node, (cst.For, cst.While)):
            rebound = (
                rebound | set(_attribute_targets(node.body)) | _changed_containers(node.body, self._entries_kept_ahead)
            )
        self.state.loops.append(rebound)
        self._loops.append((self.state, len(self.state.loops), node))
        if type(node) is cst.For or type(node) is cst.While:
            targets = set(target_names(node.target)) if type(node) is cst.For else set()
            self.state.iterations.append(_Iteration(targets))
        # What the loop itself binds at each iteration (a comprehension's `rebound` is just that).
        if type(node) is cst.For:
            self._loop_targets.append(set(target_names(node.target)))
        else:
            self._loop_targets.append(set() if type(node) is cst.While else rebound)

    def exit_loop(self, node: cst.CSTNode) -> None:
        if type(node) is cst.For or type(node) is cst.While:
            self.state.iterations.pop()
        self.state.loops.pop()
        self._loops.pop()
        self._loop_targets.pop()

    def next_iteration(self, node: cst.For | cst.While, states: list[KeyState]) -> None:
        """A key the body consumes before binding it again is the key the previous iteration left: consumed
        there too when that iteration bound it and then consumed it (`key, sub = split(key)`, then
        `normal(key)`: the next `split(key)` draws from it again), or when a path through the body skips the
        binding (`if step % 3 == 2: rng, sub = split(rng)`) after a call that runs in every iteration consumed it.
        A key never bound in the body is JAX202's."""
        iteration = self.state.iterations[-1]
        found = []
        for ref, (expr, use) in iteration.exposed.items():
            spelled = iteration.read_next(ref)
            if spelled is None and _base(ref) not in iteration.bound and ref not in iteration.bound:
                continue
            priors = (s.prior_use(ref if spelled is None else s.resolve(spelled)) for s in states)
            before = next(
                (
                    p
                    for p in (prior.of_kind(use.folded) for prior in priors if prior is not None)
                    if p is not None
                    and (p.node is not use.node or p.back or id(p.node) in iteration.every)
                    and id(p.node) in iteration.calls
                ),
                None,
            )
            if before is not None:
                found.append((expr, ref if spelled is None else spelled, use.by, before))
        if found:
            self._again[node] = found

    def leave_Return(self, node: cst.Return) -> None:
        """A lax loop body that gives back in its carry a key it consumed (`key, sub = split(key)`, then
        `uniform(key)` and `return (x, key), y`): the next iteration draws from it again where it draws from that
        place of its carry (jax's key-reuse checker: "scan body function leads to key reuse when repeatedly
        executed")."""
        state = self.state
        function = self._functions[-1]
        if function is not None and self.reached():
            self._tracker.recorder.returned_spent(function, self._spent_places(node.value))
        if state.next_carry is None or node.value is None or not self.reached():
            return
        parameter, with_output, run = state.next_carry
        part = _carry_part(node.value, with_output)
        if type(part) is cst.Tuple or type(part) is cst.List:
            elements = part.elements
            places = [(f"{parameter}[{i}]", e.value) for i, e in enumerate(elements) if type(e) is cst.Element]
        else:
            places = [(parameter, part)] if part is not None else []
        function = self._functions[-1]
        if function is None:
            return
        found = self._again.setdefault(function, [])
        for place, value in places:
            ref = key_ref(value)
            exposed = run.exposed.get(place)
            if ref is None or exposed is None or not state.is_key(ref):
                continue
            expr, use = exposed
            before = state.prior_use(ref)
            before = before.of_kind(use.folded) if before is not None else None
            if before is not None and (before.node is not use.node or before.back):
                found.append((expr, key_ref(expr) or place, use.by, before))

    def _spent_places(self, value: cst.BaseExpression | None) -> dict[int | None, tuple[cst.CSTNode, str]]:
        """The keys a `return` gives that the function drew from (not only through keys fold_in derives), by place:
        a position of the tuple it returns, or None for the whole value."""
        state = self.state
        places: list[tuple[int | None, cst.BaseExpression]] = []
        if type(value) is cst.Tuple:
            places = [(i, e.value) for i, e in enumerate(value.elements) if type(e) is cst.Element]
        elif value is not None:
            places = [(None, value)]
        spent: dict[int | None, tuple[cst.CSTNode, str]] = {}
        for place, expr in places:
            ref = key_ref(expr)
            use = state.prior_use(ref) if ref is not None and state.is_key(ref) else None
            use = use.of_kind(False) if use is not None else None
            if use is not None:
                spent[place] = (use.node, use.by)
        return spent

    def _spent_by_callee(self, value: cst.BaseExpression | None) -> dict[int | None, Use]:
        """The keys a call of a function of the module gets back already drawn from, by place of what it returns
        (`_spent_places`): walked this round already, or the last round's."""
        if type(value) is not cst.Call:
            return {}
        function, _ = self._callee(value)
        if function is None and type(value.func) is cst.Name:  # a def further down: the module's one binding of it
            found = self._tracker.callees.bindings.binding(value.func, tuple(self._tracker.chain), want_def=True)
            function = found[0] if found is not None and type(found[0]) is cst.FunctionDef else None
        if function is None:
            return {}
        recorder = self._tracker.recorder
        now = recorder.spent_now(function) if function not in self._functions else None
        spent = now if now is not None else self._tracker.known.spent_returns.get(function, {})
        name = function.name.value if type(function) is cst.FunctionDef else "lambda"
        return {place: Use(node, by, returned=name) for place, (node, by) in spent.items()}

    def consumed_again(self, loop: cst.CSTNode) -> list[tuple[cst.BaseExpression, str, str, Use]]:
        """The keys a For or While body, or a lax loop body (`leave_Return`), consumes that its previous iteration
        consumed last (`next_iteration`): (argument, ref, consumer, the previous iteration's use)."""
        return self._again.pop(loop, [])

    def enter_branch(self, test: cst.BaseExpression, truth: bool) -> None:
        """A branch of the innermost loop's body that runs in one iteration at most (`for n in [0, 1]: if n == 1:`);
        a branch where a name is None (`if rng is not None:` not taken): no key there, nothing consumed."""
        state = self.state
        for name, none in self._tracker.nones.said(test, truth).items():
            if none:
                state.holds_none(name)
                self._none_returned(name)
        for name, values in literal_facts(test, truth):  # `name == "moons"`, `name in ("a", "b")` taken
            state.tested_equal(name, values)
        loop = self._loops[-1] if self._loops else None
        once = (
            loop is not None
            and loop[0] is state
            and loop[1] == len(state.loops)
            and type(loop[2]) is cst.For
            and runs_once(test, truth, loop[2])
        )
        self._once.append((state, len(state.loops)) if once else None)

    def leave_branch(self, branch: cst.BaseSuite | cst.If | cst.Else | None, only_way_on: bool = False) -> None:
        self._once.pop()

    def _none_returned(self, name: str) -> None:
        """On this path `name` is None: when it holds what a call of a def returned, and that def returns None only
        before it reads the parameter given a key (`if not ready: return None`, then the draw), the call did not
        consume that key on this path (`unit = maybe_sobol(key)`, then `if unit is None: split(key)`)."""
        call = self._bound_calls.get(name)
        if call is None:
            return
        function, bound = self._callee(call)
        if type(function) is not cst.FunctionDef:
            return
        state = self.state
        spent = [ref for ref, use in state.consumed.items() if use.node is call]
        given = arguments_given(function, bound, call) if spent else None
        if not given:
            return
        params = {state.resolve(ref): param for param, arg in given.items() if (ref := key_ref(arg)) is not None}
        for ref in spent:
            param = params.get(ref)
            if param is not None and _none_before_reading(function, param):
                del state.consumed[ref]

    def loop_target(self, name: str) -> bool:
        """Whether the innermost loop binds `name` as its target at each iteration."""
        return bool(self._loop_targets) and name in self._loop_targets[-1]

    def _enter(self, node: cst.CSTNode, params: cst.Parameters, body) -> None:
        outer = self.state
        state = KeyState(self._key_names, {name: 0 for name in outer.keys if not name.startswith("self.")})
        names = parameter_names(params)
        given_keys = self._tracker.known.key_params.get(node, frozenset())
        for name in names:
            state.bind(name, False)
            state.add_parameter(name, name in given_keys)
        if body is not None and state.params:
            state.single |= state.params & self._unchanged_draws(body)
        function = self._tracker.function
        if function is not None and any(t.name in LOOP_BODIES for t in function.transforms):
            # A lax loop body runs once per iteration: keys from outside are reused unless split here.
            local = set(names) | (
                _rebound_keys(body) | _changed_containers(body, self._entries_kept_ahead) if body is not None else set()
            )
            state.carried = frozenset().union(
                *(carried_unchanged(node, t, self._loop_function) for t in function.transforms)
            )
            state.loops.append(local - state.carried)
            state.carry = _carry_parameter(node, function.transforms, body)
            returned_carry = _returned_carry(node, function.transforms, self._loop_function)
            if returned_carry is not None:
                state.next_carry = (*returned_carry, _Iteration(set()))
                state.iterations.append(state.next_carry[2])
        self._states.append(state)
        self._functions.append(node)

    def _loop_function(self, expr: cst.BaseExpression) -> cst.CSTNode | None:
        """The lambda, or the def of this module, a lax loop's argument is."""
        if type(expr) is cst.Lambda:
            return expr
        found = self._tracker.callees.bindings.binding(expr, tuple(self._tracker.chain), want_def=True)
        return found[0] if found is not None and type(found[0]) is cst.FunctionDef else None

    def reused_by_loop(self, ref: str) -> bool:
        """Consumed here in every iteration of the innermost loop (not in a block that leaves it)."""
        ref = self._written.get(ref, ref)  # (`rngs["dropout"]` of `{"dropout": rng}`: its container may change)
        return (
            self.state.reused_by_loop(ref)
            and self._every_iteration()
            and not self._field_changed_in_loop(ref)
            and not self._runs_once()
        )

    def _runs_once(self) -> bool:
        """Whether the innermost loop runs its body once at most (decided_tests.iterations_at_most_one)."""
        loop = self._loops[-1][2] if self._loops else None
        return type(loop) is cst.For and iterations_at_most_one(loop, self._tracker.literal_of)

    def _field_changed_in_loop(self, ref: str) -> bool:
        """Whether `ref`, an attribute (`state.rng`), may be assigned in the body of the innermost loop: its object
        handed there to code that may assign it (`_keeps_field`; found once for each loop and attribute)."""
        ref = self.state.resolve(ref)
        if not _attribute(ref) or not self._in_python_loop():
            return False
        loop = self._loops[-1][2]
        if type(loop) is not cst.For and type(loop) is not cst.While:
            return False
        at = (id(loop), ref)
        if at not in self._loop_fields:
            holder, _, attribute = ref.partition(".")
            self._loop_fields[at] = changes_fields(
                loop.body, holder, attribute, lambda call: self._keeps_field(call, holder, attribute, ahead=True)
            )
        return self._loop_fields[at]

    def _every_iteration(self) -> bool:
        """Whether this point runs in every iteration of the innermost loop: not in a block that leaves it, nor in
        a branch that runs in one iteration at most (loop_guards.py)."""
        state, depth = self.state, len(self.state.loops)
        return not self._tracker.flow.leaves_loop() and not any(
            once is not None and once[0] is state and once[1] == depth for once in self._once
        )

    def _same_each_iteration(self, value: cst.BaseExpression | None, named: bool = False) -> bool:
        """A key made in a loop's body from values that loop never changes (`jax.random.PRNGKey(42)` given to a
        sampler, `fold_in(base_rng, step)` with neither bound in the body nor the loop's target): every iteration
        makes the same key. A name bound to a seed's key there (`named`: `rng = jax.random.PRNGKey(seed)` at the top
        of a run over datasets or settings) re-seeds each run on purpose, to compare them; `fold_in` is there to
        make keys differ."""
        if type(value) is not cst.Call or not value.args or not self._in_python_loop():
            return False
        made = self._tracker.names.qualified(value.func)
        if made not in SINGLE_KEY_MAKERS or named and made != FOLD_IN:
            return False
        changed = self.state.loops[-1] | self._loop_targets[-1]
        return all(not arg.star and fixed_in(_attribute_root(arg.value), changed) for arg in value.args)

    def _in_python_loop(self) -> bool:
        """Whether the innermost loop around this point is a Python loop or a comprehension of this scope (a lax
        loop body's literal keys are JAX203's)."""
        return bool(self._loops) and self._loops[-1][0] is self.state and self._loops[-1][1] == len(self.state.loops)

    def made_each_iteration(self, ref: str) -> bool:
        """Whether the key `ref` was made in this loop's body from values the loop never changes."""
        return self.state.resolve(ref) in self.state.invariant

    def same_key_made_here(self, call: cst.Call) -> tuple[cst.Call, str] | None:
        """The key a call draws from when it is made right there, in every iteration of the loop around, from
        values the loop never changes (`permutation(jax.random.PRNGKey(42), n)` in a loop over classes), with what
        draws."""
        drawn = self._drawn_key(call)
        if drawn is None:
            return None
        made, by = drawn
        if type(made) is not cst.Call or not self._same_each_iteration(made) or not self._every_iteration():
            return None
        return made, by

    def visit_For_body(self, node: cst.For) -> None:
        fresh = isinstance(node.iter, cst.Call) and makes_key(node.iter, self._tracker.names)
        iterated = key_ref(node.iter)
        fresh = fresh or (iterated is not None and self.state.is_key(iterated))
        for name in target_names(node.target):
            self.state.bind(name, fresh or self.state.named_like_key(name))

    def visit_While(self, node: cst.While) -> None:
        self._cell_start(node)
        self._unread |= unread_draws(node.body, self._is_pure)

    def visit_Match(self, node: cst.Match) -> None:
        self._cell_start(node)


def carried_unchanged(
    function: cst.CSTNode,
    transform: AppliedTransform,
    resolve: Callable[[cst.BaseExpression], cst.CSTNode | None] = lambda expr: None,
) -> set[str]:
    """The names of a lax loop body (or of a `while_loop`'s condition) that hold what the carry held at the
    iteration before: the carry parameter, or a name unpacked from it, at a place of the carry that every
    `return` of the body gives back unchanged (`def step(key, _): return key, bits(key)`; `key, n = carry` and
    `return key, n + 1`; `lambda c: (c[0] + 1, c[1])`). A key there is the same key at every iteration: jax
    raises KeyReuseError ("scan body function leads to key reuse", "while_loop cond function leads to key
    reuse"). `resolve`: the function a loop's argument names."""
    carry = LAX_CARRIES.get(transform.name)
    if type(function) is not cst.FunctionDef or carry is None or transform.bound:
        return set()
    positional = [*function.params.posonly_params, *function.params.params]
    if carry[2] >= len(positional):
        return set()
    parameter = positional[carry[2]].name.value
    if parameter in rebound_names(function.body):
        return set()
    body = _next_carry_maker(function, transform, resolve)
    kept = _kept_places(body, transform) if body is not None else None
    if kept is None:
        return set()
    if kept is _ALL:
        return {parameter}
    unpacked = _unpacked_carry(function.body, parameter)
    if unpacked is None:
        return set()
    statement, names = unpacked
    elsewhere = rebound_names([s for s in statements(function.body) if s is not statement])
    return {name for index, name in enumerate(names) if index in kept and name not in elsewhere}


# The methods and fields of library objects that draw from keys they are given (`init`, `apply`, `apply_fn`).
_KEY_METHODS = frozenset(
    name for table in (SUBCLASS_KEY_METHODS, KEY_DRAWING_FIELDS) for methods in table.values() for name in methods
)


def randomness_off(call: cst.Call) -> bool:
    """A keyword that turns a library call's randomness off (`deterministic=True`, `train=False`), given to the call
    or to the factory that made what it calls (`make_policy(params, deterministic=True)(obs, key)`)."""
    calls = [call]
    if type(call.func) is cst.Call:
        calls.append(call.func)
    return any(
        arg.keyword and type(arg.value) is cst.Name and RANDOMNESS_OFF.get(arg.keyword.value) == arg.value.value
        for made in calls
        for arg in made.args
    )


def _annotated_parameter(
    chain: tuple[cst.CSTNode, ...],
    name: str,
    names_of: Callable[[cst.FunctionDef], tuple[frozenset[str], frozenset[str]]],
) -> cst.BaseExpression | None:
    """The annotation of the parameter `name` of the innermost function around that binds it, when that function
    binds it again only to what a method of it gives (`state = state.apply_gradients(...)`: of the same class).
    `names_of`: the names a function binds itself (KeyFlow._names_of, kept per function)."""
    for scope in reversed(chain):
        if type(scope) is cst.Lambda and name in parameter_names(scope.params):
            return None
        if type(scope) is not cst.FunctionDef:
            continue
        params = scope.params
        param = next(
            (p for p in (*params.posonly_params, *params.params, *params.kwonly_params) if p.name.value == name), None
        )
        if param is None:
            if name in names_of(scope)[0]:
                return None
            continue
        if param.annotation is None or not rebound_by_own_methods(scope.body, name):
            return None
        return param.annotation.annotation
    return None


def _entries(hops: list[tuple[cst.BaseExpression, str | None]]) -> set[str]:
    """The containers whose dict entries `hops` says a callee draws from (`meta` of `meta['key']`, `state.info` of
    `state.info['rng']`)."""
    return {hop.partition("[")[0] for _, hop in hops if hop is not None and container_item(hop)}


def _returned_carry(
    function: cst.CSTNode,
    transforms: tuple[AppliedTransform, ...],
    resolve: Callable[[cst.BaseExpression], cst.CSTNode | None],
) -> tuple[str, bool] | None:
    """The carry parameter of a lax loop body whose `return` is the carry of the loop's next iteration (not a
    `while_loop`'s condition), and whether that `return` pairs it with an output (`scan`)."""
    if type(function) is not cst.FunctionDef:
        return None
    positional = [*function.params.posonly_params, *function.params.params]
    for transform in transforms:
        carry = LAX_CARRIES.get(transform.name)
        if carry is None or transform.bound or carry[2] >= len(positional):
            continue
        if _next_carry_maker(function, transform, resolve) is function:
            return positional[carry[2]].name.value, transform.name in CARRY_WITH_OUTPUT
    return None


def _carry_parameter(
    function: cst.CSTNode, transforms: tuple[AppliedTransform, ...], body: cst.BaseSuite | None
) -> str | None:
    """The parameter that every lax loop running `function` gives its carry, when the body never rebinds it."""
    found = set()
    for transform in transforms:
        carry = LAX_CARRIES.get(transform.name)
        if carry is None:
            continue  # (another transform: the parameter holds what it held)
        if transform.bound or not isinstance(function, (cst.FunctionDef, cst.Lambda)):
            return None
        positional = [*function.params.posonly_params, *function.params.params]
        if carry[2] >= len(positional):
            return None
        found.add(positional[carry[2]].name.value)
    name = found.pop() if len(found) == 1 else None
    return name if name is not None and (body is None or name not in rebound_names(body)) else None


# What runs its inside on some paths only (or some number of times): a draw there may not run for every leaf.
_CONDITIONAL = frozenset(
    {cst.If, cst.IfExp, cst.While, cst.For, cst.Try, cst.Match, cst.BooleanOperation}
) | node_types(cst.BaseComp)


def _runs_through(function: cst.Lambda | cst.FunctionDef) -> bool:
    """Whether every run of a function goes through its whole body: a lambda, or a def whose only `return` is its
    last statement and which has no `raise`."""
    if type(function) is cst.Lambda:
        return True
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    exits = [
        node
        for node, _ in in_order(function.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda))
        if type(node) in (cst.Return, cst.Raise)
    ]
    last = body[-1] if body else None
    ends = last.body if isinstance(last, cst.SimpleStatementLine) else []
    return all(type(exit) is cst.Return and exit in ends for exit in exits)


def _next_carry_maker(
    function: cst.FunctionDef, transform: AppliedTransform, resolve: Callable[[cst.BaseExpression], cst.CSTNode | None]
) -> cst.CSTNode | None:
    """The function whose return is the carry `function` gets next: itself, or for a `while_loop`'s condition,
    the loop's body."""
    places = LOOP_CONDITIONS.get(transform.name)
    if places is None or type(transform.node) is not cst.Call:
        return function
    (condition_at, condition_word), (body_at, body_word) = places
    condition = argument(transform.node, condition_at, condition_word)
    if condition is None or resolve(condition) is not function:
        return function
    body = argument(transform.node, body_at, body_word)
    return resolve(body) if body is not None else None


_ALL = frozenset({-1})  # the whole carry comes back unchanged


def _kept_places(body: cst.CSTNode, transform: AppliedTransform) -> frozenset[int] | None:
    """The places of a lax loop body's carry (a tuple's indexes, or `_ALL`) that every `return` gives back as
    the body got them; None when the body is not known."""
    carry = cast(tuple[int, str, int], LAX_CARRIES.get(transform.name))
    returns: list[cst.BaseExpression] | None
    if type(body) is cst.Lambda:
        params, returns, suite = body.params, [body.body], None
    elif type(body) is cst.FunctionDef:
        params, returns, suite = body.params, returned(body), body.body
    else:
        return None
    positional = [*params.posonly_params, *params.params]
    if returns is None or carry[2] >= len(positional):
        return None
    parameter = positional[carry[2]].name.value
    if suite is not None and parameter in rebound_names(suite):
        return None
    carried = [_carry_part(value, transform.name in CARRY_WITH_OUTPUT) for value in returns]
    if all(type(part) is cst.Name and part.value == parameter for part in carried):
        return _ALL
    unpacked = _unpacked_carry(suite, parameter) if suite is not None else None
    names: list[str] = []
    if suite is not None and unpacked is not None:
        elsewhere = rebound_names([s for s in statements(suite) if s is not unpacked[0]])
        names = [name if name not in elsewhere else "" for name in unpacked[1]]
    kept: set[int] = set()
    for part in carried:
        elements = cast("cst.Tuple | cst.List", part).elements if type(part) in (cst.Tuple, cst.List) else ()
        if unpacked is not None and len(elements) != len(names):
            return frozenset()
        kept_here = {
            index
            for index, element in enumerate(elements)
            if type(element) is cst.Element
            and (_given_item(element.value, parameter) == index or _named(element.value, names, index))
        }
        kept = kept_here if part is carried[0] else kept & kept_here
    return frozenset(kept)


def _given_item(expr: cst.BaseExpression, parameter: str) -> int | None:
    """The index `i` of `parameter[i]` (an item of the carry, read as it came)."""
    if type(expr) is not cst.Subscript or type(expr.value) is not cst.Name or expr.value.value != parameter:
        return None
    if len(expr.slice) != 1 or type(expr.slice[0].slice) is not cst.Index:
        return None
    index = expr.slice[0].slice.value
    return int(index.value) if type(index) is cst.Integer else None


def _named(expr: cst.BaseExpression, names: list[str], index: int) -> bool:
    """Whether `expr` is the name unpacked from the carry at `index`."""
    return type(expr) is cst.Name and index < len(names) and names[index] != "" and expr.value == names[index]


@dataclass(frozen=True)
class _ImportedCall:
    """A call of another module's function that draws from keys (KeyFlow._imported_call)."""

    qualified: str
    consumes: Consumes
    given: dict[str, cst.BaseExpression]  # the argument given each parameter, up to a `*args` or `**kwargs`
    starred: bool  # whether it has a `*args` or `**kwargs`
    bound: int  # the leading parameters the call fills itself (`self` through an instance)
    call: cst.Call  # the call as the function gets it (`f(x, key)` of `jax.jit(f)(x, key)`)


@dataclass
class _KeySyntax:
    """What the syntax of a module says about its draws, asked at every call in every round."""

    drawn: dict[int, tuple[cst.BaseExpression, str] | None] = field(default_factory=dict)  # by call: _drawer_key
    drawn_unchanged: dict[int, set[str]] = field(default_factory=dict)  # by body: _drawn_unchanged
    unseen: dict[int, set[int]] = field(default_factory=dict)  # by def: unseen_results
    scope_names: dict[int, tuple[frozenset[str], frozenset[str]]] = field(default_factory=dict)  # by def: _names_of
    # by another module's function: its parameters and its guarded draws, read back from Consumes (_imported_live)
    imported_guards: dict[str, tuple[cst.FunctionDef, dict[str, Sites]]] = field(default_factory=dict)
    _defs: dict[str, cst.FunctionDef] | None = None

    def module_defs(self, module: cst.Module) -> dict[str, cst.FunctionDef]:
        """The module-level defs whose names the module binds once: a call of the name runs that def."""
        if self._defs is None:
            body = list(statements(module.body))
            bound = every_assigned_value(body)
            self._defs = {
                statement.name.value: statement
                for statement in body
                if type(statement) is cst.FunctionDef and len(bound[statement.name.value]) == 1
            }
        return self._defs


_syntax_of = ModuleMemo(lambda module: _KeySyntax())


def _drawn_unchanged(body: cst.BaseSuite, names: Names) -> set[str]:
    """The names a `jax.random` sampler of a function body draws from as they are, that the body never rebinds:
    each holds one key (jax raises "accepts a single key" on an array of keys), so a view of it (`key[None]`,
    `key.reshape((1,))`) is that key."""
    return drawn_names(body, names, sampler_key) - rebound_names(body)


def drawn_names(
    body: cst.CSTNode, names: Names, draws: Callable[[cst.Call, Names], tuple[cst.BaseExpression, str] | None]
) -> set[str]:
    """The names the calls of a body (not of the functions nested in it) draw from as they are, by what `draws` says
    a call draws from (sampler_key: `jax.random`'s; drawn_key: libraries' too)."""
    drawn = set()
    for node, _ in in_order(body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        if type(node) is cst.Call and (found := draws(node, names)) is not None:
            if type(found[0]) is cst.Name:
                drawn.add(found[0].value)
    return drawn


def _carry_part(value: cst.BaseExpression, with_output: bool) -> cst.BaseExpression | None:
    """The new carry a loop body's `return` gives: all of it, or the first of `(carry, output)`."""
    if not with_output:
        return value
    if type(value) is cst.Tuple and len(value.elements) == 2 and type(value.elements[0]) is cst.Element:
        return value.elements[0].value
    return None


def _none_before_reading(function: cst.FunctionDef, param: str) -> bool:
    """Whether every way `function` returns None (`return`, `return None`) comes, in the order its statements run, before
    any read of `param`: returns outside loops, each ahead of the first statement that mentions `param`, and a body
    that cannot end without a `return` or `raise`."""
    body = function.body.body if type(function.body) is cst.IndentedBlock else ()
    if (
        not body
        or not isinstance(body[-1], cst.SimpleStatementLine)
        or not any(type(small) in (cst.Return, cst.Raise) for small in body[-1].body)
    ):
        return False  # (falling off the end returns None after whatever came before)
    seen_read = False
    returned_none = False
    for node, _ in in_order(function.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        kind = type(node)
        if kind is cst.Name and cast(cst.Name, node).value == param:
            seen_read = True
        elif _returns_none(node):
            if seen_read:
                return False
            returned_none = True
        elif kind in (cst.For, cst.While) and not seen_read:
            loop = cast("cst.For | cst.While", node)
            if any(_returns_none(inner) for inner, _ in in_order(loop.body, skip=(cst.FunctionDef, cst.Lambda))):
                return False  # (a later iteration may return None after an earlier one read the key)
    return returned_none


def _returns_none(node: cst.CSTNode) -> bool:
    """`return` or `return None`."""
    if type(node) is not cst.Return:
        return False
    value = node.value
    return value is None or (type(value) is cst.Name and value.value == "None")


def _handed_to(call: cst.Call, callee: cst.FunctionDef, consumed: frozenset[str]) -> set[str]:
    """The names `call` gives `callee` at the parameters it consumes (by position or keyword)."""
    given = arguments_given(callee, 0, call) if consumed else None
    return {arg.value for param, arg in (given or {}).items() if param in consumed and type(arg) is cst.Name}


def _unpacked_carry(body: cst.BaseSuite, parameter: str) -> tuple[cst.Assign, list[str]] | None:
    """The statement of a body that unpacks its carry parameter into names (`key, n = carry`), with the names."""
    for statement in statements(body):
        if (
            type(statement) is cst.Assign
            and len(statement.targets) == 1
            and type(statement.value) is cst.Name
            and statement.value.value == parameter
            and type(statement.targets[0].target) in (cst.Tuple, cst.List)
        ):
            elements = cast("cst.Tuple | cst.List", statement.targets[0].target).elements
            if all(type(e) is cst.Element and type(e.value) is cst.Name for e in elements):
                return statement, [cast(cst.Name, e.value).value for e in elements]
    return None


_NO_VALUE = object()


def _attribute_root(expr: cst.BaseExpression) -> cst.BaseExpression:
    """The name an attribute chain reads (`cfg` of `cfg.train.seed`): the same value when that name is."""
    while type(expr) is cst.Attribute:
        expr = expr.value
    return expr


def unseen_results(function: cst.FunctionDef, names: Names) -> set[int]:
    """The ids of the `jax.random` calls a function makes as statements whose results nothing in the function
    reads: a bare `split(key)`, or `key_a, key_b = split(key)` whose names the function mentions nowhere else
    (nested functions included). Such a draw of the function's key has no effect but numbers nobody sees, so it
    decides nothing for its callers: the caller that draws from the same key again repeats nothing (JaxInforMARL's
    `get_init_state` splits its key and builds fixed positions)."""
    found: set[int] = set()
    bound: list[tuple[cst.Call, list[str]]] = []  # the draws bound to names only, with those names
    for node, _ in in_order(function.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        if type(node) not in (cst.Expr, cst.Assign) or type(node.value) is not cst.Call:
            continue
        if not (names.qualified(node.value.func) or "").startswith(JAX_RANDOM):
            continue
        if type(node) is cst.Expr:
            found.add(id(node.value))
            continue
        targets = [_plain_names(target.target) for target in node.targets]
        if all(targets):
            bound.append((node.value, [name for names_bound in targets for name in names_bound or ()]))
    if bound:
        mentions: dict[str, int] = {}
        for node, _ in in_order(function.body):
            if type(node) is cst.Name:
                mentions[node.value] = mentions.get(node.value, 0) + 1
        found |= {id(call) for call, targets in bound if all(mentions.get(name) == 1 for name in targets)}
    return found


def _plain_names(target: cst.BaseExpression) -> list[str] | None:
    """The names an assignment target binds when it binds only names (`a`, `a, *rest`); None for an item or an
    attribute in it (whose own names `target_names` leaves out)."""
    names = list(target_names(target))
    return names if len(names) == sum(type(node) is cst.Name for node, _ in in_order(target)) else None


def unread_draws(body: cst.BaseSuite, pure: Callable[[cst.Call], bool]) -> set[int]:
    """The ids of the calls in a loop body whose results nobody reads there: `keys = split(key, n)` where
    `keys` only goes to `pure` calls (of jitted or vmapped functions: no effect but their result) whose
    results are dropped, or only waited for (`out.block_until_ready()`), as a timing loop runs the same
    computation again and again, or a draw only waited for (`normal(key, ()).block_until_ready()`, a barrier).
    Repeating such a draw repeats nothing anyone sees."""
    assigned: dict[str, list[cst.Call | None]] = {}
    loads: dict[str, list[tuple[cst.CSTNode, ...]]] = {}  # name -> the nodes around each of its reads
    _collect(body, (), assigned, loads)
    unread = {
        id(path[-2])
        for paths in loads.values()
        for path in paths  # `f(keys)`, its result dropped
        if len(path) >= 3
        and isinstance(path[-1], cst.Arg)
        and isinstance(path[-2], cst.Call)  # (always, an argument's parent: a class is not entered)
        and _result_dropped(path[:-2], path[-2])
        and pure(path[-2])
    }
    for node, _ in in_order(body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        waited = _waited_for(node) if type(node) is cst.Expr else None
        if waited is not None and pure(waited):
            unread.add(id(waited))  # `normal(key, ()).block_until_ready()`: a barrier, its numbers unseen
    for name, calls in assigned.items():
        call = calls[0] if len(calls) == 1 else None
        if (
            call is not None
            and loads.get(name)
            and pure(call)
            and all(_dropped(name, path, assigned, loads, pure, 0) for path in loads[name])
        ):
            unread.add(id(call))
    return unread


def _collect(node: cst.CSTNode, path: tuple[cst.CSTNode, ...], assigned, loads) -> None:
    kind = type(node)
    if kind is cst.FunctionDef or kind is cst.ClassDef or kind is cst.Lambda:
        return
    if kind is cst.Assign:
        assign = cast(cst.Assign, node)
        for target in assign.targets:
            if type(target.target) is cst.Name and type(assign.value) is cst.Call:
                assigned.setdefault(target.target.value, []).append(assign.value)
            else:
                for name in target_names(target.target):
                    assigned.setdefault(name, []).append(None)  # bound otherwise: not followed
        _collect(assign.value, (*path, node), assigned, loads)
        return
    if kind is cst.Name:
        loads.setdefault(cast(cst.Name, node).value, []).append(path)
        return
    if kind is cst.Attribute:
        _collect(cast(cst.Attribute, node).value, (*path, node), assigned, loads)
        return
    for child in branches(node, TOKENS_BUT_NAMES):  # (no name below a token but itself)
        _collect(child, (*path, node), assigned, loads)


def _dropped(name: str, path: tuple[cst.CSTNode, ...], assigned, loads, pure, depth: int) -> bool:
    """Whether this read of `name` reaches nothing: an argument of a call whose result is dropped or
    bound to a name only waited for, or the object of `name.block_until_ready()`."""
    if len(path) < 2:
        return False
    parent = path[-1]
    if isinstance(parent, cst.Attribute) and parent.attr.value == "block_until_ready":
        return len(path) >= 3 and isinstance(path[-2], cst.Call) and _result_dropped(path[:-2], path[-2])
    if not (isinstance(parent, cst.Arg) and isinstance(path[-2], cst.Call) and depth < 2):
        return False
    call, outer = path[-2], path[:-2]
    if not pure(call):
        return False  # `print(x)`, `out.append(x)`: a call kept for its effect reads its arguments
    if _result_dropped(outer, call):
        return True
    holder = outer[-1] if outer else None
    if (
        isinstance(holder, cst.Assign)
        and len(holder.targets) == 1
        and isinstance(holder.targets[0].target, cst.Name)
        and holder.value is call
    ):
        result = holder.targets[0].target.value
        return (
            len(assigned.get(result, ())) >= 1
            and bool(loads.get(result))
            and all(_dropped(result, other, assigned, loads, pure, depth + 1) for other in loads[result])
        )
    return False


def _waited_for(statement: cst.Expr) -> cst.Call | None:
    """The call a statement only waits for: `f(x).block_until_ready()`, its result dropped."""
    value = statement.value
    if type(value) is not cst.Call or value.args or type(value.func) is not cst.Attribute:
        return None
    func = value.func
    return func.value if func.attr.value == "block_until_ready" and type(func.value) is cst.Call else None


def _result_dropped(outer: tuple[cst.CSTNode, ...], call: cst.Call) -> bool:
    return bool(outer) and isinstance(outer[-1], cst.Expr) and outer[-1].value is call


def _rebound_keys(body: cst.BaseSuite) -> set[str]:
    """The names a block may rebind, and the attributes it assigns (`self.rng, sub = split(self.rng)`)."""
    return rebound_names(body) | set(_attribute_targets(body))


def _changed_containers(body: cst.CSTNode, keeps: Callable[[cst.Call], set[str]] = lambda call: set()) -> set[str]:
    """`name[]` for each container (a name, `state.info`: `container_ref`) a block may change the entries of:
    `name[...] = ...`, `name.update(...)`, `f(name)`, `del name[...]` (its entries are then no longer the ones before
    the loop's first iteration); not a name given to a call that `keeps` its entries."""
    found: set[str] = set()
    stack = [body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Del, cst.For):
            targets: list[cst.BaseExpression] = (
                [t.target for t in cast(cst.Assign, node).targets]
                if kind is cst.Assign
                else [cast("cst.AugAssign | cst.AnnAssign | cst.Del | cst.For", node).target]
            )
            while targets:
                target = targets.pop()
                if type(target) in (cst.Tuple, cst.List):
                    targets.extend(element.value for element in cast("cst.Tuple | cst.List", target).elements)
                elif type(target) is cst.StarredElement:
                    targets.append(target.value)
                elif type(target) is cst.Subscript and (container := container_ref(target.value)) is not None:
                    found.add(f"{container}[]")
        elif kind is cst.Call:
            call = cast(cst.Call, node)
            func = call.func
            if type(func) is cst.Attribute and (receiver := container_ref(func.value)) is not None:
                found.add(f"{receiver}[]")
            kept = keeps(call) if call.args else set()
            for arg in call.args:
                given = container_ref(arg.value)
                if given is not None and given not in kept:
                    found.add(f"{given}[]")
        stack.extend(branches(node))  # (no token is looked at)
    return found


def _library_subclass_method(qualified: str | None, method: str) -> tuple[tuple[int | None, str], str] | None:
    """Where an instance of the library class `qualified` takes the keys its `method` draws from, when the library
    defines it as a subclass of a base of SUBCLASS_KEY_METHODS (`flax.linen.Dense`), with the class's name."""
    for prefix, (base, others) in LIBRARY_SUBCLASSES.items():
        name = qualified[len(prefix) :] if qualified and qualified.startswith(prefix) else ""
        if name[:1].isupper() and "." not in name and name not in others:
            where = SUBCLASS_KEY_METHODS[base].get(method)
            return (where, name) if where is not None else None
    return None


def _attribute_targets(node: cst.CSTNode):
    kind = type(node)
    if kind is cst.FunctionDef or kind is cst.ClassDef:
        return
    if kind is cst.Assign or kind is cst.AugAssign or kind is cst.AnnAssign:
        targets = (
            [t.target for t in cast(cst.Assign, node).targets]
            if kind is cst.Assign
            else [cast("cst.AugAssign | cst.AnnAssign", node).target]
        )
        for target in targets:
            yield from _attribute_refs(target)
        return
    for child in children(node):
        if type(child) not in _NOT_ASSIGNING:  # only statements assign: expressions and tokens are not entered
            yield from _attribute_targets(child)


def _attribute_refs(target: cst.BaseExpression):
    kind = type(target)
    if kind is cst.Tuple or kind is cst.List:
        for element in cast("cst.Tuple | cst.List", target).elements:
            yield from _attribute_refs(element.value)
    elif kind is cst.StarredElement:
        yield from _attribute_refs(cast(cst.StarredElement, target).value)
    elif kind is cst.Attribute:
        ref = key_ref(target)
        if ref is not None:
            yield ref


def _callee_name(call: cst.Call) -> str:
    """The called function's name as a message shows it: `train_step`, `model.apply`'s `apply`, and for a transform
    called at once, the transform and its function (`value_and_grad(model_apply)`), and for what a factory makes,
    the factory (`make_kernel(...)`)."""
    func = call.func
    if isinstance(func, cst.Call) and (outer := _last_name(func.func)) is not None:
        inner = _last_name(func.args[0].value) if func.args else None
        return f"{outer}({inner or '...'})"
    if isinstance(func, cst.Call) and func.args and (inner := _last_name(func.args[0].value)) is not None:
        return f"the transform({inner})"
    return _last_name(func) or "the function"


def _last_name(expr: cst.BaseExpression) -> str | None:
    """`f` of `f`, `apply` of `model.apply`; None for anything else."""
    if isinstance(expr, cst.Name):
        return expr.value
    return expr.attr.value if isinstance(expr, cst.Attribute) else None
