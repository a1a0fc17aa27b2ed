"""Keys a call spends one hop away from its arguments: through a free variable of a nested def or lambda (a
closure), and through a literal entry of a dict argument (flax's `rngs={"dropout": key}` convention).

jax draws what the function draws, wherever the function reads the key: calling a nested `loss_fn()` that draws
from the enclosing function's `dropout_key` draws from that key, and `model_apply(x, rngs={"dropout": key})`
whose body draws from `rngs["dropout"]` draws from `key` (under `jax_debug_key_reuse` a second draw of either
raises KeyReuseError). A closure reads its free variable when it runs, so the key spent is the one the name holds
at the call.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import cast

import libcst as cst

from jaxlint.analysis.bindings import declared_outer, parameter_names, rebound_names
from jaxlint.analysis.dead_branches import Guard, arguments_given, dead_branch, filled_in, none_at_call
from jaxlint.traversal import in_order

# The tests of the function's parameters around each draw (dead_branches.parameter_guards), one tuple per draw.
Sites = tuple[tuple[Guard, ...], ...]


def name_item(ref: str) -> tuple[str, str | int] | None:
    """`("rngs", "dropout")` for the ref `rngs['dropout']` and `("args", 1)` for `args[1]` (keys.key_ref's spelling:
    an entry or a place of a plain name); None for anything else."""
    found = container_item(ref)
    return found if found is not None and "." not in found[0] else None


def container_item(ref: str) -> tuple[str, str | int] | None:
    """`name_item`, of a container `container_ref` spells: `("state.info", "rng")` for `state.info['rng']` too."""
    base, _, rest = ref.partition("[")
    if not rest.endswith("]") or "[" in rest or ":" in rest and rest[0] not in "'\"":
        return None  # (a slice, `keys[1:]`, is no entry)
    item = ast.literal_eval(rest[:-1])
    return (base, item) if isinstance(item, (str, int)) else None


def container_ref(expr: cst.BaseExpression) -> str | None:
    """How a ref spells a container whose items it tracks: a name (`info`), or an attribute of a name (`state.info`,
    brax's `state.info["rng"]`: jax follows a key into a dict wherever the dict sits); None for anything else."""
    kind = type(expr)
    if kind is cst.Name:
        return cast(cst.Name, expr).value
    if kind is cst.Attribute and type(cast(cst.Attribute, expr).value) is cst.Name:
        attribute = cast(cst.Attribute, expr)
        return f"{cast(cst.Name, attribute.value).value}.{attribute.attr.value}"
    return None


def item_ref(name: str, item: str | int) -> str:
    return f"{name}[{item!r}]"


def param_field(ref: str) -> tuple[str, str] | None:
    """`("cfg", "key")` for the ref `cfg.key` (keys.key_ref's spelling of an attribute of a name); None for anything
    else, `self.key` included (a method's own attribute: keys.KeyFlow._kept_field)."""
    holder, dot, attribute = ref.partition(".")
    if not dot or not holder.isidentifier() or not attribute.isidentifier() or holder == "self":
        return None
    return holder, attribute


def local_names(function: cst.FunctionDef | cst.Lambda) -> frozenset[str]:
    """The names a function or lambda binds in its own scope: parameters, assignments, and `:=` targets."""
    names = set(parameter_names(function.params))
    body: cst.CSTNode = function.body
    if type(function) is cst.FunctionDef:
        names |= rebound_names(cast(cst.BaseSuite, body))
    for node, _ in in_order(body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        if type(node) is cst.NamedExpr and type(node.target) is cst.Name:
            names.add(node.target.value)
    return frozenset(names)


def runs_when_called(function: cst.FunctionDef | cst.Lambda) -> bool:
    """Whether calling the function runs its body: not a generator's or a coroutine's (their calls draw nothing
    until iterated or awaited)."""
    if type(function) is cst.Lambda:
        return True
    if cast(cst.FunctionDef, function).asynchronous is not None:
        return False
    skip = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
    return not any(type(node) is cst.Yield for node, _ in in_order(function.body, skip=skip))


def declared(function: cst.FunctionDef | cst.Lambda) -> frozenset[str]:
    """The names a def declares `global` or `nonlocal`: they are not the enclosing function's variables."""
    return frozenset(declared_outer(function.body)) if type(function) is cst.FunctionDef else frozenset()


# The statements that store into (or delete) their targets.
_TARGETS = (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del)


def changes_entries(function: cst.FunctionDef | cst.Lambda, name: str) -> bool:
    """Whether a function may put other values in the entries of its `name`: `name[k] = v`, `del name[k]`, or a
    method of it called (`name.update(...)`, `name.pop(k)`). Then an entry it draws from may not be the caller's."""
    skip = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
    return any(_changes_entry(node, name) for node, _ in in_order(function.body, skip=skip))


def _changes_entry(node: cst.CSTNode, name: str) -> bool:
    """Whether `node` may change the entries of `name`: a method of it (`name.update`), or a store or `del` of an
    entry (`name[k] = v`)."""
    if type(node) is cst.Attribute:
        return type(node.value) is cst.Name and node.value.value == name
    return isinstance(node, _TARGETS) and _entry_of(node.target, name)


def entries_changed_before(function: cst.FunctionDef | cst.Lambda, name: str, node: cst.CSTNode) -> bool:
    """Whether the function may have put other values in the entries of its `name` (as `changes_entries` finds) by the
    time it runs `node`: in a statement before the one holding `node` (a statement evaluates its value before it
    stores: `info["rng"], k = split(info["rng"])` draws from the caller's key first), or anywhere in a loop around
    `node` (the next iteration runs after it)."""
    skip = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
    statements = 0  # small statements and compound statements seen, in order
    changes: list[tuple[int, tuple[cst.CSTNode, ...]]] = []
    where: tuple[int, tuple[cst.CSTNode, ...]] | None = None
    for current, above in in_order(function.body, skip=skip):
        if isinstance(current, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            statements += 1
        if current is node:
            where = (statements, above)
        if _changes_entry(current, name):
            changes.append((statements, above))
    if where is None:
        return True
    at, around = where
    loops = {id(statement) for statement in around if type(statement) in (cst.For, cst.While)}
    return any(index < at or any(id(outer) in loops for outer in outer_nodes) for index, outer_nodes in changes)


# Methods of a dict that read it and leave its entries as they are.
_READING_METHODS = frozenset({"get", "keys", "values", "items", "copy", "__contains__", "__getitem__"})


def changes_field_entries(function: cst.FunctionDef | cst.Lambda, name: str, attribute: str) -> bool:
    """Whether a function (its nested defs and lambdas included) may put other values in the entries of the dict
    `name.<attribute>` holds, or another dict there: anything but reading `name.<attribute>[k]`, calling a reading
    method of it (`.get(k)`) and reading other attributes of `name`. Storing (`name.attribute[k] = v`), a method that
    may store (`.update`), handing `name` or `name.attribute` to code, or naming either again may."""
    targets: set[int] = set()
    for node, above in in_order(function.body):
        if isinstance(node, _TARGETS):
            target = node.target
            targets.update(id(inner) for inner, _ in in_order(target))
        if type(node) is not cst.Name or node.value != name or not above:
            continue
        parent = above[-1]
        if type(parent) is cst.Attribute and parent.attr is node or type(parent) is cst.Arg and parent.keyword is node:
            continue  # (an attribute's name, a keyword's: not the variable)
        if type(parent) is cst.Param:
            continue
        if type(parent) is not cst.Attribute or id(parent) in targets:
            return True  # `name` itself handed or named again, or one of its attributes assigned
        if parent.attr.value != attribute:
            continue
        holder = above[-2] if len(above) > 1 else None
        if type(holder) is cst.Subscript and holder.value is parent and id(holder) not in targets:
            continue  # `name.attribute[k]` read
        if type(holder) is cst.Attribute and holder.value is parent and holder.attr.value in _READING_METHODS:
            continue  # `name.attribute.get(k)`
        return True
    return False


def _entry_of(target: cst.BaseExpression, name: str) -> bool:
    """Whether an assignment's target is (or unpacks into) an entry of `name`."""
    kind = type(target)
    if kind is cst.Subscript:
        owner = cast(cst.Subscript, target).value
        return type(owner) is cst.Name and owner.value == name
    if kind is cst.Tuple or kind is cst.List:
        return any(_entry_of(element.value, name) for element in cast("cst.Tuple | cst.List", target).elements)
    return kind is cst.StarredElement and _entry_of(cast(cst.StarredElement, target).value, name)


def changes_fields(body: cst.CSTNode, name: str, attribute: str, keeps: Callable[[cst.Call], bool]) -> bool:
    """Whether code (a function's body, a loop's) may put another value in `name.<attribute>`: `name.attribute = v`,
    `del name.attribute`, or `name` handed to a call (as an argument or as the receiver of a method) that may
    (`keeps(call)` says it does not). Then the attribute it draws from may not be the one it held before."""
    for node, _ in in_order(body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        kind = type(node)
        if kind is cst.AssignTarget or kind is cst.AugAssign or kind is cst.AnnAssign or kind is cst.Del:
            if _field_of(node.target, name, attribute):  # (each of these has a target)
                return True
        elif kind is cst.Call and name in handed_names(cast(cst.Call, node)) and not keeps(cast(cst.Call, node)):
            return True
    return False


def handed_names(call: cst.Call) -> set[str]:
    """The names a call hands to the code it runs: its arguments that are names, and the receiver of a method."""
    names = {arg.value.value for arg in call.args if type(arg.value) is cst.Name}
    func = call.func
    if type(func) is cst.Attribute and type(func.value) is cst.Name:
        names.add(func.value.value)
    return names


def _field_of(target: cst.BaseExpression, name: str, attribute: str) -> bool:
    """Whether an assignment's target is (or unpacks into) `name.<attribute>`."""
    kind = type(target)
    if kind is cst.Attribute:
        owner = cast(cst.Attribute, target).value
        return type(owner) is cst.Name and owner.value == name and cast(cst.Attribute, target).attr.value == attribute
    if kind is cst.Tuple or kind is cst.List:
        elements = cast("cst.Tuple | cst.List", target).elements
        return any(_field_of(element.value, name, attribute) for element in elements)
    return kind is cst.StarredElement and _field_of(cast(cst.StarredElement, target).value, name, attribute)


def field_arguments(
    call: cst.Call, positional: Sequence[str], fields: dict[str, frozenset[str]]
) -> list[tuple[cst.BaseExpression, str | None]]:
    """What a call gives the attributes of parameters a function draws from (`fields`: parameter -> attributes):
    for a name, the name and the ref of its attribute (`gencfg` and `gencfg.key`)."""
    found: list[tuple[cst.BaseExpression, str | None]] = []
    for value, drawn in _given(call, positional, fields):
        if type(value) is cst.Name:
            found.extend((value, f"{value.value}.{attribute}") for attribute in sorted(drawn))
    return found


def item_arguments(
    call: cst.Call, positional: Sequence[str], items: dict[str, frozenset[str | int]]
) -> list[tuple[cst.BaseExpression, str | None]]:
    """What a call gives the items a function draws from (`items`: parameter -> dict entries and places): for a
    display argument, the item's value (`key` of `rngs={"dropout": key}`, of `(x, key)` for a function that unpacks
    `x, key = args`), with None; for a name or an attribute of one, it and the ref of its item (`rngs` and
    `rngs['dropout']`, `state.info` and `state.info['rng']`).
    `positional`: the function's positional parameters after any bound."""
    found: list[tuple[cst.BaseExpression, str | None]] = []
    for value, drawn in _given(call, positional, items):
        container = container_ref(value)
        if container is not None:
            found.extend((value, item_ref(container, item)) for item in sorted(drawn, key=repr))
        else:
            found.extend((item, None) for item in displayed_items(value, drawn))
    return found


def displayed_items(value: cst.BaseExpression, drawn: frozenset[str | int]) -> list[cst.BaseExpression]:
    """The values a dict, tuple or list display holds at the literal entries or places `drawn`: `key` of
    `{"dropout": key}` for "dropout", of `(x, key)` for 1 (none after a `*` unpacking, whose places are unknown)."""
    found = []
    if type(value) is cst.Dict:
        for entry in value.elements:
            if type(entry) is cst.DictElement and type(entry.key) in (cst.SimpleString, cst.Integer):
                literal = ast.literal_eval(cast("cst.SimpleString | cst.Integer", entry.key).value)
                if literal in drawn:
                    found.append(entry.value)
    elif type(value) is cst.Tuple or type(value) is cst.List:
        for index, element in enumerate(value.elements):
            if type(element) is cst.StarredElement:
                break
            if index in drawn:
                found.append(element.value)
    return found


def _given(
    call: cst.Call, positional: Sequence[str], parts: dict[str, frozenset]
) -> list[tuple[cst.BaseExpression, frozenset]]:
    """Each argument the call gives a parameter that has `parts` drawn from, with those parts (up to a `*args`)."""
    given = []
    names = iter(positional)
    for arg in call.args:
        if arg.star:
            break
        param = arg.keyword.value if arg.keyword is not None else next(names, None)
        drawn = parts.get(param or "")
        if drawn:
            given.append((arg.value, drawn))
    return given


def live(sites: Sites, function: cst.CSTNode, bound: int, call: cst.Call) -> bool:
    """Whether some draw of `sites` runs in `function` called by `call`: not every one sits in a branch of a test
    of its parameters that the call's literals make dead code (`if training:` of `loss_fn(p, training=False)`), or
    in one that fills in a parameter the call gives a value not known to be `None` or not (`if inds is None: inds =
    permutation(key, n)` of `permute(key, x, inds=inds)`: whether it draws is the caller's value, not a fact)."""
    if type(function) is not cst.FunctionDef or not any(sites):
        return True
    fixed = none_at_call(function, bound, call, {})
    given = arguments_given(function, bound, call) or {}
    return not all(
        any(dead_branch(test, truth, fixed) or filled_in(test, truth, fixed, given) for test, truth in guards)
        for guards in sites
    )
