"""What every call of a class or function of a module gives one of its parameters, read off the module's syntax.

A method's receiver arrives through a constructor (`self.kernel = kernel` in `__init__`, or a dataclass field the
generated `__init__` fills) or through a parameter's default (`def get_pgg(d, emu=Emu())`). Its class is a fact
only when every place that could fill it shows the value: each reference to the class (or the function) in the
module is a call whose argument for the parameter can be read, or a use that makes nothing (an annotation, an
`isinstance` test). A class passed on as a value, a subclass, `cls(...)` or `type(self)(...)` in its methods, a
`replace(..., field=...)`, or `*args` at a call may fill it with anything: then nothing is known.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, cast

import libcst as cst

from jaxlint.analysis.module_memo import ModuleMemo
from jaxlint.analysis.names import Names
from jaxlint.model.classes import DATACLASS_MAKERS
from jaxlint.analysis.pytrees import namedtuple_class
from jaxlint.model.pytrees import CLASS_VARIABLE_ANNOTATIONS, METADATA_FIELD_CALLS, STATIC_FIELD_CALLS
from jaxlint.model.pytrees import STATIC_FIELD_SPECS
from jaxlint.traversal import TOKENS_BUT_NAMES, branches

Chain = tuple[cst.CSTNode, ...]
# `binding(name, chain)`: the def or class a name is bound to where `chain` ends (callees.ModuleBindings.binding).
Binding = Callable[[cst.Name, Chain], cst.CSTNode | None]

_SCOPES = frozenset({cst.Module, cst.ClassDef, cst.FunctionDef, cst.Lambda})
_MAKES_NOTHING = frozenset({"isinstance", "issubclass"})
_CONSTRUCTING_ATTRIBUTES = frozenset({"__init__", "__new__", "__call__"})
_INIT_OPTIONS = frozenset({"init", "kw_only"})  # options of a dataclass or a field that change its `__init__`


@dataclass(frozen=True)
class Parameter:
    """A parameter a call fills: its name, its place among the positional ones a call gives (None: keyword only),
    and its default (None: none, or one not known)."""

    name: str
    position: int | None
    default: cst.BaseExpression | None


@dataclass(frozen=True)
class _Reference:
    name: cst.Name
    chain: Chain
    parents: tuple[cst.CSTNode, ...]  # the nodes around it, innermost first (up to three)
    annotation: bool


class References:
    """Every name of one module read where it is used: its scope chain and the nodes around it."""

    def __init__(self, module: cst.Module) -> None:
        self.by_name: dict[str, list[_Reference]] = {}
        self.replacing: list[cst.Call] = []  # `replace(obj, f=v)` and `obj.replace(f=v)`: a field given anew
        # The scopes around each call that makes an instance of a class without naming it: `cls(...)`,
        # `type(self)(...)`, `self.__class__(...)`.
        self.unnamed: list[Chain] = []
        self._walk(module)

    def _walk(self, module: cst.Module) -> None:
        stack: list[tuple[cst.CSTNode, Chain, tuple[cst.CSTNode, ...], bool]] = [(module, (), (), False)]
        while stack:
            node, chain, parents, annotation = stack.pop()
            kind = type(node)
            if kind is cst.Name:
                name = cast(cst.Name, node)
                if _reads(name, parents):
                    self.by_name.setdefault(name.value, []).append(_Reference(name, chain, parents, annotation))
                continue
            if kind is cst.Call:
                call = cast(cst.Call, node)
                if _called_name(call) == "replace":
                    self.replacing.append(call)
                elif _unnamed_class(call.func):
                    self.unnamed.append(chain)
            inside = (*chain, node) if kind in _SCOPES else chain
            around = (node, *parents[:2])
            annotated = annotation or kind is cst.Annotation
            stack.extend((child, inside, around, annotated) for child in branches(node, TOKENS_BUT_NAMES))


def _reads(name: cst.Name, parents: tuple[cst.CSTNode, ...]) -> bool:
    """Whether a name reads a binding: not an attribute's or keyword's name, a parameter, an import, or the name a
    def or class binds."""
    parent = parents[0] if parents else None
    kind = type(parent)
    if kind is cst.Attribute:
        return cast(cst.Attribute, parent).value is name
    if kind is cst.Arg:
        return cast(cst.Arg, parent).keyword is not name
    if kind is cst.FunctionDef or kind is cst.ClassDef:
        return cast("cst.FunctionDef | cst.ClassDef", parent).name is not name
    return kind not in _BINDING_PARENTS


def _unnamed_class(func: cst.BaseExpression) -> bool:
    """`cls`, `type(self)` or `self.__class__` called: an instance of the class around, made without its name."""
    kind = type(func)
    if kind is cst.Name:
        return cast(cst.Name, func).value == "cls"
    if kind is cst.Attribute:
        return cast(cst.Attribute, func).attr.value == "__class__"
    inner = cast(cst.Call, func).func if kind is cst.Call else None
    return isinstance(inner, cst.Name) and inner.value == "type"


_BINDING_PARENTS = frozenset({cst.Param, cst.ImportAlias, cst.AsName, cst.Global, cst.Nonlocal, cst.NameItem})


module_references = ModuleMemo(References)


def _called_name(call: cst.Call) -> str | None:
    func = call.func
    if type(func) is cst.Name:
        return func.value
    return func.attr.value if type(func) is cst.Attribute else None


def parameter_of(function: cst.FunctionDef, name: str, method: bool) -> Parameter | None:
    """`name` as a parameter that calls of a function fill (of a method called through its class: not `self`)."""
    params = function.params
    positional = [*params.posonly_params, *params.params][1 if method else 0 :]
    for index, param in enumerate(positional):
        if param.name.value == name:
            return Parameter(name, index, param.default)
    for param in params.kwonly_params:
        if param.name.value == name:
            return Parameter(name, None, param.default)
    return None


def dataclass_field(cls: cst.ClassDef, name: str, names: Names) -> Parameter | None:
    """Field `name` of a dataclass whose generated `__init__` takes its fields in order, each by position or
    keyword: no `init=False`, `kw_only`, `InitVar` or `KW_ONLY`, no `__init__` or `__post_init__` of its own."""
    makers = [d.decorator for d in cls.decorators if names.qualified(_callee(d.decorator)) in DATACLASS_MAKERS]
    if len(makers) != 1 or _has_keyword(makers[0], _INIT_OPTIONS):
        return None
    fields = _declared_fields(cls, names)
    if fields is None:
        return None
    for index, (field, value) in enumerate(fields):
        if field == name:
            default = _field_default(value, names)
            return None if default is _UNKNOWN else Parameter(name, index, default)
    return None


def constructor_fields(cls: cst.ClassDef, names: Names) -> tuple[str, ...] | None:
    """The fields, in order, that a call of a NamedTuple or dataclass of the module stores as they are given (its
    generated constructor takes them by position or keyword): a NamedTuple subclass without a `__new__`, or a
    dataclass without bases, `__init__`, `__post_init__` or field options that change what its `__init__` takes;
    None for another class."""
    if namedtuple_class(cls, names) and not cls.keywords:
        if any(type(statement) is cst.FunctionDef and statement.name.value == "__new__" for statement in cls.body.body):
            return None
        fields = _declared_fields(cls, names)
        return None if fields is None else tuple(name for name, _ in fields)
    makers = [d.decorator for d in cls.decorators if names.qualified(_callee(d.decorator)) in DATACLASS_MAKERS]
    if cls.bases or len(cls.decorators) != 1 or len(makers) != 1 or _has_keyword(makers[0], _INIT_OPTIONS):
        return None
    fields = _declared_fields(cls, names)
    if fields is None or any(_field_default(value, names) is _UNKNOWN for _, value in fields):
        return None
    return tuple(name for name, _ in fields)


def shows_fields(cls: cst.ClassDef, names: Names) -> bool:
    """Whether `str` of an instance shows each field's own text (`Out(loss=JitTracer(...))`): a NamedTuple or a
    dataclass that constructor_fields knows, with its generated `__repr__`."""
    if constructor_fields(cls, names) is None:
        return False
    if any(_has_keyword(d.decorator, frozenset({"repr"})) for d in cls.decorators):
        return False
    return not any(
        type(statement) is cst.FunctionDef and statement.name.value in ("__repr__", "__str__")
        for statement in cls.body.body
    )


def _declared_fields(cls: cst.ClassDef, names: Names) -> list[tuple[str, cst.BaseExpression | None]] | None:
    """The annotated fields of a class body with their defaults, in order (class variables left out); None when the
    class defines its own `__init__` or `__post_init__`, or declares an `InitVar` or `KW_ONLY`."""
    fields: list[tuple[str, cst.BaseExpression | None]] = []
    for statement in cls.body.body:
        if type(statement) is cst.FunctionDef and statement.name.value in ("__init__", "__post_init__"):
            return None
        if type(statement) is not cst.SimpleStatementLine:
            continue
        for small in statement.body:
            if type(small) is not cst.AnnAssign or type(small.target) is not cst.Name:
                continue
            annotation = small.annotation.annotation
            outer = names.qualified(annotation.value if type(annotation) is cst.Subscript else annotation)
            if outer in CLASS_VARIABLE_ANNOTATIONS or outer == "dataclasses.KW_ONLY":
                if outer != "typing.ClassVar":
                    return None  # an `InitVar` or `KW_ONLY` changes what the `__init__` takes
                continue
            fields.append((small.target.value, small.value))
    return fields


_UNKNOWN = cst.Name("_")


def _field_default(value: cst.BaseExpression | None, names: Names) -> cst.BaseExpression | None:
    """The default a field's declaration gives (None: none); _UNKNOWN for a field marker whose options change what
    the `__init__` takes or that makes its default."""
    if type(value) is not cst.Call:
        return value
    called = names.qualified(value.func)
    if called not in METADATA_FIELD_CALLS and called not in STATIC_FIELD_SPECS and called not in STATIC_FIELD_CALLS:
        return value  # `kernel: Kernel = Matern32()`: the class's one instance
    if _has_keyword(value, _INIT_OPTIONS) or any(arg.keyword is None for arg in value.args):
        return _UNKNOWN
    given = {arg.keyword.value: arg.value for arg in value.args if arg.keyword is not None}
    if "default_factory" in given:
        return _UNKNOWN
    return given.get("default")


def _has_keyword(expr: cst.BaseExpression, words: frozenset[str]) -> bool:
    return type(expr) is cst.Call and any(arg.keyword is not None and arg.keyword.value in words for arg in expr.args)


def _callee(decorator: cst.BaseExpression) -> cst.BaseExpression:
    return decorator.func if type(decorator) is cst.Call else decorator


def constructed_with(
    module: cst.Module, cls: cst.ClassDef, parameter: Parameter, binding: Binding
) -> list[tuple[cst.BaseExpression, Chain]] | None:
    """What each call of `cls` in the module gives `parameter` (its default where a call leaves it out), with the
    chain of scopes the expression is read in; None when one reference may fill it otherwise, or none calls."""
    references = module_references(module)
    if any(cls in chain for chain in references.unnamed) or any(
        _replaces(call, parameter.name) for call in references.replacing
    ):
        return None
    given: list[tuple[cst.BaseExpression, Chain]] = []
    for reference in _references_to(references, cls, binding):
        if reference.annotation or _makes_nothing(reference):
            continue
        call = _called_by(reference)
        if call is None:
            return None
        found = _argument(call, parameter)
        if found is None:
            return None
        given.append((found, reference.chain) if found is not parameter.default else (found, _defined_in(reference)))
    return given or None


def _defined_in(reference: _Reference) -> Chain:
    """Where a default is read: the module (the classes and functions whose parameters this file follows are
    module-level)."""
    return reference.chain[:1]


def never_passed(
    module: cst.Module,
    function: cst.FunctionDef,
    name: str,
    binding: Binding,
    same_arguments: Callable[[cst.Call], bool],
) -> bool:
    """Whether no call in the module gives `function` the parameter `name`: every reference to it is a call (or a
    call of a transform's wrapper made of it on the spot, `jax.jacfwd(f)(x)`: `same_arguments(wrapper)`) that
    leaves the parameter out, without `*args` or `**kwargs`."""
    parameter = parameter_of(function, name, False)
    if parameter is None:
        return False
    references = list(_references_to(module_references(module), function, binding))
    for reference in references:
        if reference.annotation:
            continue
        call = _called_by(reference)
        if call is None and len(reference.parents) >= 3:
            arg, wrapper, outer = reference.parents
            if (
                type(arg) is cst.Arg
                and type(wrapper) is cst.Call
                and wrapper.args
                and wrapper.args[0] is arg
                and type(outer) is cst.Call
                and outer.func is wrapper
                and same_arguments(wrapper)
            ):
                call = outer
        if call is None or _argument(call, parameter) is not parameter.default:
            return False
    return bool(references)


def handed_on(
    module: cst.Module, function: cst.FunctionDef, binding: Binding, followed: Callable[[cst.Call], bool]
) -> bool:
    """Whether the module gives the def as an argument to a call that is not `followed` (`my_pallas_call(kernel)`),
    or wrapped by one that is (`partial(kernel, n)`) to another call: that callee decides what its parameters
    hold, whatever their annotations say."""
    for reference in _references_to(module_references(module), function, binding):
        parents = reference.parents
        if (
            reference.annotation
            or len(parents) < 2
            or type(parents[0]) is not cst.Arg
            or type(parents[1]) is not cst.Call
        ):
            continue
        if not followed(parents[1]) or (len(parents) == 3 and type(parents[2]) is cst.Arg):
            return True
    return False


def _references_to(
    references: References, node: cst.FunctionDef | cst.ClassDef, binding: Binding
) -> Iterator[_Reference]:
    """The reads of a def's or class's name that may read it: bound to it where read, or to nothing known there."""
    for reference in references.by_name.get(node.name.value, ()):
        if binding(reference.name, reference.chain) in (node, None):
            yield reference


def _called_by(reference: _Reference) -> cst.Call | None:
    parent = reference.parents[0] if reference.parents else None
    return parent if type(parent) is cst.Call and parent.func is reference.name else None


def _makes_nothing(reference: _Reference) -> bool:
    """`isinstance(x, Cls)`, `Cls.method(...)` or `Cls.attr`: a use that makes no instance."""
    parents = reference.parents
    if parents and type(parents[0]) is cst.Attribute and parents[0].value is reference.name:
        return parents[0].attr.value not in _CONSTRUCTING_ATTRIBUTES
    if len(parents) >= 2 and type(parents[0]) is cst.Arg and type(parents[1]) is cst.Call:
        return _called_name(parents[1]) in _MAKES_NOTHING and parents[1].args[0] is not parents[0]
    return False


def _replaces(call: cst.Call, field: str) -> bool:
    """`replace(obj, field=v)` or `obj.replace(**changes)`: it may give the field a new value."""
    return any(arg.star == "**" or (arg.keyword is not None and arg.keyword.value == field) for arg in call.args)


def _argument(call: cst.Call, parameter: Parameter) -> cst.BaseExpression | None:
    """What a call gives the parameter: its argument, or its default when it leaves it out; None when a starred
    argument may fill it or it has no default."""
    positional = 0
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is None:
            if positional == parameter.position:
                return arg.value
            positional += 1
        elif arg.keyword.value == parameter.name:
            return arg.value
    return parameter.default
