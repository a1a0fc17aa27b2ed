"""Calls whose callee is a jitted callable, with what jax makes of each argument: static, donated.

A call's function is resolved through the spellings users write: `jax.jit(f, donate_argnums=0)(x)`,
a name bound once to `jax.jit(f, ...)` (`step = jax.jit(step, ...)` over its own def included), a def
decorated with `@jax.jit(...)` or `@partial(jax.jit, ...)`, `self.step` bound in any method of the class,
a jitted method called as `self.method(...)`, `functools.partial` of any of these, and names bound to
them. A name bound more than once in its scope (or hidden by a parameter) resolves to nothing: a silent
miss beats a false alarm. `Callees.mapped` answers the same for `jax.vmap`, looking through a jit around it.

`static_argnums`/`donate_argnums` are resolved against the wrapped function's signature (after what
`partial` binds) as jax does, names inferred from numbers and the other way round (the model's
transform table says where jax does that, and since which release).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from itertools import count, islice
from typing import Callable, Iterator, Mapping, Optional, TypeGuard, cast

import libcst as cst

from jaxlint.model.aot import COMPILED, JITTED, NEXT_STAGE, STAGE_METHODS
from jaxlint.model.apis import Version
from jaxlint.analysis.bindings import parameter_names, target_names
from jaxlint.analysis.calls import arguments
from jaxlint.analysis.module_memo import ModuleMemo
from jaxlint.analysis.factories import callable_returns, product, returned_items
from jaxlint.analysis.names import Names, dotted, import_bound_names
from jaxlint.model.classes import PLAIN_CLASS_DECORATORS, TRANSPARENT_BASES
from jaxlint.model.transform_spec import Options, Role
from jaxlint.model.transforms import JAX_JIT, JAX_VMAP, WITH_JIT_OPTIONS
from jaxlint.analysis.traced import (
    Signature,
    AppliedTransform,
    TransformTable,
    literal_ints,
    NotLiteral,
    literal_strs,
    applied_transforms,
    decorator_transform,
)

Chain = tuple[cst.CSTNode, ...]


@dataclass(frozen=True)
class Argument:
    """One argument of a call to a jitted callable: whether jax treats it as static and as donated.

    None when that cannot be known (a spec that is not a literal, a keyword with no visible signature).
    `donate_listed`: its parameter is listed in `donate_argnums` or `donate_argnames` as written, whether
    or not jax donates it.
    """

    expr: cst.BaseExpression
    keyword: Optional[str]
    param: Optional[str]
    static: Optional[bool]
    donated: Optional[bool]
    donate_listed: bool


@dataclass(frozen=True)
class JittedCallee:
    """The transformed callable a call calls: jitted (`Callees.jitted`), or vmapped (`Callees.mapped`)."""

    transform: str  # qualified: `jax.jit`
    options: Mapping[str, cst.BaseExpression]
    where: cst.CSTNode  # the jit application (a decorator or a call), for messages
    function: cst.FunctionDef | cst.Lambda | None  # the wrapped function, when visible
    bound: int  # its leading parameters that `partial` or a bound `self` fill before jit sees it
    bound_names: frozenset[str]
    offset: int  # jit's positions the call does not spell: 1 for a jitted method called as `self.m(...)`
    compiled: bool = False  # called as its ahead-of-time `Compiled`, which takes the dynamic arguments only

    @property
    def signature(self) -> Signature | None:
        """The parameters as the transform sees them (after `partial`)."""
        if self.function is None:
            return None
        full = Signature.of(self.function.params)
        return full.after(
            AppliedTransform(self.transform, self.where, True, bound=self.bound, bound_names=self.bound_names)
        )

    def gives(self, option: str) -> bool:
        return option in self.options

    def static(self, jax_version: Version | None = None) -> tuple[set[int] | None, set[str] | None]:
        """The static positions and names, after jax's inference; None for a half only run time knows."""
        return self._role(options_of(self.transform).static, jax_version)

    def _role(self, role: Role | None, jax_version: Version | None) -> tuple[set[int] | None, set[str] | None]:
        """The positions and the names jax takes in this role; None for a half only run time knows."""
        if role is None:
            return set(), set()
        written = self._written(role)
        if written is None:
            return None, None
        nums, names = written
        if any(n < 0 for n in nums):
            return None, None
        given_nums, given_names = role.argnums in self.options, role.argnames in self.options
        infers = role.infers_since is not None and (jax_version is None or jax_version >= role.infers_since)
        if not infers or given_nums == given_names:
            return nums, names
        signature = self.signature
        if signature is None:
            return (nums, None) if given_nums else (None, names)
        named = self._by_keyword(signature)
        if given_nums:
            return nums, names | {p for i, p in enumerate(signature.positional) if i in nums and p in named}
        return nums | {i for i, p in enumerate(signature.positional) if p in names and p in named}, names

    def _by_keyword(self, signature: Signature) -> set[str]:
        """Positional parameters that can also be passed by keyword (not positional-only)."""
        posonly = {p.name.value for p in self.function.params.posonly_params} if self.function else set()
        return set(signature.positional) - posonly

    def arguments(self, call: cst.Call, jax_version: Version | None = None) -> list[Argument]:
        """The call's arguments (those before any `*args`, and its keywords) with their roles."""
        static_nums, static_names = self._role(options_of(self.transform).static, jax_version)
        donate_nums, donate_names = self._role(options_of(self.transform).donate, jax_version)
        listed_nums, listed_names = self._listed()
        signature = self.signature
        given = arguments(call)
        found = []
        for index, expr in enumerate(given.positional):
            position = self._position(index, static_nums)
            param = None
            if signature is not None and position is not None and position < len(signature.positional):
                param = signature.positional[position]
            found.append(
                Argument(
                    expr,
                    None,
                    param,
                    None if static_nums is None or position is None else position in static_nums,
                    None if donate_nums is None or position is None else position in donate_nums,
                    position in listed_nums or (param is not None and param in listed_names),
                )
            )
        for keyword, expr in given.keywords.items():
            at: int | None = None
            if signature is not None and keyword in signature.positional:
                at = signature.positional.index(keyword)
            found.append(
                Argument(
                    expr,
                    keyword,
                    keyword if signature is None or keyword in signature.all else None,
                    None if static_names is None else keyword in static_names,
                    None if donate_names is None else keyword in donate_names,
                    keyword in listed_names or (at is not None and at in listed_nums),
                )
            )
        return found

    def _position(self, index: int, static_nums: set[int] | None) -> int | None:
        """jit's position of a call's `index`-th positional argument. A `Compiled` is given the dynamic ones only,
        so its arguments fill the positions that are not static (unknown when the static ones are)."""
        if not self.compiled:
            return index + self.offset
        if static_nums is None:
            return None
        dynamic = (position for position in count(self.offset) if position not in static_nums)
        return next(islice(dynamic, index, None))

    def _listed(self) -> tuple[set[int], set[str]]:
        """The donated positions and names as written (none when they are not literals)."""
        return self._written(options_of(self.transform).donate) or (set(), set())

    def _written(self, role: Role | None) -> tuple[set[int], set[str]] | None:
        """The positions and names written for a role; None when they are not literals."""
        if role is None:
            return set(), set()
        try:
            nums = set(literal_ints(self.options.get(role.argnums)))
            names = set(literal_strs(self.options.get(role.argnames))) if role.argnames else set()
        except NotLiteral:
            return None
        return nums, names


def options_of(transform: str) -> Options:
    return WITH_JIT_OPTIONS.get(transform, WITH_JIT_OPTIONS[JAX_JIT])  # the user's extra transforms behave like jax.jit


# ---------------------------------------------------------------------- what each scope binds

_OTHER = cst.Name("_")  # a binding jaxlint does not follow: a parameter, a loop target, an import...
_NAME_BINDERS = frozenset(
    {cst.Import, cst.ImportFrom, cst.Del, cst.Global, cst.Nonlocal}
)  # statements binding names only


@dataclass
class _Scope:
    names: dict[str, list[cst.CSTNode]]  # a def, the value of `name = value`, or _OTHER
    attributes: dict[str, list[cst.CSTNode]]  # for a class: `self.attr = value` in its methods
    # Names bound by unpacking a call's result (`step, params = make()`): the call and the position, each time.
    unpacked: dict[str, list[tuple[cst.Call, int]]]


class ModuleBindings:
    """What every module, class and function scope binds, read once per module from its statements."""

    def __init__(self, module: cst.Module) -> None:
        self.scopes: dict[int, _Scope] = {}
        self._keep = module
        # Attribute names assigned anywhere (`x.name = ...`, `+=`, `del`, a loop or `with` target, `setattr` with a
        # literal name), counted by the statement scan; _ANY counts those set by a name it cannot read.
        self._written: Counter[str] = Counter()
        self.products: dict[int, object] = {}  # factories.product's answers, by the factory's id
        self._scan(module, module.body, None)
        self.overridden = self._overridden(module)
        self._classes = {id(statement) for statement in module.body if isinstance(statement, cst.ClassDef)}
        self._mros: dict[tuple[int, bool], tuple[cst.ClassDef | str, ...] | None] = {}
        self._instances: dict[tuple[int, str], cst.BaseExpression | None] = {}  # attribute_value's answers

    def _overridden(self, module: cst.Module) -> set[tuple[int, str]]:
        """(id of a module-level class, name) for each attribute that a subclass of it in this module defines
        again: `self.name` in its methods may run the subclass's."""
        top = self.scopes[id(module)].names
        found: set[tuple[int, str]] = set()
        for statement in module.body:
            if not isinstance(statement, cst.ClassDef):
                continue
            defined = set(self.scopes[id(statement)].names)
            bases, seen = [arg.value for arg in statement.bases], set()
            while bases:
                base = bases.pop()
                chosen = _single(top.get(base.value, []), False, True) if isinstance(base, cst.Name) else None
                if isinstance(chosen, cst.ClassDef) and id(chosen) not in seen:
                    seen.add(id(chosen))
                    found.update((id(chosen), name) for name in defined)
                    bases.extend(arg.value for arg in chosen.bases)
        return found

    def _scan(self, owner: cst.CSTNode, body, cls: _Scope | None) -> None:
        scope = _Scope({}, {}, {})
        self.scopes[id(owner)] = scope
        if isinstance(owner, cst.FunctionDef):
            for name in parameter_names(owner.params):
                scope.names.setdefault(name, []).append(_OTHER)
        self._statements(body, scope, owner, cls)

    def _statements(self, body, scope: _Scope, owner: cst.CSTNode, cls: _Scope | None) -> None:
        for statement in body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    self._small(small, scope, owner, cls)
            elif isinstance(statement, cst.FunctionDef):
                scope.names.setdefault(statement.name.value, []).append(statement)
                is_method = isinstance(owner, cst.ClassDef)
                self._scan(statement, statement.body.body, scope if is_method else None)
            elif isinstance(statement, cst.ClassDef):
                scope.names.setdefault(statement.name.value, []).append(statement)
                self._scan(statement, statement.body.body, None)
            else:
                for name in _compound_targets(statement):
                    scope.names.setdefault(name, []).append(_OTHER)
                for target in _compound_target_nodes(statement):
                    self._written.update(_attribute_targets(target))
                for block in _blocks(statement):
                    self._statements(block, scope, owner, cls)

    def _small(self, small: cst.CSTNode, scope: _Scope, owner: cst.CSTNode, cls: _Scope | None) -> None:
        kind = type(small)
        if kind is cst.Assign:
            for target in cast(cst.Assign, small).targets:
                self._written.update(_attribute_targets(target.target))
        elif kind is cst.AugAssign or kind is cst.AnnAssign or kind is cst.Del:
            self._written.update(_attribute_targets(cast("cst.AugAssign | cst.AnnAssign | cst.Del", small).target))
        elif kind is cst.Expr:
            value = cast(cst.Expr, small).value
            if type(value) is cst.Call:
                self._written.update(_set_by_name(value))
        if type(small) is cst.Assign:
            single = len(small.targets) == 1
            for target in small.targets:
                node = target.target
                if isinstance(node, cst.Name):
                    scope.names.setdefault(node.value, []).append(small.value if single else _OTHER)
                elif _is_self_attribute(node, owner) and cls is not None:
                    cls.attributes.setdefault(node.attr.value, []).append(small.value if single else _OTHER)
                else:
                    for name in target_names(node):
                        scope.names.setdefault(name, []).append(_OTHER)
                    if single and type(small.value) is cst.Call and (type(node) is cst.Tuple or type(node) is cst.List):
                        for index, element in enumerate(node.elements):
                            if type(element) is cst.StarredElement:
                                break
                            if type(element.value) is cst.Name:
                                scope.unpacked.setdefault(element.value.value, []).append((small.value, index))
        elif type(small) is cst.AugAssign or type(small) is cst.AnnAssign:
            node = small.target
            if _is_self_attribute(node, owner) and cls is not None:
                value = small.value if isinstance(small, cst.AnnAssign) and small.value is not None else _OTHER
                cls.attributes.setdefault(node.attr.value, []).append(value)
            elif isinstance(node, cst.Name):
                value = small.value if isinstance(small, cst.AnnAssign) and small.value is not None else _OTHER
                scope.names.setdefault(node.value, []).append(value)
        elif kind in _NAME_BINDERS:
            if isinstance(small, (cst.Import, cst.ImportFrom)):
                bound = import_bound_names(small)
            elif isinstance(small, cst.Del):
                bound = list(target_names(small.target))
            else:
                bound = [item.name.value for item in cast("cst.Global | cst.Nonlocal", small).names]
            for name in bound:
                scope.names.setdefault(name, []).append(_OTHER)

    # ------------------------------------------------------------------ lookups

    def class_of(self, expr: cst.BaseExpression, chain: Chain) -> cst.ClassDef | None:
        """The class of this module a name is bound to where `chain` ends (once: a class defined twice
        or rebound is none)."""
        if type(expr) is not cst.Name:
            return None
        found = self.binding(expr, chain, want_class=True)
        return found[0] if found is not None and isinstance(found[0], cst.ClassDef) else None

    def binding(
        self, expr: cst.BaseExpression, chain: Chain, want_def: bool = False, want_class: bool = False
    ) -> tuple[cst.CSTNode, Chain, bool] | None:
        """The one def or value a name (or `self.attr`) is bound to where `chain` ends, with the chain
        of the scope that binds it and whether it is a method reached through `self` (a class only
        when `want_class`)."""
        # (node types by `type(...)`: an isinstance against a libcst class runs ABCMeta's check in Python, and
        # every call asks)
        kind = type(expr)
        if kind is cst.Name:
            found = self._bindings_of(cast(cst.Name, expr).value, chain)
            if found is None:
                return None
            chosen = _single(found[0], want_def, want_class)
            return None if chosen is None else (chosen, found[1], False)
        if type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self":
            for level in range(len(chain) - 1, 0, -1):
                method, cls = chain[level], chain[level - 1]
                if isinstance(method, cst.FunctionDef) and isinstance(cls, cst.ClassDef):
                    if not _is_self_attribute(expr, method):
                        return None
                    scope = self.scopes.get(id(cls))
                    attribute = scope.attributes.get(expr.attr.value) if scope else None
                    defined = scope.names.get(expr.attr.value) if scope else None
                    if attribute and defined:
                        return None
                    if attribute:
                        chosen = _single(attribute, want_def)
                        return None if chosen is None else (chosen, chain[: level + 1], False)
                    if defined:
                        chosen = _single(defined, want_def)
                        return None if chosen is None else (chosen, chain[:level], True)
                    return None
        return None

    def _bindings_of(self, name: str, chain: Chain) -> tuple[list[cst.CSTNode], Chain] | None:
        """Every binding of a name in the scope that binds it where `chain` ends, with that scope's chain."""
        for level in range(len(chain) - 1, -1, -1):
            owner = chain[level]
            owner_kind = type(owner)
            if owner_kind is cst.ClassDef and level != len(chain) - 1:
                continue  # a class body's names are not visible from its methods
            if owner_kind is cst.Lambda:
                if name in parameter_names(cast(cst.Lambda, owner).params):
                    return None
                continue
            scope = self.scopes.get(id(owner))
            bound = scope.names.get(name) if scope is not None else None
            if bound:
                return bound, chain[: level + 1]
        return None

    def unpacked(self, name: cst.Name, chain: Chain) -> tuple[cst.Call, int, Chain] | None:
        """The call whose result a name's one binding unpacks where `chain` ends (`step, params = make()`), the
        position it takes, and the chain of the scope binding it."""
        found = self._bindings_of(name.value, chain)
        if found is None or len(found[0]) != 1 or found[0][0] is not _OTHER:
            return None
        scope = self.scopes.get(id(found[1][-1]))
        items = scope.unpacked.get(name.value, []) if scope is not None else []
        return (items[0][0], items[0][1], found[1]) if len(items) == 1 else None

    def made_alike(self, name: cst.Name, chain: Chain) -> cst.Call | None:
        """The first binding of a name bound only to calls of one callable, spelled alike (`svi = SVI(...)` for
        one model, then again for another): whichever reaches a point, the name holds what that callable makes."""
        found = self._bindings_of(name.value, chain)
        calls = found[0] if found is not None else []
        if not calls or any(type(bound) is not cst.Call for bound in calls):
            return None
        spelled = {dotted(cast(cst.Call, bound).func) for bound in calls}
        return cast(cst.Call, calls[0]) if len(spelled) == 1 and None not in spelled else None

    def restaged(self, name: cst.Name, chain: Chain) -> tuple[cst.BaseExpression, list[str], Chain] | None:
        """A name bound to a value and then only to its own ahead-of-time stages, as in `fn = jax.jit(fn, ...)`,
        `fn = fn.lower(x)`, `fn = fn.compile()` (a def of the name may come first): that value, the stage methods
        in order, and the chain of the scope that binds them."""
        found = self._bindings_of(name.value, chain)
        if found is None:
            return None
        bound, scope_chain = found
        if type(bound[0]) is cst.FunctionDef:
            bound = bound[1:]
        methods = [_stage_of(value, name.value) for value in bound[1:]]
        value = bound[0] if bound else None
        if not isinstance(value, cst.Call) or not methods or None in methods or _stage_of(value, name.value):
            return None
        return value, cast(list[str], methods), scope_chain

    # ------------------------------------------------------------------ classes: bases and attributes

    def mro(
        self, cls: cst.ClassDef, names: Names, in_project: Callable[[str], bool] | None = None
    ) -> tuple[cst.ClassDef | str, ...] | None:
        """The classes Python looks a method up in, in order (C3, as `Cls.__mro__`), when every one of them is a
        plain module-level class of this module (plain_class), or a class of another module of the project
        (`in_project`: its qualified name, whose own bases are not known here); `object`, `abc.ABC` and
        `typing.Generic` (model/classes.py) are left out. None when a base is anything else (`nn.Module`)."""
        key = (id(cls), in_project is not None)
        if key not in self._mros:
            self._mros[key] = None  # a class deriving from itself (through a rebinding) is not known
            self._mros[key] = self._linearize(cls, names, in_project)
        return self._mros[key]

    def _linearize(
        self, cls: cst.ClassDef, names: Names, in_project: Callable[[str], bool] | None
    ) -> tuple[cst.ClassDef | str, ...] | None:
        if id(cls) not in self._classes or not plain_class(cls, names):
            return None
        bases: list[cst.ClassDef | str] = []
        for arg in cls.bases:
            if arg.keyword is not None or arg.star:
                return None
            base = arg.value.value if isinstance(arg.value, cst.Subscript) else arg.value  # `Base[T]`
            if isinstance(base, cst.Name) and base.value == "object":
                continue
            qualified = names.qualified(base)
            if qualified in TRANSPARENT_BASES:
                continue
            if qualified is not None:
                if in_project is None or not in_project(qualified):
                    return None
                bases.append(qualified)
                continue
            found = self.class_of(base, (self._keep,))
            if found is None:
                return None
            bases.append(found)
        lines = []
        for known in bases:
            line = (known,) if isinstance(known, str) else self.mro(known, names, in_project)
            if line is None:
                return None
            lines.append(list(line))
        merged = _c3([*lines, list(bases)])
        return None if merged is None else (cls, *merged)

    def method(
        self, cls: cst.ClassDef, name: str, names: Names, in_project: Callable[[str], bool] | None = None
    ) -> cst.FunctionDef | str | None:
        """The def `name` that `Cls.name` and `instance.name` find along the class's MRO: the first class that
        binds `name` must bind it once, to a def; when the lookup reaches another module's class, which ends the
        MRO, that class's method by qualified name (`pkg.base.Base.norm`). None when not known, or when a class
        on the way assigns `self.name` in a method (an instance attribute hides a method)."""
        order = self.mro(cls, names, in_project)
        if order is None:
            return self._own_def(cls, name, names)
        if any(not isinstance(c, str) and name in self.scopes[id(c)].attributes for c in order):
            return None
        for index, owner in enumerate(order):
            if isinstance(owner, str):
                return f"{owner}.{name}" if index == len(order) - 1 else None
            bound = self.scopes[id(owner)].names.get(name)
            if bound:
                chosen = _single(bound, True)
                return chosen if isinstance(chosen, cst.FunctionDef) else None
        return None

    def _own_def(self, cls: cst.ClassDef, name: str, names: Names) -> cst.FunctionDef | None:
        """`name` of a plain class whose bases are not known here (`class Env(PipelineEnv)`): Python looks in the class
        itself first, so the def its body binds once is what `self.name` finds, unless its methods set `self.name`."""
        scope = self.scopes.get(id(cls))
        if scope is None or name in scope.attributes or id(cls) not in self._classes or not plain_class(cls, names):
            return None
        chosen = _single(scope.names.get(name, []), True)
        return chosen if isinstance(chosen, cst.FunctionDef) else None

    def extends(
        self, cls: cst.ClassDef, names: Names, in_project: Callable[[str], bool]
    ) -> tuple[str, tuple[str, ...]] | None:
        """For a class whose MRO ends in another module's class: that class (qualified) and the names the classes
        of this module on the way bind (in their bodies, or as `self.name` in their methods); the other names
        a call through the class or an instance finds there."""
        order = self.mro(cls, names, in_project)
        if order is None or not isinstance(order[-1], str) or any(isinstance(c, str) for c in order[:-1]):
            return None
        bound = {
            name for owner in order[:-1] for name in (*self.scopes[id(owner)].names, *self.scopes[id(owner)].attributes)
        }
        return order[-1], tuple(sorted(bound))

    def attribute_value(self, cls: cst.ClassDef, attr: str, names: Names) -> cst.BaseExpression | None:
        """What `self.attr` in the methods of `cls` can only hold: the value of the one assignment to `.attr` in the
        whole module, `self.attr = value` at the top level of the `__init__` that a call of `cls` runs (not under an
        `if`, a loop or a `try`; `setattr(obj, "attr", v)` counts as an assignment), when no class on its MRO binds
        `attr` or `__setattr__` in its body (a property, a class attribute), and the module sets no attribute by a
        name it cannot read (`setattr(obj, name, v)`, `__dict__`). A subclass of this module that binds `attr` is
        counted; those of other modules are the caller's to check (Imported.overridden)."""
        key = (id(cls), attr)
        if key not in self._instances:
            self._instances[key] = self._attribute_value(cls, attr, names)
        return self._instances[key]

    def _attribute_value(self, cls: cst.ClassDef, attr: str, names: Names) -> cst.BaseExpression | None:
        if not self._attribute_known(cls, attr, names):
            return None
        init = self.method(cls, "__init__", names)
        if not isinstance(init, cst.FunctionDef) or self._written[attr] != 1:
            return None
        for owner in cast("tuple[cst.ClassDef, ...]", self.mro(cls, names)):
            scope = self.scopes[id(owner)]
            if attr in scope.names or "__setattr__" in scope.names:
                return None
        return next(
            (
                small.value
                for line in init.body.body
                if isinstance(line, cst.SimpleStatementLine)
                for small in line.body
                if isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and _is_self_attribute(small.targets[0].target, init)
                and small.targets[0].target.attr.value == attr
            ),
            None,
        )

    def values_held(self, expr: cst.BaseExpression, chain: Chain, names: Names) -> list[cst.CSTNode] | None:
        """Every value a name (or `self.attr` in a method) may hold where `chain` ends: the values of all its
        assignments in the scope that binds it (for `self.attr`, in the class's methods, when nothing else in the
        module writes `.attr`); None when one of its bindings is anything else (a parameter, a def, an import)."""
        found: list[cst.CSTNode] | None = None
        if type(expr) is cst.Name:
            bound = self._bindings_of(expr.value, chain)
            found = bound[0] if bound is not None else None
        elif type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self":
            for level in range(len(chain) - 1, 0, -1):
                method, cls = chain[level], chain[level - 1]
                if isinstance(method, cst.FunctionDef) and isinstance(cls, cst.ClassDef):
                    if _is_self_attribute(expr, method):
                        found = self._attribute_values(cls, expr.attr.value, names)
                    break
        if not found or any(value is _OTHER or not isinstance(value, cst.BaseExpression) for value in found):
            return None
        return found

    def _attribute_values(self, cls: cst.ClassDef, attr: str, names: Names) -> list[cst.CSTNode] | None:
        if not self._attribute_known(cls, attr, names):
            return None
        assigned = self.scopes[id(cls)].attributes.get(attr, [])
        by_methods = sum(len(scope.attributes.get(attr, ())) for scope in self.scopes.values())
        if not assigned or self._written[attr] != by_methods:
            return None  # (another class's `self.attr` is its own; `obj.attr = v` may be anyone's)
        for owner in cast("tuple[cst.ClassDef, ...]", self.mro(cls, names)):
            scope = self.scopes[id(owner)]
            if attr in scope.names or "__setattr__" in scope.names:
                return None
        return assigned

    def field_unassigned(self, cls: cst.ClassDef, attr: str, names: Names) -> bool:
        """Whether `self.attr` of a class with no base and no `__init__` of its own holds what the call that made the
        instance gave (a dataclass's field: constructions.dataclass_field): nothing in the module assigns `.attr`,
        and the class binds no `__setattr__`."""
        return (
            self._attribute_known(cls, attr, names)
            and self.mro(cls, names) == (cls,)
            and self._written[attr] == 0
            and not {"__init__", "__setattr__"} & self.scopes[id(cls)].names.keys()
        )

    def _attribute_known(self, cls: cst.ClassDef, attr: str, names: Names) -> bool:
        """The class's MRO is known, no subclass of this module binds `attr`, and the module sets no attribute by a
        name it cannot read."""
        return self.mro(cls, names) is not None and (id(cls), attr) not in self.overridden and not self._written[_ANY]


def inherited_methods(
    module: cst.Module, names: Names, in_project: Callable[[str], bool] | None = None
) -> Iterator[tuple[cst.ClassDef, str, cst.FunctionDef]]:
    """Each module-level class's methods that it does not define itself but a base class of this module does:
    the class, the name and the base's def (ModuleBindings.method)."""
    bindings = module_bindings(module)
    for cls in module.body:
        if type(cls) is not cst.ClassDef:
            continue
        order = bindings.mro(cls, names, in_project)
        if order is None:
            continue
        seen = set(bindings.scopes[id(cls)].names)
        for base in order[1:]:
            if isinstance(base, str):
                continue
            for name in bindings.scopes[id(base)].names:
                if name not in seen:
                    seen.add(name)
                    found = bindings.method(cls, name, names, in_project)
                    if isinstance(found, cst.FunctionDef):
                        yield cls, name, found


def _c3(lines: list[list]) -> list | None:
    """C3's merge of the bases' MROs and the list of bases; None where Python raises TypeError."""
    merged, lines = [], [line for line in lines if line]
    while lines:
        for line in lines:
            head = line[0]
            if not any(head in other[1:] for other in lines):
                break
        else:
            return None
        merged.append(head)
        lines = [[c for c in line if c is not head] for line in lines]
        lines = [line for line in lines if line]
    return merged


_ANY = ""  # in ModuleBindings._written: the attributes set by a name the scan cannot read


def _attribute_targets(target: cst.BaseExpression) -> Iterator[str]:
    """The attribute names an assignment target writes (`self.head`, `a.b, c.d = ...`); _ANY for an item of a
    `__dict__` (`self.__dict__[name] = value`)."""
    kind = type(target)
    if kind is cst.Attribute:
        yield cast(cst.Attribute, target).attr.value
    elif kind is cst.Tuple or kind is cst.List:
        for element in cast("cst.Tuple | cst.List", target).elements:
            yield from _attribute_targets(element.value)
    elif kind is cst.StarredElement:
        yield from _attribute_targets(cast(cst.StarredElement, target).value)
    elif kind is cst.Subscript:
        owner = cast(cst.Subscript, target).value
        if type(owner) is cst.Attribute and owner.attr.value == "__dict__":
            yield _ANY


def _set_by_name(call: cst.Call) -> Iterator[str]:
    """The attribute a statement `setattr(obj, "name", v)` (or `object.__setattr__(...)`) sets; _ANY for a name the
    scan cannot read, and for `obj.__dict__.update(...)` or `vars(obj).update(...)`."""
    func = call.func
    if (type(func) is cst.Name and func.value == "setattr") or (
        type(func) is cst.Attribute and func.attr.value == "__setattr__"
    ):
        named = [arg.value for arg in call.args if type(arg.value) is cst.SimpleString]
        literal = named[0].evaluated_value if len(named) == 1 else None
        yield literal if isinstance(literal, str) else _ANY
    elif type(func) is cst.Attribute and (
        (type(func.value) is cst.Attribute and func.value.attr.value == "__dict__")
        or (type(func.value) is cst.Call and type(func.value.func) is cst.Name and func.value.func.value == "vars")
    ):
        yield _ANY


def _compound_target_nodes(statement: cst.CSTNode) -> Iterator[cst.BaseExpression]:
    """The targets a `for` or `with` statement assigns."""
    if type(statement) is cst.For:
        yield statement.target
    elif type(statement) is cst.With:
        for item in statement.items:
            if item.asname is not None:
                yield item.asname.name


def _stage_of(value: cst.CSTNode, name: str) -> str | None:
    """`lower` of `name.lower(x)`: an ahead-of-time stage method called on the name itself."""
    if type(value) is not cst.Call or type(value.func) is not cst.Attribute:
        return None
    method = value.func
    if type(method.value) is not cst.Name or method.value.value != name or method.attr.value not in STAGE_METHODS:
        return None
    return method.attr.value


def _next_stage(staged: tuple[JittedCallee, str], method: str) -> tuple[JittedCallee, str] | None:
    after = NEXT_STAGE.get((staged[1], method))
    return None if after is None else (staged[0], after)


def _single(bound: list[cst.CSTNode], want_def: bool, want_class: bool = False) -> cst.CSTNode | None:
    """The binding that holds after the module (or function) has run, when there is exactly one.

    `def step(...)` followed by `step = jax.jit(step, ...)` counts as one: the def when the wrapped
    function is wanted, the jitted value otherwise. A class only when `want_class`.
    """
    if len(bound) == 1:
        return None if bound[0] is _OTHER or (type(bound[0]) is cst.ClassDef and not want_class) else bound[0]
    if len(bound) == 2 and type(bound[0]) is cst.FunctionDef and type(bound[1]) is cst.Call:
        return bound[0] if want_def else bound[1]
    return None


def plain_class(cls: cst.ClassDef, names: Names) -> bool:
    """Whether calling the class makes an instance of it whose methods are its defs: no metaclass, no
    `__new__` or `__getattribute__` of its own, no decorator but those that give the class back
    (model/classes.py)."""
    if any(arg.keyword is not None and arg.keyword.value == "metaclass" for arg in (*cls.bases, *cls.keywords)):
        return False
    if any(
        isinstance(statement, cst.FunctionDef) and statement.name.value in ("__new__", "__getattribute__")
        for statement in cls.body.body
    ):
        return False
    return all(names.qualified(_decorator_callee(d.decorator)) in PLAIN_CLASS_DECORATORS for d in cls.decorators)


def _decorator_callee(decorator: cst.BaseExpression) -> cst.BaseExpression:
    """`dataclass` of `@dataclass(frozen=True)`."""
    return decorator.func if isinstance(decorator, cst.Call) else decorator


def _is_self_attribute(node: cst.BaseExpression, method: cst.CSTNode) -> TypeGuard[cst.Attribute]:
    """`self.attr` where `self` is the method's first parameter."""
    if not (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self"):
        return False
    if not isinstance(method, cst.FunctionDef):
        return False
    params = [*method.params.posonly_params, *method.params.params]
    return bool(params) and params[0].name.value == "self"


def _compound_targets(statement: cst.CSTNode) -> Iterator[str]:
    if isinstance(statement, cst.For):
        yield from target_names(statement.target)
    elif isinstance(statement, cst.With):
        for item in statement.items:
            if item.asname is not None:
                yield from target_names(item.asname.name)
    for handler in getattr(statement, "handlers", ()):
        if handler.name is not None:
            yield from target_names(handler.name.name)


def _blocks(statement: cst.CSTNode) -> Iterator[list[cst.CSTNode]]:
    """The statement lists inside a compound statement (same scope)."""
    if isinstance(statement, cst.Match):
        for case in statement.cases:
            yield list(case.body.body)
        return
    parts = [
        getattr(statement, "body", None),
        getattr(statement, "orelse", None),
        getattr(statement, "finalbody", None),
        *getattr(statement, "handlers", ()),
    ]
    for part in parts:
        while part is not None:
            suite = part if isinstance(part, cst.BaseSuite) else part.body
            yield list(suite.body)
            part = part.orelse if isinstance(part, cst.If) else None


module_bindings = ModuleMemo(ModuleBindings)  # one module's bindings, read once however many rules and rounds ask


# ---------------------------------------------------------------------- the query


class Callees:
    """Answers `jitted(call)` and `mapped(call)` for the calls of one module, at the point of the traversal
    they are visited."""

    def __init__(
        self,
        module: cst.Module,
        names: Names,
        table: TransformTable,
        receiver: Callable[[cst.BaseExpression], object] = lambda func: None,
    ) -> None:
        """`receiver(obj.m)`: the ClassDef whose instance `obj` holds at the current point, if known."""
        self.bindings = module_bindings(module)
        self.names = names
        self.table = table
        self._receiver = receiver
        # Answers by call, for the rules that ask about the same call at the same point of the traversal.
        self._answers: dict[tuple[int, str], tuple[cst.Call, JittedCallee | None]] = {}

    def jitted(self, call: cst.Call, chain: Chain) -> JittedCallee | None:
        """The jitted callable a call calls, when the source shows one."""
        return self._answer(call, chain, "jit", self._takes_arguments)

    def held(self, expr: cst.BaseExpression, chain: Chain) -> JittedCallee | None:
        """The jitted callable an expression holds (a name bound to one, a jit of something, a factory's product, a
        partial of one), given to a call rather than called."""
        return self._callee(expr, chain, 0, self._takes_arguments)

    def mapped(self, call: cst.Call, chain: Chain) -> JittedCallee | None:
        """The `jax.vmap`ped callable a call calls (also inside a jit: `jax.jit(jax.vmap(f, ...))`)."""
        return self._answer(call, chain, "vmap", VMAPS.__contains__)

    def compiled(self, call: cst.Call, chain: Chain) -> JittedCallee | None:
        """The jitted callable whose ahead-of-time `Compiled` a call calls (`f.lower(x).compile()(x)`)."""
        return self._answer(call, chain, "compiled", self._takes_arguments)

    def donating(self, call: cst.Call, chain: Chain) -> JittedCallee | None:
        """The jitted callable a call runs, called directly or as its `Compiled`: both donate alike."""
        return self.jitted(call, chain) or self.compiled(call, chain)

    def _staged(self, expr: cst.BaseExpression, chain: Chain, depth: int) -> tuple[JittedCallee, str] | None:
        """The jitted callable behind an expression, and the ahead-of-time stage the expression holds of it
        (model/aot.py). A name rebound to its own stages (`fn = fn.lower(x)`) counts only when the jit has no
        static arguments: a call before the last rebinding passes them, a `Compiled` does not."""
        if depth > 6:
            return None
        if type(expr) is cst.Call and type(expr.func) is cst.Attribute and expr.func.attr.value in STAGE_METHODS:
            before = self._staged(expr.func.value, chain, depth + 1)
            return None if before is None else _next_stage(before, expr.func.attr.value)
        if type(expr) is cst.Name:
            found = self.bindings.binding(expr, chain)
            if found is not None and isinstance(found[0], cst.Call):
                return self._staged(found[0], found[1], depth + 1)
            restaged = self.bindings.restaged(expr, chain)
            if found is None and restaged is not None:
                value, methods, scope_chain = restaged
                staged = self._staged(value, scope_chain, depth + 1)
                for method in methods:
                    staged = None if staged is None else _next_stage(staged, method)
                if staged is not None and staged[0].static() == (set(), set()):
                    return staged
                return None
        callee = self._callee(expr, chain, depth, self._takes_arguments)
        return None if callee is None else (callee, JITTED)

    def _answer(self, call: cst.Call, chain: Chain, kind: str, accept) -> JittedCallee | None:
        known = self._answers.get((id(call), kind))
        if known is None or known[0] is not call:
            known = self._answers[(id(call), kind)] = (call, self._resolve(call.func, chain, kind, accept))
        return known[1]

    def _resolve(self, func: cst.BaseExpression, chain: Chain, kind: str, accept) -> JittedCallee | None:
        if kind != "compiled":
            return self._callee(func, chain, 0, accept)
        staged = self._staged(func, chain, 0)
        if staged is None or staged[1] != COMPILED or staged[0].offset:
            return None  # (a jitted method's bound `self` would fill a position the `Compiled` does not take)
        return replace(staged[0], compiled=True)

    def _callee(self, expr: cst.BaseExpression, chain: Chain, depth: int, accept) -> JittedCallee | None:
        if depth > 4:
            return None
        if type(expr) is cst.Call:
            bound = self.partial_of(expr, chain, accept, depth)
            if bound is not None:  # the partial's calls pass their positional arguments after the bound ones
                inner, spelled = bound
                return replace(inner, offset=inner.offset + len(arguments(spelled).positional))
            return self.application(expr, chain, accept) or self._made(expr, chain, depth, accept)
        found = self.bindings.binding(expr, chain) or self._method(expr, chain)
        if found is None:
            return self._unpacked(expr, chain, depth, accept) if type(expr) is cst.Name else None
        node, scope_chain, through_self = found
        if isinstance(node, cst.FunctionDef):
            return self.decorated(node, through_self, accept)
        if not isinstance(node, (cst.Name, cst.Attribute, cst.Call)):
            return None
        # A class attribute read through an instance (`score = jax.vmap(_score, ...)`, then `self.score(y)`): a vmapped
        # function or a jit binds as a method, so the instance is its first positional argument; not under
        # `staticmethod(...)`.
        binds = through_self and bool(scope_chain) and type(scope_chain[-1]) is cst.ClassDef
        if type(node) is cst.Call and self.names.builtin(node.func, _STATICMETHOD) and node.args:
            node, binds = node.args[0].value, False
        held = self._callee(node, scope_chain, depth + 1, accept)
        return replace(held, offset=held.offset + 1) if held is not None and binds else held

    def _unpacked(self, name: cst.Name, chain: Chain, depth: int, accept) -> JittedCallee | None:
        """`step` of `step, params = make()` for a factory of this module whose every `return` gives the same transformed
        callable at that position (`return jax.jit(encode), params`)."""
        item = self.bindings.unpacked(name, chain)
        if item is None:
            return None
        call, index, scope_chain = item
        factory = self._factory(call, scope_chain)
        items = returned_items(factory[0], index, self.names) if factory is not None else None
        if factory is None or items is None:
            return None
        inside = (*factory[1], factory[0])
        found = [self._callee(expr, inside, depth + 1, accept) for expr in items]
        return found[0] if all(callee == found[0] for callee in found) else None

    def _made(self, call: cst.Call, chain: Chain, depth: int, accept) -> JittedCallee | None:
        """`make_train_step(opt)` of a factory of this module that returns the same transformed callable on every
        path (`@jax.jit def train_step` nested in it, or `return jax.jit(step, donate_argnums=0)`)."""
        factory = self._factory(call, chain)
        return None if factory is None else self.made_by(factory[0], factory[1], accept, depth)

    def made_by(self, factory: cst.FunctionDef, chain: Chain, accept=None, depth: int = 0) -> JittedCallee | None:
        """The transformed callable a factory (bound where `chain` ends) returns, the same on every path."""
        if product(factory, self.bindings, self.names, self.table) is None:
            return None
        expressions = callable_returns(factory) or ()  # not None: a product is returned on every path
        inside = (*chain, factory)
        found = [self._callee(expr, inside, depth + 1, accept or self._takes_arguments) for expr in expressions]
        return found[0] if all(callee == found[0] for callee in found) else None

    def _factory(self, call: cst.Call, chain: Chain) -> tuple[cst.FunctionDef, Chain] | None:
        """The def a call calls, with the chain of the scope that binds it: a name bound to `partial(make, ...)` calls
        `make` (the partial's arguments go before the call's)."""
        found = self.bindings.binding(call.func, chain, want_def=True)
        if (
            found is not None
            and type(found[0]) is cst.Call
            and self.names.qualified(found[0].func) == "functools.partial"
        ):
            spelled = found[0]
            if not spelled.args or spelled.args[0].keyword is not None:
                return None
            found = self.bindings.binding(spelled.args[0].value, found[1], want_def=True)
        return (found[0], found[1]) if found is not None and isinstance(found[0], cst.FunctionDef) else None

    def _method(self, expr: cst.BaseExpression, chain: Chain) -> tuple[cst.CSTNode, Chain, bool] | None:
        """`Cls.m` or `obj.m` (`obj` holding an instance of `Cls`) for a plain class of this module: its own
        def `m`, and whether an instance fills `self`."""
        if type(expr) is not cst.Attribute:
            return None
        if type(expr.value) is cst.Name and self.names.qualified(expr.value) is not None:
            return None  # an imported name (`jnp.sum`): no class of this module
        cls: object  # `receiver` may answer anything; only a ClassDef is followed
        cls, through_instance = self.bindings.class_of(expr.value, chain), False
        if cls is None:
            cls, through_instance = self._receiver(expr), True
        if cls is None and type(expr.value) is cst.Name and expr.value.value == "self":
            cls = self._self_class(expr, chain)  # `self.m` where `m` is a base class's
        if type(cls) is not cst.ClassDef or not plain_class(cls, self.names):
            return None
        bound = self.bindings.scopes[id(cls)].names.get(expr.attr.value)
        method = _single(bound, True) if bound else self.bindings.method(cls, expr.attr.value, self.names)
        return (method, chain, through_instance) if isinstance(method, cst.FunctionDef) else None

    def _self_class(self, expr: cst.Attribute, chain: Chain) -> cst.ClassDef | None:
        """The class of the method `self.m` is in, unless a subclass of this module defines `m` again."""
        if len(chain) < 2 or not isinstance(chain[-2], cst.ClassDef) or not _is_self_attribute(expr, chain[-1]):
            return None
        return None if (id(chain[-2]), expr.attr.value) in self.bindings.overridden else chain[-2]

    def partial_of(
        self, call: cst.Call, chain: Chain, accept=None, depth: int = 0
    ) -> tuple[JittedCallee, cst.Call] | None:
        """`partial(step, cfg, n=3)` of a jitted callable: that callable, and the call `step(cfg, n=3)`
        the partial spells (its arguments reach every call of the partial)."""
        if self.names.qualified(call.func) != "functools.partial" or not call.args or call.args[0].keyword:
            return None
        given = arguments(call)
        if given.starred or given.double_starred:
            return None
        # `f = partial(f, ...)` names itself: the depth carried through stops the chase.
        inner = self._callee(call.args[0].value, chain, depth + 1, accept or self._takes_arguments)
        if inner is None:
            return None
        return inner, cst.Call(func=call.args[0].value, args=call.args[1:])

    def decorated(self, function: cst.FunctionDef, through_self: bool = False, accept=None) -> JittedCallee | None:
        """A def whose outermost decorator jits it (or, for `accept`, applies an accepted transform,
        looking through jit decorators above it)."""
        accept = accept or self._takes_arguments
        static = any(
            isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in function.decorators
        )
        for decorator in function.decorators:
            transform = decorator_transform(decorator, self.names, self.table)
            if transform is None:
                return None
            if accept(transform.name):
                return JittedCallee(
                    transform.name,
                    transform.keywords,
                    decorator,
                    function,
                    0,
                    frozenset(),
                    1 if through_self and not static else 0,
                )
            if not self._takes_arguments(transform.name):
                return None
        return None

    def application(self, call: cst.Call, chain: Chain, accept=None) -> JittedCallee | None:
        """`jax.jit(f, ...)`, `jax.jit(partial(f, a), ...)`, `partial(jax.jit, ...)(f)`, `jax.jit(...)(f)`:
        the transformed callable this call makes, when `accept` takes its transform (default: jit)."""
        accept = accept or self._takes_arguments
        applied = applied_transforms(call, self.names, self.table)
        if len(applied) == 1:
            target, transform = applied[0]
        elif type(call.func) is cst.Call and call.args and call.args[0].keyword is None:
            decorated = decorator_transform(cst.Decorator(decorator=call.func), self.names, self.table)
            if decorated is None:
                return None
            target, transform = call.args[0].value, decorated
        else:
            return None
        if not accept(transform.name):
            inner = call.args[0].value if call.args and call.args[0].keyword is None else None
            if self._takes_arguments(transform.name) and isinstance(inner, cst.Call):
                return self.application(inner, chain, accept)  # `jax.jit(jax.vmap(f, ...))`
            return None
        function, bound = self._function(target, chain)
        return JittedCallee(
            transform.name, transform.keywords, call, function, transform.bound + bound, transform.bound_names, 0
        )

    def _function(self, target: cst.BaseExpression, chain: Chain) -> tuple[cst.FunctionDef | cst.Lambda | None, int]:
        """The def (or lambda) a jit wraps, and 1 when it is a method bound through `self`."""
        if isinstance(target, cst.Lambda):
            return target, 0
        if isinstance(target, cst.Call):  # `jax.jit(make_loss(2.0))`: what the factory returns, if it shows
            factory = self._factory(target, chain)
            made = product(factory[0], self.bindings, self.names, self.table) if factory is not None else None
            return (made.function, made.bound) if made is not None and not made.bound_names else (None, 0)
        found = self.bindings.binding(target, chain, want_def=True)
        if found is None:
            return None, 0
        node, _, through_self = found
        if not isinstance(node, (cst.FunctionDef, cst.Lambda)):
            return None, 0
        static = isinstance(node, cst.FunctionDef) and any(
            isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in node.decorators
        )
        return node, 1 if through_self and not static else 0

    def _takes_arguments(self, transform: str) -> bool:
        return transform in WITH_JIT_OPTIONS or transform in self.table.extra


VMAPS = frozenset({JAX_VMAP})
_STATICMETHOD = frozenset({"staticmethod"})
