"""What a rule may ask the analysis: one object, queries only (the rule context).

Rules see the analysis through this object (`self.facts`) and nothing else: they never touch the
tracker, the key flow or the facts of a round. A fact a second rule needs is a query here, answered by
the analysis, so that it is computed once and in one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast
from functools import cached_property

import libcst as cst

from jaxlint.files import NOTEBOOK_SUFFIX
from jaxlint.model.classes import LAYER_BASES
from jaxlint.model.apis import Version, parse_jax_version
from jaxlint.analysis.constructions import shows_fields
from jaxlint.analysis.callees import VMAPS, Callees, JittedCallee
from jaxlint.analysis.donations import Donation, Finding
from jaxlint.analysis.interface import Looped
from jaxlint.analysis.keys import KeyDefault, Use
from jaxlint.analysis.forward_pass import forward_methods
from jaxlint.analysis.library_runs import library_base
from jaxlint.analysis.name_reads import NameReads
from jaxlint.analysis.names import Names
from jaxlint.analysis.notebook_cells import displayed
from jaxlint.analysis.traced import (
    AppliedTransform,
    TracedFunction,
    applied_transforms,
    decorator_transform,
)
from jaxlint.analysis.bindings import mentioned_names, method_of
from jaxlint.analysis.values import UNKNOWN, Kind, Value


def is_test_file(filename: str) -> bool:
    """`test_*.py`, `*_test.py` (the files pytest collects), `conftest.py`, or anything under a `tests`/`test` folder.
    Not a notebook named `test_*.ipynb` elsewhere: pytest collects no notebook, and "test" there names a trial run
    (a training experiment)."""
    parts = filename.replace("\\", "/").split("/")
    name = parts[-1]
    return (
        name.startswith("test_")
        and name.endswith(".py")
        or name.endswith("_test.py")
        or name == "conftest.py"
        or any(part in ("tests", "test") for part in parts[:-1])
    )


class Keys:
    """The PRNG keys at the current point: which a call consumes, and what consumed them before."""

    def __init__(self, flow) -> None:
        self._flow = flow

    def uses(self, call: cst.Call) -> list[tuple[cst.BaseExpression, str, str]]:
        """The keys `call` consumes: (argument, key reference, consumer name)."""
        return self._flow.uses(call)

    def prior_use(self, ref: str, expr: cst.BaseExpression | None = None) -> Use | None:
        """The consumption of `ref` on some path that reaches this point, if any (none in dead code); with `expr`,
        the argument of a consumption `uses` gave, one of the same kind (Use.folded)."""
        prior = self._flow.state.prior_use(ref) if self._flow.reached() else None
        return prior.of_kind(self._flow.folded(expr)) if prior is not None and expr is not None else prior

    def made_from_values(self, ref: str) -> str | None:
        """The key a name holds when it was made from values (`fold_in(rng, step)` of `k = fold_in(rng, step)`):
        made again from the same values, it is that key again."""
        return self._flow.made_from_values(ref)

    def key_default(self, ref: str) -> KeyDefault | None:
        """For a key a call draws from as a parameter's default (`def augment(x, key=jax.random.key(0))` called
        without `key`): that def and parameter. The default is made once, when the def runs."""
        return self._flow.key_default(ref)

    def folded_apart(self, expr: cst.BaseExpression) -> bool:
        """Whether `uses` gave `expr` as a key of one stream of a call whose streams fold in where each is drawn (a
        flax Module's `init` and `apply`): the same key given to two of its streams gives different keys. (Not
        `nnx.Rngs`, whose streams fold in only a count.)"""
        return self._flow.folded(expr) and not self._flow.seeded(expr)

    def reused_by_loop(self, ref: str) -> bool:
        """Consumed here in every iteration of the innermost loop, from a key bound outside it."""
        return self._flow.reached() and self._flow.reused_by_loop(ref)

    def made_each_iteration(self, ref: str) -> bool:
        """Whether the key `ref` is made in the loop's body from values the loop never changes (`k = PRNGKey(42)`,
        `k = fold_in(base, step)`): the same key in every iteration."""
        return self._flow.made_each_iteration(ref)

    def same_key_made_here(self, call: cst.Call) -> tuple[cst.Call, str] | None:
        """The key argument of `call` when it is made right there, the same in every iteration of the loop around
        (`permutation(jax.random.PRNGKey(42), n)`), with what draws; none in dead code."""
        return self._flow.same_key_made_here(call) if self._flow.reached() else None

    def consumed_again(self, loop: cst.CSTNode) -> list[tuple[cst.BaseExpression, str, str, Use]]:
        """Once the loop's body (a For's, a While's, or a lax loop body's def) was visited: the keys it consumes
        before binding them again that the previous iteration consumed after binding them, each as (argument, key
        reference, consumer, previous use)."""
        return self._flow.consumed_again(loop)

    def drawn_per_leaf(self, call: cst.Call) -> list[tuple[cst.BaseExpression, str, str]]:
        """Of a tree map over two leaves or more: the keys its function draws from as they are outside it, each as
        (the draw's key argument, key reference, consumer); none in dead code."""
        return self._flow.drawn_per_leaf(call) if self._flow.reached() else []

    def drawn_per_lane(self, call: cst.Call) -> list[tuple[cst.BaseExpression, str, str, str]]:
        """Of a call of a vmapped or pmapped function: the keys it draws from unmapped, each as (the key given or
        the draw's key argument, key reference, consumer, transform); none in dead code."""
        return self._flow.drawn_per_lane(call) if self._flow.reached() else []

    def spent_stores(self, node: cst.Assign) -> list[tuple[cst.BaseExpression, str, Use]]:
        """The attributes of `self` that an assignment gives back a key the call on its right consumed: (target,
        the key's ref, the call's use); none in dead code."""
        return self._flow.spent_stores(node) if self._flow.reached() else []

    def unread(self, call: cst.Call) -> bool:
        """A call in a loop body whose result nobody reads there: its draws repeat nothing anyone sees."""
        return self._flow.unread(call)

    def varies_per_iteration(self, expr: cst.BaseExpression) -> bool:
        """Whether `expr` reads the target of the innermost loop (`a` in `for a in arrays`)."""
        return any(self._flow.loop_target(name) for name in mentioned_names(expr))


class Donations:
    """The donated buffers at the current point: which reads see one."""

    def __init__(self, flow) -> None:
        self._flow = flow

    def reads(self, statement: cst.CSTNode) -> list[tuple[cst.Name, Donation]]:
        """The reads a statement (a compound statement's header) makes of names holding a donated buffer,
        each with the donation it sees."""
        return self._followed().reads(statement)

    def read_again(self, loop: cst.For | cst.While) -> list[Finding]:
        """Once the loop's body was visited: the reads its next iteration makes of what the previous one
        donated, each as (statement, read, donation)."""
        return self._followed().read_again(loop)

    @property
    def passed_twice(self) -> list[tuple[cst.Name, Donation]]:
        """So far in the module: the names passed again in the call that donates them (`f(x, x)`), each with that
        donation."""
        return self._followed().passed_twice

    def _followed(self):
        if self._flow is None:
            raise RuntimeError("donated buffers are followed only for a rule that sets `needs_donations = True`")
        return self._flow


class Context:
    """The analysis of one module as rules query it, at the point of the traversal they are visiting."""

    def __init__(self, tracker, module: cst.Module, filename: str, jax_version: str | None) -> None:
        self._tracker = tracker
        self._module = module
        self.names: Names = tracker.names
        self.filename = filename
        self.jax_version = jax_version  # the release the code must run on (`target-jax-version`)
        self.keys = Keys(tracker.keys)
        self.donations = Donations(getattr(tracker, "donations", None))  # (only for a rule that asks)
        self._called_defs: dict[int, cst.FunctionDef | None] = {}  # by call (called_def)

    # ------------------------------------------------------------------ options

    @cached_property
    def in_test_file(self) -> bool:
        return is_test_file(self.filename)

    @cached_property
    def _displayed(self) -> frozenset[int]:
        return displayed(self._module) if self.filename.endswith(NOTEBOOK_SUFFIX) else frozenset()

    def is_displayed(self, statement: cst.Expr) -> bool:
        """A notebook cell's last expression: Jupyter shows its value."""
        return id(statement) in self._displayed

    @cached_property
    def target_version(self) -> Version | None:
        return parse_jax_version(self.jax_version) if self.jax_version else None

    # ------------------------------------------------------------------ values

    def value_of(self, expr: cst.BaseExpression) -> Value:
        """What `expr` holds here; `UNKNOWN` when the analysis does not know (never None)."""
        value = self._tracker.value_of(expr)
        return UNKNOWN if value is None else value

    def right_operand(self, operation: cst.BooleanOperation) -> Value:
        """What the right operand of `a and b` / `a or b` holds when it runs, given what `a` said to get there
        (`not is_tracer(x) and x > n`: `x` is no tracer in `x > n`); `UNKNOWN` when the analysis does not know."""
        value = self._tracker.right_operand(operation)
        return UNKNOWN if value is None else value

    def array_only_index(self, elements: Sequence[cst.SubscriptElement]) -> bool:
        """Whether an item assignment with this index works on no list, tuple or dict (nor any container a
        tracer could be stored in), only on an array or a `Ref`: several positions (`w[0, 0]`), `None`, `...`,
        or an array."""
        if len(elements) > 1:
            return True
        index = elements[0].slice
        if not isinstance(index, cst.Index):
            return False  # `xs[1:] = ...` assigns a slice of a list
        value = index.value
        held = self.value_of(value)
        return (
            isinstance(value, cst.Ellipsis)
            or (isinstance(value, cst.Name) and value.value == "None")
            or (held.is_array and not held.container)
        )

    def iterated(self, expr: cst.BaseExpression) -> Value:
        """What one iteration over `expr` gives (an item of a container of tracers, a row of an array, a
        comprehension's element); `UNKNOWN` when the analysis does not know."""
        value = self._tracker.iterated(expr)
        return UNKNOWN if value is None else value

    def traced_in(self, expr: cst.BaseExpression, staged: bool) -> Value:
        """A traced value (a staged one, with `staged`) in what a print or a format shows: `expr` itself, an
        f-string field, a `%`/`.format` operand, a tuple or list item, the argument of `str`/`repr`, a side of
        a `+`, a field of a NamedTuple or dataclass whose text shows its fields; else `UNKNOWN`."""
        value = self.value_of(expr)
        if value.kind is Kind.TRACED and (value.staged or not staged):
            return value
        if type(value.instance) is cst.ClassDef and value.attributes and shows_fields(value.instance, self.names):
            held = (field for _, field in value.attributes if field is not None)
            return next(
                (field for field in held if field.kind is Kind.TRACED and (field.staged or not staged)), UNKNOWN
            )
        parts: list[cst.BaseExpression] = []
        if isinstance(expr, cst.FormattedString):
            parts = [p.expression for p in expr.parts if isinstance(p, cst.FormattedStringExpression)]
        elif isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Modulo):
            parts = [expr.right]
        elif isinstance(expr, (cst.Tuple, cst.List)):
            parts = [element.value for element in expr.elements]
        elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "format":
            parts = [arg.value for arg in expr.args]
        elif (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Name)
            and expr.func.value in ("str", "repr")
            and self.names.qualified(expr.func) is None
            and len(expr.args) == 1
        ):
            parts = [expr.args[0].value]  # the tracer's text: `str(x)` is "JitTracer(...)" under jit
        elif isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
            parts = [expr.left, expr.right]  # `"loss: " + str(loss)`
        for part in parts:
            found = self.traced_in(part, staged)
            if found.kind is Kind.TRACED:
                return found
        return UNKNOWN

    def staged_value(self, expr: cst.BaseExpression) -> Value:
        """What `expr` holds when it is a staged tracer in a staged function (a value a store would leak);
        else `UNKNOWN`."""
        scope = self.traced_scope
        if scope is None or not scope.staged:
            return UNKNOWN
        value = self.value_of(expr)
        return value if value.staged else UNKNOWN

    def escaping_value(self, expr: cst.BaseExpression) -> Value:
        """What `expr` holds when it is a tracer that dies with its trace, under a staged transform or a gradient
        alone (after `jax.grad(f)(x)` returns, a `JVPTracer` kept from it raises UnexpectedTracerError when
        used); else `UNKNOWN`."""
        scope = self.traced_scope
        if scope is None or not (scope.staged or scope.differentiated):
            return UNKNOWN
        value = self.value_of(expr)
        return value if value.staged or value.differentiated else UNKNOWN

    def looped_elsewhere(self, function: cst.FunctionDef) -> tuple[Looped, ...]:
        """For a module-level function: the calls of it in loops of other modules of the project."""
        context = self._tracker.context
        if context is None or not any(statement is function for statement in self._module.body):
            return ()
        self._tracker.read_looped.add(function.name.value)
        return context.imported.looped.get(function.name.value, ())

    def returned_container(self, function: cst.CSTNode) -> cst.BaseExpression | None:
        """The tuple, list or dict literal `function` returns on every path, if it does."""
        return self._tracker.returned_container(function)

    def imported_literal(self, expr: cst.BaseExpression) -> str | None:
        """For a function of another module of the project that returns a tuple, list or dict literal on
        every path: which, and where ("a tuple (`loss, aux`) at losses.py:12"); else None."""
        return self._tracker.imported_literal(expr)

    # ------------------------------------------------------------------ scopes

    @property
    def function(self) -> TracedFunction | None:
        """The traced facts of the function or lambda whose body is being visited, if it is traced."""
        return self._tracker.function

    @property
    def traced_scope(self) -> TracedFunction | None:
        """The innermost traced function around this point, nested functions included."""
        return self._tracker.traced_scope

    @property
    def traced_node(self) -> cst.CSTNode | None:
        """The FunctionDef or Lambda of `traced_scope`."""
        return self._tracker.traced_node

    @property
    def chain(self) -> tuple[cst.CSTNode, ...]:
        """The module, classes, functions and lambdas around this point."""
        return self._tracker.chain

    def trace_functions(self) -> list[cst.CSTNode]:
        """The functions around this point that run inside one trace, innermost first."""
        return self._tracker.trace_functions()

    def outlives_trace(self, name: str) -> bool:
        """Whether `name` lives outside the trace here: not local to any function that runs inside it."""
        return self._tracker.outlives_trace(name)

    def stays_with_owner(self, target: str, stored: cst.BaseExpression) -> bool:
        """Whether `stored`, stored into `target` here, is a value of the code that binds `target`, made outside the
        trace here, which does not stage: no tracer of this trace escapes (tracker.stays_with_owner)."""
        reads = NameReads()
        stored.visit(reads)
        return self._tracker.stays_with_owner(target, reads.names)

    def defaulted_module_function(self, func: cst.BaseExpression) -> str | None:
        """`xnp.stack` where `xnp` is a parameter of the function here defaulting to a module (`xnp=np`) that a
        traced call leaves out, and the function never rebinds: in that call's trace, the module's function
        (`numpy.stack`)."""
        if type(func) is not cst.Attribute or type(func.value) is not cst.Name:
            return None
        default = self._tracker.default_in_trace(self._tracker.chain[-1], func.value.value)
        module = self.names.qualified(default) if default is not None else None
        if module is None:
            return None
        return f"{module}.{func.attr.value}"

    def self_outlives_trace(self) -> bool:
        """In a method traced through an instance (`wf.apply_phase(x)` in a jitted function): whether one such
        call's instance lives outside its trace, so that what the method stores on `self` there outlives it."""
        return self._tracker.known.outer_selves.get(self._tracker.chain[-1], False)

    def is_global(self, name: str) -> bool:
        """Declared `global` in the current function."""
        return self._tracker.is_global(name)

    def is_nonlocal(self, name: str) -> bool:
        """Declared `nonlocal` in the current function."""
        return self._tracker.is_nonlocal(name)

    # ------------------------------------------------------------------ transforms and callees

    def decorator_transform(self, decorator: cst.Decorator) -> AppliedTransform | None:
        """The transform a decorator applies (`@jax.jit`, `@partial(jax.grad, argnums=1)`), if any."""
        return decorator_transform(decorator, self.names, self._tracker.transforms)

    def decorating_transforms(self, function: cst.FunctionDef) -> list[AppliedTransform] | None:
        """The transforms a def's decorators apply, outermost first; None when another decorator (other than
        `staticmethod`/`classmethod`) may change what calling it gives or computes."""
        found = []
        for decorator in function.decorators:
            transform = self.decorator_transform(decorator)
            if transform is not None:
                found.append(transform)
            elif not (
                isinstance(decorator.decorator, cst.Name)
                and decorator.decorator.value in ("staticmethod", "classmethod")
            ):
                return None
        return found

    def applied(self, function: cst.CSTNode) -> tuple[AppliedTransform, ...]:
        """The transforms applied to `function` by calls (`step = jax.jit(step)`), not decorators."""
        return tuple(self._tracker.known.applied.get(function, ()))

    def called_from_trace(self, function: cst.CSTNode) -> bool:
        """Whether a traced function of this module calls `function` (a method run from inside `jax.jit`): what it
        does to its object then happens while jax traces."""
        return bool(self._tracker.known.entries.get(function))

    def transformed_by(self, call: cst.Call) -> list[tuple[cst.BaseExpression, AppliedTransform]]:
        """The functions a call transforms (`jax.jit(f)`, `lax.scan(body, ...)`), each with its transform."""
        return applied_transforms(call, self.names, self._tracker.transforms)

    @property
    def makes_refs(self) -> bool:
        """Whether the module makes mutable boxes (`jax.new_ref`, an nnx Variable), which jit and the other
        transforms take as leaves: then a pytree of tracers whose structure no call shows may hold one. Known
        at `leave_Module`."""
        return self._tracker.recorder.makes_refs

    @property
    def item_setters(self) -> bool:
        """Whether the project defines a pytree class with `__setitem__` (this module or another): a pytree of tracers
        whose structure no call shows may be one of its instances."""
        return self._tracker.item_setters

    def trace_shown(self, errors: frozenset[str], value: Value | None = None) -> bool:
        """Whether every trace of the traced function around this point starts in a `try` whose handler catches one
        of `errors` (qualified) and does not raise again: `try: jax.jit(f)(x) except Exception as e: print(e)` shows
        the error tracing `f` raises on purpose (a lesson's first attempt). With the failing `value`, only the traces
        that make the parameter it comes from a tracer count (not the lesson's fix, `jit(f, static_argnums=0)`)."""
        tracer = value.tracer if value is not None else None
        param = tracer.param if tracer is not None and not tracer.computed else None
        return self._tracker.trace_shown(errors, param)

    def shows(self, errors: frozenset[str]) -> bool:
        """Whether this point is in the body of a `try` (of the function around) whose handler catches one of
        `errors` and does not raise again: a book's `try: jnp.sum([1, 2]) except TypeError as e: print(e)`."""
        return self._tracker.shows(errors)

    def catches(self, errors: frozenset[str]) -> bool:
        """Whether this point is in the body of a `try` (of the function around) whose handlers name one of
        `errors`, qualified: `except jax.errors.ConcretizationTypeError:` around an `if` expects it to fail."""
        return self._tracker.catches(errors)

    @property
    def in_untraced_branch(self) -> bool:
        """Whether this point is in a branch no traced call enters (`if key is None:` when every one passes a key):
        its code runs only eagerly."""
        return self._tracker.in_untraced_branch

    def in_jaxpr_trace(self) -> bool:
        """Whether this point runs while a transform traces it to a jaxpr (`jit`, lax bodies; not `vmap` or
        `grad` alone): every `jnp`/`lax` result here is a tracer, even one computed from static values."""
        return self._tracker.in_jaxpr_trace()

    def traced_params(self, function: cst.FunctionDef | cst.Lambda, transform: AppliedTransform) -> frozenset[str]:
        """The parameters of `function` that this one transform makes tracers (`argnums` for `jax.grad`)."""
        return self._tracker.traced_params(function, transform)

    def is_transform(self, qualified: str | None) -> bool:
        """Whether `qualified` names a transform (`jax.jit`, `jax.vmap`... and the user's extra ones)."""
        return qualified in self._tracker.transforms.all

    @property
    def x64_enabled(self) -> bool:
        """Whether this module or another module of its project sets or reads `jax_enable_x64`; known
        once the whole module was walked (at `leave_Module`)."""
        return self._tracker.x64_enabled

    def takes_static_argnames(self, transform: str) -> bool:
        """Whether `transform` (qualified) has static arguments: a parameter it leaves static is no tracer."""
        return transform in self._tracker.transforms.static_argnames

    def jitted(self, call: cst.Call) -> JittedCallee | None:
        """The jitted callable `call` calls, when the source shows one."""
        return self._callees.jitted(call, self.chain)

    def compiled(self, call: cst.Call) -> JittedCallee | None:
        """The jitted callable whose ahead-of-time `Compiled` `call` calls (`f.lower(x).compile()(x)`, or a name bound
        to it), when the source shows one: it dispatches as the jitted callable does."""
        return self._callees.compiled(call, self.chain)

    def holds_jit(self, expr: cst.BaseExpression, chain: tuple[cst.CSTNode, ...] | None = None) -> JittedCallee | None:
        """The jitted callable of this module an expression holds, when the source shows one (`step`,
        `make_step(opt)`); `chain`: the scope it is read in, when not this one."""
        return self._callees.held(expr, self.chain if chain is None else chain)

    def mapped(self, call: cst.Call) -> JittedCallee | None:
        """The `jax.vmap`ped callable `call` calls, when the source shows one."""
        return self._callees.mapped(call, self.chain)

    def partial_of(self, call: cst.Call) -> tuple[JittedCallee, cst.Call] | None:
        """`partial(step, cfg)` of a jitted callable: that callable, and the call `step(cfg)` it spells."""
        return self._callees.partial_of(call, self.chain)

    def jit_decorated(self, function: cst.FunctionDef) -> JittedCallee | None:
        """The jit a def's outermost decorator applies, if it does."""
        return self._callees.decorated(function)

    def made_alike(self, name: cst.Name) -> cst.Call | None:
        """The first binding of a name bound here only to calls of one callable, spelled alike (`g = jax.jit(...)`
        twice): whichever binding reaches a point, the name holds what that callable makes."""
        return self._callees.bindings.made_alike(name, self.chain)

    def is_pytree_class(self, cls: cst.ClassDef) -> bool:
        """A class of this module that jax flattens as the model knows it (a NamedTuple, a registered or flax.struct
        dataclass, an equinox Module)."""
        return self._tracker.is_pytree_class(cls)

    def never_flattened(self, cls: cst.ClassDef) -> bool:
        """Whether jax visibly takes instances of a class of this module as leaves it cannot trace (a plain class, a
        flax linen or PyTorch Module): given to a transform, one raises `TypeError` before anything is traced."""
        return self._tracker.never_flattened(cls)

    def jitted_elsewhere(self, expr: cst.BaseExpression, chain: tuple[cst.CSTNode, ...] | None = None) -> str | None:
        """The qualified name of the jitted function of another module of the project an expression holds (a call's
        `func`), or None; `chain`: the scope it is read in, when not this one."""
        return self._tracker.jitted_elsewhere(expr, chain)

    def jit_made(self, call: cst.Call) -> JittedCallee | None:
        """The jitted callable `call` makes (`jax.jit(f, static_argnums=1)`, `partial(jax.jit, ...)(f)`), if any."""
        return self._callees.application(call, self.chain)

    def vmap_made(self, call: cst.Call) -> JittedCallee | None:
        """The `jax.vmap`ped callable `call` makes (`jax.vmap(f, in_axes=...)`), if it makes one."""
        return self._callees.application(call, self.chain, VMAPS.__contains__)

    def vmap_decorated(self, function: cst.FunctionDef) -> JittedCallee | None:
        """The `jax.vmap` a def's decorators apply (looking through jits above it), if any."""
        return self._callees.decorated(function, False, VMAPS.__contains__)

    # ------------------------------------------------------------------ bindings

    def binding(
        self,
        expr: cst.BaseExpression,
        want_def: bool = False,
        want_class: bool = False,
        chain: tuple[cst.CSTNode, ...] | None = None,
    ) -> tuple[cst.CSTNode, tuple[cst.CSTNode, ...], bool] | None:
        """The one def or value (a class only when `want_class`) a name (or `self.attr`) is bound to here (or where
        `chain` ends), the chain of the scope binding it, and whether it is a method reached through `self`; None
        when bound more than once, or unknown."""
        return self._callees.bindings.binding(expr, self.chain if chain is None else chain, want_def, want_class)

    def called_def(self, call: cst.Call) -> cst.FunctionDef | None:
        """The def of this module a call runs: a function, a method through `self` or an instance, a class's
        `__init__`. (Asked at every call by several rules: answered once.)"""
        if id(call) not in self._called_defs:
            self._called_defs[id(call)] = self._called_def(call)
        return self._called_defs[id(call)]

    def _called_def(self, call: cst.Call) -> cst.FunctionDef | None:
        found = self.binding(call.func, want_def=True)
        if found is not None:
            return found[0] if type(found[0]) is cst.FunctionDef else None
        made = self.value_of(call).instance
        if type(made) is cst.ClassDef and self._callees.bindings.class_of(call.func, self.chain) is made:
            return method_of(made, "__init__")  # (a call that makes an instance; a method may return one too)
        if type(call.func) is cst.Attribute:
            receiver = self.value_of(call.func.value).instance
            if type(receiver) is cst.ClassDef:
                return method_of(receiver, call.func.attr.value)
        return None

    def layer_forward(self) -> tuple[cst.ClassDef, str] | None:
        """When this point is in the `__call__` of a class deriving from a library layer (model/classes.py
        LAYER_BASES: a flax, haiku or equinox Module), or in a method that `__call__` runs through `self`
        (forward_pass.py), the class and the library base: a forward pass, which runs at every step."""
        chain = self.chain
        index = next((i for i in range(len(chain) - 1, 0, -1) if type(chain[i]) is cst.FunctionDef), None)
        if index is None:
            return None
        cls = chain[index - 1]
        if type(cls) is not cst.ClassDef:
            return None
        method = cast(cst.FunctionDef, chain[index]).name.value
        if method not in forward_methods(cast(cst.Module, chain[0])).get(cls, frozenset()):
            return None
        base = library_base(cls, self._module, self._callees.bindings, self.names, LAYER_BASES)
        return (cls, base) if base is not None else None

    def bound_around(self, name: str) -> bool:
        """Whether some scope around this point binds `name` (a builtin's name may be rebound)."""
        scopes = self._callees.bindings.scopes
        return any(name in scopes[id(owner)].names for owner in self.chain if id(owner) in scopes)

    @property
    def _callees(self) -> Callees:
        return self._tracker.callees
