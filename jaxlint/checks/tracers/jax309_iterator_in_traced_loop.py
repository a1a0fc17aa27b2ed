"""JAX309 iterator-in-traced-loop: `next(it)` in a `lax` loop body, or an iterator passed as a `lax` operand."""

from __future__ import annotations

import libcst as cst

from jaxlint.checks.base import Rule, code
from jaxlint.model.transforms import LAX_OPERANDS, LOOP_BODIES


_ITERATOR_BUILTINS = frozenset({"iter", "zip", "map", "filter", "enumerate", "reversed"})


class IteratorInTracedLoop(Rule):
    code = "JAX309"
    name = "iterator-in-traced-loop"
    summary = "`next(it)` in a `lax` loop body, or an iterator passed as a `lax` operand"
    what_it_does = (
        "Flags `next(it)` inside the body of `lax.fori_loop`, `lax.while_loop`, `lax.scan` or `lax.map` "
        "when `it` lives outside the body (a global or a variable of an enclosing function), and an "
        "iterator or generator (`iter(...)`, `zip(...)`, `map(...)`, `enumerate(...)`, a generator "
        "expression, or a name bound once, to one) passed as an operand of `lax.scan`, `lax.cond`, "
        "`lax.switch`, `lax.fori_loop`, `lax.while_loop` or `lax.map`."
    )
    why_bad = (
        "JAX calls a loop body once, to trace it, and compiles what it traced: `next(it)` runs once and its "
        "value is baked into every iteration, and the iterator advances by one item whatever the trip count "
        "(jax 0.10.2: a `fori_loop` of 5 iterations adding `next(it)` adds the first item 5 times). No error "
        "is raised. An iterator given as an operand is not a pytree of arrays: JAX raises `TypeError: "
        "Argument '<generator object ...>' of type <class 'generator'> is not a valid JAX type`."
    )
    example = (
        "batches = iter(dataset)\n\n\n"
        "def body(i, params):\n"
        "    batch = next(batches)\n"
        "    return params - 0.1 * jax.grad(loss)(params, batch)\n\n\n"
        "def train(params, steps):\n"
        "    return lax.fori_loop(0, steps, body, params)\n"
    )
    use_instead = (
        "def body(params, batch):\n"
        "    return params - 0.1 * jax.grad(loss)(params, batch), None\n\n\n"
        "def train(params, dataset, steps):\n"
        "    batches = jnp.stack([batch for _, batch in zip(range(steps), dataset)])\n"
        "    params, _ = lax.scan(body, params, batches)\n"
        "    return params\n"
    )
    not_flagged = (
        "`next` on an iterator created inside the body (it is created again at every trace); `next(it)` in "
        "a Python `for` loop of a jitted function, which runs once per unrolled iteration; iterators "
        "consumed outside `lax` calls (`jnp.stack(list(it))`); names bound more than once, or to "
        "something other than an iterator."
    )
    verify = (
        "`--verify` traces the function and expects the `TypeError` at an iterator operand; `next` in a "
        "loop body raises nothing, and is not confirmed."
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.builtin(node.func, {"next"}) is not None:
            self._check_next(node)
            return
        spec = LAX_OPERANDS.get(self.names.qualified(node.func) or "")
        if spec is None:
            return
        positions, words, rest = spec
        for index, arg in enumerate(node.args):
            if arg.star:
                return
            keyword = arg.keyword.value if arg.keyword is not None else None
            operand = keyword in words if keyword else (index in positions or (rest is not None and index >= rest))
            if operand and self._is_iterator(arg.value):
                self.report(
                    arg,
                    lambda line_of, arg=arg: (  # type: ignore[misc]  # mypy cannot infer a lambda whose extra parameters have defaults
                        f"`{code(node.func)}` gets an iterator as an operand and raises TypeError (not a valid JAX "
                        f"type): `{code(arg.value)}` is an iterator; pass arrays (`jnp.stack(list(...))`)"
                    ),
                )
                return

    def _check_next(self, node: cst.Call) -> None:
        scope = self.facts.traced_scope
        if scope is None or not node.args or not isinstance(node.args[0].value, cst.Name):
            return
        loop = next((t for t in scope.transforms if t.name in LOOP_BODIES), None)
        name = node.args[0].value.value
        if loop is None or not self.facts.outlives_trace(name):
            return
        self.report(
            node,
            lambda line_of: (
                f"`next({name})` in the body of `{loop.name}` ({loop.where(line_of)}) runs once, while JAX "
                f"traces the body: every iteration uses the same item and `{name}` advances once; pass the data "
                f"as arrays (stack it and give it to `lax.scan` as `xs`)"
            ),
        )

    def _is_iterator(self, expr: cst.BaseExpression) -> bool:
        """An iterator expression, or a name bound once, to one."""
        if isinstance(expr, cst.GeneratorExp):
            return True
        if isinstance(expr, cst.Call):
            return self.builtin(expr.func, _ITERATOR_BUILTINS) is not None
        bound = self.facts.binding(expr) if isinstance(expr, cst.Name) else None
        return bound is not None and isinstance(bound[0], cst.BaseExpression) and self._is_iterator(bound[0])
