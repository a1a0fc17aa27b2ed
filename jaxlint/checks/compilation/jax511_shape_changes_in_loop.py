"""JAX511 shape-changes-in-loop: an array whose shape visibly changes in every iteration, passed to a jitted
function in the loop."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from jaxlint.checks.base import LoopRule, code
from jaxlint.analysis.bindings import mentioned_names, parameter_names, statements, target_names
from jaxlint.analysis.dead_branches import arguments_given
from jaxlint.traversal import in_order
from jaxlint.checks.compilation._common import compile_count_confirms
from jaxlint.model.functions import GROWING_FUNCTIONS, LIST_TO_ARRAY


# ---------------------------------------------------------------------- JAX511

_SHRINKING_METHODS = frozenset({"clear", "pop", "remove"})  # list methods that take items away again


def _grows(
    loop: cst.CSTNode, name: str, names, grown_by: Callable[[cst.Call], dict[int | None, str]]
) -> cst.CSTNode | None:
    """The statement of the loop's body that makes `name` longer every iteration: `name = jnp.concatenate([name,
    ...])` (or `jnp.append(name, ...)`), `name.append(...)` on a list, or `name` bound to what a call of a function
    returns grown from the `name` it is given (`x, key = sample_next(x, key)` of a `sample_next` that returns
    `jnp.concatenate([x, token], axis=1)` there: `grown_by` says); None when there is none, or when the
    body also binds `name` otherwise, or empties it (`chunk = data[i:i + n]` then padded by a concatenate: one
    length; `memory, step = adapt(jnp.array(memory), step)` where `adapt` returns a new list: the length starts
    again; `memory.clear()`, `memory.pop()`, `del memory[:]`)."""
    found: list[cst.CSTNode] = []
    reset = False

    class _Growth(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            nonlocal reset
            value = node.value
            if not any(name in target_names(t.target) for t in node.targets):
                return
            first = value.args[0].value if isinstance(value, cst.Call) and value.args else None
            growing = isinstance(value, cst.Call) and names.qualified(value.func) in GROWING_FUNCTIONS
            alone = len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name)
            if alone and growing and first is not None and _holds_name(first, name):
                found.append(node)
            elif len(node.targets) == 1 and isinstance(value, cst.Call) and _grown_there(node.targets[0].target, value):
                found.append(node)
            else:
                reset = True

        def visit_Call(self, node: cst.Call) -> None:
            nonlocal reset
            func = node.func
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == name:
                if func.attr.value in ("append", "extend"):
                    found.append(node)
                elif func.attr.value in _SHRINKING_METHODS:
                    reset = True

        def _binds(self, target: cst.BaseExpression | None) -> None:
            nonlocal reset
            if target is not None and name in target_names(target):
                reset = True

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            self._binds(node.target)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            self._binds(node.target)

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            self._binds(node.target)

        def visit_For(self, node: cst.For) -> None:
            self._binds(node.target)

        def visit_WithItem(self, node: cst.WithItem) -> None:
            self._binds(node.asname.name if node.asname is not None else None)

        def visit_Del(self, node: cst.Del) -> None:
            nonlocal reset
            target = node.target
            reset = reset or name in mentioned_names(target)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

    def _grown_there(target: cst.BaseExpression, call: cst.Call) -> bool:
        """Whether `name` is bound (alone, or as an item of a tuple) to what `call` returns grown from it."""
        place: int | None = None
        if isinstance(target, (cst.Tuple, cst.List)):
            if any(isinstance(element, cst.StarredElement) for element in target.elements):
                return False
            place = next((i for i, e in enumerate(target.elements) if _is_name(e.value, name)), None)
            if place is None:
                return False
        elif not _is_name(target, name):
            return False
        return grown_by(call).get(place) == name

    if isinstance(loop, (cst.For, cst.While)):
        loop.body.visit(_Growth())
    return found[0] if len(found) == 1 and not reset else None


def _is_name(expr: cst.BaseExpression, name: str) -> bool:
    return isinstance(expr, cst.Name) and expr.value == name


def _grown_returns(function: cst.FunctionDef, names) -> dict[int | None, str]:
    """The places of what a def returns that hold one of its parameters made longer, on its one `return` (its last
    statement), by a growing call its body makes at its top level (`x = jnp.concatenate([x, token], axis=1)` then
    `return x, key`: `{0: "x"}`; None for the whole value). The parameter keeps what the caller gave until then."""
    body = list(statements(function.body))
    params = set(parameter_names(function.params))
    skip = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
    if not body or type(body[-1]) is not cst.Return:
        return {}
    if sum(type(node) is cst.Return for node, _ in in_order(function.body, skip=skip)) != 1:
        return {}
    bindings: dict[str, int] = {}
    for name in _bound_names(function.body):
        bindings[name] = bindings.get(name, 0) + 1
    grown: dict[str, str] = {}
    for statement in body:
        if type(statement) is not cst.Assign or len(statement.targets) != 1:
            continue
        target, value = statement.targets[0].target, statement.value
        if type(target) is not cst.Name or bindings.get(target.value) != 1 or type(value) is not cst.Call:
            continue
        first = value.args[0].value if value.args else None
        if names.qualified(value.func) not in GROWING_FUNCTIONS or first is None:
            continue
        held = [param for param in params if _holds_name(first, param)]
        if len(held) == 1 and (held[0] == target.value or held[0] not in bindings):
            grown[target.value] = held[0]
    returned = body[-1].value
    if isinstance(returned, cst.Name):
        return {None: grown[returned.value]} if returned.value in grown else {}
    if isinstance(returned, cst.Tuple):
        return {
            i: grown[e.value.value]
            for i, e in enumerate(returned.elements)
            if isinstance(e.value, cst.Name) and e.value.value in grown
        }
    return {}


def _bound_names(body: cst.CSTNode) -> list[str]:
    """Every binding of a name in a function's body (not its nested defs), one entry per binding."""
    found: list[str] = []
    for node, _ in in_order(body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        kind = type(node)
        if kind is cst.AssignTarget or kind is cst.AugAssign or kind is cst.AnnAssign or kind is cst.For:
            found.extend(target_names(node.target))
        elif kind is cst.NamedExpr:
            found.extend(target_names(node.target))
        elif kind is cst.WithItem and node.asname is not None:
            found.extend(target_names(node.asname.name))
        elif kind is cst.CompFor:
            found.extend(target_names(node.target))
    return found


def _holds_name(expr: cst.BaseExpression, name: str) -> bool:
    """`name` itself, or a list or tuple display holding it (`[buf, row]`)."""
    if isinstance(expr, cst.Name):
        return expr.value == name
    return isinstance(expr, (cst.List, cst.Tuple)) and any(_holds_name(e.value, name) for e in expr.elements)


class ShapeChangesInLoop(LoopRule):
    code = "JAX511"
    name = "shape-changes-in-loop"
    summary = "An array whose shape changes in every iteration, passed to a jitted function in the loop"
    what_it_does = (
        "Flags an argument of a call of a jitted callable in a `for` or `while` loop (outside any trace) when the "
        "loop visibly gives it a new shape every iteration: a name the loop body rebinds to "
        "`jnp.concatenate([name, ...])`, `jnp.append(name, ...)`, `jnp.vstack`/`jnp.hstack` (NumPy's too), or to "
        "what a def of the module returns grown so from the `name` it is given (`x, key = sample_next(x, key)` of a "
        "jitted `sample_next` whose body ends `x = jnp.concatenate([x, token], axis=1); return x, key`); "
        "a list the loop body appends to, or `jnp.array(history)`/`jnp.stack(history)` of one; and `x[:i]` or `x[i:]` "
        "where `i` is the loop's target. It stays silent where the code does not show the shape change (a "
        "slice of fixed length `x[i:i + n]`, arrays from elsewhere)."
    )
    why_bad = (
        "jit compiles for the shapes of its arguments: an argument with a new shape is a new key of its "
        "compilation cache, so every iteration traces and compiles again (measured with jax 0.10.2: three "
        "iterations growing a buffer by `jnp.concatenate`, three compilations). Compilation usually costs far "
        "more than the step, and the cost grows with the loop. See "
        "[JIT and caching](https://docs.jax.dev/en/latest/jit-compilation.html#jit-and-caching)."
    )
    example = (
        "import jax\n"
        "import jax.numpy as jnp\n\n\n"
        "@jax.jit\n"
        "def total(xs):\n"
        "    return jnp.sum(xs)\n\n\n"
        "def running_totals(values):\n"
        "    seen = jnp.zeros((0,))\n"
        "    totals = []\n"
        "    for v in values:\n"
        "        seen = jnp.append(seen, v)\n"
        "        totals.append(total(seen))\n"
        "    return totals\n"
    )
    use_instead = (
        "import jax\n"
        "import jax.numpy as jnp\n\n\n"
        "@jax.jit\n"
        "def total(xs, count):\n"
        "    return jnp.sum(jnp.where(jnp.arange(xs.shape[0]) < count, xs, 0.0))\n\n\n"
        "def running_totals(values):\n"
        "    seen = jnp.zeros((len(values),))  # one shape: one compilation\n"
        "    totals = []\n"
        "    for i, v in enumerate(values):\n"
        "        seen = seen.at[i].set(v)\n"
        "        totals.append(total(seen, i + 1))\n"
        "    return totals\n"
    )
    not_flagged = (
        "Arguments in static positions (JAX510's concern); calls inside a traced function; a buffer grown in the "
        "loop but passed to the jitted function after it; slices of a fixed length (`data[i:i + batch]`, whose "
        "last batch may be shorter: jaxlint cannot see the length of `data`); comprehensions."
    )
    verify = compile_count_confirms(
        "five times",
        "an argument's shape or dtype changed",
        "or a script under `--verify=run` (shape changes in a test suite are not counted)",
    )
    follows_calls = False

    def __init__(self, facts, reporter) -> None:
        super().__init__(facts, reporter)
        self._grown: dict[int, dict[int | None, str]] = {}  # of each def a loop calls: _grown_returns

    def visit_Call(self, node: cst.Call) -> None:
        super().visit_Call(node)
        loop = self.loop
        if loop is None or self.facts.traced_scope is not None or self.facts.in_test_file:
            return
        found = self.jitted_arguments(node)
        if found is None:
            return
        for argument in found[1]:
            if argument.static:
                continue
            change = self._changing(loop, argument.expr)
            if change is not None:
                self.report(
                    argument.expr,
                    (
                        f"`{code(argument.expr)}` {change}, and is passed to the jitted `{code(node.func)}` in "
                        f"every iteration: each new shape is a new key of jax's compilation cache, so every "
                        f"call traces and compiles again; give it one shape (a buffer of the final size, filled "
                        f"with `.at[i].set(...)`, and a mask or count)"
                    ),
                )

    def _changing(self, loop: cst.CSTNode, expr: cst.BaseExpression) -> str | None:
        """How `expr` visibly gets a new shape every iteration of `loop`, or None."""
        if isinstance(expr, cst.Name):
            grown = _grows(loop, expr.value, self.names, self._grown_by)
            if grown is not None:
                return f"grows in every iteration of this loop (`{code(grown, 60)}`)"
        if isinstance(expr, cst.Call) and self.names.qualified(expr.func) in LIST_TO_ARRAY and expr.args:
            listed = expr.args[0].value
            grown = _grows(loop, listed.value, self.names, self._grown_by) if isinstance(listed, cst.Name) else None
            if isinstance(grown, cst.Call):
                return f"is made from `{code(listed)}`, which `{code(grown, 60)}` makes longer in every iteration"
        if isinstance(expr, cst.Subscript) and len(expr.slice) == 1:
            part = expr.slice[0].slice
            if isinstance(part, cst.Slice) and part.step is None and (part.lower is None) != (part.upper is None):
                bound = part.lower or part.upper
                if bound is not None and self._loop_target_alone(loop, bound):
                    return f"is sliced by the loop's target (`{code(bound)}`), so its length changes every iteration"
        return None

    def _grown_returns(self, function: cst.FunctionDef) -> dict[int | None, str]:
        """`_grown_returns` of a def, found once for every loop that calls it."""
        if id(function) not in self._grown:
            self._grown[id(function)] = _grown_returns(function, self.names)
        return self._grown[id(function)]

    def _grown_by(self, call: cst.Call) -> dict[int | None, str]:
        """What a call of a def of this module (jitted or not) gives back grown, by place of its return: the name
        of the argument the call gives the parameter grown there (`_grown_returns`)."""
        jitted = self.facts.jitted(call)
        function = jitted.function if jitted is not None else self.facts.called_def(call)
        bound = jitted.bound + jitted.offset if jitted is not None else 0
        if type(function) is not cst.FunctionDef or (jitted is None and type(call.func) is not cst.Name):
            return {}
        given = arguments_given(function, bound, call) or {}
        return {
            place: value.value
            for place, param in self._grown_returns(function).items()
            if isinstance(value := given.get(param), cst.Name)
        }

    def _loop_target_alone(self, loop: cst.CSTNode, bound: cst.BaseExpression) -> bool:
        """`bound` is the target of a `for` loop over `range(...)` (`for i in range(n)`)."""
        if not (isinstance(loop, cst.For) and isinstance(loop.target, cst.Name) and isinstance(bound, cst.Name)):
            return False
        iterated = loop.iter
        is_range = isinstance(iterated, cst.Call) and self.builtin(iterated.func, frozenset({"range"})) is not None
        return is_range and bound.value == loop.target.value
