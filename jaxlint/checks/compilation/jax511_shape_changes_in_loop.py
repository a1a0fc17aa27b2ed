"""JAX511 shape-changes-in-loop: an array whose shape visibly changes in every iteration, passed to a jitted
function in the loop."""

from __future__ import annotations

import libcst as cst

from jaxlint.checks.base import LoopRule, code
from jaxlint.analysis.bindings import mentioned_names, target_names
from jaxlint.checks.compilation._common import compile_count_confirms
from jaxlint.model.functions import GROWING_FUNCTIONS, LIST_TO_ARRAY


# ---------------------------------------------------------------------- JAX511

_SHRINKING_METHODS = frozenset({"clear", "pop", "remove"})  # list methods that take items away again


def _grows(loop: cst.CSTNode, name: str, names) -> cst.CSTNode | None:
    """The statement of the loop's body that makes `name` longer every iteration: `name = jnp.concatenate([name,
    ...])` (or `jnp.append(name, ...)`), or `name.append(...)` on a list; None when there is none, or when the
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

    if isinstance(loop, (cst.For, cst.While)):
        loop.body.visit(_Growth())
    return found[0] if len(found) == 1 and not reset else None


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
        "`jnp.concatenate([name, ...])`, `jnp.append(name, ...)`, `jnp.vstack`/`jnp.hstack` (NumPy's too); "
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
            grown = _grows(loop, expr.value, self.names)
            if grown is not None:
                return f"grows in every iteration of this loop (`{code(grown, 60)}`)"
        if isinstance(expr, cst.Call) and self.names.qualified(expr.func) in LIST_TO_ARRAY and expr.args:
            listed = expr.args[0].value
            grown = _grows(loop, listed.value, self.names) if isinstance(listed, cst.Name) else None
            if isinstance(grown, cst.Call):
                return f"is made from `{code(listed)}`, which `{code(grown, 60)}` makes longer in every iteration"
        if isinstance(expr, cst.Subscript) and len(expr.slice) == 1:
            part = expr.slice[0].slice
            if isinstance(part, cst.Slice) and part.step is None and (part.lower is None) != (part.upper is None):
                bound = part.lower or part.upper
                if bound is not None and self._loop_target_alone(loop, bound):
                    return f"is sliced by the loop's target (`{code(bound)}`), so its length changes every iteration"
        return None

    def _loop_target_alone(self, loop: cst.CSTNode, bound: cst.BaseExpression) -> bool:
        """`bound` is the target of a `for` loop over `range(...)` (`for i in range(n)`)."""
        if not (isinstance(loop, cst.For) and isinstance(loop.target, cst.Name) and isinstance(bound, cst.Name)):
            return False
        iterated = loop.iter
        is_range = isinstance(iterated, cst.Call) and self.builtin(iterated.func, frozenset({"range"})) is not None
        return is_range and bound.value == loop.target.value
