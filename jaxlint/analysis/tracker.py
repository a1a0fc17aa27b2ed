"""Follows what each name holds through the single lint traversal.

The tracker's visit hooks run before the checks' and its leave hooks after, so a check always sees
the facts just before the statement it is looking at. It is a domain of the flow engine (flow.py),
which follows Python's control flow: where paths split the engine snapshots the environment, where they
meet it joins them; names rebound in a `try` are forgotten where more than one binding can reach (`unsure`).
Only known facts are stored.

Along the way it records transform applications and calls that pass tracers (scopes.py), which
decide the traced scopes of the next round.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property, lru_cache
from typing import Final, TypeVar, cast
from dataclasses import dataclass, field, replace

import libcst as cst

from jaxlint.analysis import arrays
from jaxlint.model.apis import parse_jax_version
from jaxlint.analysis.bindings import (
    string_indexed,
    declared_outer,
    parameter_names,
    pattern_names,
    rebound_names,
    target_names,
    terminates,
    item_setter_classes,
)
from jaxlint.analysis.calls import argument, branch_operands, rejected_places
from jaxlint.analysis.stable_fields import stable_fields
from jaxlint.analysis.callees import Callees, inherited_methods, module_bindings, plain_class
from jaxlint.analysis.constructions import Parameter, constructed_with, constructor_fields, dataclass_field
from jaxlint.analysis.constructions import handed_on, never_passed
from jaxlint.analysis.constructions import parameter_of
from jaxlint.analysis.dead_branches import (
    Fixed,
    agreed,
    dead_branch,
    fixed_default,
    fixed_of,
    guards_the_rest,
    is_none,
    settled,
)
from jaxlint.analysis.dtype_tests import dtype_test
from jaxlint.analysis.expected_errors import caught_errors, shown_errors
from jaxlint.analysis.donations import DonationFlow
from jaxlint.analysis.factories import Product, product
from jaxlint.analysis.decided_tests import fixed_truth
from jaxlint.analysis.flow import Domain, Flow
from jaxlint.analysis.keys import KeyFlow
from jaxlint.analysis.library_runs import function_run, module_run
from jaxlint.analysis.loop_guards import constant
from jaxlint.analysis.interface import (
    Applied,
    Handed,
    Imported,
    IncomingContainer,
    IncomingTracer,
    ModuleContext,
    made_name,
)
from jaxlint.analysis.jax_present import jax_present_values
from jaxlint.analysis.module_aliases import module_aliases
from jaxlint.analysis.names import Names, dotted, import_bound_names
from jaxlint.analysis.narrowing import not_an_array
from jaxlint.analysis.custom_rules import Role, custom_rules
from jaxlint.analysis.module_memo import ModuleMemo
from jaxlint.analysis.none_flow import NoneFlow
from jaxlint.analysis.pytrees import flattened_class, never_flattened, pytree_fields, pytree_registrations
from jaxlint.analysis.scopes import (
    Returned,
    RoundFacts,
    ScopeRecorder,
    instance_method,
    is_scalar_literal,
    method_bound,
    outside_functions,
)
from jaxlint.analysis.structures import joined, kept_of_text, kept_text, sliced, structure, traced_tree
from jaxlint.analysis.replaced_defs import replaced_defs
from jaxlint.analysis.traced import (
    DEFAULT_TABLE,
    NotLiteral,
    Signature,
    TracedCaller,
    TracedFunction,
    Tracer,
    AppliedTransform,
    TransformTable,
    applied_transforms,
    decorator_transform,
    has_own_rule,
    host_callback_target,
    literal_ints,
    ref_kernel_decorator,
    ref_kernel_target,
    takes_keywords,
    traced_function,
    wrapped_call,
)
from jaxlint.analysis.values import (
    ARRAY,
    REF,
    STATIC,
    Contents,
    Evaluator,
    Kind,
    Value,
    after_method,
    bound_names,
    join,
    leaf_of,
    pytree_after,
    same_structure,
    stored,
    transformed_result,
    unknown_contents,
)
from jaxlint.analysis.x64 import x64_attribute, x64_call, x64_subscript
from jaxlint.model.functions import (
    ARGUMENT_KEEPING_DECORATORS,
    CONTAINER_READERS,
    CONTAINER_READING_MODULES,
    JAX,
    NO_RETURN,
    NO_RETURN_BUILTINS,
    NUMERIC_PACKAGES,
    REF_FACTORIES,
)
from jaxlint.model.keys import DEFAULT_KEY_NAMES
from jaxlint.model.transforms import (
    CARRY_WITH_OUTPUT,
    CONCRETE_CONTEXTS,
    CUSTOM_RULES,
    DISABLE_JIT_FLAG,
    EAGER_WHEN_JIT_DISABLED,
    GRADIENTS,
    LAX_CARRIES,
    LAX_SLICES,
    LIFTED_DEFAULT_METHOD,
    LIFTED_METHODS_OPTION,
    LIFTED_TRANSFORMS,
    OTHER_RESULTS,
    PARTIAL,
    TREE_MAPS,
    EAGER_BODIES,
    UNTRACED_CONTEXTS,
    WRAPPER_ARGUMENTS,
)
from jaxlint.traversal import in_order

Env = dict[str, Value]


@dataclass(frozen=True)
class ProjectCall:
    """A traced function's call into another module's function passing tracers, as seen in this module
    (interface.Outgoing once placed)."""

    target: str  # the qualified name called
    node: cst.Call
    caller: str
    trace: AppliedTransform  # how the caller is traced
    positional: tuple[int, ...]  # the arguments that hold tracers, by position...
    keywords: tuple[str, ...]  # ...and by keyword
    instance: bool  # a method called through an instance
    made: bool  # a call of what calling the target makes (a factory's product)
    kinds: tuple[tuple[int | str, str], ...] = ()  # the dtype kinds of the single traced arrays it passes
    shapes: tuple[tuple[int | str, str], ...] = ()  # the structures of the containers it passes (kept_text)


@dataclass(frozen=True)
class ProjectApplication:
    """A transform applied to another module's function, as seen in this module (interface.Applied once placed)."""

    target: str  # the qualified name transformed
    transform: AppliedTransform
    around: str  # the function it is applied in, "" at module level
    instance: bool  # a method applied through an instance (`self` bound)
    made: bool  # applied to the function that calling the target makes, not to it
    called: cst.Call | None = None  # the call made where it is applied (`jax.grad(losses.loss)(x)`)


@dataclass
class _Scope:
    env: Env
    own: TracedFunction | None  # the traced facts of this very function or lambda
    traced: TracedFunction | None  # the innermost traced function around (nested defs run under it)
    untracked: set[str]  # declared global or nonlocal here
    traced_node: cst.CSTNode | None = None  # the FunctionDef or Lambda of `traced`
    node: cst.CSTNode | None = None  # this scope's FunctionDef or Lambda
    globals: set[str] = field(default_factory=set)  # declared global here
    catching: list[frozenset[str]] = field(default_factory=list)  # the `try` bodies around: what each catches
    # What each of those catches and keeps (expected_errors.shown_errors).
    showing: list[frozenset[str]] = field(default_factory=list)
    # The attributes of `self` this function stored (`self.a1 = a1`), whose reads give the value stored (env).
    stored_self: set[str] = field(default_factory=set)
    # Branches no trace enters that run on to the end of the body (after `if key is not None: return key`).
    untraced_rest: int = 0
    nones: dict[str, Fixed] = field(default_factory=dict)  # parameters every traced call leaves `None` or not
    handed: frozenset[str] = frozenset()  # parameters every call gives a value, or that traced calls fix not None
    # By name: the parameters of the eager functions around whose binding a call of another module may give
    # (Imported.handed), with their def. Only a lookup of one can tell what that call gave.
    watched: dict[str, cst.FunctionDef] = field(default_factory=dict)


def _string_keyed(body_statements) -> frozenset[str]:
    """The names a body (nested functions included) subscripts with a string literal: `obs["visual_field"]`."""
    found = set()
    for statement in body_statements:
        for node, _ in in_order(statement):
            if type(node) is cst.Subscript and type(node.value) is cst.Name and string_indexed(node):
                found.add(node.value.value)
    return frozenset(found)


def _handed(params: cst.Parameters, nones: dict[str, Fixed]) -> frozenset[str]:
    """The parameters a traced function's callers give a value: those without a `None` default (a call leaves
    out none without one), and those its traced calls fix not `None`."""
    named = (*params.posonly_params, *params.params, *params.kwonly_params)
    return frozenset(
        param.name.value
        for param in named
        if not is_none(param.default) or nones.get(param.name.value) not in (None, True)
    )


_SCALAR_ANNOTATIONS = frozenset({"bool", "int", "float", "complex"})
# An eager function's parameter that a call gives a Python list, tuple or dict: a container of unknown items.
_PASSED_CONTAINER = Value(Kind.UNKNOWN, contents=Contents("list", None))
# A call of another module into a function of this one: traced (Imported.entries) or not (Imported.handed).
_Entry = TypeVar("_Entry", IncomingTracer, IncomingContainer)


def _parameter_at(place: int | str, offset: int, positional: Sequence[str]) -> str | None:
    """The parameter an argument of another module's call lands on: by keyword, or by position past the `offset`
    parameters the call binds itself (`self`)."""
    if isinstance(place, str):
        return place
    position = place + offset
    return positional[position] if position < len(positional) else None


def _fixed_by(
    function: cst.FunctionDef,
    fixed: tuple[tuple[int | str, str], ...],
    given_places: tuple[int | str, ...] | None,
    offset: int,
) -> dict[str, Fixed]:
    """What a traced call of another module fixes of `function`'s parameters: each `None`, `True`, `False` or
    string it gives (`fixed`), and, where it shows every argument (`given_places`), each such default it leaves
    (dead_branches.py)."""
    positional = Signature.of(function.params).positional
    found: dict[str, Fixed] = {}
    for place, text in fixed:
        if (name := _parameter_at(place, offset, positional)) is not None:
            found[name] = fixed_of(text)
    if given_places is not None:
        given = {_parameter_at(place, offset, positional) for place in given_places} | set(positional[:offset])
        params = function.params
        for left in (*params.posonly_params, *params.params, *params.kwonly_params):
            if left.name.value not in given and (default := fixed_default(left)) is not None:
                found[left.name.value] = default
    return found


# How calls of other modules reach a function: the name their entries are under (`step`, `Solver`, `Solver.step`),
# whether only calls of what calling it makes reach it (True), only calls of it (False) or both (None), and the
# parameters Python fills before the call's arguments (None: `self` when called through an instance).
_Route = tuple[str, "bool | None", "int | None"]


def _join_envs(a: Env, b: Env) -> Env:
    joined = {}
    for name in a.keys() & b.keys():
        value = join(a[name], b[name])
        if value is not None:
            joined[name] = value
    return joined


# A callee as a call sees it: its parameters after those bound, its summary, the last parameter bound (`self`).
_Callee = tuple[tuple[str, ...], "Returned | None", "str | None", bool]


class _NoCallee(enum.Enum):
    NO_CALLEE = enum.auto()
    OTHER_RESULT = enum.auto()


_NO_CALLEE: Final = _NoCallee.NO_CALLEE  # a call of nothing this module defines
# A call of one of its functions through a transform whose calls give something other than what it returns (`jax.grad`)
_OTHER_RESULT: Final = _NoCallee.OTHER_RESULT


def _by_parameter(
    call: cst.Call, arguments: list[Value | None], positional: tuple[str, ...]
) -> dict[str, Value | None]:
    """The values of a call's arguments by the callee's parameter names (up to a `*args`)."""
    names = iter(positional)
    given: dict[str, Value | None] = {}
    for arg, value in zip(call.args, arguments):
        if arg.star:
            break
        param = arg.keyword.value if arg.keyword is not None else next(names, None)
        if param is not None:
            given[param] = value
    return given


def _given_eagerly(value: Value | None) -> bool:
    """An eager call's argument that tells what a transform of the callee traces: a JAX array (one tracer), or an
    instance of a class of this module (a pytree whose fields say which leaves are tracers), or a tuple, list or
    dict (of those leaves: its structure, analysis/structures.py)."""
    if value is None:
        return False
    # (an array is a structure; a container of unknown leaves tells that the parameter is a pytree)
    return type(value.instance) is cst.ClassDef or value.contents is not None or structure(value) is not None


def _traced_pytree(value: Value) -> cst.ClassDef | None:
    """The class of a pytree of tracers that the module defines (a registered dataclass, a NamedTuple): its
    methods run with `self` holding the tracers."""
    return value.pytree if value.kind is Kind.TRACED else None


def _declared_or_walrus_bound(module: cst.Module) -> frozenset[str]:
    """The names some function of `module` declares `global` or `nonlocal`, or an assignment expression binds: a
    name bound once may hold something else there."""
    found: set[str] = set()
    for node, _ in in_order(module):
        kind = type(node)
        if kind is cst.Global or kind is cst.Nonlocal:
            found.update(item.name.value for item in cast("cst.Global | cst.Nonlocal", node).names)
        elif kind is cst.NamedExpr and type(cast(cst.NamedExpr, node).target) is cst.Name:
            found.add(cast(cst.Name, cast(cst.NamedExpr, node).target).value)
    return frozenset(found)


_rebound_elsewhere = ModuleMemo(_declared_or_walrus_bound)  # (once per module, whatever the rounds)


def _receiver_class(value: Value) -> cst.ClassDef | None:
    """The class whose methods get `value` as `self` when called through it: a pytree of tracers' (its fields
    known), or an instance's of a class of this module (the attributes its `__init__` set known)."""
    if type(value.instance) is cst.ClassDef:
        return value.instance
    return _traced_pytree(value)


def _python_container(value: Value | None) -> bool:
    """A Python list, tuple or dict, or a part of a pytree unpacked as one may be (`parts, total = carry`): what a
    lax branch or body that gets it holds is a pytree of the same kind, never one array."""
    return value is not None and (value.contents is not None or value.pytree_part)


def _tree_mapped(
    summary: Returned, positional: tuple[str, ...], trees: list[Value | None], staged: Tracer | None
) -> Value | None:
    """What `jax.tree.map(f, *trees)` gives: the first tree's structure holding what `f` returns for its leaves (a
    list for a list the analysis saw built). Known only as a pytree of tracers (`f` returns a tracer for a traced
    leaf); a tree of Python values (shapes) or of unknown leaves is left unknown."""
    leaves = [leaf_of(tree) if tree is not None and tree.kind is Kind.TRACED else None for tree in trees]
    leaf = summary.result(dict(zip(positional, leaves)), staged=staged)
    if leaf is None or leaf.kind is not Kind.TRACED or leaf.tracer is None:
        return None
    if leaf.container or leaf.contents is not None:
        return Value(Kind.TRACED, leaf.tracer, container=True)
    return same_structure(trees[0] if trees else None, leaf) or Value(Kind.TRACED, leaf.tracer, container=True)


@lru_cache(maxsize=1024)
def _option(text: str) -> cst.BaseExpression:
    """A transform's option as another module wrote it (`("n",)`), parsed once for every round that reads it."""
    try:
        return cst.parse_expression(text)
    except cst.ParserSyntaxError:
        return cst.Ellipsis()  # no literal: what the option says is not claimed


def _by_rule(transform: AppliedTransform) -> AppliedTransform:
    """A transform reaching a function with its own derivative rule: it traces the body, but never differentiates it."""
    return replace(transform, differentiates=False)


# Displays that make a new mutable object each time they run (as a parameter's default: once, when the def runs).
_MUTABLE_DISPLAYS = frozenset({cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp})

# Builtins that set no attribute of an object they are not given.
_BUILTINS_KEEPING_SELF = frozenset(
    {"len", "print", "isinstance", "int", "float", "bool", "str", "range", "min", "max", "abs", "sum", "tuple", "list"}
)


def _forget(env: Env, names) -> None:
    for name in names:
        env.pop(name, None)


class ValueTracker(Domain):
    def __init__(
        self,
        module: cst.Module,
        known: RoundFacts,
        table: TransformTable = DEFAULT_TABLE,
        key_names: tuple[str, ...] = DEFAULT_KEY_NAMES,
        context: ModuleContext | None = None,
        donations: bool = True,
        jax_version: str | None = None,
    ) -> None:
        """`donations`: follow donated buffers too (only a rule that asks about them needs the domain);
        `jax_version`: the release the code must run on (how a jitted call's keywords are matched)."""
        self.context = context
        self._module = module
        self._registrations: frozenset[str] | None = None  # pytree_registrations, found when first asked
        self.target_version = parse_jax_version(jax_version) if jax_version else None
        package = context.package if context is not None else None
        self.names = Names(module, package, module_aliases(module, package))
        self.outgoing: list[ProjectCall] = []  # calls into other modules passing tracers
        self.handed: list[Handed] = []  # calls outside traces into other modules giving Python containers
        self.uses: set[str] = set()  # project names called, qualified
        self.applications: list[ProjectApplication] = []  # transforms applied to other modules' functions
        self.asked: dict[cst.Call, Returned | None] = {}  # the summary each call's value was computed from
        # The attribute summaries each class's instances were made with (RoundFacts.attributes, by class).
        self.asked_attributes: dict[cst.ClassDef, dict[str, Returned] | None] = {}
        # The functions (and lambdas) this round traced: only theirs are the facts about parameters read.
        self.traced_functions: set[cst.CSTNode] = set()
        # Which of the optional facts of other modules were read (the project phase re-checks a module only
        # when a fact it read changed): their x64, and the literals their functions return, by qualified name.
        self.read_x64 = False
        self.read_item_setters = False
        self._called_right_away: dict[int, cst.Call] = {}  # by id of a transform's application: the call of it
        self._truths: dict[int, bool | None] = {}  # _fixed_truth's answers, by the test's id
        self.read_literals: set[str] = set()
        self.read_returns: set[str] = set()  # what these functions of other modules return, qualified
        self.read_looped: set[str] = set()  # its functions whose calls in other modules' loops a rule asked for
        # By the call's id (the module keeps every node alive):
        self._callees: dict[int, _Callee | _NoCallee] = {}
        self.transforms = table
        self._bindings = module_bindings(module)
        self._in_project = context.in_project if context is not None else None
        self._overrides = self._overridden(module, context)
        self.recorder = ScopeRecorder(self._overrides, self._method, self._set_once, self._keeps_arguments)
        self._fixed_receivers: dict[int, object] = {}  # _receiver's answers for `self.attr.m` and `Cls(...).m`, by id
        # `Class.attr` for each `self.attr.m(...)` followed: a subclass elsewhere that binds `attr` changes it.
        self.read_attributes: set[str] = set()
        self.read_reached: set[str] = set()  # its names whose references in other modules were asked about
        self.read_jitted: set[str] = set()  # the functions of other modules asked whether they are jitted
        self._heirs_found: dict[int, list[str]] | None = None
        self._plain: dict[int, bool] = {}  # plain_class, by the class's id (the module keeps it alive)
        self.recorder.scope_names(module, rebound_names(module.body))
        bindings = Counter(name for statement in module.body for name in rebound_names([statement]))
        self._rebound_globals = {name for name, count in bindings.items() if count > 1}
        self.keys = KeyFlow(self, module, key_names)
        self._known = known
        self._chain: list[cst.CSTNode] = [module]
        self._scopes = [_Scope({}, None, None, set())]
        self._evaluator = Evaluator(
            self.names,
            self._lookup,
            table,
            self._returned,
            self._computed_tracer,
            self._pytree_fields,
            self._carried,
            self._foreign_object,
            self._container_on_self,
        )
        self._fields: dict[int, dict | None] = {}  # pytree_fields, by the class's id (the module keeps it alive)
        # By function: the dtype kind of the one array the traced calls of other modules all give a parameter
        # (None: a pytree, or kinds that are not known or disagree), as `_from_other_modules` last found them.
        self._incoming_kinds: dict[cst.CSTNode, dict[str, str | None]] = {}
        # The same for the structures of the containers they give (structures.kept_text; None: not known).
        self._incoming_shapes: dict[cst.CSTNode, dict[str, Value | None]] = {}
        # By function: the parameters that calls of other modules outside traces give Python containers (Handed).
        self._handed_params: dict[cst.CSTNode, frozenset[str]] = {}
        # By eager function that other modules' calls reach: those calls' routes (_routes) and its positional
        # parameters; and which of its watched parameters (_Scope.watched) a lookup read, in this round.
        self._watching: dict[cst.FunctionDef, tuple[list[_Route], tuple[str, ...]]] = {}
        self._watched_reads: set[tuple[cst.FunctionDef, str]] = set()
        self._locals: dict[int, set[str]] = {}  # by function: the names local to it
        self._concrete = 0  # how many `with jax.ensure_compile_time_eval():` blocks are around
        self._untraced = 0  # how many `with jax.disable_jit():` blocks are around
        self._untraced_branches = 0  # how many branches no trace enters (dead_branches.py) are around
        # What other modules' traced calls fix of parameters the function binds again, at the tests before that
        # (RoundFacts.test_nones, for calls of this module)
        self._test_nones: dict[cst.BaseExpression, dict[str, Fixed]] = {}
        # an `isinstance` branch's subject and its value; the tracers of a branch no trace enters
        self._narrowed: list[tuple[str, Value] | dict[str, Value] | None] = []
        # Containers (by id) bound to a name, and those bound to more than one: changing one in place changes
        # what the others hold.
        self._containers: set[int] = set()
        self._shared: set[int] = set()
        self._pending: list[TracedFunction | None] = []
        self.enables_x64 = False  # this module sets or reads `jax_enable_x64` (x64.py)
        self.donations = DonationFlow(self) if donations else None
        # The engine drives the domains through the module's control flow.
        self.nones = NoneFlow(self._definition)
        # (reaching after self, which binds a class as it enters its body)
        domains = (self, self.keys, self.donations, self.nones, self.recorder.reaching)
        self.flow = Flow((domain for domain in domains if domain is not None), self._fixed_truth, self._never_returns)

    @staticmethod
    def _overridden(module: cst.Module, context: ModuleContext | None) -> set[tuple[int, str]]:
        """(id of a class, name) for the methods that a subclass in this module or another one defines again."""
        found = module_bindings(module).overridden
        elsewhere = context.imported.overridden if context is not None else {}
        if not elsewhere:
            return found
        return found | {
            (id(statement), name)
            for statement in module.body
            if isinstance(statement, cst.ClassDef)
            for name in elsewhere.get(statement.name.value, ())
        }

    # ------------------------------------------------------------------ queries

    @cached_property
    def _module_names(self) -> Names:
        """Module-level names, for classes and their bases wherever the traversal is (`self.names` follows it)."""
        return Names(self._module, self.context.package if self.context is not None else None, self.names.aliases)

    @cached_property
    def _bases_elsewhere(self) -> bool:
        """Whether a class of this module derives from one of another module of the project (_inherited_elsewhere)."""
        return self._in_project is not None and any(
            self._in_project(self._module_names.qualified(arg.value) or "")
            for statement in self._module.body
            if type(statement) is cst.ClassDef
            for arg in statement.bases
        )

    @cached_property
    def callees(self) -> Callees:
        """The module's callables as the source spells them: jitted, mapped, partials, decorators."""
        return Callees(self._module, self.names, self.transforms, self._receiver)

    @property
    def env(self) -> Env:
        return self._scopes[-1].env

    @property
    def function(self) -> TracedFunction | None:
        """The traced facts of the function or lambda whose body is being visited, if it is traced."""
        return self._scopes[-1].own

    @property
    def traced_scope(self) -> TracedFunction | None:
        """The innermost traced function around the current point, nested functions included."""
        return self._scopes[-1].traced

    @property
    def known(self) -> RoundFacts:
        """What the previous round learned about the module's functions."""
        return self._known

    @property
    def chain(self) -> tuple[cst.CSTNode, ...]:
        """The module, classes, functions and lambdas around the current point."""
        return tuple(self._chain)

    @property
    def traced_node(self) -> cst.CSTNode | None:
        """The FunctionDef or Lambda of `traced_scope`."""
        return self._scopes[-1].traced_node

    @property
    def in_untraced_branch(self) -> bool:
        """Whether this point is in a branch no trace enters (dead_branches.py): it runs only eagerly."""
        return self._untraced_branches > 0

    def in_jaxpr_trace(self) -> bool:
        """Whether the current point runs while a transform traces it to a jaxpr (`jit`, lax bodies, `pmap`;
        not `vmap` or `grad` alone), directly or through the traced function that calls it: there every
        `jnp`/`lax` result is a tracer."""
        scope = self.traced_scope
        if scope is None or not scope.staged:
            return False
        applied = (*scope.transforms, *(e.via for e in scope.entries))
        return any(t.in_jaxpr or t.name in self.transforms.builds_jaxpr for t in applied)

    def is_pytree_class(self, cls: cst.ClassDef) -> bool:
        """A pytree class the model knows (a NamedTuple, a registered or flax.struct dataclass, an equinox Module)."""
        return self._pytree_fields(cls) is not None

    def _pytree_fields(self, cls: cst.ClassDef) -> dict | None:
        if id(cls) not in self._fields:
            self._fields[id(cls)] = pytree_fields(cls, self.names, self._pytree_class)
        return self._fields[id(cls)]

    def _class_of_pytree(
        self, function: cst.CSTNode, param: cst.Param, annotation: cst.BaseExpression | None
    ) -> cst.ClassDef | None:
        """The pytree class of this module a traced parameter holds an instance of: by its annotation, as `self`
        of the class's method, or as what every call seen gives it."""
        found = self._pytree_class(annotation) or self._own_class(function, param)
        if found is None:
            given = self._known.classes.get(function, {}).get(param.name.value)
            found = given if given is not None and self._pytree_fields(given) is not None else None
        return found

    def _self_class(self, function: cst.CSTNode, param: cst.Param) -> cst.ClassDef | None:
        """For `self` (the first parameter) of an instance method of a class of this module: that class."""
        cls = self._chain[-1] if self._chain else None
        if type(cls) is not cst.ClassDef or type(function) is not cst.FunctionDef:
            return None
        first = [*function.params.posonly_params, *function.params.params][:1]
        return cls if first == [param] and instance_method(function) else None

    def _own_class(self, function: cst.CSTNode, param: cst.Param) -> cst.ClassDef | None:
        """For `self` of a method of a pytree class of this module: that class."""
        cls = self._self_class(function, param)
        return cls if cls is not None and self._pytree_fields(cls) is not None else None

    def _opaque_self(self, function: cst.CSTNode, param: cst.Param) -> bool:
        """`self` of a method of a class whose instances jax cannot flatten (pytrees.never_flattened: a plain class,
        a flax linen Module): a transform given one raises before tracing, so none of its attributes is a tracer."""
        cls = self._self_class(function, param)
        return cls is not None and self.never_flattened(cls)

    def never_flattened(self, cls: cst.ClassDef) -> bool:
        """Whether jax visibly takes instances of a class of this module as leaves it cannot trace."""
        if self._registrations is None:
            self._registrations = pytree_registrations(self._module, self.names)
        return never_flattened(
            cls, self.names, self._registrations, lambda base: self.callees.bindings.class_of(base, (self._module,))
        )

    def _pytree_class(self, annotation: cst.BaseExpression | None) -> cst.ClassDef | None:
        """The pytree class of this module an annotation names (`state: State`), if it names one."""
        if annotation is None:
            return None
        cls = self.callees.bindings.class_of(annotation, (self._module,))
        return cls if cls is not None and self._pytree_fields(cls) is not None else None

    def _computed_tracer(self) -> Tracer | None:
        """The tracer an array computed at the current point is: one of the jaxpr trace around (every `jnp`/`lax`
        result there is staged), unless a `with jax.ensure_compile_time_eval():` computes it eagerly."""
        if self._concrete or self._untraced_branches or not self.in_jaxpr_trace():
            return None
        scope = self.traced_scope
        trace = scope.trace if scope is not None else None
        if scope is None or trace is None:  # (never: a jaxpr trace around has a function and a transform)
            return None
        return Tracer(scope.name, "", trace, container=False, computed=True)

    def is_global(self, name: str) -> bool:
        """Declared `global` in the current function."""
        return name in self._scopes[-1].globals

    def is_nonlocal(self, name: str) -> bool:
        """Declared `nonlocal` in the current function."""
        scope = self._scopes[-1]
        return name in scope.untracked and name not in scope.globals

    def trace_functions(self) -> list[cst.CSTNode]:
        """The functions (and lambdas) around this point, innermost first, out to the innermost one a
        transform is applied to: they all run inside one trace. All of them when none is."""
        nodes = []
        for scope in reversed(self._scopes):
            if scope.node is None:
                continue
            nodes.append(scope.node)
            if scope.own is not None and scope.own.transforms:
                break
        return nodes

    def value_of(self, expr: cst.BaseExpression) -> Value | None:
        return self._evaluator.value_of(expr)

    def iterated(self, expr: cst.BaseExpression) -> Value | None:
        return self._evaluator.iterated(expr)

    @property
    def x64_enabled(self) -> bool:
        """Whether this module or another module of its project sets or reads `jax_enable_x64`; known
        once the whole module was walked."""
        if self.enables_x64 or self.context is None:
            return self.enables_x64
        self.read_x64 = True
        return self.context.imported.x64

    @property
    def defines_item_setters(self) -> bool:
        """Whether this module defines a pytree class with `__setitem__` (jorbit's DoubleDouble)."""
        return any(flattened_class(cls, self._module_names, self._module) for cls in item_setter_classes(self._module))

    @property
    def item_setters(self) -> bool:
        """Whether this module or another module of its project defines a pytree class with `__setitem__`: then a
        pytree whose structure no call shows may be an instance of one, where `obj[i, :] = v` is a method call."""
        if self.defines_item_setters:
            return True
        if self.context is None:
            return False
        self.read_item_setters = True
        return self.context.imported.item_setters

    def returned_container(self, function: cst.CSTNode) -> cst.BaseExpression | None:
        """The tuple, list or dict literal `function` returns when it returns one on every path (the one its
        first `return` gives), as the previous round learned it; else None."""
        return self._known.containers.get(function)

    def _returned(self, call: cst.Call, arguments: list[Value | None]) -> Value | None:
        """What a call of a function of this module gives: from this round's summary when its body
        was walked already (a helper defined above its caller), else from the previous round's."""
        callee = self._callees.get(id(call))  # rules ask for the same call's value again and again
        if callee is None:
            callee = self._callees[id(call)] = self._callee(call)
        if callee is _OTHER_RESULT:
            return transformed_result(arguments, dotted(call.func) or "<function>")
        if callee is _NO_CALLEE:
            # (A summary a later round learns for it, of a function walked after this point, needs that round.)
            self.asked.setdefault(call, None)
            return self._imported_return(call, arguments) or self._instance(call, arguments=arguments)
        positional, summary, bound_first, wrapped = callee
        self.asked[call] = summary
        if summary is None:
            return None
        staged = self._computed_tracer()
        if self.names.qualified(call.func) in TREE_MAPS:
            return _tree_mapped(summary, positional, arguments[1:], staged)
        given = _by_parameter(call, arguments, positional)
        receiver = self._traced_receiver(call.func) if bound_first is not None else None
        if receiver is not None:
            given[cast(str, bound_first)] = receiver  # `state.method()`: `self` holds the tracers
        return summary.result(given, as_given=not wrapped, staged=staged)

    def given_back(self, call: cst.Call) -> tuple[cst.BaseExpression | None, dict[int, cst.BaseExpression]]:
        """The arguments a call of the module's function gets back as it gave them (`return x + noise, key` of a
        parameter `key` the body never rebinds): the whole result's, and each position's of a tuple it returns. A
        transform around the function changes nothing here: the array it gives back holds the same numbers."""
        found = self._module_callee(call, call.func)
        if found is None:
            self.asked.setdefault(call, None)  # (a summary a later round learns for it needs that round)
            return None, {}
        function, bound, summary = found
        self.asked[call] = summary
        if summary is None:
            return None, {}
        positional = Signature.of(cast("cst.FunctionDef | cst.Lambda", function).params).positional[bound:]

        def argument_for(param: str | None) -> cst.BaseExpression | None:
            at = positional.index(param) if param in positional else len(call.args)  # (keyword-only: no position)
            return argument(call, at, param) if param is not None else None

        items = {
            index: given
            for index, item in enumerate(summary.items or ())
            if item is not None and (given := argument_for(item.given)) is not None
        }
        return argument_for(summary.given), items

    def _module_callee(
        self, call: cst.Call, func: cst.BaseExpression
    ) -> tuple[cst.CSTNode, int, Returned | None] | None:
        """The module's function a call runs (`func`: the called expression, or the function a tree map maps), its
        bound parameters and its summary: this round's when its body was walked already, else the previous round's."""
        now = self.recorder.summary_now(tuple(self._chain), call, func)
        if now is not None:
            return now
        if call not in self._known.callees:
            return None
        function, bound = self._known.callees[call]
        return function, bound, self._known.returns[function]

    def _callee(self, call: cst.Call) -> _Callee | _NoCallee:
        """The positional parameters after those bound, the summary of the module's function a call calls, the
        last parameter bound (`self` of a method called through an instance), and whether the function is decorated
        or transformed (`jax.jit(f)(x)` gives arrays back, not the argument itself)."""
        self._receiver(call.func)
        func = call.args[0].value if self.names.qualified(call.func) in TREE_MAPS and call.args else call.func
        found = self._module_callee(call, func)
        if found is None:
            return _NO_CALLEE
        function, bound, summary = found
        decorators = getattr(function, "decorators", ())
        if self.recorder.gives_other_result(tuple(self._chain), func) or any(
            (transform := decorator_transform(d, self.names, self.transforms)) is not None
            and transform.name in OTHER_RESULTS
            for d in decorators
        ):
            return _OTHER_RESULT
        # (a callee is a def or a lambda)
        positional = Signature.of(cast("cst.FunctionDef | cst.Lambda", function).params).positional
        wrapped = bool(self._known.applied.get(function)) or any(
            not (type(d.decorator) is cst.Name and d.decorator.value in ("staticmethod", "classmethod"))
            for d in decorators
        )
        return positional[bound:], summary, positional[bound - 1] if 0 < bound <= len(positional) else None, wrapped

    def _imported_return(self, call: cst.Call, arguments: list[Value | None]) -> Value | None:
        """What a call of another module's function (or method) gives, from that module's interface."""
        if self.context is None:
            return None
        qualified, through_instance = self.project_callee(call.func)
        if qualified is None or not self.context.in_project(qualified):
            return None
        self.read_returns.add(qualified)  # (asked before the other modules told anything: phase 1)
        exported = self.context.imported.returns.get(qualified or "")
        if exported is None:
            return None
        name = dotted(call.func) or "<function>"
        value = None if exported.value is None else Value(Kind(exported.value))
        items = (
            tuple(
                None
                if item is None
                else Returned(name, item[0], value=None if item[1] is None else Value(Kind(item[1])), container=item[2])
                for item in exported.items
            )
            if exported.items is not None
            else None
        )
        returned = Returned(name, exported.params, value=value, container=exported.container, items=items)
        positional = exported.positional[1:] if through_instance and exported.self_param else exported.positional
        return returned.result(_by_parameter(call, arguments, positional))

    def _imported_test(self, call: cst.Call) -> tuple[int, bool] | None:
        """The type test another module's function returns of one of its parameters (Exported.tests)."""
        if self.context is None:
            return None
        qualified, through_instance = self.project_callee(call.func)
        if qualified is None or through_instance or not self.context.in_project(qualified):
            return None
        self.read_returns.add(qualified)
        exported = self.context.imported.returns.get(qualified)
        return exported.tests if exported is not None else None

    def project_callee(self, func: cst.BaseExpression) -> tuple[str | None, bool]:
        """The qualified name a call's function names (`pkg.model.Stats.mean`; a method of another module's
        class for `scaler.apply` when `scaler` holds an instance of it), and whether through an instance."""
        instance = self._receiver(func)
        if isinstance(instance, str):
            return f"{instance}.{cast(cst.Attribute, func).attr.value}", True  # (only an attribute has a receiver)
        if self._bases_elsewhere and type(func) is cst.Attribute:
            inherited = self._inherited_elsewhere(func, instance)
            if inherited is not None:
                return inherited
        return self.names.qualified(func), False

    def _inherited_elsewhere(self, func: cst.Attribute, instance: object) -> tuple[str, bool] | None:
        """`obj.m`, `Cls.m` or `self.m` where a class of this module inherits `m` from a class of another module of
        the project: that class's method by qualified name (`pkg.base.Base.norm`), and whether through an instance."""
        through_instance = instance is not None
        cls = instance
        if cls is None and type(func.value) is cst.Name:
            chain = tuple(self._chain)
            if func.value.value == "self" and len(chain) == 3 and type(chain[1]) is cst.ClassDef:
                cls, through_instance = chain[1], True
                if (id(cls), func.attr.value) in self._overrides:
                    return None  # a subclass's method may be the one that runs
            else:
                cls = self._bindings.class_of(func.value, chain)
        if type(cls) is not cst.ClassDef:
            return None
        found = self._bindings.method(cls, func.attr.value, self._module_names, self._in_project)
        return (found, through_instance) if isinstance(found, str) else None

    def instance_class(self, name: str) -> cst.ClassDef | None:
        """The class of this module whose instance `name` holds here, if known (nothing recorded: for code the walk
        has not reached)."""
        held = self._lookup(name)
        instance = None if held is None else held.instance
        return instance if type(instance) is cst.ClassDef else None

    def _receiver(self, func: cst.BaseExpression) -> object:
        """The class whose instance the receiver of `obj.method` (or `self.attr.method`) holds here, if known: a
        ClassDef of this module (told to the recorder, which resolves the method) or another module's class by
        name."""
        if type(func) is not cst.Attribute:
            return None
        if type(func.value) is cst.Name:
            held = self._lookup(func.value.value)
            instance = None if held is None else held.instance or _traced_pytree(held)
        elif id(func) in self._fixed_receivers:
            instance = self._fixed_receivers[id(func)]
        elif (
            type(func.value) is cst.Attribute
            and type(func.value.value) is cst.Name
            and func.value.value.value == "self"
        ):
            instance = self._fixed_receivers[id(func)] = self._self_attribute(func.value)
        elif type(func.value) is cst.Call:  # `Model().predict(x)`, `env.action_space(params).sample(key)`
            made = self._instance(func.value) or self.value_of(func.value)
            instance = self._fixed_receivers[id(func)] = made.instance if made is not None else None
        else:
            return None
        if type(instance) is cst.ClassDef:
            self.recorder.receiver(func, instance)
        return instance

    def _self_attribute(self, expr: cst.Attribute) -> object:
        """The class of the instance `self.attr` holds in a method of a module-level class, when the class's
        `__init__` alone sets it, once (callees.ModuleBindings.attribute_value), to a call of a class or to a
        parameter every call of the class fills with an instance of one class; or when it is a dataclass field that
        every call fills so (constructions.py). No subclass in another module may bind `attr`
        (Imported.overridden)."""
        if (
            len(self._chain) != 3
            or type(self._chain[1]) is not cst.ClassDef
            or type(self._chain[2]) is not cst.FunctionDef
        ):
            return None
        cls, method = self._chain[1], self._chain[2]
        params = [*method.params.posonly_params, *method.params.params]
        if (
            not params
            or params[0].name.value != "self"
            or any(getattr(d.decorator, "value", None) in ("staticmethod", "classmethod") for d in method.decorators)
        ):
            return None
        attr = expr.attr.value
        value = self._bindings.attribute_value(cls, attr, self._module_names)
        declared = None
        if value is None and self._bindings.field_unassigned(cls, attr, self._module_names):
            declared = dataclass_field(cls, attr, self._module_names)
        if type(value) not in (cst.Call, cst.Name) and declared is None:
            return None
        # (attribute_value or field_unassigned found it: the MRO is known, and without `in_project` it holds this
        # module's classes alone)
        order = cast("tuple[cst.ClassDef, ...]", self._bindings.mro(cls, self._module_names))
        elsewhere = self.context.imported.overridden if self.context is not None else {}
        for owner in order:
            self.read_attributes.add(f"{owner.name.value}.{attr}")
            if attr in elsewhere.get(owner.name.value, ()):
                return None
        if declared is not None:
            return self._constructed_class(cls, declared)
        init = cast(cst.FunctionDef, self._bindings.method(cls, "__init__", self._module_names))
        if type(value) is cst.Name:
            parameter = parameter_of(init, value.value, method=True)
            rebound = parameter is None or value.value in rebound_names(init.body.body)
            return None if rebound else self._constructed_class(cls, cast(Parameter, parameter))
        made = self._instance(cast(cst.Call, value), (self._module, self._bindings_owner(init), init))
        return made.instance if made is not None else None

    def _constructed_class(self, cls: cst.ClassDef, parameter: Parameter) -> object:
        """The class of the instances that every call of `cls` gives a parameter of its `__init__`, when every call
        is in this module (constructions.constructed_with). Other modules are asked last, when the module's own
        calls agree: a fact read is a fact whose change checks the module again."""
        sites = constructed_with(self._module, cls, parameter, self._binding)
        classes = [self._class_made(expr, chain) for expr, chain in sites or ()]
        if not classes or classes[0] is None or any(made != classes[0] for made in classes):
            return None
        return None if self._reached_elsewhere(cls.name.value) else classes[0]

    def _class_made(self, expr: cst.BaseExpression, chain: tuple[cst.CSTNode, ...]) -> object:
        """The class of the instance an expression holds: a call of a class, or a name bound once to one."""
        if type(expr) is cst.Name:
            found = self._bindings.binding(expr, chain)
            if found is None:
                return None
            expr, chain = cast(cst.BaseExpression, found[0]), found[1]
        made = self._instance(expr, chain) if type(expr) is cst.Call else None
        return made.instance if made is not None else None

    def _default_instance(self, node: cst.CSTNode, param: cst.Param) -> Value | None:
        """The instance a parameter of a def outside a class body holds when its default makes one
        (`emu=Emulator()`, made once, where the def runs) and no call of the def passes it: the def's references
        are all calls, or calls of a transform's wrapper made on the spot (constructions.never_passed), none in
        another module."""
        if (
            type(param.default) is not cst.Call
            or type(node) is not cst.FunctionDef
            or type(self._chain[-1]) is cst.ClassDef
        ):
            return None
        if any(decorator_transform(d, self.names, self.transforms) is None for d in node.decorators):
            return None  # a decorator of the project's may call it with anything
        made = self._instance(param.default, tuple(self._chain))
        if made is None or made.instance is None:
            return None
        if not never_passed(self._module, node, param.name.value, self._binding, self._same_arguments):
            return None
        return None if outside_functions(tuple(self._chain)) and self._reached_elsewhere(node.name.value) else made

    def _handed_on(self, node: cst.CSTNode) -> bool:
        """A def given to a call of the project or of another library (a callback: a project's wrapper of
        `pl.pallas_call` gives its kernel refs); jax's own functions call it with what their documentation says."""
        return type(node) is cst.FunctionDef and handed_on(self._module, node, self._binding, self._followed_callee)

    def _followed_callee(self, call: cst.Call) -> bool:
        called = self.names.qualified(call.func) or ""
        return called.startswith(JAX) or called in PARTIAL

    def _binding(self, name: cst.Name, chain: tuple[cst.CSTNode, ...]) -> cst.CSTNode | None:
        found = self._bindings.binding(name, chain, want_def=True, want_class=True)
        return found[0] if found is not None else None

    def _same_arguments(self, wrapper: cst.Call) -> bool:
        """`jax.jacfwd(f, argnums=1)`: a transform whose wrapper calls `f` with the arguments it is given."""
        applied = applied_transforms(wrapper, self._module_names, self.transforms)
        return (
            len(applied) == 1
            and applied[0][1].name in WRAPPER_ARGUMENTS
            and not applied[0][1].bound
            and not applied[0][1].bound_names
        )

    def jitted_elsewhere(self, expr: cst.BaseExpression, chain: tuple[cst.CSTNode, ...] | None = None) -> str | None:
        """The qualified name of the jitted function of another module of the project an expression holds
        (Imported.jitted): a name of it (`train_step`), what its factory gives (`make_step(opt)`, named
        `pkg.train.make_step()`), or a name bound here to either; None otherwise. `chain`: the scope it is read in,
        when not the current one."""
        if self.context is None:
            return None
        if type(expr) is cst.Name or type(expr) is cst.Attribute:  # a name, or `self.solve` set once in `__init__`
            found = self.callees.bindings.binding(expr, tuple(self._chain) if chain is None else chain)
            if found is not None and type(found[0]) is cst.Call:
                expr = found[0]
        made = type(expr) is cst.Call
        qualified = self.names.qualified(expr.func if type(expr) is cst.Call else expr)
        if qualified is None or not self.context.in_project(qualified):
            return None
        named = made_name(qualified) if made else qualified
        self.read_jitted.add(named)
        return named if named in self.context.imported.jitted else None

    def _reached_elsewhere(self, name: str) -> bool:
        """Whether another module of the project imports, calls or subclasses this module's `name` (Imported.reached):
        its calls there are not seen here."""
        if self.context is None:
            return False
        self.read_reached.add(name)
        return name in self.context.imported.reached

    def _bindings_owner(self, method: cst.FunctionDef) -> cst.ClassDef:
        """The module-level class whose body defines `method`."""
        return next(
            statement
            for statement in self._module.body
            if type(statement) is cst.ClassDef and method in statement.body.body
        )

    def _instance(
        self, call: cst.Call, chain: tuple[cst.CSTNode, ...] | None = None, arguments: list[Value | None] | None = None
    ) -> Value | None:
        """A call of a class of the project gives an instance of it (a class of this module: a plain one, with the
        attributes its `__init__` sets from `arguments`, the call's); `chain`: where the call is, when not at the
        current point."""
        qualified = (self.names if chain is None else self._module_names).qualified(call.func)
        if qualified is not None:
            if self.context is None or not self.context.in_project(qualified):
                return None
            containers = self.context.imported.containers.get(qualified, ())
            held = tuple((attr, Value(Kind.UNKNOWN, contents=Contents(kind, None))) for attr, kind in containers)
            return Value(Kind.UNKNOWN, instance=qualified, attributes=held)
        cls = self.callees.bindings.class_of(call.func, tuple(self._chain) if chain is None else chain)
        if cls is not None and self._plain_class(cls):
            return Value(Kind.UNKNOWN, instance=cls, attributes=self._attributes(cls, call, arguments))
        return None

    def _attributes(
        self, cls: cst.ClassDef, call: cst.Call, arguments: list[Value | None] | None
    ) -> tuple[tuple[str, Value | None], ...]:
        """What the attributes that `cls.__init__` sets hold in the instance a call makes (a NamedTuple's or a
        dataclass's fields: what the call gives them)."""
        fields = constructor_fields(cls, self._module_names)
        if fields is not None:
            given = {} if arguments is None else _by_parameter(call, arguments, fields)
            return tuple((field, given[field]) for field in fields if field in given)
        summaries = self.asked_attributes[cls] = self._known.attributes.get(cls)
        init = self._bindings.method(cls, "__init__", self._module_names)
        if not summaries or arguments is None or not isinstance(init, cst.FunctionDef):
            return ()
        given = _by_parameter(call, arguments, Signature.of(init.params).positional[1:])
        staged = self._computed_tracer()
        return tuple((attr, summary.result(given, staged=staged)) for attr, summary in summaries.items())

    def _method(self, cls: cst.ClassDef, name: str, own: cst.CSTNode | None) -> cst.CSTNode | None:
        """The def that `name` finds on an instance of `cls`: `own`, the class's def, unless one of its methods
        sets `self.name` (an instance attribute hides a method); else a base class's of this module
        (callees.ModuleBindings.method)."""
        if name in self._bindings.scopes[id(cls)].attributes:
            return None
        if own is not None:
            return own
        found = self._bindings.method(cls, name, self._module_names, self._in_project)
        return found if isinstance(found, cst.FunctionDef) else None

    def _attribute_set(self, target: cst.Attribute, value: cst.BaseExpression) -> None:
        """`self.attr = value` in the `__init__` of a class of this module."""
        chain = self._chain
        if (
            len(chain) >= 2
            and type(chain[-1]) is cst.FunctionDef
            and type(chain[-2]) is cst.ClassDef
            and chain[-1].name.value == "__init__"
            and type(target.value) is cst.Name
            and target.value.value == "self"
        ):
            self.recorder.attribute_set(chain[-2], chain[-1], target.attr.value, self.value_of(value))

    def _set_once(self, cls: cst.ClassDef, attr: str) -> bool:
        """One assignment in the class's methods sets `attr` (an instance made by calling the class is of the
        class itself: what subclasses set is not its)."""
        return len(self._bindings.scopes[id(cls)].attributes.get(attr, [])) == 1

    def _keeps_arguments(self, function: cst.FunctionDef) -> bool:
        """Every decorator of `function` calls it with the arguments it gets (`@jaxtyped(typechecker=...)`)."""
        return all(
            self.names.qualified(d.decorator.func if type(d.decorator) is cst.Call else d.decorator)
            in ARGUMENT_KEEPING_DECORATORS
            for d in function.decorators
        )

    def _plain_class(self, cls: cst.ClassDef) -> bool:
        if id(cls) not in self._plain:
            self._plain[id(cls)] = plain_class(cls, self.names)
        return self._plain[id(cls)]

    def imported_literal(self, expr: cst.BaseExpression) -> str | None:
        """For a function of another module of the project that returns a tuple, list or dict literal on every
        path: which, and where ("a tuple (`loss, aux`) at losses.py:12"); else None."""
        if self.context is None:
            return None
        qualified = self.names.qualified(expr) or ""
        self.read_literals.add(qualified)
        exported = self.context.imported.returns.get(qualified)
        return exported.literal if exported is not None else None

    def _lookup(self, name: str) -> Value | None:
        scope = self._scopes[-1]
        if name in scope.watched:
            self._watched_reads.add((scope.watched[name], name))
        return None if name in scope.untracked else scope.env.get(name)

    @property
    def read_containers(self) -> set[str]:
        """The attributes of other modules' instances read in this round (Evaluator.read_containers)."""
        return self._evaluator.read_containers

    @property
    def read_handed(self) -> set[tuple[str, int | str, bool]]:
        """The eager calls of other modules (Imported.handed: name, argument, through an instance) that give a
        parameter a lookup read, in this round: a Python container given to one no lookup read changes nothing."""
        read: set[tuple[str, int | str, bool]] = set()
        for node, name in self._watched_reads:
            routes, positional = self._watching[node]
            for key, _, bound in routes:
                for instance in (False, True):
                    read.add((key, name, instance))  # given by keyword
                    shift = bound if bound is not None else method_bound(node, instance)
                    if name in positional and positional.index(name) >= shift:
                        read.add((key, positional.index(name) - shift, instance))
        return read

    # ------------------------------------------------------------------ bindings

    def _bind(self, target: cst.BaseExpression, value: Value | None) -> None:
        if type(target) is cst.Attribute:
            # `self.a1 = a1`: a later read of `self.a1` in this function gives the object just stored (until code that
            # may set it runs: _may_set_self).
            if type(target.value) is cst.Name and target.value.value == "self":
                key = f"self.{target.attr.value}"
                if value is None or key in self._scopes[-1].untracked:
                    self.env.pop(key, None)
                else:
                    self.env[key] = value
                    self._scopes[-1].stored_self.add(key)
            return
        if type(target) is cst.Subscript:
            # `metrics["acc"] = acc`: a container the analysis follows holds it now.
            if isinstance(target.value, cst.Name):
                held = self._lookup(target.value.value)
                if held is not None and held.contents is not None:
                    self._changed(target.value.value, held, stored(held, target.slice, value))
                elif held is not None and held.container:
                    self._bind(target.value, pytree_after(held, None, [value]))
            return
        untracked = self._scopes[-1].untracked
        for name, held in bound_names(target, value):
            if name in untracked or held is None:
                self.env.pop(name, None)
            else:
                self.env[name] = held
                if held.contents is not None and id(held) in self._containers:
                    self._shared.add(id(held))  # a second name for the same container: `alias = metrics`
                elif held.contents is not None:
                    self._containers.add(id(held))

    def _may_set_self(self, call: cst.Call) -> bool:
        """Whether a call may set attributes of `self` (while the function knows some it stored): a call given
        `self` (as its receiver or an argument), `super()`'s, or any call of code of the project, which may close
        over it. A library's function (`jnp.sum`) or a builtin given other values does not."""
        if not self._scopes[-1].stored_self:
            return False
        func = call.func
        receiver = func.value if type(func) is cst.Attribute else None
        if type(receiver) is cst.Name and receiver.value == "self" or type(receiver) is cst.Call:
            return True
        if any(type(arg.value) is cst.Name and arg.value.value == "self" for arg in call.args):
            return True
        if type(func) is cst.Name and func.value in _BUILTINS_KEEPING_SELF and self.names.qualified(func) is None:
            return False
        return self.names.qualified(func) is None

    def _changed(self, name: str, held: Value, now: Value | None) -> None:
        """The container `name` holds (`held`) was changed in place and holds `now`. Other names bound to it
        (`alias = metrics`), and the name in the enclosing scopes when a nested function or a comprehension
        changes it, no longer know its items."""
        if now is held:
            return  # read, not changed: `metrics.items()`
        if now is None:
            self.env.pop(name, None)
        else:
            self.env[name] = now
        if cast(Contents, held.contents).kind == "tuple":  # (every caller passes a container it follows)
            return
        stale = unknown_contents(held)
        for scope in self._scopes:
            if id(held) in self._shared:
                names = [other for other, value in scope.env.items() if value is held]
            else:
                names = [name] if scope.env.get(name) is held else []
            for other in names:
                if stale is None:
                    del scope.env[other]
                else:
                    scope.env[other] = stale

    def _forget(self, names) -> None:
        _forget(self.env, names)

    def leave_Assign(self, node: cst.Assign) -> None:
        self.nones.assigned(node)
        self.recorder.rebound(name for assigned in node.targets for name in target_names(assigned.target))
        target = node.targets[0].target if len(node.targets) == 1 else None
        if type(target) is cst.Attribute:
            self._attribute_set(target, node.value)
        if type(target) is cst.Name and type(node.value) is cst.Lambda:
            self.recorder.alias(tuple(self._chain), target.value, node.value)
        elif type(target) is cst.Name and type(node.value) is cst.IfExp:
            choice = node.value  # `kernel = sample if blocks is None else sample_jit`
            arms = [
                (choice.body, self.nones.told(choice.test, True)),
                (choice.orelse, self.nones.told(choice.test, False)),
            ]
            self.recorder.wrapped.chosen(tuple(self._chain), target.value, arms)
        elif isinstance(target, cst.Name) and isinstance(node.value, cst.Call):
            chain = tuple(self._chain)
            applied = applied_transforms(node.value, self.names, self.transforms)
            if len(applied) == 1:
                function, transform = applied[0]
                made, bound, names = self._made(function, chain, transform.bound)
                names |= transform.bound_names  # `jax.jit(partial(f, n=3))`: `n` is the partial's, never traced
                other = transform.name in OTHER_RESULTS
                self.recorder.alias(
                    chain,
                    target.value,
                    made,
                    bound,
                    names,
                    other_result=other,
                    wrapper=node.value,
                    bound_values=transform.bound_values,
                )
                self.recorder.wrapped.bound((id(chain[-1]), target.value), made is function)
            elif self._made_once(node.value, target, chain):
                # `loss_fn = make_loss(2.0)`: calling or transforming `loss_fn` is the function the factory makes.
                self.recorder.alias(chain, target.value, *self._made(node.value, chain))
            elif self.names.qualified(node.value.func) in PARTIAL and node.value.args:
                # `kernel = partial(add_kernel, scale=2.0)`: calling `kernel` calls `add_kernel`.
                given = [arg for arg in node.value.args if arg.keyword is None]
                if given and not any(arg.star for arg in node.value.args):
                    names = frozenset(arg.keyword.value for arg in node.value.args if arg.keyword is not None)
                    values = (
                        tuple(self.value_of(arg.value) for arg in given[1:]),
                        tuple(
                            (arg.keyword.value, value)
                            for arg in node.value.args
                            if arg.keyword is not None and (value := self.value_of(arg.value)) is not None
                        ),
                    )
                    self.recorder.alias(tuple(self._chain), target.value, given[0].value, len(given) - 1, names, values)
        value = self.value_of(node.value)
        for assigned in node.targets:
            left, right = assigned.target, node.value
            if (
                (type(left) is cst.Tuple or type(left) is cst.List)
                and isinstance(right, (cst.Tuple, cst.List))
                and len(left.elements) == len(right.elements)
            ):
                for element, item in zip(left.elements, right.elements):
                    self._bind(element.value, self.value_of(item.value))
            else:
                self._bind(left, value)

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self.recorder.rebound(target_names(node.target))
        if arrays.is_array_annotation(node.annotation.annotation, self.names):
            self._bind(node.target, ARRAY)
        elif node.value is not None:
            self._bind(node.target, self.value_of(node.value))

    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        # `x op= v` binds what `x op v` computes: `BitAndAssign` -> `BitAnd`.
        operator = getattr(cst, type(node.operator).__name__[: -len("Assign")])()
        operation = cst.BinaryOperation(left=node.target, operator=operator, right=node.value)
        held = self._lookup(node.target.value) if type(node.target) is cst.Name else None
        if held is not None and held.contents is not None:
            # `losses += [loss]`: in place (`held` is looked up for a name alone)
            self._changed(cast(cst.Name, node.target).value, held, self.value_of(operation))
        else:
            self._bind(node.target, self.value_of(operation))

    def leave_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target, self.value_of(node.value))

    def leave_Del(self, node: cst.Del) -> None:
        self._forget(target_names(node.target))
        self.recorder.rebound(target_names(node.target))
        if isinstance(node.target, cst.Subscript) and isinstance(node.target.value, cst.Name):
            held = self._lookup(node.target.value.value)
            if held is not None and held.contents is not None:  # its items are no longer where they were
                self._changed(node.target.value.value, held, unknown_contents(held))

    def leave_Call(self, node: cst.Call) -> None:
        """A method call on a container the analysis follows: `losses.append(loss)` adds an item; a method
        that may remove or replace items (`pop`, `sort`...) makes them unknown. A container of Python values
        given to a function that may fill it (`fill(metrics)`) no longer has known items."""
        func = node.func
        if self._may_set_self(node):
            for scope in self._scopes:  # (a comprehension's scope: the function's too)
                _forget(scope.env, scope.stored_self)
                scope.stored_self.clear()
        if type(func) is cst.Attribute and type(func.value) is cst.Name:
            held = self._lookup(func.value.value)
            if held is not None and held.contents is not None:
                self._changed(func.value.value, held, after_method(held, node, self.value_of))
                return
            if held is not None and held.container:
                added = [None if arg.star else self.value_of(arg.value) for arg in node.args]
                self._bind(func.value, pytree_after(held, func.attr.value, added))
        if node.args and not self._reads_containers(func):
            for arg in node.args:
                if type(arg.value) is cst.Name:
                    held = self._lookup(arg.value.value)
                    if held is not None and held.contents is not None and held.kind is not Kind.TRACED:
                        self._changed(arg.value.value, held, unknown_contents(held))

    def _reads_containers(self, func: cst.BaseExpression) -> bool:
        """A builtin, or a function of JAX, NumPy, `math` or `logging`: none changes a list or dict given to it. Nor
        does a transformed function (`jax.grad(loss)(params)`): jax flattens its arguments and calls the function
        with pytrees rebuilt from the leaves."""
        if type(func) is cst.Call:
            return self.names.qualified(func.func) in self.transforms.all
        qualified = self.names.qualified(func)
        if qualified is None:
            return type(func) is cst.Name and func.value in CONTAINER_READERS
        return qualified.startswith(CONTAINER_READING_MODULES)

    def leave_Import(self, node: cst.Import) -> None:
        self._forget(import_bound_names(node))
        self.recorder.rebound(import_bound_names(node))

    leave_ImportFrom = leave_Import

    def declare_outer(self, names: list[str], is_global: bool) -> None:
        if is_global:
            self._scopes[-1].globals.update(names)
            self.recorder.declared_global(names)
        self._scopes[-1].untracked.update(names)
        self._forget(names)

    # ------------------------------------------------------------------ traced scopes

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.enables_x64 = self.enables_x64 or x64_attribute(node)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self.enables_x64 = self.enables_x64 or x64_subscript(node)

    def visit_Call(self, node: cst.Call) -> None:
        if not self.enables_x64:
            # (`with enable_x64():` of `from jax import enable_x64`; not in a branch Python never takes: `if
            # enable_float64:` after `enable_float64 = False`)
            self.enables_x64 = x64_call(node, self.names) and self.flow.runs(self)
        chain = tuple(self._chain)
        # A call in a branch no trace enters (`if linear:` where every traced call passes `linear=False`) runs only
        # eagerly: its callee gets no tracer from here.
        caller = self.traced_scope if not self.in_untraced_branch else None
        # Under `jax.disable_jit()` transforms run their functions eagerly, and code no path reaches (after a
        # `raise` or `return`) never runs: nothing is traced there.
        runs = not self._untraced and self.flow.runs(self)
        if type(node.func) is cst.Call:
            self._called_right_away[id(node.func)] = node  # `jax.jacfwd(f)(y)`: the application's own call
        applied = applied_transforms(node, self.names, self.transforms) if runs else []
        in_jaxpr = caller is not None and self.in_jaxpr_trace()  # (what a traced call does builds into its jaxpr)
        for target, transform in applied:
            if self._cannot_bind(self._called_right_away.get(id(node)), target, transform):
                continue
            if caller is None and transform.name in EAGER_BODIES:
                continue  # `lax.associative_scan(combine, xs)` outside a trace: `combine` gets the numbers
            if caller is not None:  # `jax.grad(f)(x)` inside jit is staged
                transform = replace(
                    transform, staged=transform.staged or caller.staged, in_trace=True, in_jaxpr=in_jaxpr
                )
            if type(target) is cst.Attribute:
                self._receiver(target)  # `jax.vmap(scaler.apply)`: the method, with `self` bound
            elif type(target) is cst.Name:
                target = self._called_instance(target)
            if isinstance(target, cst.Call):  # `jax.jit(make_loss(2.0))`: what the factory returns
                made, bound, names = self._made(target, chain, transform.bound)
                transform = replace(transform, bound=bound, bound_names=transform.bound_names | names)
                if made is target:
                    if self.context is not None:
                        self._apply_into_project(self.context, chain, target, transform)
                    continue
                target = made
            if transform.name in LIFTED_TRANSFORMS and self.callees.bindings.class_of(target, chain) is not None:
                if LIFTED_METHODS_OPTION in transform.keywords:
                    continue  # `nn.vmap(Block, methods=[...])`: the methods named, not followed
                target = cst.Attribute(value=target, attr=cst.Name(LIFTED_DEFAULT_METHOD))  # `nn.remat(Block)`
            if self._scopes[-1].showing:
                transform = replace(transform, shown=frozenset().union(*self._scopes[-1].showing))
            self.recorder.apply(chain, target, transform, self.nones.here(), self._trace_call(node))
            if transform.name in LAX_CARRIES:
                position, keyword, index = LAX_CARRIES[transform.name]
                init = argument(node, position, keyword)
                shape = structure(self.value_of(init)) if init is not None else None
                self.recorder.carry(chain, target, transform, index, self._carries_list(node, transform.name), shape)
            if transform.name in LAX_SLICES:
                position, keyword, index = LAX_SLICES[transform.name]
                xs = argument(node, position, keyword)
                handed = self.value_of(xs) if xs is not None else None
                if handed is not None and _python_container(handed):  # (an array's slice: a tracer, as any parameter)
                    self.recorder.carry(chain, target, transform, index, True, sliced(handed))
            for index, operand in enumerate(branch_operands(node, transform.name)):
                # A branch gets each operand as the same pytree, tracers for its leaves: a list stays a list.
                handed = self.value_of(operand)
                self.recorder.carry(chain, target, transform, index, _python_container(handed), structure(handed))
            if self.context is not None:
                applied_to = self.names.qualified(target)
                if applied_to is not None and self.context.in_project(applied_to):
                    self.uses.add(applied_to)  # `jax.grad(losses.loss_fn)`: what it returns matters
                self._apply_into_project(self.context, chain, target, transform, self._trace_call(node))
        if runs and node.args:
            self._through_wrapper(chain, node)
        func = node.func
        if self.names.qualified(func) in REF_FACTORIES:
            self.recorder.ref_made()
        if type(func) is cst.Name or (type(func) is cst.Attribute and type(func.value) is cst.Name):
            self._receiver(func)  # `obj.m(...)`: the recorder resolves it through the class `obj` holds an instance of
            self.recorder.callable_call(chain, node)  # `f(...)`, `self.m(...)`, `Cls.m(...)`, `obj.m(...)`
        elif type(func) is cst.Attribute and type(self._receiver(func)) is cst.ClassDef:
            self.recorder.callable_call(chain, node)  # `self.head.apply(...)`, `Model().predict(...)`
        mapped = node.args and self.names.qualified(func) in TREE_MAPS
        if mapped:
            self.recorder.callable_call(chain, node, node.args[0].value)  # its result holds what `f` returns
        callback = host_callback_target(node, self.names)
        if callback is not None:
            self.recorder.host_callback(chain, callback)
        kernel = ref_kernel_target(node, self.names)
        if kernel is not None:
            self.recorder.kernel(chain, kernel)
        self._refs_given(chain, node)
        values = [self.value_of(arg.value) for arg in node.args]  # (each argument once, for all that follows)
        if self.context is not None:
            qualified, through_instance = self.project_callee(func)
            if qualified is not None and self.context.in_project(qualified):
                self.uses.add(qualified)
                if caller is not None and node.args:
                    self._call_into_project(qualified, node, values, caller, through_instance)
                elif caller is None and node.args:
                    self._hand_into_project(qualified, node, values, through_instance)
            elif caller is not None and node.args and type(func) is cst.Name:
                made, bound, names = self.recorder.aliased(chain, func)
                factory = (
                    self.names.qualified(made.func) if type(made) is cst.Call and not bound and not names else None
                )
                if factory is not None and self.context.in_project(
                    factory
                ):  # `loss_fn(...)` after `loss_fn = losses.make_loss(2.0)`
                    self._call_into_project(factory, node, values, caller, False, made=True)
        receiver = self._traced_receiver(func) if caller is not None else None
        if not node.args and receiver is None and caller is None:
            return
        if caller is not None:
            trace = caller.trace
            via = AppliedTransform(
                trace.name if trace else "a traced caller",
                node,
                caller.staged,
                differentiates=not trace or trace.differentiates,
                in_jaxpr=in_jaxpr,
            )
            if mapped:
                # The function gets one leaf of each tree: tracers, not pytrees.
                leaves = [leaf_of(v) if v is not None and v.kind is Kind.TRACED else None for v in values[1:]]
                self.recorder.call(chain, node, node.args[0].value, list(node.args[1:]), leaves, caller.name, via)
            else:
                outer = self._outer_instance(func, receiver)
                callee, arguments = node.func, values
                differentiated = self._differentiated_here(func)
                if differentiated is not None:
                    callee, arguments = (
                        differentiated[0],
                        [None if index in differentiated[1] else value for index, value in enumerate(values)],
                    )
                self.recorder.call(chain, node, callee, list(node.args), arguments, caller.name, via, receiver, outer)
                self._hand_on(node)
                self._library_run(chain, node, values, caller.name, via)
                self._instance_called(chain, node, values, caller.name, via)
        else:
            given: list[Value | None] = [None] * len(node.args)
            called = self._transformed_here(func)
            if (
                called is not None
                or type(func) is cst.Name
                or (type(func) is cst.Attribute and type(self._receiver(func)) is cst.ClassDef)
            ):
                # An eager call giving a function (or a method, through an instance) a JAX array
                # (`step(jnp.stack(xs))`: under its transform, one tracer), an instance of a class of this module
                # (a pytree whose fields say which leaves are), or a Python list, tuple or dict (a pytree).
                given = [value if _given_eagerly(value) else None for value in values]
            given = [  # a Python container, wherever it came from, is one (`self.step(opt_states)`)
                value or (held if held is not None and held.contents is not None else None)
                for held, value in zip(values, given)
            ]
            # A scalar literal tells the kind of number a parameter gets (`step(3)`: an int).
            given = [
                held if is_scalar_literal(arg.value) else value for arg, held, value in zip(node.args, values, given)
            ]
            # (a call of a name giving nothing known tells that too: no structure shown)
            if called is not None:
                self.recorder.call(chain, node, called, list(node.args), given, None, None)
            elif type(node.func) is cst.Name or any(value is not None for value in given):
                self.recorder.call(chain, node, node.func, list(node.args), given, None, None)
            here = self.nones.here() if type(node.func) is cst.Name else None
            if here is not None and here[0] is chain[-1] and here[1]:
                self.recorder.wrapped.at_call[id(node)] = here[1]  # what `is None` tests say of the caller's names

    def _hand_on(self, call: cst.Call) -> None:
        """Tell the recorder which of the caller's parameters a traced call hands on (dead_branches.GIVEN)."""
        handed = self._scopes[-1].handed
        if handed and any(type(arg.value) is cst.Name and arg.value.value in handed for arg in call.args):
            self.recorder.handed_at[id(call)] = handed

    def _called_instance(self, target: cst.Name) -> cst.BaseExpression:
        """`jax.vmap(model)` where `model` holds an instance of a pytree class of this module (an `eqx.Module`): what
        the transform calls is its `__call__`, `self` bound to the instance; else `target` itself. (Other callable
        objects, a library's internal `ScanFn`s, are not followed: the cost is theirs, the findings few.)"""
        held = self._lookup(target.value)
        cls = held.instance or held.pytree if held is not None else None
        if not isinstance(cls, cst.ClassDef) or self._pytree_fields(cls) is None:
            return target
        runs = cst.Attribute(value=target, attr=cst.Name("__call__"))
        self._receiver(runs)
        return runs

    def _traced_receiver(self, func: cst.BaseExpression) -> Value | None:
        """For `state.method(...)` where `state` holds a pytree of tracers of a class of this module, or an
        instance of a class of this module (with the attributes its `__init__` set): that value, which the method
        gets as `self`."""
        return self._held_instance(func.value) if type(func) is cst.Attribute else None

    def _held_instance(self, owner: cst.BaseExpression) -> Value | None:
        """What a name holds, or a call of a class makes (`Dropout(rate)`), when its methods get it as `self`."""
        if type(owner) is cst.Name:
            held = self._lookup(owner.value)
        elif type(owner) is cst.Call and type(owner.func) is cst.Name:
            held = self.value_of(owner)
        else:
            return None
        return held if held is not None and _receiver_class(held) is not None else None

    def _outer_instance(self, func: cst.BaseExpression, receiver: Value | None) -> bool | None:
        """For `obj.method(...)` in a trace where `obj` holds an instance of a class of this module: whether `obj`
        lives outside the trace (what the method stores on `self` outlives it); None for other calls."""
        if receiver is None or receiver.instance is None or type(func) is not cst.Attribute:
            return None
        return type(func.value) is cst.Name and self.outlives_trace(func.value.value)

    def outlives_trace(self, name: str) -> bool:
        """Whether `name` lives outside the trace here: not local to any function that runs inside it."""
        if self.is_global(name):
            return True
        functions = self.trace_functions()
        return any(self._shared_default(node, name) for node in functions) or not any(
            name in self._locals_of(node) for node in functions
        )

    def _shared_default(self, function: cst.CSTNode, name: str) -> bool:
        """Whether `name` is a parameter of `function` whose default is a list, dict or set display, which a traced
        call leaves out and the body never rebinds: Python made that object once, when the `def` ran, and every
        call leaving the parameter out gets it (`def f(x, acc=[])`), so it outlives every trace."""
        return type(self.default_in_trace(function, name)) in _MUTABLE_DISPLAYS

    def default_in_trace(self, function: cst.CSTNode, name: str) -> cst.BaseExpression | None:
        """The default of `function`'s parameter `name` when a traced call leaves it out and the body never rebinds
        it: what the parameter holds in that call's trace."""
        if type(function) is not cst.FunctionDef or name not in self._known.defaulted.get(function, ()):
            return None
        params = function.params
        every = (*params.posonly_params, *params.params, *params.kwonly_params)
        default = next((p.default for p in every if p.name.value == name), None)
        return default if default is not None and name not in rebound_names(function.body) else None

    def stays_with_owner(self, target: str, reads: list[str]) -> bool:
        """Whether a value stored into `target` here, reading only `reads`, stays inside the trace it belongs to: the
        transform of the innermost function transformed around does not stage (`grad`, `vmap`: an operation on the
        enclosing code's values is theirs, not the inner trace's), and every name read is bound, where it is read, by
        the function around that binds `target` or by the module: a loss under `value_and_grad` writing
        `batch["ids"] = batch["ids"].reshape(...)` into its pmapped step's `batch`."""
        transformed = next((scope for scope in reversed(self._scopes) if scope.own and scope.own.transforms), None)
        transforms = cast(TracedFunction, transformed.own).transforms if transformed is not None else ()
        if not transforms or any(t.name in self.transforms.staged for t in transforms):
            return False  # (a transform's own staging: `staged` there says whether a trace runs around it too)
        owner = next(
            (
                node
                for node in reversed(self._chain)
                if type(node) is cst.FunctionDef and target in self._locals_of(node)
            ),
            None,
        )
        if owner is None or owner is cast(_Scope, transformed).node:
            return False
        functions = [node for node in self._chain if type(node) in (cst.FunctionDef, cst.Lambda)]
        return all(
            next((node for node in reversed(functions) if name in self._locals_of(node)), owner) is owner
            for name in reads
        )

    def _locals_of(self, function: cst.CSTNode) -> set[str]:
        found = self._locals.get(id(function))
        if found is None:
            found = set(parameter_names(cast("cst.FunctionDef | cst.Lambda", function).params))
            if isinstance(function, cst.FunctionDef):
                found |= rebound_names(function.body) - declared_outer(function.body)
            self._locals[id(function)] = found
        return found

    def _through_wrapper(self, chain: tuple[cst.CSTNode, ...], call: cst.Call) -> None:
        """`jax.jit(f)(x, True)`, or `g(x, True)` where `g` can only be `jax.jit(f)`: the call's arguments go
        through the transform to `f` (which of them it traces follows its options: traced.py)."""
        func = call.func
        if type(func) is cst.Call:
            target = self._transformed_here(func)
            if target is not None:
                self.recorder.wrapper_call(chain, call, target, func)
        elif type(func) is cst.Name:
            self.recorder.named_call(chain, call, func, func.value not in self._rebound_globals)

    def _differentiated_here(self, func: cst.BaseExpression) -> tuple[cst.BaseExpression, tuple[int, ...]] | None:
        """The function of `jax.grad(loss)(params, batch)` called in a traced scope, and the positions grad traces
        itself (`argnums`): the caller's tracers at the other positions reach `loss` as they are (a jit's batch
        beside the parameters it differentiates)."""
        applied = self._applied_here(func)
        if applied is None or applied[1].name not in GRADIENTS:
            return None
        try:
            return applied[0], literal_ints(applied[1].keywords.get("argnums"), (0,))
        except NotLiteral:
            return None

    def _transformed_here(self, func: cst.BaseExpression) -> cst.BaseExpression | None:
        """The function of `jax.jit(f)(...)` or `jax.jit(lambda m, p: ...)(...)`, called where it is transformed
        with every parameter its own: the call's arguments are what the trace gets, as for a wrapper's name."""
        applied = self._applied_here(func)
        return applied[0] if applied is not None else None

    def _trace_call(self, application: cst.Call) -> cst.Call | None:
        """The call of `jax.grad(f)(x)` made where the transform is applied: its arguments (after what a `partial`
        binds) are all that trace of `f` gets."""
        called = self._called_right_away.get(id(application))
        if called is None or len(applied_transforms(application, self.names, self.transforms)) != 1:
            return None
        return called

    def _applied_here(self, func: cst.BaseExpression) -> tuple[cst.BaseExpression, AppliedTransform] | None:
        """`f` and the transform of `jax.jit(f)`: a call's function that transforms a function, binding nothing."""
        if type(func) is not cst.Call:
            return None
        applied = applied_transforms(func, self.names, self.transforms)
        if len(applied) != 1:
            return None
        target, transform = applied[0]
        if transform.bound or transform.bound_names or not isinstance(target, (cst.Name, cst.Attribute, cst.Lambda)):
            return None
        return target, transform

    def _instance_called(
        self, chain: tuple[cst.CSTNode, ...], call: cst.Call, values: list[Value | None], caller: str, via
    ) -> None:
        """`model(x)` where `model` holds a pytree of tracers of a class of this module (an `eqx.Module`), or an
        instance of a class of this module (`Dropout(rate)(x)`): its `__call__` runs, `self` holding that value."""
        held = self._held_instance(call.func)
        if held is None:
            return
        runs = cst.Attribute(value=call.func, attr=cst.Name("__call__"))
        self.recorder.receiver(runs, cast(cst.ClassDef, _receiver_class(held)))
        outer = self._outer_instance(runs, held)
        self.recorder.call(chain, call, runs, list(call.args), values, caller, via, held, outer)

    def _refs_given(self, chain: tuple[cst.CSTNode, ...], call: cst.Call) -> None:
        """`jax.vmap(f)(ref)`, `partial(f, k=v)(ref)`, `jax.vjp(f, ref)`: a mutable ref stays one under every
        transform, so the parameter of `f` it fills holds a ref, as after a direct call `f(ref)`."""
        run = wrapped_call(call, self.names, self.transforms)
        if run is None:
            return
        target, args = run
        values = [self.value_of(arg.value) for arg in args]
        if any(value is not None and value.kind is Kind.REF for value in values):
            self.recorder.call(chain, call, target, args, values, None, None)

    def _library_run(
        self,
        chain: tuple[cst.CSTNode, ...],
        call: cst.Call,
        values: list[Value | None],
        caller: str,
        via: AppliedTransform,
    ) -> None:
        """A traced call through which a library runs a function of this module (`model.apply(variables, x)`,
        `net.apply(params, rng, x)`): that function gets the arguments after the library's own."""
        func = call.func
        instance = self._receiver(func) if type(func) is cst.Attribute else None
        if isinstance(instance, cst.ClassDef):
            run = module_run(call, instance, self._module, self._bindings, self.names)
            if run is None:
                return
            method, skip = run
            runs = cst.Attribute(value=cast(cst.Attribute, func).value, attr=cst.Name(method))
            self.recorder.receiver(runs, instance)
            self.recorder.call(chain, call, runs, list(call.args[skip:]), values[skip:], caller, via)
            return
        wrapped = function_run(call, self._bindings, chain, self.names)
        if wrapped is not None:
            target, where, skip = wrapped
            self.recorder.call(where, call, target, list(call.args[skip:]), values[skip:], caller, via)

    def _carried(self, call: cst.Call, tracer: Tracer) -> Value | None:
        """What a lax loop gives back under a trace: its carry, in the structure of the initial one with a tracer at
        every leaf (`fori_loop` and `while_loop`), paired by `scan` with the stacked outputs, a pytree whose
        structure is not known. None where the initial carry's structure is not known."""
        loop = self.names.qualified(call.func)
        if loop not in LAX_CARRIES:
            return None
        position, keyword, _ = LAX_CARRIES[loop]
        init = argument(call, position, keyword)
        shape = structure(self.value_of(init)) if init is not None else None
        if shape is None:
            return None
        carry = traced_tree(shape, tracer)
        if loop not in CARRY_WITH_OUTPUT:
            return carry
        stacked = Value(Kind.TRACED, tracer, container=True, pytree_part=True)
        return Value(Kind.TRACED, tracer, container=True, contents=Contents("tuple", None, (carry, stacked), None))

    def _carries_list(self, call: cst.Call, loop: str) -> bool:
        """Whether a lax loop's initial carry is a Python list, or a name holding a list or tuple (not a
        NumPy array, which becomes a JAX array): the body gets a list of tracers, where `carry[0] = v` works."""
        position, keyword, _ = LAX_CARRIES[loop]
        init = argument(call, position, keyword)
        if isinstance(init, cst.List):
            return True
        held = self.value_of(init) if isinstance(init, cst.Name) else None
        if held is not None and held.contents is not None:
            return held.contents.kind == "list"
        return held is not None and held.kind is Kind.HOST and not held.numpy

    def _apply_into_project(
        self,
        context: ModuleContext,
        chain: tuple[cst.CSTNode, ...],
        target: cst.BaseExpression,
        transform: AppliedTransform,
        called: cst.Call | None = None,
    ) -> None:
        """Record a transform applied to another module's function, there (`lax.scan(ops.body, ...)`) or
        through a name bound to a partial of it (`loss = partial(losses.loss_fn, model=m)`): its module
        traces it. `called`: the call made where it is applied, binding nothing (`jax.grad(losses.loss)(x)`)."""
        function, bound, bound_names = self.recorder.aliased(chain, target)
        made = isinstance(function, cst.Call)  # `jax.jit(losses.make_loss(2.0))`: to what the factory makes
        if isinstance(function, cst.Call):
            qualified, through_instance = self.names.qualified(function.func), False
        else:
            qualified, through_instance = self.project_callee(function)  # a method too: `jax.vmap(scaler.apply)`
        if qualified is None or not context.in_project(qualified):
            return
        transform = replace(transform, bound=transform.bound + bound, bound_names=transform.bound_names | bound_names)
        around = next((n.name.value for n in reversed(chain) if isinstance(n, cst.FunctionDef)), "")
        self.applications.append(
            ProjectApplication(
                target=qualified,
                transform=transform,
                around=around,
                instance=through_instance,
                made=made,
                called=called if not (made or bound or bound_names) else None,
            )
        )

    def _made(
        self, target: cst.BaseExpression, chain: tuple[cst.CSTNode, ...], bound: int = 0
    ) -> tuple[cst.BaseExpression, int, frozenset[str]]:
        """For a call of a factory of this module (`make_loss(2.0)`), the function it returns, with the
        parameters a `partial` around it fills besides `bound`; anything else as it is."""
        if not isinstance(target, cst.Call):
            return target, bound, frozenset()
        found = self.callees.bindings.binding(target.func, chain, want_def=True)
        made = None
        if found is not None and isinstance(found[0], cst.FunctionDef):
            made = product(found[0], self.callees.bindings, self.names, self.transforms)
        if made is None:
            return target, bound, frozenset()
        # (The function the factory makes may be a def, which the recorder takes wherever it takes an
        # expression; scopes.ScopeRecorder's and Names' signatures say BaseExpression alone.)
        return cast(cst.BaseExpression, made.function), bound + made.bound, made.bound_names

    def _made_once(self, call: cst.Call, target: cst.Name, chain: tuple[cst.CSTNode, ...]) -> bool:
        """`name = call` is the name's only binding in its scope, and the call may be a factory's: one of
        this module, or of another module of the project."""
        if not isinstance(call.func, (cst.Name, cst.Attribute)):
            return False
        if self._made(call, chain)[0] is call and not (
            self.context is not None and self.context.in_project(self.names.qualified(call.func))
        ):
            return False
        found = self.callees.bindings.binding(target, chain)
        return found is not None and found[0] is call

    def _call_into_project(
        self,
        qualified: str,
        node: cst.Call,
        values: list[Value | None],
        caller: TracedFunction,
        through_instance: bool,
        made: bool = False,
    ) -> None:
        """Record a traced function's call into another module when it passes tracers (`values`: its arguments';
        `made`: a call of what calling `qualified` gives)."""
        traced = self._arguments_holding(node, values, lambda value: value.kind is Kind.TRACED)
        positional = [where for where, _ in traced if isinstance(where, int)]
        keywords = [where for where, _ in traced if isinstance(where, str)]
        kinds = [
            (where, value.dtype)
            for where, value in traced
            if not value.container and value.contents is None and value.dtype is not None
        ]
        shapes = [
            (where, text) for where, value in traced if (text := kept_text(structure(value, kept=True))) is not None
        ]
        if positional or keywords:
            trace = caller.trace or AppliedTransform("a traced caller", node, caller.staged)
            self.outgoing.append(
                ProjectCall(
                    target=qualified,
                    node=node,
                    caller=caller.name,
                    trace=trace,
                    positional=tuple(positional),
                    keywords=tuple(keywords),
                    instance=through_instance,
                    made=made,
                    kinds=tuple(kinds),
                    shapes=tuple(shapes),
                )
            )

    def _hand_into_project(
        self, qualified: str, node: cst.Call, values: list[Value | None], through_instance: bool
    ) -> None:
        """Record a call outside any trace into another module when it gives Python lists, tuples or dicts."""
        containers = self._arguments_holding(node, values, lambda value: value.contents is not None)
        positional = tuple(where for where, _ in containers if isinstance(where, int))
        keywords = tuple(where for where, _ in containers if isinstance(where, str))
        if positional or keywords:
            self.handed.append(Handed(qualified, positional, keywords, through_instance))

    @staticmethod
    def _arguments_holding(
        node: cst.Call, values: list[Value | None], test: Callable[[Value], bool]
    ) -> list[tuple[int | str, Value]]:
        """The arguments before any `*`/`**` whose value (in `values`) passes `test`: (position, or keyword, and
        the value)."""
        found: list[tuple[int | str, Value]] = []
        for index, (arg, value) in enumerate(zip(node.args, values)):
            if arg.star:
                break
            if value is not None and test(value):
                found.append((index if arg.keyword is None else arg.keyword.value, value))
        return found

    def _from_other_modules(self, node: cst.FunctionDef | cst.Lambda, name: str) -> dict[str, Tracer]:
        """Tracers that traced functions of other modules pass to this module-level function, or to this
        method of a module-level class (called through the class or an instance; `__init__`: by calling
        the class)."""
        passed: dict[str, Tracer] = {}
        kinds: dict[str, str | None] = {}
        shapes: dict[str, Value | None] = {}
        imported = self.context.imported.entries if self.context is not None else {}
        for entry, param, _ in reversed(self._incoming(node, name, imported)):
            if param is not None:
                via = AppliedTransform(
                    entry.transform, node, entry.staged, origin=entry.where, differentiates=entry.differentiates
                )
                kinds[param] = entry.kind if kinds.get(param, entry.kind) == entry.kind else None
                passed[param] = Tracer(name, param, via, entry.caller, container=kinds[param] is None)
                shape = kept_of_text(entry.shape)
                shapes[param] = joined(shapes[param], shape, kept=True) if param in shapes else shape
        self._incoming_kinds[node] = kinds
        self._incoming_shapes[node] = shapes
        return passed

    def _given_structure(self, node: cst.CSTNode, name: str, function: TracedFunction) -> Value | None:
        """The structure of the pytree the calls give parameter `name`: as its own transforms flatten it, or, for a
        helper traced only through calls, as they give it (structures.py: kept), where this module's calls and
        those of other modules agree."""
        if function.transforms:
            return self._known.structures.get(node, {}).get(name)
        own = self._known.kept_structures.get(node)
        incoming = self._incoming_shapes.get(node, {})
        if name not in incoming:
            return own.get(name) if own is not None else None
        return incoming[name] if own is None else joined(own.get(name), incoming[name], kept=True)

    def _nones_at_traced_calls(self, node: cst.FunctionDef, name: str) -> dict[str, Fixed]:
        """The parameters every traced call leaves `None` or not (dead_branches.py): as this module's calls agree
        (RoundFacts.nones), and each call from another module gives a tracer, never `None`, where it names one."""
        own = self._known.nones.get(node, {})
        calls: dict[tuple[str, str], dict[str, Fixed]] = {}
        imported = self.context.imported.entries if self.context is not None else {}
        for entry, param, offset in self._incoming(node, name, imported):
            where = (entry.where, entry.caller)
            if where not in calls:  # (each parameter given a tracer has its entry; all tell the same call)
                calls[where] = _fixed_by(node, entry.fixed, entry.given, offset)
            if param is not None:
                calls[where][param] = False
        applications = self._imported_applications(node, name)
        # `jax.grad(losses.loss)(x)`, where no transform of this module leaves its calls unseen
        local = node not in self._known.applied or node in self._known.wrapped
        if applications and local and all(a.at_once for a, _ in applications):
            for a, bound in applications:
                calls[(a.where, "")] = _fixed_by(node, a.fixed, a.given, a.bound + bound)
        if not calls:
            return own
        answers = list(calls.values())
        if node in self._known.entries or node in self._known.wrapped:  # this module's traced calls, as they agree
            answers.append(own)
        common, at_tests = settled(node, agreed(answers))
        self._test_nones.update(at_tests)  # `if beta_gk is None: beta_gk = ...` tests what the call gave
        return common

    def _incoming(
        self, node: cst.FunctionDef | cst.Lambda, name: str, entries: Mapping[str, tuple[_Entry, ...]]
    ) -> list[tuple[_Entry, str | None, int]]:
        """The calls of other modules into this function (`entries`: Imported.entries, the traced ones, or
        Imported.handed), each with the parameter it gives a tracer (a Python container) and how many leading
        parameters the call fills itself (`self`)."""
        if not entries:
            return []
        routes = self._routes(node, name)
        if not routes:
            return []
        positional = Signature.of(node.params).positional
        found: list[tuple[_Entry, str | None, int]] = []
        for key, made, bound in routes:
            for entry in entries.get(key, ()):
                if made is not None and entry.made is not made:
                    continue
                offset = bound if bound is not None else method_bound(cast(cst.FunctionDef, node), entry.instance)
                if isinstance(entry, IncomingTracer) and entry.given is not None:
                    if rejected_places(node.params, entry.given, offset):
                        continue  # Python rejects the call: it gives nothing
                found.append((entry, _parameter_at(entry.param, offset, positional), offset))
        return found

    def _routes(self, node: cst.FunctionDef | cst.Lambda, name: str) -> list[_Route]:
        """How calls of other modules reach this function (a module-level one, a method of a module-level class,
        or what a factory of this module makes); see _Route."""
        made = self._made_for_other_modules.get(node) if self._made_for_other_modules else None
        if made is not None:  # `loss_fn(params, batch)` in a traced function, after `loss_fn = losses.make_loss(2.0)`
            return [(made[1], True, made[0].bound)]
        if not isinstance(node, cst.FunctionDef):
            return []
        if len(self._chain) == 1:
            return [(name, False, 0)]
        if len(self._chain) == 2 and isinstance(self._chain[1], cst.ClassDef):
            # As in this module: a call of the class runs its `__init__`, and methods of plain classes are called.
            # Subclasses of this module that inherit the method are called through their own names.
            heirs = [self._chain[1].name.value, *self._heirs().get(id(node), ())]
            # Calling what the class made (`A(x)` after `A = Abel(shape)`) runs `__call__`, never `__init__`.
            routes: list[_Route] = (
                [(heir, name == "__call__", 1) for heir in heirs] if name in ("__call__", "__init__") else []
            )
            if self._plain_class(self._chain[1]):
                routes += [(f"{heir}.{name}", None, None) for heir in heirs]
            return routes
        return []

    def _parameter_kind(self, node: cst.CSTNode, name: str) -> str | None:
        """The dtype kind of what the calls give a parameter, where the calls of this module (RoundFacts.dtypes)
        and the traced calls of other modules all agree."""
        given = [
            kinds[name]
            for kinds in (self._known.dtypes.get(node, {}), self._incoming_kinds.get(node, {}))
            if name in kinds
        ]
        return given[0] if given and all(kind == given[0] for kind in given) else None

    def _heirs(self) -> dict[int, list[str]]:
        """By the id of a method's def: the module-level classes of this module that run it without defining it."""
        if self._heirs_found is None:
            self._heirs_found = {}
            for heir, _, method in inherited_methods(self._module, self._module_names, self._in_project):
                self._heirs_found.setdefault(id(method), []).append(heir.name.value)
        return self._heirs_found

    def _applied_by_other_modules(self, node: cst.CSTNode, name: str) -> list[AppliedTransform]:
        """The transforms other modules apply to this module-level function, or to this method of a module-level
        plain class (through the class or an instance: `jax.vmap(scaler.apply)`), or to the function a factory
        of this module makes (`jax.jit(losses.make_loss(2.0))`), as if applied here."""
        if self.context is None or not self.context.imported.applied:
            return []
        applied = self.context.imported.applied
        made = self._made_for_other_modules.get(node) if self._made_for_other_modules else None
        if made is not None:
            function, factory = made
            return [
                AppliedTransform(
                    a.transform,
                    node,
                    a.staged,
                    {option: _option(text) for option, text in a.options},
                    a.bound + function.bound,
                    frozenset(a.bound_names) | function.bound_names,
                    a.where,
                    literals=a.literals,
                )
                for a in applied.get(factory, ())
                if a.made
            ]
        return [
            AppliedTransform(
                a.transform,
                node,
                a.staged,
                {option: _option(text) for option, text in a.options},
                a.bound + bound,
                frozenset(a.bound_names),
                a.where,
                literals=a.literals,
            )
            for a, bound in self._imported_applications(node, name)
        ]

    def _imported_applications(self, node: cst.CSTNode, name: str) -> list[tuple[Applied, int]]:
        """The transforms other modules apply to this module-level function, or to this method of a module-level
        plain class, each with the parameters Python fills before the trace's arguments (`self`)."""
        if self.context is None or not isinstance(node, cst.FunctionDef):
            return []
        applied = self.context.imported.applied
        around = self._chain[: self._chain.index(node)] if node in self._chain else self._chain
        if len(around) == 1:
            return [(a, 0) for a in applied.get(name, ()) if not a.made and takes_keywords(node.params, a.bound_names)]
        if len(around) == 2 and type(around[1]) is cst.ClassDef and self._plain_class(around[1]):
            heirs = [around[1].name.value, *self._heirs().get(id(node), ())]
            return [
                (a, method_bound(node, a.instance))
                for heir in heirs
                for a in applied.get(f"{heir}.{name}", ())
                if not a.made and takes_keywords(node.params, a.bound_names)
            ]
        return []

    @cached_property
    def _made_for_other_modules(self) -> dict[cst.CSTNode, tuple[Product, str]]:
        """The functions that module-level factories make when other modules transform or call what calling the
        factory gives (`jax.jit(losses.make_loss(2.0))`), with the factory's name."""
        found: dict[cst.CSTNode, tuple[Product, str]] = {}
        imported = self.context.imported if self.context is not None else Imported()
        names = {name for name, applications in imported.applied.items() if any(a.made for a in applications)}
        names |= {name for name, entries in imported.entries.items() if any(entry.made for entry in entries)}
        for name in sorted(names):
            factory = self.callees.bindings.binding(cst.Name(name), (self._module,), want_def=True)
            made = None
            if factory is not None and isinstance(factory[0], cst.FunctionDef):
                made = product(factory[0], self.callees.bindings, self.names, self.transforms)
            if made is not None:
                found[made.function] = (made, name)
        return found

    def _replaced_unread(self, node: cst.FunctionDef | cst.Lambda) -> bool:
        """A module-level def the module binds again before anything reads it, with no decorator but transforms
        (one that registers it somewhere would keep it): it never runs."""
        return (
            type(node) is cst.FunctionDef
            and node in replaced_defs(self._module)
            and all(decorator_transform(d, self.names, self.transforms) is not None for d in node.decorators)
        )

    @cached_property
    def _custom_rules(self) -> dict[cst.FunctionDef, tuple[cst.FunctionDef, Role]]:
        return custom_rules(self._module, self._module_names, self.transforms)

    def _rule_tracers(self, node: cst.FunctionDef) -> dict[str, Tracer]:
        """For a derivative rule of a custom_jvp or custom_vjp def of the module (custom_rules.py): its parameters that
        hold tracers, where a staged trace around a call of that def makes the def's own arguments tracers (jax runs
        the rule when it differentiates the call there). A forward rule gets the def's arguments, place by place; a
        JVP rule its primals and tangents, a backward rule its residuals and cotangents (its last two parameters)."""
        found = self._custom_rules.get(node)
        if found is None:
            return {}
        function, role = found
        decorators = [t for d in function.decorators if (t := decorator_transform(d, self.names, self.transforms))]
        scope = self._traced(function, function.name.value, function.params, decorators)
        staged = {p: tracer for p, tracer in scope.traced.items() if tracer.transform.staged} if scope else {}
        if not staged:
            return {}
        own = Signature.of(node.params).positional
        if role == "fwd":
            theirs = Signature.of(function.params).positional
            return {
                mine: replace(staged[their], function=node.name.value, param=mine)
                for mine, their in zip(own, theirs)
                if their in staged
            }
        given = next(iter(staged.values()))
        return {param: replace(given, function=node.name.value, param=param) for param in own[-2:]}

    def _traced(
        self, node: cst.FunctionDef | cst.Lambda, name: str, params: cst.Parameters, transforms
    ) -> TracedFunction | None:
        decorated = len(transforms)
        transforms = [*transforms, *self._known.applied.get(node, ()), *self._applied_by_other_modules(node, name)]
        if node in self._known.host or self._replaced_unread(node):
            return None
        passed = {**self._from_other_modules(node, name), **self._known.passed.get(node, {})}
        if type(node) is cst.FunctionDef and not passed:
            passed = self._rule_tracers(node)
        entries = self._known.entries.get(node, [])
        if has_own_rule(transforms):
            # custom_jvp/custom_vjp trace nothing themselves, and differentiating a call gives the function (or its
            # forward rule) the primal values: only a staged trace around the call makes its arguments tracers, and
            # no gradient around it differentiates its body (its own rule does), whether or not a jit stages it.
            decorated = sum(1 for transform in transforms[:decorated] if transform.name not in CUSTOM_RULES)
            transforms = [_by_rule(transform) for transform in transforms if transform.name not in CUSTOM_RULES]
            passed = {
                param: replace(tracer, transform=_by_rule(tracer.transform), differentiated_by=())
                for param, tracer in passed.items()
                if tracer.staged
            }
            entries = [TracedCaller(_by_rule(entry.via), entry.caller) for entry in entries if entry.via.staged]
        return traced_function(
            name,
            params,
            transforms,
            passed,
            entries,
            self.names,
            self.transforms,
            self._known.scalars.get(node, frozenset()),
            self._known.arrays.get(node, frozenset()),
            self._known.through.get(node, {}),
            frozenset(
                param.name.value
                for param in (*params.posonly_params, *params.params, *params.kwonly_params)
                if transforms
                and self._class_of_pytree(node, param, param.annotation.annotation if param.annotation else None)
            ),
            decorated,
        )

    def _enter(
        self, node: cst.CSTNode, params: cst.Parameters, function: TracedFunction | None, body_statements
    ) -> None:
        # A function sees the scope around its definition, never a class body's names; and not the
        # module's names that are bound more than once (which binding it sees depends on when it runs).
        outer_env = self._scopes[-2].env if isinstance(self._chain[-1], cst.ClassDef) else self.env
        env = dict(outer_env)
        _forget(env, parameter_names(params))
        _forget(env, env.keys() & self._rebound_globals)  # (the few names in scope, not every rebound global)
        stars = [p for p in (params.star_arg, params.star_kwarg) if type(p) is cst.Param]
        own = set(parameter_names(params))
        watched = {name: owner for name, owner in self._scopes[-1].watched.items() if name not in own}
        watching = self._watched_from_other_modules(node) if function is None else None
        keyed: frozenset[str] | None = None  # the names the body subscripts with a string (found when asked)
        for param in (*params.posonly_params, *params.params, *params.kwonly_params, *stars):
            name = param.name.value
            annotation = param.annotation.annotation if param.annotation is not None else None
            if param in stars:
                annotation = None  # `*args: jax.Array` annotates each item: the parameter is a tuple (a dict)
            annotated = annotation is not None and arrays.is_array_annotation(annotation, self.names)
            if annotated:
                # `obs["visual_field"]`: no JAX array takes a string index, so the body treats it as a mapping,
                # whatever the annotation says
                keyed = _string_keyed(body_statements) if keyed is None else keyed
                annotated = name not in keyed
            scalar = type(annotation) is cst.Name and annotation.value in _SCALAR_ANNOTATIONS
            if node in self._known.kernels or name in self._known.refs.get(node, ()):
                env[name] = REF  # a Pallas kernel's refs, or refs every call gives: read and written in place
            elif function is not None and name in function.traced and not self._opaque_self(node, param):
                tracer = function.traced[name]
                scalar = scalar or name in self._known.scalars.get(node, ())
                given_array = name in self._known.arrays.get(node, ())
                container = tracer.container and not annotated and not scalar and not given_array
                # given a Python list, tuple or dict (a lax carry too), or a list by the transform's argument spec
                listed = name in self._known.lists.get(node, ()) or name in function.lists or tracer.part
                shape = self._given_structure(node, name, function) if container else None
                env[name] = (
                    traced_tree(shape, tracer)
                    if shape is not None
                    else Value(
                        Kind.TRACED,
                        tracer,
                        dtype=None if container else self._parameter_kind(node, name),
                        container=container,
                        pytree_part=listed,
                        pytree=self._class_of_pytree(node, param, annotation) if container else None,
                    )
                )
            elif function is not None and name in function.static:
                env[name] = STATIC
            elif (made := self._known.instances.get(node, {}).get(name)) is not None:
                env[name] = made  # `self` of `layer.apply(x)`: the instance every traced call gives
            elif (default := self._default_instance(node, param)) is not None:
                env[name] = default  # `emu=Emulator()` that no call passes
            elif function is None and (given := self._known.eager.get(node, {}).get(name)) is not None:
                env[name] = given  # every eager call gives it a JAX array, or a list or tuple of them
            elif function is None and name in self._known.lists.get(node, ()):
                env[name] = _PASSED_CONTAINER  # passed on as it came: `step(opt_states)` calling a jitted method
            else:
                if watching is not None:
                    watched[name] = watching  # what an eager call of another module gives it
                if function is None and name in self._handed_params.get(node, ()):
                    env[name] = _PASSED_CONTAINER
                elif annotated and not self._handed_on(node):
                    env[name] = ARRAY  # (an annotation says what its callers give; a callee it is handed to decides)
        rebound = rebound_names(body_statements)
        self.names.enter_function(body_statements, parameter_names(params), rebound)
        self.recorder.scope_names(node, set(parameter_names(params)) | rebound)
        nones: dict[str, Fixed] = {}
        handed: frozenset[str] = frozenset()
        if function is not None and isinstance(node, cst.FunctionDef):  # (before the chain has the def)
            nones = self._nones_at_traced_calls(node, node.name.value)
            handed = _handed(params, nones) - rebound
        self._chain.append(node)
        outer = self._scopes[-1]
        if function is not None:
            self.traced_functions.add(node)
            scope = _Scope(env, function, function, set(), node, node, nones=nones, handed=handed, watched=watched)
            self._scopes.append(scope)
        elif node in self._known.host:  # a host callback runs with concrete values
            self._scopes.append(_Scope(env, None, None, set(), None, node, watched=watched))
        else:
            self._scopes.append(_Scope(env, None, outer.traced, set(), outer.traced_node, node, watched=watched))

    def _leave(self) -> None:
        self._untraced_branches -= self._scopes.pop().untraced_rest
        self._chain.pop()
        self.names.leave_function()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.recorder.define(self._chain[-1], node)
        decorators = [t for d in node.decorators if (t := decorator_transform(d, self.names, self.transforms))]
        if outside_functions(tuple(self._chain)):
            decorators = [replace(t, outside_functions=True) for t in decorators]
        self._pending.append(self._traced(node, node.name.value, node.params, decorators))
        if any(ref_kernel_decorator(decorator, self.names) for decorator in node.decorators):
            self.recorder.kernel(tuple(self._chain), node.name)
        if self.context is not None and self.context.imported.handed:
            given = self._incoming(node, node.name.value, self.context.imported.handed)
            self._handed_params[node] = frozenset(param for _, param, _ in given if param is not None)

    def _watched_from_other_modules(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        """An eager def that calls of other modules reach (_routes), to watch the lookups of its parameters
        (_Scope.watched), whatever those calls give; else None."""
        if self.context is None or type(node) is not cst.FunctionDef:
            return None
        routes = [route for route in self._routes(node, node.name.value) if route[1] is not True]
        if not routes:
            return None
        self._watching[node] = (routes, Signature.of(node.params).positional)
        return node

    def enter_scope(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.FunctionDef):
            self._enter(node, node.params, self._pending.pop(), node.body.body)
            if node.asynchronous is not None:
                self.recorder.generator(node)  # calling it gives a coroutine
        elif isinstance(node, cst.Lambda):
            self._enter(node, node.params, self._traced(node, "<lambda>", node.params, ()), ())
        elif isinstance(node, cst.ClassDef):
            self.recorder.define(self._chain[-1], node, self._plain_class(node))
            self._chain.append(node)
            outer = self._scopes[-1]
            self._scopes.append(
                _Scope(dict(self.env), None, outer.traced, set(), outer.traced_node, watched=outer.watched)
            )
        else:  # a comprehension
            self._enter_comprehension(cast(cst.BaseComp, node))

    def exit_scope(self, node: cst.CSTNode) -> None:
        if isinstance(node, (cst.FunctionDef, cst.Lambda)):
            self._leave()
        elif isinstance(node, cst.ClassDef):
            self._scopes.pop()
            self._chain.pop()
        else:
            self._scopes.pop()

    def leave_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        if not terminates(node.body):
            self.recorder.returned(node, STATIC)  # falls off its end: returns None
            self.recorder.return_form(node, self.chain, None)
        self.recorder.finished(node, self._known.host)

    def leave_Return(self, node: cst.Return) -> None:
        function = self._scopes[-1].node
        if function is not None:
            self.recorder.returned(function, STATIC if node.value is None else self._returning(node.value))
            self.recorder.return_form(function, self.chain, node.value)

    def _returning(self, expr: cst.BaseExpression) -> Value | None:
        """What a `return` gives, for the function's summary, which keeps no items: a dict or list holding
        static items beside tracers is unknown (`out["step"]` of `{"loss": l, "step": 0}` would read as traced)."""
        value = self.value_of(expr)
        if value is not None and value.contents is not None and value.kind is not Kind.TRACED:
            return unknown_contents(value)  # a list or dict of Python values: what its items are is not kept
        if (
            value is not None
            and value.contents is not None
            and value.contents.kind != "tuple"
            and not value.contents.uniform
        ):
            return None
        return value

    def visit_Yield(self, node: cst.Yield) -> None:
        function = self._scopes[-1].node
        if function is not None:
            self.recorder.generator(function)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._forget([node.name.value])

    def leave_Lambda_body(self, node: cst.Lambda) -> None:
        self.recorder.returned(node, self._returning(node.body))
        self.recorder.return_form(node, self.chain, node.body)
        self.recorder.finished(node, self._known.host)

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._forget([node.name.value])

    def _enter_comprehension(self, node: cst.BaseComp) -> None:
        scope = self._scopes[-1]
        self._scopes.append(
            _Scope(
                dict(scope.env),
                scope.own,
                scope.traced,
                set(scope.untracked),
                scope.traced_node,
                catching=list(scope.catching),
                showing=list(scope.showing),
                stored_self=set(scope.stored_self),
                watched=scope.watched,
            )
        )
        clause: cst.CompFor | None = node.for_in
        while clause is not None:
            self._bind_loop_target(clause.target, clause.iter)
            clause = clause.inner_for_in

    def _bind_loop_target(self, target: cst.BaseExpression, iterable: cst.BaseExpression) -> None:
        """Iterating over a tracer gives tracers, over a container of tracers its items (a dict's static
        keys); over a pytree of unknown shape (a dict gives its keys), anything else, unknown."""
        self._bind(target, self._evaluator.iterated(iterable))

    # ------------------------------------------------------------------ the flow engine's domain

    def snapshot(self) -> Env:
        return dict(self.env)

    def restore(self, state: Env) -> None:
        self.env.clear()
        self.env.update(state)

    def join(self, a: Env, b: Env) -> Env:
        return _join_envs(a, b)

    def _calls_seen(self, node: cst.CSTNode | None, transforms) -> bool:
        """Whether every transform tracing `node` is one whose calls the analysis sees: this module's are those of
        the wrappers it calls (wrapped_calls.py) or called where they are applied (`jax.grad(loss)(x)`), and other
        modules' are called where they apply them (Applied.at_once); none is a decorator."""
        if type(node) is not cst.FunctionDef:
            return False
        local = len(self._known.applied.get(node, ()))
        if local and node not in self._known.wrapped:
            return False
        imported = self._imported_applications(node, node.name.value)
        return len(transforms) == local + len(imported) and all(a.at_once for a, _ in imported)

    def enter_branch(self, test: cst.BaseExpression, truth: bool) -> None:
        """In a branch that an `isinstance` test keeps arrays out of, its subject is no array or tracer. In one
        no trace enters (dead_branches.py), or one that such a test keeps a traced argument out of (`if not
        isinstance(x, jax.core.Tracer):`: the code handles a tracer, or a pytree of them, on the other branch),
        nothing is traced."""
        scope = self._scopes[-1]
        if (
            self._never_traced(scope, test, truth)
            or self._dead_in_closure(scope, test, truth)
            or self._keeps_tracer_out(test, truth)
            or self._fixed_truth(test) is (not truth)
            or self._truth_where_jax_runs(test) is (not truth)
            or self._truth_where_jit_traces(test) is (not truth)
        ):
            traced = {name: value for name, value in self.env.items() if value.kind is Kind.TRACED}
            for name in traced:
                del self.env[name]
            self._narrowed.append(traced)
            self._untraced_branches += 1  # what it computes is no tracer either
            if not truth and guards_the_rest(scope.node, test):
                scope.untraced_rest += 1
                self._untraced_branches += 1  # until the body ends
            return
        narrowed = not_an_array(test, self.names, self._definition, self._imported_test)
        value = self.env.get(narrowed[0]) if narrowed is not None and narrowed[1] is truth else None
        # (A value that may be a pytree is narrowed too: the code tests its type, so whatever else it may be,
        # its author handles the array and the tracer on the other branch.)
        if narrowed is not None and value is not None and value.is_array:
            self.env.pop(narrowed[0])
            self._narrowed.append((narrowed[0], value))
        else:
            self._narrowed.append(None)

    def visit_BooleanOperation_right(self, node: cst.BooleanOperation) -> None:
        """`a and b` runs `b` only where `a` is true, as `if a: b` does (`a or b`: where it is false): the same
        narrowing holds in `b` (`not contains_tracer(x) and bool(x.any())`)."""
        self.enter_branch(node.left, isinstance(node.operator, cst.And))

    def leave_BooleanOperation_right(self, node: cst.BooleanOperation) -> None:
        self.leave_branch(None)

    def _cannot_bind(self, call: cst.Call | None, target: cst.BaseExpression, transform: AppliedTransform) -> bool:
        """Whether the call right around an application (`jax.jacfwd(f)(y)` of `def f(n, m)`) gives the def it
        transforms too few arguments: Python raises TypeError when the transform calls it, before its body runs,
        so nothing is traced from there (JaxSSO's stale scratch cell, first look round 73)."""
        if call is None or type(target) is not cst.Name or any(arg.star for arg in call.args):
            return False
        function = self._definition(target)
        if type(function) is not cst.FunctionDef:
            return False
        signature = Signature.of(function.params).after(transform)
        given = {arg.keyword.value for arg in call.args if arg.keyword is not None}
        count = sum(1 for arg in call.args if arg.keyword is None)
        needed = (*signature.positional[count:], *signature.keyword_only)
        return any(name not in signature.defaults and name not in given for name in needed)

    def _fixed_truth(self, test: cst.BaseExpression) -> bool | None:
        """The truth a test has on every run (decided_tests.py): a branch the other way never runs, traced or
        not. (Asked by the flow engine and by `enter_branch` for both branches: found once per test.)"""
        if id(test) not in self._truths:
            self._truths[id(test)] = fixed_truth(test, self.literal_of)
        return self._truths[id(test)]

    def _truth_where_jax_runs(self, test: cst.BaseExpression) -> bool | None:
        """The truth a test has wherever jax imported (jax_present.py): `not HAS_JAX` is False there, so its branch
        is a fallback no trace enters. None when no flag decides it."""
        present = jax_present_values(self._module)
        if not present:
            return None

        def literal_of(name: cst.Name) -> tuple[bool, object]:
            held = self.callees.bindings.values_held(name, tuple(self._chain), self.names)
            if (
                held
                and all(id(value) in present for value in held)
                and name.value not in _rebound_elsewhere(self._module)
            ):
                return True, True
            return self.literal_of(name)

        return fixed_truth(test, literal_of)

    def _truth_where_jit_traces(self, test: cst.BaseExpression) -> bool | None:
        """The truth of `jax.config.jax_disable_jit` (or its `not`) in a function only jit or lax bodies trace: with
        the flag on they run it eagerly, so any trace there runs with the flag False (ssm-jax's NaN asserts under
        `if jax.config.jax_disable_jit:`). None elsewhere: a `vmap` or `grad` traces with the flag on too."""
        negated = False
        while type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            test, negated = test.expression, not negated
        if type(test) is not cst.Attribute or self.names.qualified(test) != DISABLE_JIT_FLAG:
            return None
        scope = self.traced_scope
        applied = (*scope.transforms, *(entry.via for entry in scope.entries)) if scope is not None else ()
        if not applied or any(transform.name not in EAGER_WHEN_JIT_DISABLED for transform in applied):
            return None
        return negated

    def _container_on_self(self, attribute: str) -> str | None:
        """The kind of Python container `self.attribute` at this point is ("list", "tuple", "dict"), if known: `self`
        is the first parameter of the method around (not rebound by a nested function's parameter), and every
        assignment of that attribute in the module makes one (stable_fields.StableFields.containers)."""
        chain = self._chain
        for at in range(len(chain) - 1, 0, -1):
            node = chain[at]
            if type(node) is cst.ClassDef:
                return None
            if type(node) is not cst.FunctionDef and type(node) is not cst.Lambda:
                continue
            params = node.params
            named = [param.name.value for param in (*params.posonly_params, *params.params)]
            owner = chain[at - 1]
            if type(owner) is cst.ClassDef and type(node) is cst.FunctionDef:
                if named[:1] != ["self"] or not self._self_static(node):
                    return None
                return stable_fields(cast(cst.Module, chain[0])).container_kind(owner, attribute)
            if "self" in named or "self" in [param.name.value for param in params.kwonly_params]:
                return None
        return None

    def _self_static(self, method: cst.FunctionDef) -> bool:
        """Whether a method gets `self` as the instance itself: undecorated, or under one jit that keeps `self`
        static (a jit tracing `self` raises before the body runs; other decorators may bind otherwise)."""
        if not method.decorators:
            return True
        jitted = self.callees.decorated(method) if len(method.decorators) == 1 else None
        if jitted is None:
            return False
        positions, names = jitted.static()
        return positions is not None and names is not None and (0 in positions or "self" in names)

    def _foreign_object(self, expr: cst.BaseExpression) -> bool:
        """A name of an object of another library than those whose objects are numbers or arrays (NUMERIC_PACKAGES),
        and not of the project (`u.kpc`, not `math.pi`): an operator given one may give what its reflected method
        makes."""
        qualified = self.names.qualified(expr)
        if qualified is None or qualified.split(".", 1)[0] in NUMERIC_PACKAGES:
            return False
        return self.context is None or not self.context.in_project(qualified)

    def _never_returns(self, call: cst.Call) -> bool:
        """A call that ends the program (`sys.exit(1)`, the builtin `exit()`): no statement after it runs."""
        func = call.func
        if self.names.qualified(func) in NO_RETURN:
            return True
        builtin = self.names.builtin(func, NO_RETURN_BUILTINS)
        return builtin is not None and self.callees.bindings.binding(func, tuple(self._chain)) is None

    def literal_of(self, name: cst.Name) -> tuple[bool, object]:
        """The literal a name always holds where the current scope reads it: the one binding of the scope that owns
        it (a module-level name no other module-level statement binds again), which no function rebinds through
        `global` or `nonlocal` and no assignment expression does."""
        found = self.callees.bindings.binding(name, tuple(self._chain))
        if found is None or not isinstance(found[0], cst.BaseExpression):
            return False, None
        if len(found[1]) == 1 and name.value in self._rebound_globals:
            return False, None
        known, value = constant(found[0])
        if not known or name.value in _rebound_elsewhere(self._module):
            return False, None
        return known, value

    def _keeps_tracer_out(self, test: cst.BaseExpression, truth: bool) -> bool:
        """Whether `test` being `truth` says that a traced argument (or pytree of them) is no array: through `and`
        (both hold when it is true), `or` (neither holds when it is false) and `not`."""
        if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            return self._keeps_tracer_out(test.expression, not truth)
        if type(test) is cst.BooleanOperation:
            both = isinstance(test.operator, cst.And) is truth
            return both and (self._keeps_tracer_out(test.left, truth) or self._keeps_tracer_out(test.right, truth))
        narrowed = not_an_array(test, self.names, self._definition, self._imported_test)
        value = self.env.get(narrowed[0]) if narrowed is not None and narrowed[1] is truth else None
        return value is not None and value.kind is Kind.TRACED and value.is_array

    def _never_traced(self, scope: _Scope, test: cst.BaseExpression, truth: bool) -> bool:
        """A branch of a function traced only through the calls seen, whose test every traced call answers the
        other way: on a parameter's `None`-ness (dead_branches.py), or on a dtype whose kind it knows
        (dtype_tests.py: `if jnp.issubdtype(labels, jnp.integer):` when the calls give float arrays)."""
        if scope.own is None or (scope.own.transforms and not self._calls_seen(scope.node, scope.own.transforms)):
            return False
        nones = {**scope.nones, **self._known.test_nones.get(test, {}), **self._test_nones.get(test, {})}
        if nones and dead_branch(test, truth, nones):
            return True
        answer = dtype_test(test, self.names, self._dtype_kind)
        return answer is not None and answer is not truth

    def _dtype_kind(self, expr: cst.BaseExpression) -> str | None:
        """The kind of an array's dtype, when the analysis knows it."""
        value = self.value_of(expr)
        return value.dtype if value is not None and value.is_array and not value.container else None

    def _dead_in_closure(self, scope: _Scope, test: cst.BaseExpression, truth: bool) -> bool:
        """A branch on a name of the def around that no trace enters: every transform of this function was
        applied in that def where the test's answer was fixed (`if nbrs is None: return ...` before
        `lax.cond(p, step, ...)`: under the trace, `step`'s `if nbrs is None:` never runs)."""
        node = scope.node
        closure = self._known.closure_nones.get(node) if node is not None else None
        return (
            closure is not None
            and node is not None
            and scope.own is not None
            and not scope.own.entries
            and len(self._chain) > 2
            and closure[0] is self._chain[-2]
            and len(scope.own.transforms) == len(self._known.applied.get(node, ()))
            and dead_branch(test, truth, closure[1])
        )

    def right_operand(self, operation: cst.BooleanOperation) -> Value | None:
        """What the right operand of `a and b` (`a or b`) holds when it runs: `a` was true (false) there, so an
        `isinstance` test in `a` that keeps arrays out (`not is_tracer(x) and x > n`) holds for `b`."""
        narrowed = not_an_array(operation.left, self.names, self._definition, self._imported_test)
        truth = isinstance(operation.operator, cst.And)
        value = self.env.get(narrowed[0]) if narrowed is not None and narrowed[1] is truth else None
        if narrowed is None or value is None or not value.is_array:
            return self.value_of(operation.right)
        del self.env[narrowed[0]]
        try:
            return self.value_of(operation.right)
        finally:
            self.env[narrowed[0]] = value

    def _definition(self, expr: cst.BaseExpression) -> cst.CSTNode | None:
        """The def a name is bound to here, if one."""
        found = self.callees.bindings.binding(expr, tuple(self._chain), want_def=True)
        return found[0] if found is not None else None

    def leave_branch(self, branch: cst.BaseSuite | cst.If | cst.Else | None, only_way_on: bool = False) -> None:
        """After the branch, the subject holds what it held before, unless the branch rebound it, or the other
        branch never gets past the `if` (`if isinstance(x, jax.core.Tracer): return ...`)."""
        narrowed = self._narrowed.pop()
        if isinstance(narrowed, dict):
            self._untraced_branches -= 1
        if narrowed is None or only_way_on:
            return
        block = branch.body if isinstance(branch, cst.Else) else [branch] if isinstance(branch, cst.If) else branch
        if isinstance(narrowed, dict):  # a branch no trace enters: its tracers are back after it, as they were
            self.env.update(narrowed)
            return
        if narrowed[0] not in rebound_names(block or []):
            self.env[narrowed[0]] = narrowed[1]

    def unsure(self, names: set[str]) -> None:
        """Forgotten: a value that may be any of several bindings is unknown, the answer that never misleads a rule."""
        self._forget(names)

    def visit_For_body(self, node: cst.For) -> None:
        self._bind_loop_target(node.target, node.iter)
        self.recorder.rebound(target_names(node.target))

    def visit_Try_body(self, node: cst.Try | cst.TryStar) -> None:
        self._scopes[-1].catching.append(caught_errors(node, self.names))
        self._scopes[-1].showing.append(shown_errors(node, self.names))

    def leave_Try_body(self, node: cst.Try | cst.TryStar) -> None:
        self._scopes[-1].catching.pop()
        self._scopes[-1].showing.pop()

    visit_TryStar_body, leave_TryStar_body = visit_Try_body, leave_Try_body

    def trace_shown(self, errors: frozenset[str], param: str | None = None) -> bool:
        """Whether every trace of the traced function around the current point starts in a `try` whose handler
        catches one of `errors` (qualified) and does not raise again: its failure is shown on purpose. `param`: the
        parameter the failing value comes from; a trace that keeps it static (the lesson's fix, `jit(f,
        static_argnums=0)`) cannot fail there."""
        scope = self._scopes[-1]
        traced, function = scope.traced, scope.traced_node
        if traced is None or traced.entries or not traced.transforms:
            return False
        failing = [
            transform
            for transform in traced.transforms
            if param is None
            or not isinstance(function, (cst.FunctionDef, cst.Lambda))
            or self._may_trace(function, transform, param)
        ]
        return bool(failing) and all(transform.shown & errors for transform in failing)

    def _may_trace(self, function: cst.FunctionDef | cst.Lambda, transform: AppliedTransform, param: str) -> bool:
        """Whether one transform may make `param` a tracer (options that are not literals: it may)."""
        try:
            return param in self.traced_params(function, transform)
        except NotLiteral:
            return True

    def traced_params(self, function: cst.FunctionDef | cst.Lambda, transform: AppliedTransform) -> frozenset[str]:
        """The parameters of `function` that this one transform makes tracers (`argnums` for `jax.grad`); NotLiteral
        when only run time knows."""
        name = function.name.value if isinstance(function, cst.FunctionDef) else "<lambda>"
        traced = traced_function(name, function.params, [transform], {}, [], self.names, self.transforms)
        return frozenset(traced.traced) if traced is not None else frozenset()

    def shows(self, errors: frozenset[str]) -> bool:
        """Whether the current point is in the body of a `try` of this function whose handlers catch one of
        `errors` (qualified) and do not raise again."""
        return any(kept & errors for kept in self._scopes[-1].showing)

    def catches(self, errors: frozenset[str]) -> bool:
        """Whether the current point is in the body of a `try` of this function whose handlers name one of
        `errors` (qualified)."""
        return any(caught & errors for caught in self._scopes[-1].catching)

    def visit_ExceptHandler_body(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._forget(target_names(node.name.name))

    visit_ExceptStarHandler_body = visit_ExceptHandler_body

    def visit_With_body(self, node: cst.With) -> None:
        for item in node.items:
            if item.asname is not None:
                self._forget(target_names(item.asname.name))
                self.recorder.rebound(target_names(item.asname.name))
        self._concrete += self._entered(node, CONCRETE_CONTEXTS)
        self._untraced += self._entered(node, UNTRACED_CONTEXTS)

    def leave_With_body(self, node: cst.With) -> None:
        self._concrete -= self._entered(node, CONCRETE_CONTEXTS)
        self._untraced -= self._entered(node, UNTRACED_CONTEXTS)

    def _entered(self, node: cst.With, contexts: frozenset[str]) -> int:
        """Whether a `with` statement enters one of `contexts` (`with jax.disable_jit():`): 1 or 0."""
        return int(
            any(
                isinstance(item.item, cst.Call) and self.names.qualified(item.item.func) in contexts
                for item in node.items
            )
        )

    def visit_MatchCase(self, node: cst.MatchCase) -> None:
        self._forget(pattern_names(node.pattern))  # the captures are rebound by the pattern
