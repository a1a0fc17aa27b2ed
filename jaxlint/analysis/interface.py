"""What the modules of one project tell each other, as plain data (cached, and passed between processes).

Each module's analysis gives its `Interface`: what its functions return in terms of their arguments,
the calls its traced functions make into other modules of the project with tracers, the transforms it
applies to their functions (`jax.vmap(ops.per_example)`), and the project names it calls. The project
phase (jaxlint/project.py) turns the interfaces of all modules into each module's `Imported` facts and
analyses again the modules whose facts changed.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class Exported:
    """What calling a module-level function gives: a tracer when an argument in `params` holds one."""

    positional: tuple[str, ...]  # its positional parameters, to match arguments given by position
    params: tuple[str, ...]
    value: str | None  # the value's kind (values.Kind) otherwise, None when unknown
    container: bool
    # The tuple, list or dict literal it returns on every path, for messages: "a tuple (`loss, aux`) at train.py:12".
    literal: str | None = None
    # A method (keyed `Class.method`) whose first parameter in `positional` is `self`: a call through an
    # instance fills it. (A classmethod's `cls` is left out of `positional`: every call fills it.)
    self_param: bool = False
    # A function that only returns a type test of a parameter (`contains_tracer(x)`): the parameter's position in
    # `positional`, and True when no JAX array passes the test, False when every one does (narrowing.py).
    tests: tuple[int, bool] | None = None
    # For a function whose every `return` gives a tuple of one length: what each position gives, as `params`, `value`
    # and `container` do for the whole (None: not known), so that `shape, n, payload = prepare(b, v)` keeps the
    # Python values of the shape apart from the tracer.
    items: tuple[tuple[tuple[str, ...], str | None, bool] | None, ...] | None = None


def made_name(factory: str) -> str:
    """The name under which an interface keeps what the function a factory makes consumes (`make_kernel()` of
    `make_kernel`): calling the factory's result (`make_kernel(0.1)(state, key)`) runs that function."""
    return f"{factory}()"


@dataclass(frozen=True)
class Consumes:
    """The key parameters a module-level function draws from (itself or through its callees), and the string entries
    of its dict parameters it draws from (`rngs['dropout']`, key_hops.py)."""

    positional: tuple[str, ...]  # its positional parameters, to match arguments given by position
    params: tuple[str, ...]
    self_param: bool = False  # a method: a call through an instance fills the first of `positional` (`self`)
    # Of `params`, those whose default makes a key, drawn from under no test of its parameters: the default is made
    # once, when the def runs, so every call that leaves one out draws from that one key.
    defaults: tuple[str, ...] = ()
    # Of `params`, those drawn from only under tests of its parameters (`if n_data is not None:`): for each, every
    # place it is drawn at, as the tests around it (source text, and the branch taken); with `header`, the source
    # of its parameters with their defaults, a call's arguments decide whether those branches run.
    guarded: tuple[tuple[str, tuple[tuple[tuple[str, bool], ...], ...]], ...] = ()
    header: str = ""


@dataclass(frozen=True)
class Outgoing:
    """A call from a traced function into another module's function, passing tracers."""

    target: str  # the qualified name called: `pkg.metrics.report`
    caller: str
    transform: str  # how the caller is traced: `jax.jit`
    staged: bool
    where: str  # `train.py:12`
    positional: tuple[int, ...]  # the arguments that hold tracers, by position...
    keywords: tuple[str, ...]  # ...and by keyword
    instance: bool = False  # a method called through an instance (`scaler.apply(x)`): `self` comes first
    made: bool = False  # a call of what calling the target makes (`loss_fn(x)` after `loss_fn = losses.make_loss(2.0)`)
    differentiates: bool = True  # False from the body of a function with its own derivative rule (AppliedTransform)
    # Of the arguments that hold one traced array (not a pytree): the kind of its dtype, where known (by position
    # or keyword: `((1, "float"),)` for `get_stats(y, jax.nn.one_hot(labels, k))`).
    kinds: tuple[tuple[int | str, str], ...] = ()
    # Of the arguments that hold a tuple, list or dict with tracers in it: its structure as the helper gets it
    # (structures.kept_text: which items are tracers and which Python values), by position or keyword.
    shapes: tuple[tuple[int | str, str], ...] = ()
    # The arguments whose value decides a parameter's tests (`None`, `True`, `False`, a string literal), by position
    # or keyword (dead_branches.fixed_arguments); and every place the call gives (None: a `*args` hides some).
    fixed: tuple[tuple[int | str, str], ...] = ()
    given: tuple[int | str, ...] | None = None


@dataclass(frozen=True)
class Applied:
    """A transform applied to another module's function (`lax.scan(ops.body, ...)`,
    `jax.jit(partial(ops.f, cfg), static_argnames="n")`): that module traces the function as if the
    transform were applied there."""

    target: str  # the qualified name transformed: `pkg.ops.body`
    transform: str  # `jax.lax.scan`
    staged: bool
    where: str  # `main.py:6`
    options: tuple[tuple[str, str], ...] = ()  # its keyword options as written: (`static_argnames`, `"n"`)
    bound: int = 0  # positional parameters `partial` fills before the transform sees the function...
    bound_names: tuple[str, ...] = ()  # ...and keyword ones
    instance: bool = False  # a method applied through an instance (`jax.vmap(scaler.apply)`): `self` is bound
    # Applied to the function that calling the target makes (`jax.jit(losses.make_loss(2.0))`), not to it.
    made: bool = False
    # Called where it is applied (`jax.grad(losses.loss)(x)`): that call's arguments are all the trace gets; what
    # they fix of the parameters, and every place the call gives, as Outgoing.fixed and Outgoing.given.
    at_once: bool = False
    fixed: tuple[tuple[int | str, str], ...] = ()
    given: tuple[int | str, ...] | None = None
    # The positions (after `bound`) and keywords that calls of the transform's own wrapper give a scalar literal
    # (`jax.jit(ops.f)(x, True)`): jit traces them like any argument it is not told is static.
    literals: tuple[int | str, ...] = ()


@dataclass(frozen=True)
class Looped:
    """A call in a loop (outside any trace) of another module's function: each iteration runs it again."""

    target: str  # the qualified name called: `pkg.steps.train_step`
    caller: str  # the function holding the loop (`fit`), "" at module level
    where: str  # `train.py:42`


@dataclass(frozen=True)
class Handed:
    """A call outside any trace into another module's function that gives it Python lists, tuples or dicts: pytrees
    there, never one array (`foj.step(i, angles, opt_states)` after `opt_states = foj.opt_states`)."""

    target: str  # the qualified name called: `pkg.junctions.FieldOfJunctions.step`
    positional: tuple[int, ...]  # the arguments that hold a container, by position...
    keywords: tuple[str, ...]  # ...and by keyword
    instance: bool = False  # a method called through an instance: `self` comes first


@dataclass(frozen=True)
class Interface:
    returns: dict[str, Exported] = field(default_factory=dict)  # by function name, `Class.method` for a method
    calls: tuple[Outgoing, ...] = ()
    uses: tuple[str, ...] = ()  # project names it calls, qualified
    reexports: dict[str, str] = field(
        default_factory=dict
    )  # its imports of project names: `report` -> `pkg.metrics.report`
    consumes: dict[str, Consumes] = field(default_factory=dict)  # by function name
    x64: bool = False  # it sets or reads `jax_enable_x64` (analysis/x64.py)
    wide_dtypes: bool = False  # it may ask for a 64-bit dtype: only then does another module's x64 matter to it
    # Which optional imported facts its analysis read (project.py re-checks it only when one of those changed):
    read_x64: bool = False  # the project's x64
    read_item_setters: bool = False  # whether the project defines a pytree class with `__setitem__`
    read_literals: tuple[str, ...] = ()  # the literal returned by these functions of other modules, qualified
    read_returns: tuple[str, ...] = ()  # what these functions of other modules return when called, qualified
    read_looped: tuple[str, ...] = ()  # its functions whose calls in other modules' loops were asked for
    # The eager calls of other modules (Imported.handed) that give a container to a parameter a lookup read: the
    # function's name there, the argument (by position or keyword), and whether called through an instance.
    read_handed: tuple[tuple[str, int | str, bool], ...] = ()
    read_containers: tuple[str, ...] = ()  # the attributes of these classes' instances read, `pkg.m.Class.attr`
    applications: tuple[Applied, ...] = ()
    # The classes of other modules of the project its classes derive from (qualified), with the names the
    # subclasses define again: `self.m(...)` in the base's methods may run a subclass's `m`.
    overrides: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # `Class.m` for each `self.m` its classes' methods call whose def its analysis learned something about
    # (traced, given tracers, returning one...): only a subclass elsewhere that defines one of these again
    # can change its findings.
    read_self_calls: tuple[str, ...] = ()
    # Its module-level classes: a call elsewhere of `Class.method` reaches it only for one of these (a call
    # of `obj.update(...)` where `obj` came from one of its functions, `obj = adam(lr)`, does not).
    classes: tuple[str, ...] = ()
    # Its classes whose MRO ends in another module's class: that class (qualified) and the names its classes on
    # the way bind. `Child.norm` of another module's call is `pkg.base.Base.norm` when `norm` is not one of them.
    extends: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    looped: tuple[Looped, ...] = ()  # its calls in loops of other modules' functions
    handed: tuple[Handed, ...] = ()
    # By class name: the attributes only its `__init__` sets, to a Python list, tuple or dict, with that kind.
    containers: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    # By class name: the properties of its family that compute what they give (a read runs code: a key split at
    # each read), for subclasses in other modules.
    computed: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Its module-level names whose references in other modules its analysis asked about (Imported.reached).
    read_reached: tuple[str, ...] = ()
    # It defines a pytree class with `__setitem__`: `obj[i, :] = v` on an instance is a method call, in any module.
    item_setters: bool = False
    # Its module-level names that hold a jitted function (a def under `@jax.jit`, `step = jax.jit(f)`): calling one
    # from another module dispatches work that runs asynchronously.
    jitted: tuple[str, ...] = ()
    read_jitted: tuple[str, ...] = ()  # the names of other modules (qualified) its analysis asked that of

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "Interface":
        return cls(
            returns={name: Exported(**_tuples(exported)) for name, exported in data["returns"].items()},
            calls=tuple(Outgoing(**_tuples(call)) for call in data["calls"]),
            uses=tuple(data["uses"]),
            reexports=dict(data["reexports"]),
            consumes={name: Consumes(**_tuples(consumes)) for name, consumes in data["consumes"].items()},
            x64=data["x64"],
            wide_dtypes=data["wide_dtypes"],
            read_x64=data["read_x64"],
            read_literals=tuple(data["read_literals"]),
            read_returns=tuple(data["read_returns"]),
            read_looped=tuple(data["read_looped"]),
            read_handed=tuple((name, param, instance) for name, param, instance in data["read_handed"]),
            read_containers=tuple(data["read_containers"]),
            applications=tuple(Applied(**_tuples(applied)) for applied in data["applications"]),
            overrides={base: tuple(names) for base, names in data["overrides"].items()},
            read_self_calls=tuple(data["read_self_calls"]),
            classes=tuple(data["classes"]),
            extends={cls: (base, tuple(names)) for cls, (base, names) in data["extends"].items()},
            looped=tuple(Looped(**looped) for looped in data["looped"]),
            handed=tuple(Handed(**_tuples(handed)) for handed in data["handed"]),
            containers={cls: tuple(tuple(pair) for pair in pairs) for cls, pairs in data["containers"].items()},
            computed={cls: tuple(names) for cls, names in data["computed"].items()},
            read_reached=tuple(data["read_reached"]),
            item_setters=data["item_setters"],
            read_item_setters=data["read_item_setters"],
            jitted=tuple(data["jitted"]),
            read_jitted=tuple(data["read_jitted"]),
        )


def _tuples(fields: dict) -> dict:
    """A record's fields read back from JSON, its lists tuples again at every depth (`options`: a tuple of pairs,
    `Exported.items`: a tuple of triples whose first is a tuple)."""
    return {name: _tupled(value) for name, value in fields.items()}


def _tupled(value: object) -> object:
    return tuple(_tupled(item) for item in value) if isinstance(value, list) else value


@dataclass(frozen=True)
class IncomingTracer:
    """A parameter of this module's function that a traced function of another module passes a tracer."""

    param: int | str  # by position in the call, or by keyword
    caller: str
    transform: str
    staged: bool
    where: str
    instance: bool = False  # a method called through an instance: position 0 is the parameter after `self`
    made: bool = False  # passed to what calling the function makes (Outgoing.made), not to it
    differentiates: bool = True  # Outgoing.differentiates
    kind: str | None = None  # one traced array of this dtype kind (Outgoing.kinds); None: a pytree, or not known
    shape: str | None = None  # the structure of the container it gives (Outgoing.shapes); None: not known
    fixed: tuple[tuple[int | str, str], ...] = ()  # Outgoing.fixed and Outgoing.given, of the same call
    given: tuple[int | str, ...] | None = None


@dataclass(frozen=True)
class IncomingContainer:
    """A parameter of this module's function that a call of another module, outside any trace, gives a Python list,
    tuple or dict (Handed)."""

    param: int | str  # by position in the call, or by keyword
    instance: bool = False  # a method called through an instance: position 0 is the parameter after `self`

    @property
    def made(self) -> bool:
        """A call of the function itself, never of what calling it makes."""
        return False


@dataclass(frozen=True)
class Imported:
    """What the other modules of the project tell one module."""

    # By function name; `Class.method` for a method, `Class` for a call of the class (its `__init__`).
    entries: dict[str, tuple[IncomingTracer, ...]] = field(default_factory=dict)
    returns: dict[str, Exported] = field(default_factory=dict)  # by qualified name
    consumes: dict[str, Consumes] = field(default_factory=dict)  # by qualified name
    x64: bool = False  # another module of the project sets or reads `jax_enable_x64`
    applied: dict[str, tuple[Applied, ...]] = field(default_factory=dict)  # by function name
    # By class name: the names that subclasses in other modules define again (Interface.overrides).
    overridden: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # By function name: the loops of other modules that call it (Interface.looped).
    looped: dict[str, tuple[Looped, ...]] = field(default_factory=dict)
    handed: dict[str, tuple[IncomingContainer, ...]] = field(default_factory=dict)  # by function name, as `entries`
    # By qualified class name: the attributes its `__init__` sets to a Python container (Interface.containers).
    containers: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    # Its module-level classes and functions that other modules import, call or subclass: calls there may make its
    # instances or pass its parameters.
    reached: tuple[str, ...] = ()
    # By qualified class name: the properties that compute what they give (Interface.computed).
    computed: dict[str, tuple[str, ...]] = field(default_factory=dict)
    item_setters: bool = False  # another module of the project defines a pytree class with `__setitem__`
    jitted: tuple[str, ...] = ()  # the names it uses of other modules that hold jitted functions, qualified

    def __bool__(self) -> bool:
        return bool(
            self.entries
            or self.returns
            or self.consumes
            or self.x64
            or self.applied
            or self.overridden
            or self.looped
            or self.handed
            or self.containers
            or self.computed
            or self.reached
            or self.item_setters
            or self.jitted
        )

    @property
    def traces(self) -> bool:
        """Whether other modules trace some of its functions."""
        return bool(self.entries or self.applied)

    @property
    def checked_without_jax(self) -> bool:
        """Whether it is checked even without jax in it: other modules trace some of its functions, or it calls
        functions they jit (a timer around `train_step` imported from the model's module) or functions that draw
        from a key (`sample(key)` twice, `augment(x)` twice of a key default: the same numbers); not a module that
        only imports and re-exports them."""
        return self.traces or bool(self.jitted) or bool(self.consumes)

    def digest(self) -> str:
        """A stable text of these facts, for the result cache's key."""
        return json.dumps(asdict(self), sort_keys=True)


@dataclass(frozen=True)
class ModuleContext:
    """Where a module sits in its project, and what the project's other modules tell it."""

    package: str  # the package the module is in (`pkg.sub`), for relative imports; "" at the top
    top_level: frozenset[str]  # names importable from the project root: its top-level modules and packages
    imported: Imported = Imported()

    def in_project(self, qualified: str | None) -> bool:
        if qualified is None:
            return False
        top = qualified.split(".", 1)[0]
        return top in self.top_level and top not in MODELLED


# Packages jaxlint knows from its own tables: their functions are never read as project code, even
# when the project is jax itself (`jnp.array` is an array constructor, whatever its source does).
MODELLED = frozenset({"jax", "jaxlib"})


def absolute_module(level: int, module: str | None, package: str | None) -> str | None:
    """`from {'.' * level}{module} import ...` in a module of `package`: the module it names, or None
    when that cannot be known (a relative import with no package known, or above the top)."""
    if not level:
        return module
    if package is None:
        return None
    parts = package.split(".") if package else []
    up = level - 1
    if up > len(parts) or (up == len(parts) and module is None):
        return None
    base = parts[: len(parts) - up]
    return ".".join([*base, module] if module else base) or None
