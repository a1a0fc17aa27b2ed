"""Attributes an instance keeps from its construction to its end.

A key that `__init__` stores on `self` (`self.key = key`, or a dataclass field) and that no other code of the module
ever assigns is the same key at every call of a method that draws from it: each call draws the same numbers, and
jax's key-reuse checker (`jax_debug_key_reuse`) raises on the second. Only what the module shows counts: a class
with a base of another module (whose code may assign the attribute, or make it a property), a `setattr`, a
`__dict__` or a `__setattr__` anywhere in the module, and an attribute that is also a def of the class (a property
that splits each time) have no stable attributes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import libcst as cst

from jaxlint.analysis.bindings import is_docstring, is_property
from jaxlint.analysis.module_memo import ModuleMemo
from jaxlint.traversal import in_order

# The methods that build an instance: what they store is its construction (flax's `setup` included).
INITIALISERS = frozenset({"__init__", "__post_init__", "setup"})
_DYNAMIC = frozenset({"setattr", "__setattr__", "__dict__", "__getattr__", "__getattribute__", "vars"})


@dataclass(frozen=True)
class StableFields:
    """Of one module: the attributes each of its classes keeps from construction (by class node)."""

    kept: dict[cst.ClassDef, frozenset[str]]
    stored: frozenset[str]  # the attributes the module assigns anywhere, on any object
    # Those it assigns on an object that exists already: anywhere but an initialiser's `self.x = ...`.
    changed: frozenset[str] = frozenset()
    dynamic: bool = False  # `setattr` or the like: any attribute may be assigned
    # Of each class: the defs of its family (a property or method of that name runs code when read), and the
    # stored attribute each of its family's properties gives as it is (`return self._key`; None: it computes).
    defined: dict[cst.ClassDef, frozenset[str]] = field(default_factory=dict)
    getters: dict[cst.ClassDef, dict[str, str | None]] = field(default_factory=dict)
    # Of any class of the module, as above (an object whose class is not known may be an instance of any).
    any_getters: dict[str, str | None] = field(default_factory=dict)
    declared: frozenset[str] = frozenset()  # the annotated names of the module's class bodies (fields)
    open: frozenset[cst.ClassDef] = frozenset()  # the classes with a base from elsewhere
    # Of each class: the attributes that hold a Python list, tuple or dict in every instance, by kind ("list",
    # "tuple", "dict"), because every assignment of them anywhere in the module is a display or comprehension of
    # that kind, in an initialiser of the class's family (`self.tables = [a, b]`, `self.cache = {}`) or in a class
    # body (`SIZES = (1, 2)`), and nothing else assigns them (items set or appended later change no kind).
    containers: dict[cst.ClassDef, dict[str, str]] = field(default_factory=dict)

    def container_kind(self, cls: cst.ClassDef, attribute: str) -> str | None:
        return self.containers.get(cls, {}).get(attribute)

    def keeps(self, cls: cst.ClassDef, attribute: str) -> bool:
        return attribute in self.kept.get(cls, frozenset())

    def may_store(self, attribute: str) -> bool:
        """Whether this module's code may assign `attribute` on some object: an instance of another module's class
        whose method draws from its kept key may hold another key here."""
        return self.dynamic or attribute in self.stored

    def may_compute(self, cls: cst.ClassDef | None, attribute: str) -> bool:
        """Whether reading `attribute` (of an instance of `cls`, when known) may run code instead of giving what was
        stored: a def of that name in `cls`'s family (not a property giving a stored attribute as it is); of an
        instance of a class not known, a property of that name in the module that computes. (A base from another
        module tells its own: Interface.computed.)"""
        if cls is None:
            return attribute in self.any_getters and self.any_getters[attribute] is None
        if attribute in self.defined.get(cls, ()):
            return self.getters.get(cls, {}).get(attribute) is None
        return False

    def set_here(self, attribute: str) -> bool:
        """Whether this module assigns or declares `attribute` on some object or class."""
        return attribute in self.stored or attribute in self.declared

    def given_by_property(self, cls: cst.ClassDef | None, attribute: str) -> str | None:
        """The stored attribute a property gives as it is (`rng_key` of `return self._key`), of `cls` or of any
        class of the module when `cls` is not known."""
        return (self.getters.get(cls, {}) if cls is not None else self.any_getters).get(attribute)

    def may_change(self, attribute: str) -> bool:
        """Whether this module's code may assign `attribute` on an object handed to it (a construction's own
        `self.x = ...` makes a new object: it changes none that exists)."""
        return self.dynamic or attribute in self.changed


def _find(module: cst.Module) -> StableFields:
    classes: list[cst.ClassDef] = []
    stores: list[cst.Attribute] = []  # every attribute assigned, on any object, anywhere
    for node, _ in in_order(module):
        kind = type(node)
        if kind is cst.Name and cast(cst.Name, node).value in _DYNAMIC:
            return StableFields({}, frozenset(), dynamic=True)
        if kind is cst.ClassDef:
            classes.append(cast(cst.ClassDef, node))
        elif kind in _STORES:
            stores += _targets(_stored(node))
    on_self: set[int] = set()  # the stores of `self.x` in the methods of the module's classes
    built: dict[cst.ClassDef, set[str]] = {}  # by an initialiser, or declared as a field
    changed: dict[cst.ClassDef, set[str]] = {}  # by any other method
    listed: dict[cst.ClassDef, dict[str, str]] = {}  # by an initialiser, each time to a display of one kind
    unlisted: set[str] = set()  # by an initialiser at least once to something else, or to displays of two kinds
    for cls in classes:
        built[cls], changed[cls], listed[cls] = _declared_fields(cls), set(), {}
        for statement in cls.body.body:
            if type(statement) is not cst.FunctionDef:
                continue
            initialiser = statement.name.value in INITIALISERS
            into = built[cls] if initialiser else changed[cls]
            for node, above in in_order(statement.body):
                if type(node) in _STORES:
                    for target in _targets(_stored(node)):
                        if type(target.value) is cst.Name and target.value.value == "self":
                            on_self.add(id(target))
                            into.add(target.attr.value)
                            if initialiser:
                                _note_kind(
                                    listed[cls], unlisted, target.attr.value, _kind_assigned(node, above, target)
                                )
    elsewhere = {target.attr.value for target in stores if id(target) not in on_self}  # `agent.key = ...`
    kept = {}
    own_defs = {cls: {s.name.value for s in cls.body.body if type(s) is cst.FunctionDef} for cls in classes}
    defined: dict[cst.ClassDef, frozenset[str]] = {}
    family_of: dict[cst.ClassDef, list[cst.ClassDef]] = {}
    open_classes = set()
    for cls in classes:
        family = family_of[cls] = _family(cls, classes)
        defined[cls] = frozenset().union(*(own_defs[member] for member in family))
        if not _plain_bases(cls, classes):
            open_classes.add(cls)
            continue
        later = elsewhere.union(*(changed[member] for member in family))
        stable = frozenset(built[cls] - later - own_defs[cls])
        if stable:
            kept[cls] = stable
    changed_later = elsewhere.union(*changed.values())
    class_kinds = _class_body_containers(classes, unlisted)
    containers = {}
    for cls in classes:
        family = family_of[cls]
        assigned = set().union(*(built[member] | changed[member] for member in family)) | elsewhere
        declared = set().union(*(_declared_fields(member) for member in family))
        kinds: dict[str, str] = {}
        for member in family:
            for attribute, held in listed[member].items():
                _note_kind(kinds, unlisted, attribute, held)
            for attribute, held in class_kinds[member].items():
                _note_kind(kinds, unlisted, attribute, held if attribute not in assigned else None)
        blocked = unlisted | changed_later | declared | defined[cls]
        found = {attribute: held for attribute, held in kinds.items() if attribute not in blocked}
        if found:
            containers[cls] = found
    getters = {cls: _getters(family_of[cls]) for cls in classes}
    return StableFields(
        kept,
        frozenset(target.attr.value for target in stores),
        frozenset(changed_later),
        defined=defined,
        getters=getters,
        any_getters=_getters(classes),
        declared=frozenset().union(*(_declared_fields(cls) for cls in classes)),
        open=frozenset(open_classes),
        containers=containers,
    )


# The displays and comprehensions that make a Python container, by its kind.
_DISPLAYS = {cst.List: "list", cst.ListComp: "list", cst.Tuple: "tuple", cst.Dict: "dict", cst.DictComp: "dict"}


def _note_kind(kinds: dict[str, str], mixed: set[str], attribute: str, kind: str | None) -> None:
    """Adds one assignment of `attribute` to what the others gave it: a display of `kind`, or anything (None); an
    attribute given anything, or displays of two kinds, goes to `mixed`."""
    if kind is None or kinds.get(attribute, kind) != kind:
        mixed.add(attribute)
    else:
        kinds[attribute] = kind


def _kind_assigned(node: cst.CSTNode, above: tuple[cst.CSTNode, ...], target: cst.Attribute) -> str | None:
    """The kind of container a store gives `target` when it is a display or comprehension (`self.x = [a, b]`, of a
    plain or annotated assignment with that one target); else None."""
    statement = above[-1] if type(node) is cst.AssignTarget and above else node
    if type(statement) is cst.Assign and len(statement.targets) == 1 and statement.targets[0].target is target:
        return _DISPLAYS.get(type(statement.value))
    if type(statement) is cst.AnnAssign and statement.target is target and statement.value is not None:
        return _DISPLAYS.get(type(statement.value))
    return None


def _class_body_containers(classes: list[cst.ClassDef], mixed: set[str]) -> dict[cst.ClassDef, dict[str, str]]:
    """Of each class: the names its body binds to a display or comprehension, by kind (`SIZES = (1, 2)`); a name it
    binds to anything else goes to `mixed`."""
    found: dict[cst.ClassDef, dict[str, str]] = {}
    for cls in classes:
        kinds = found[cls] = {}
        for statement in cls.body.body:
            if type(statement) is not cst.SimpleStatementLine:
                continue
            for small in statement.body:
                if type(small) is cst.Assign:
                    for target in small.targets:
                        if type(target.target) is cst.Name:
                            kind = _DISPLAYS.get(type(small.value)) if len(small.targets) == 1 else None
                            _note_kind(kinds, mixed, target.target.value, kind)
    return found


def _getters(classes: list[cst.ClassDef]) -> dict[str, str | None]:
    """The properties of `classes`, each with the stored attribute it gives as it is (None: it computes, or two of
    that name disagree)."""
    found: dict[str, str | None] = {}
    for cls in classes:
        for getter in cls.body.body:
            if type(getter) is cst.FunctionDef and is_property(getter):
                name, attribute = getter.name.value, _returned_attribute(getter)
                found[name] = attribute if found.get(name, attribute) == attribute else None
    return found


def _returned_attribute(getter: cst.FunctionDef) -> str | None:
    """The attribute of `self` a getter gives and does nothing else (`return self._key`), if that is all it does."""
    body = list(getter.body.body) if type(getter.body) is cst.IndentedBlock else []
    if body and is_docstring(body[0]):
        body = body[1:]
    if len(body) != 1 or type(body[0]) is not cst.SimpleStatementLine or len(body[0].body) != 1:
        return None
    statement = body[0].body[0]
    value = statement.value if type(statement) is cst.Return else None
    if type(value) is cst.Attribute and type(value.value) is cst.Name and value.value.value == "self":
        return value.attr.value
    return None


def _family(cls: cst.ClassDef, classes: list[cst.ClassDef]) -> list[cst.ClassDef]:
    """The module's classes related to `cls` by inheritance, either way: a subclass's method may run on an instance
    of `cls` (through `self` of a method `cls` inherits), a base's method on every instance."""
    family, todo = [cls], [cls]
    while todo:
        member = todo.pop()
        names = _base_names(member)
        for other in classes:
            if other in family:
                continue
            if other.name.value in names or member.name.value in _base_names(other):
                family.append(other)
                todo.append(other)
    return family


def _base_names(cls: cst.ClassDef) -> set[str]:
    return {base.value.value for base in cls.bases if type(base.value) is cst.Name}


_STORES = (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del, cst.For, cst.AsName, cst.CompFor)


def _stored(node: cst.CSTNode) -> cst.BaseExpression:
    """What a store node assigns: its target (a `with`'s `as` name included)."""
    if type(node) is cst.AsName:
        return cast(cst.BaseExpression, node.name)
    return cast("cst.AssignTarget", node).target


def _plain_bases(cls: cst.ClassDef, classes: list[cst.ClassDef], depth: int = 0) -> bool:
    """No base, `object`, or classes of the module that have no other bases themselves."""
    for base in cls.bases:
        if base.keyword is not None or type(base.value) is not cst.Name:
            return False
        name = base.value.value
        if name == "object":
            continue
        found = [other for other in classes if other.name.value == name]
        if len(found) != 1 or depth > 8 or not _plain_bases(found[0], classes, depth + 1):
            return False
    return True


def _declared_fields(cls: cst.ClassDef) -> set[str]:
    """The annotated names of a class body (`key: jax.Array`): a dataclass's or a NamedTuple's fields."""
    fields = set()
    for statement in cls.body.body:
        if type(statement) is cst.SimpleStatementLine:
            for small in statement.body:
                if type(small) is cst.AnnAssign and type(small.target) is cst.Name:
                    fields.add(small.target.value)
    return fields


def _targets(target: cst.BaseExpression) -> list[cst.Attribute]:
    """The attributes a target assigns, unpacked (`self.key, sub = ...`)."""
    kind = type(target)
    if kind is cst.Attribute:
        return [cast(cst.Attribute, target)]
    if kind is cst.Tuple or kind is cst.List:
        return [found for element in cast("cst.Tuple | cst.List", target).elements for found in _targets(element.value)]
    if kind is cst.StarredElement:
        return _targets(cast(cst.StarredElement, target).value)
    return []


stable_fields = ModuleMemo(_find)
