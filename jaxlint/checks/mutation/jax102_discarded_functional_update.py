"""JAX102 discarded-functional-update: The result of `x.at[i].set(v)` (or another functional update) is thrown away."""

from __future__ import annotations

from typing import Callable, cast

import libcst as cst

from jaxlint.analysis.arrays import functional_update_receiver
from jaxlint.analysis.bindings import method_of, parameter_names
from jaxlint.analysis.dead_updates import last_lost_update, self_update
from jaxlint.analysis.scopes import assigned_values, own_method_call, rebound_by_own_methods
from jaxlint.analysis.values import Kind
from jaxlint.checks.base import FixPlan, Rule, code
from jaxlint.checks.mutation._common import declaration_needed, rebinds_here
from jaxlint.diagnostics import UNSAFE
from jaxlint.model.apis import REMOVED_INDEX_OPS
from jaxlint.model.keys import COPYING_METHODS


class DiscardedFunctionalUpdate(Rule):
    code = "JAX102"
    name = "discarded-functional-update"
    summary = "The result of `x.at[i].set(v)` (or another functional update) is thrown away"
    what_it_does = (
        "Flags an expression statement `x.at[...].set(...)` (also `add`, `subtract`, `multiply`, "
        "`divide`, `power`, `min`, `max`, `apply`) whose result is not used, and the removed "
        "`jax.ops.index_update(...)` family used the same way. In a traced function (jitted, or called under a "
        "transform), also `a = a.at[...].set(...)` whose result never leaves the function: nothing after it returns, "
        "stores, yields or passes on `a`, which is read only to make further updates of itself "
        "(`for i in range(n): a = a.at[i].set(2 * a[i])` with no `return a`). Also `obj.replace(...)` and "
        "`obj._replace(...)` as a statement where the analysis knows `obj` is a pytree whose `replace` gives a new "
        "object: an instance of a pytree class of the module (a NamedTuple, a flax.struct or registered dataclass) "
        "that does not define `replace` itself, a pytree of tracers in a trace (flax's `TrainState`, chex's "
        "dataclasses), a traced argument rebound only to what its own methods give (`state = "
        "state.apply_gradients(grads=g)`), or a name the same scope binds to its own `name.replace(...)` elsewhere."
    )
    why_bad = (
        "A functional update returns a new array and leaves `x` unchanged. Written as a statement it "
        "does nothing, silently: no error, just the old values. Rebinding a local name to it changes that name "
        "only: a jitted function's caller keeps its array as it was, and a function without `return` returns "
        "None (jax#7116)."
    )
    example = "import jax.numpy as jnp\n\nx = jnp.zeros(3)\nx.at[0].set(1.0)\n"
    use_instead = "import jax.numpy as jnp\n\nx = jnp.zeros(3)\nx = x.at[0].set(1.0)\n"
    not_flagged = (
        "Updates whose result is assigned, returned, passed on or used in any expression; writes through a "
        "mutable `jax.Ref` (`jax.new_ref(...)`, or a Pallas kernel's `o_ref`, named `*ref`), where "
        "`.at[...].set(...)` is an in-place write that returns `None`; an object of a class the module defines "
        "(its own `at`, as pytree libraries give); a notebook cell's last line, whose value Jupyter displays "
        "(unless a `;` ends it). A rebound update is flagged only when every read it may reach (later in the "
        "function, or in a loop around it) is inside another update of the same name, that name is not "
        "`global` or `nonlocal` nor mentioned by a nested function, and what the update computes from it reaches "
        "no call but array methods and `jax.numpy`, NumPy or `math` functions; not in functions no transform "
        "traces, where the object may have an `at` of its own. `replace` of anything the analysis does not know to "
        "be such a pytree (a string, a path, a DataFrame, `os.replace`, a class whose own `replace` changes it), "
        "and `replace(..., inplace=True)`."
    )
    verify = "Not confirmed by `--verify`: the statement runs without error, which is the bug."
    fixable = True
    fix_safety = (
        "Unsafe: for a plain name, `x.at[i].set(v)` becomes `x = x.at[i].set(v)` (`s.replace(...)` becomes "
        "`s = s.replace(...)`). The statement did "
        "nothing before, so assigning the result changes what the code computes (that is the point, but "
        "review it). No fix when `x` is a global or a closure variable of the function (assigning it would "
        "make it local: `UnboundLocalError`) or the statement is in a class body."
    )

    def _is_ref(self, receiver: cst.BaseExpression) -> bool:
        """A `jax.Ref` (or a Pallas kernel's `x_ref`): its `.at[...].set(...)` writes in place."""
        if self.facts.value_of(receiver).kind is Kind.REF:
            return True
        name = receiver.attr.value if isinstance(receiver, cst.Attribute) else getattr(receiver, "value", "")
        return isinstance(name, str) and name.lower().endswith("ref")

    def _made_by_class(self, receiver: cst.BaseExpression) -> bool:
        """An object of a class this module defines (`t = Tree(a=1)`, the class at any depth, decorated or not):
        its `at` is its own (a pytree library's indexer), not a JAX array's."""
        if self.facts.value_of(receiver).instance is not None:
            return True
        found = self.facts.binding(receiver)
        made = found[0] if found is not None else None
        if type(made) is not cst.Call:
            return False
        cls = self.facts.binding(made.func, want_class=True)
        return cls is not None and type(cls[0]) is cst.ClassDef

    def _rebinds(self, receiver: cst.BaseExpression) -> bool:
        return isinstance(receiver, cst.Name) and rebinds_here(self, receiver.value)

    def __init__(self, facts, reporter) -> None:
        super().__init__(facts, reporter)
        # last_lost_update by function and name (the function kept with its answer, so that its id stays its own)
        self._lost: dict[tuple[int, str], tuple[cst.FunctionDef, cst.Assign | None]] = {}

    def _last_lost(self, function: cst.FunctionDef, name: str) -> cst.Assign | None:
        """last_lost_update, walked once per function and name however many updates of the name it holds."""
        key = (id(function), name)
        if key not in self._lost or self._lost[key][0] is not function:
            self._lost[key] = (function, last_lost_update(function, name, self.names.qualified))
        return self._lost[key][1]

    def visit_Assign(self, node: cst.Assign) -> None:
        """`a = a.at[i].set(v)` in a traced function, when neither it nor another update of `a` leaves the function."""
        function = self.facts.chain[-1]
        if self.facts.function is None or type(function) is not cst.FunctionDef:
            return
        receiver = functional_update_receiver(node.value) if type(node.value) is cst.Call else None
        if type(receiver) is not cst.Name or self_update(node, receiver.value) is None:
            return
        name = receiver.value
        if not self.facts.value_of(receiver).is_array or self._is_ref(receiver) or self._made_by_class(receiver):
            return
        if self._last_lost(function, name) is not node:
            return
        method = cast(cst.Attribute, cast(cst.Call, node.value).func).attr.value
        lost = "the array the caller passed is unchanged" if name in parameter_names(function.params) else "it is lost"
        self.report(
            node.value,
            (
                f"the result of `.at[...].{method}(...)` never leaves `{function.name.value}`: nothing after it "
                f"returns, stores or passes on `{name}`, and JAX arrays are immutable, so {lost}; return `{name}`"
            ),
        )

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if not isinstance(call, cst.Call):
            return
        if self.facts.is_displayed(node):
            return  # a notebook cell's last line: Jupyter shows the new value
        receiver = functional_update_receiver(call)
        if (
            receiver is not None
            and isinstance(call.func, cst.Attribute)
            and not self._is_ref(receiver)
            and not self._made_by_class(receiver)
        ):
            method = call.func.attr.value
            assign = f"{code(receiver)} = {code(call, 60)}"
            declaration = declaration_needed(self, receiver.value) if isinstance(receiver, cst.Name) else ""
            self.report(
                call,
                (
                    f"the result of `.at[...].{method}(...)` is discarded: JAX arrays are immutable, so "
                    f"`{code(receiver)}` is unchanged; assign it: `{assign}`{declaration}"
                ),
                _assign_back(node, receiver, assign) if self._rebinds(receiver) else None,
            )
            return
        if type(call.func) is cst.Attribute and call.func.attr.value in COPYING_METHODS:
            self._discarded_replace(node, call, call.func)
            return
        qualified = self.names.qualified(call.func)
        if qualified in REMOVED_INDEX_OPS:
            self.report(
                call,
                (
                    f"the result of `{qualified}(...)` is discarded: it returns a new array and leaves its "
                    f"operand unchanged; assign it: `x = x.at[idx].{REMOVED_INDEX_OPS[qualified]}(v)`"
                ),
            )

    def _discarded_replace(self, statement: cst.Expr, call: cst.Call, func: cst.Attribute) -> None:
        """`state.replace(rngs=...)` as a statement, where the analysis knows `state`'s `replace` gives a new object."""
        receiver, method = func.value, func.attr.value
        if any(arg.keyword is not None and arg.keyword.value == "inplace" for arg in call.args):
            return  # pandas' `df.replace(..., inplace=True)`
        why = self._functional_replace(receiver, method)
        if why is None:
            return
        assign = f"{code(receiver)} = {code(call, 60)}"
        declaration = declaration_needed(self, receiver.value) if isinstance(receiver, cst.Name) else ""
        self.report(
            call,
            lambda line_of: (
                f"the result of `{code(receiver)}.{method}(...)` is discarded: it returns a new object and leaves "
                f"`{code(receiver)}` as it was ({why(line_of)}); assign it: `{assign}`{declaration}"
            ),
            _assign_back(statement, receiver, assign) if self._rebinds(receiver) else None,
        )

    def _functional_replace(
        self, receiver: cst.BaseExpression, method: str
    ) -> Callable[[Callable[[cst.CSTNode], int]], str] | None:
        """Why `receiver.method(...)` gives a new object, as a function of `line_of`; None when not known: an instance
        of a pytree class of the module that does not define the method itself, a pytree of tracers (in a trace only a
        pytree has methods: flax.struct's, chex's, a NamedTuple's), a traced parameter rebound only to what its own
        methods give (`state = state.apply_gradients(grads=g)`), or a name the same scope binds to its own
        `name.method(...)` elsewhere."""
        value = self.facts.value_of(receiver)
        if self._is_ref(receiver):
            return None
        made = value.instance if type(value.instance) is cst.ClassDef else None
        cls = value.pytree or (made if made is not None and self.facts.is_pytree_class(made) else None)
        if cls is not None:
            if method_of(cls, method) is not None:
                return None  # its own `replace`, which may change the object
            return lambda line_of: f"an instance of `{cls.name.value}`, a pytree class"
        if value.kind is Kind.TRACED and value.tracer is not None and value.instance is None:
            return lambda line_of: f"`{code(receiver)}` is a pytree of tracers here"
        if type(receiver) is not cst.Name:
            return None
        name, scope, function = receiver.value, self.facts.chain[-1], self.facts.function
        if type(scope) is cst.FunctionDef:
            body: cst.BaseSuite | list = scope.body
        elif type(scope) is cst.Module:
            body = list(scope.body)
        else:
            return None
        if function is not None and name in function.traced and rebound_by_own_methods(body, name):
            return lambda line_of: f"`{name}` is a traced pytree, rebound only to what its own methods give"
        rebinding = next((bound for bound in assigned_values(body, name) if own_method_call(bound, name, method)), None)
        if rebinding is None:
            return None
        return lambda line_of: f"line {line_of(rebinding)} binds `{name}` to what its `{method}` gives"


def _assign_back(statement: cst.Expr, receiver: cst.BaseExpression, assign: str) -> FixPlan | None:
    """`x.at[i].set(v)` -> `x = x.at[i].set(v)`, for a plain-name receiver."""
    if not isinstance(receiver, cst.Name):
        return None
    return FixPlan(f"assign the result: `{assign}`", ((statement, (receiver, " = ", statement.value)),), UNSAFE)
