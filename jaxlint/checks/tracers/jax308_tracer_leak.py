"""JAX308 tracer-leak: A traced value stored outside the traced function: a global, a closure list, `self`."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.bindings import mentioned_names, rebound_names
from jaxlint.analysis.values import Kind, Value
from jaxlint.checks.base import Rule, code
from jaxlint.model.classes import ATTRIBUTE_HOLDERS
from jaxlint.model.functions import CONTAINER_BASES, JAX
from jaxlint.traversal import in_order


class TracerLeak(Rule):
    code = "JAX308"
    name = "tracer-leak"
    summary = "A traced value stored outside the traced function: a global, a closure list, `self`"
    what_it_does = (
        "Flags a traced function (jitted, vmapped, or a lax body; also a custom_jvp or custom_vjp function's "
        "rules, `@f.defjvp` and `f.defvjp(fwd, bwd)`, where a staged trace around a call of `f` differentiates it) "
        "that stores a traced value where it "
        "outlives the trace: assigning a `global` or `nonlocal` name, `outer.append/extend/insert/setdefault(x)`, "
        "`outer[k] = x` on a container defined outside the traced "
        "function (`outer.update(...)` on a known dict) or made by a parameter's default that a traced call leaves "
        "out (`def f(x, acc=[])`: made once, when the `def` runs), an attribute of an object defined outside it, of a "
        "class of the module, a `types.SimpleNamespace` or an `argparse.Namespace`, or an item of one "
        "(`recorder.saved = x`, `setattr(recorder, 'saved', x)`, "
        "`Recorder.last = x`, `sketch.table[k] = x`, `recorder.values.append(x)`), or `self.attr = x`, and "
        "`self.cache[k] = x` or `self.history.append(x)` into a dict or list every assignment of the module "
        "puts there (`self.cache = {}` in `__init__`), in a method jax traces with `self` bound or static "
        "(`jax.jit(self.step)`, `static_argnums=0`) or in a method a trace calls through an "
        "instance made outside it (`wf.apply_phase(x)` of a module-level `wf`), alone or as a target of "
        "unpacking (`best_loss, best_params = loss, params`)."
    )
    why_bad = (
        "The stored object is a tracer that belongs to one trace. Using it after the trace ends raises "
        "`UnexpectedTracerError`, later and far from here; and the function stays impure, so the store "
        "happens once at trace time, not on every call. Return the value instead (or carry it through "
        "`lax.scan`), and keep state in explicit arguments."
    )
    example = (
        "losses = []\n\n\n"
        "def loss_fn(params, batch):\n"
        '    return jnp.mean((batch["x"] @ params - batch["y"]) ** 2)\n\n\n'
        "@jax.jit\n"
        "def step(params, batch):\n"
        "    loss = loss_fn(params, batch)\n"
        "    losses.append(loss)\n"
        "    return update(params, loss)\n"
    )
    use_instead = (
        "def loss_fn(params, batch):\n"
        '    return jnp.mean((batch["x"] @ params - batch["y"]) ** 2)\n\n\n'
        "@jax.jit\n"
        "def step(params, batch):\n"
        "    loss = loss_fn(params, batch)\n"
        "    return update(params, loss), loss\n\n\n"
        "params, loss = step(params, batch)\n"
        "losses.append(loss)\n"
    )
    not_flagged = (
        "Containers created inside the traced function (a list built and returned by the same trace), "
        "storing static values, `self` attributes in `flax.nnx` / `equinox` transformed methods (those "
        "transforms propagate module state) and in a jitted or pmapped method whose `self` is not static (jax "
        "rebuilds `self` from tracers at each call, so the stored tracer stays in that copy, an output when the "
        "method returns it), functions of imported modules named like list methods "
        "(`jnp.append`, `jnp.insert`: they return new arrays), methods of the project's own classes named like them "
        "(`buffer.append(batch, x)` of a class that defines `append`) or held in a field of one (a NamedTuple of "
        "functions), a call of one whose result the code keeps (`state = ops.insert(local, state)`: list's "
        "`append`, `extend` and `insert` give back None), items set in a list of the function around "
        "the traced one when that function only builds it and sets its items, and only the functions defined "
        "in it read it (an index list a `fori_loop` body fills anew at each call: nothing sees it after the "
        "trace), and code outside traced functions."
    )
    verify = (
        "`--verify` traces the function holding the finding under `jax.checking_leaks()` and "
        "confirms when jax reports the leak."
    )

    # `update` only of a known dict (`opt.update(grads, state)` is how optax is called); never `add`: a set
    # rejects an array (unhashable).
    _STORE_METHODS = frozenset("append extend insert appendleft extendleft setdefault".split())
    _RETURNING_NONE = _STORE_METHODS - {"setdefault"} | {"update"}  # a call whose result is kept is none of them

    def __init__(self, facts, reporter) -> None:
        super().__init__(facts, reporter)
        self._reported: cst.CSTNode | None = None
        self._bound: set[int] = set()  # calls whose result is assigned or returned
        self._pieces: list[str] = []  # the targets one value is unpacked into (`self.a, self.b = step(...)`)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bound.add(id(node.value))

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self._bound.add(id(node.value))

    def _report(self, node: cst.CSTNode, where: str, stored: cst.BaseExpression, value: Value) -> None:
        if self._reported is node:
            return  # `a, b = x, y` leaking both: one finding for the statement
        self._reported = node
        others = [piece for piece in self._pieces if piece not in where]
        where += f" (and, of the same value, {', '.join(f'`{piece}`' for piece in others)})" if others else ""
        self.report(
            node,
            lambda line_of: (
                f"a traced value escapes into {where}: `{code(stored)}` is traced "
                f"({value.describe(code(stored), line_of)}); using it after the trace raises "
                f"UnexpectedTracerError: return it instead"
            ),
            because=value,
        )

    def visit_Assign(self, node: cst.Assign) -> None:
        self._bound.add(id(node.value))
        for target in node.targets:
            self._check_unpacked(target.target, node.value, node)

    def _check_unpacked(self, target: cst.BaseExpression, stored: cst.BaseExpression, node: cst.Assign) -> None:
        """`a, b = x, y` stores `x` in `a` and `y` in `b`; `a, b = pair` stores pieces of `pair` in both."""
        if type(target) is cst.Tuple or type(target) is cst.List:
            items = [element.value for element in target.elements]
            if (
                isinstance(stored, (cst.Tuple, cst.List))
                and len(stored.elements) == len(items)
                and not any(isinstance(e, cst.StarredElement) for e in (*target.elements, *stored.elements))
            ):
                for item, element in zip(items, stored.elements):
                    self._check_unpacked(item, element.value, node)
                return
            self._pieces = [code(item) for item in items if _owner(item) is not None]
            for item in items:
                self._check_unpacked(item, stored, node)
            self._pieces = []
            return
        value = self.facts.escaping_value(stored)
        if value.is_known:
            self._check_target(target, node, value, stored)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        value = self.facts.escaping_value(node.value)
        if value.is_known:
            self._check_target(node.target, node, value, node.value)

    def _check_target(
        self,
        target: cst.BaseExpression,
        node: cst.Assign | cst.AugAssign | cst.Call,
        value: Value,
        stored: cst.BaseExpression,
    ) -> None:
        if isinstance(target, cst.StarredElement):
            target = target.value
        if isinstance(target, cst.Name) and self.facts.is_global(target.value):
            self._report(node, f"the global `{target.value}`", stored, value)
        elif isinstance(target, cst.Name) and self.facts.is_nonlocal(target.value):
            if self.facts.outlives_trace(target.value) and not self.facts.stays_with_owner(target.value, stored):
                self._report(node, f"`{target.value}`, defined outside the traced function", stored, value)
        elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            if self.facts.value_of(target.value).kind is Kind.REF or self.facts.array_only_index(target.slice):
                return  # a write into a `Ref` (a Pallas kernel's output, `jax.new_ref`): jax tracks it as state
            if self.facts.stays_with_owner(target.value.value, stored):
                return  # `batch["ids"] = batch["ids"].reshape(...)` under `grad`, into the step's own `batch`
            if self.facts.outlives_trace(target.value.value) and not self._scratch(target.value.value):
                self._report(node, f"`{target.value.value}`, defined outside the traced function", stored, value)
        elif (
            (owner := _owner(target)) is not None
            and self._outside(owner, isinstance(target, cst.Subscript))
            and self._python_storage(target, owner)
            and value.tracer is not None
            and value.tracer.transform.name.startswith(JAX)
        ):
            self._report(node, _part_of(target, owner), stored, value)
        elif (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == "self"
            and value.tracer is not None
            and value.tracer.transform.name.startswith(JAX)
            and self.facts.function is not None
            and not self.facts.function.rebuilt_self
            and (self.facts.function.transforms or self.facts.self_outlives_trace())
        ):
            # A method jax traces itself, or one called from a trace through an instance that lives outside
            # it (`wf.apply_phase(x)`, `wf` of the module); one merely called from a trace otherwise (`__init__`
            # of an object built inside it) may be storing on an object that lives inside the trace.
            outer = "" if self.facts.function.transforms else ", part of an instance defined outside the trace"
            self._report(node, f"`self.{target.attr.value}`{outer}", stored, value)

    def _outside(self, owner: cst.Name, into_container: bool) -> bool:
        """Whether the object `owner` names lives outside the trace here: a name bound outside it, or, for a write
        into a container it holds (`self.cache[k] = x`, `self.history.append(x)`), `self` of a method jax traces
        itself with `self` bound or static, or one a trace calls through an instance made outside it."""
        if owner.value != "self":
            return self.facts.outlives_trace(owner.value)
        function = self.facts.function
        return (
            into_container
            and function is not None
            and not function.rebuilt_self
            and bool(function.transforms or self.facts.self_outlives_trace())
        )

    def _python_storage(self, target: cst.BaseExpression, owner: cst.Name) -> bool:
        """Whether the target is known to keep a Python reference: an attribute of an instance of a project class
        (`recorder.saved` of `recorder = Recorder()`), an item of a dict or list attribute (`sketch.table["k"]`
        of `self.table = {}`). A part of an unknown object may be a Pallas `Ref`, which jax tracks as state."""
        if isinstance(target, cst.Subscript):
            contents = self.facts.value_of(target.value).contents
            return contents is not None and contents.kind in ("dict", "list")
        if owner.value == "self":  # `self.history.append(x)`: the container itself, of a kind the module shows
            return self._known_container(target)
        if self.facts.value_of(owner).instance is not None:
            return True
        found = self.facts.binding(owner, want_class=True)  # `Recorder.shared = x` sets a class attribute
        if found is not None and isinstance(found[0], cst.Call):  # `debug = types.SimpleNamespace()`
            return self.names.qualified(found[0].func) in ATTRIBUTE_HOLDERS
        return found is not None and isinstance(found[0], cst.ClassDef)

    def _scratch(self, name: str) -> bool:
        """A list of the function around the traced one that only the functions defined in it read: its own
        code only builds it and sets items (maxtext's `cache_locations` index list, filled anew by each
        `fori_loop` body). What the trace stores there is never seen after it."""
        traced = self.facts.trace_functions()
        owner = next(
            (
                node
                for node in reversed(self.facts.chain)
                if isinstance(node, cst.FunctionDef) and node not in traced and name in rebound_names(node.body)
            ),
            None,
        )
        if owner is None:
            return False
        outside_nested = in_order(owner.body, skip=(cst.FunctionDef, cst.Lambda))
        return all(
            _only_built((*around, node), name)
            for node, around in outside_nested
            if type(node) is cst.Name and node.value == name
        )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if self.builtin(func, {"setattr"}) and len(node.args) == 3 and not any(a.star for a in node.args):
            self._check_setattr(node)
            return
        if type(func) is not cst.Attribute or not self._stores(func):
            return
        if func.attr.value in self._RETURNING_NONE and id(node) in self._bound:
            return  # `state = ops.insert(local, state)`: its result is kept, so not list's `insert` (it returns None)
        receiver = func.value
        if isinstance(receiver, cst.Name) and self.names.qualified(receiver) is not None:
            return  # `jnp.append(x, v)`: a function of an imported module, which stores nothing
        instance = self.facts.value_of(receiver).instance
        if (
            self.facts.called_def(node) is not None
            or isinstance(instance, str)
            or type(instance) is cst.ClassDef
            and not _container_subclass(instance)
        ):
            # a method of a class of the project (`buffer.append(batch, x)` returning a new buffer), or a field of one
            # holding a function (`ops.insert(local, state)` of a NamedTuple of functions), not list's
            return
        if isinstance(receiver, cst.Name):
            outlives = self.facts.outlives_trace(receiver.value)
            where = f"`{receiver.value}`, defined outside the traced function"
        else:  # `recorder.values.append(x)`: a list attribute of an instance of the module's
            owner = _owner(receiver)
            outlives = (
                owner is not None
                and self._outside(owner, True)
                and self._python_storage(receiver, owner)
                and self._known_container(receiver)
            )
            where = _part_of(receiver, owner, ",") if owner is not None else ""
        if not outlives:
            return
        for arg in (*node.args,):
            value = self.facts.escaping_value(arg.value)
            if value.is_known and (value.tracer is None or value.tracer.transform.name.startswith(JAX)):
                self._report(node, where, arg.value, value)
                return

    def _stores(self, method: cst.Attribute) -> bool:
        """list's, deque's and dict's methods that keep their argument: `update` only on a known dict."""
        name = method.attr.value
        return name in self._STORE_METHODS or name == "update" and self._known_container(method.value, "dict")

    def _known_container(self, expr: cst.BaseExpression, kind: str | None = None) -> bool:
        """A dict or list (of `kind`, else either) by what the analysis follows of `expr`."""
        contents = self.facts.value_of(expr).contents
        return contents is not None and (contents.kind == kind if kind else contents.kind in ("dict", "list"))

    def _check_setattr(self, node: cst.Call) -> None:
        """`setattr(obj, "name", x)` stores as `obj.name = x` does."""
        owner, attribute, stored = (arg.value for arg in node.args)
        name = attribute.evaluated_value if isinstance(attribute, cst.SimpleString) else None
        if not isinstance(owner, cst.Name) or not isinstance(name, str) or not name.isidentifier():
            return
        value = self.facts.escaping_value(stored)
        if value.is_known:
            self._check_target(cst.Attribute(value=owner, attr=cst.Name(name)), node, value, stored)


def _container_subclass(cls: cst.ClassDef) -> bool:
    """Whether a class derives from one of Python's containers (`class Buffer(list)`): its `append` is list's."""
    for base in cls.bases:
        expr = base.value
        name = expr.value if type(expr) is cst.Name else expr.attr.value if type(expr) is cst.Attribute else None
        if name in CONTAINER_BASES:
            return True
    return False


def _part_of(target: cst.BaseExpression, owner: cst.Name, separator: str = "") -> str:
    """Where a stored value goes, for a message: part of an object that outlives the trace."""
    if owner.value == "self":
        return f"`{code(target)}`, kept on `self` beyond the trace"
    return f"`{code(target)}`, part of `{owner.value}`{separator} defined outside the traced function"


def _owner(target: cst.BaseExpression) -> cst.Name | None:
    """The name whose object an attribute target, or an item of an attribute, is part of: `recorder` for
    `recorder.saved` and `sketch.table["k"]` (None for a plain name or an item of one: handled above)."""
    if not isinstance(target, cst.Attribute) and not (
        isinstance(target, cst.Subscript) and isinstance(target.value, cst.Attribute)
    ):
        return None
    inner: cst.BaseExpression = target
    while isinstance(inner, (cst.Attribute, cst.Subscript)):
        inner = inner.value
    return inner if isinstance(inner, cst.Name) else None


def _only_built(use: tuple[cst.CSTNode, ...], name: str) -> bool:
    """Whether an occurrence binds the name (`xs = [...]`) or sets an item of it with a value that does not
    read it (`xs[0] = 0`)."""
    name_node, parent = use[-1], use[-2]
    if type(parent) is cst.AssignTarget:
        return True
    if (
        type(parent) is cst.Subscript
        and parent.value is name_node
        and len(use) >= 3
        and type(use[-3]) is cst.AssignTarget
    ):
        statement = use[-4] if len(use) >= 4 else None
        return type(statement) is cst.Assign and name not in mentioned_names(statement.value)
    return False
