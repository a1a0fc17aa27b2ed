"""JAX510 static-arg-recreated: a static argument that is a new object on every call, so every call compiles."""

from __future__ import annotations

from typing import Callable

import libcst as cst

from jaxlint.analysis.repetition import Repeat
from jaxlint.checks.base import LoopRule, code
from jaxlint.checks.compilation._common import (
    compile_count_confirms,
    reads,
    returns,
    static_arguments,
    static_position,
)
from jaxlint.model.functions import OPTIMIZER_FACTORIES
from jaxlint.model.transforms import PARTIAL


# ---------------------------------------------------------------------- JAX510


def _hashed_by_identity(cls: cst.ClassDef) -> bool:
    """A plain class (no base, decorator or metaclass) that defines neither `__hash__` nor `__eq__`: its
    instances hash by identity, so a new one is equal to no other."""
    if cls.bases or cls.keywords or cls.decorators:
        return False
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    return not any(
        isinstance(statement, cst.FunctionDef) and statement.name.value in ("__hash__", "__eq__") for statement in body
    )


def _rebinds_from_itself(loop: cst.CSTNode, name: str) -> bool:
    """Whether the loop's body updates `name` from its own value (`lr *= 0.9`, `lr = lr * decay`)."""
    found = False

    class _Updates(cst.CSTVisitor):
        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            nonlocal found
            found = found or (isinstance(node.target, cst.Name) and node.target.value == name)

        def visit_Assign(self, node: cst.Assign) -> None:
            nonlocal found
            targets = [t.target for t in node.targets]
            if any(isinstance(t, cst.Name) and t.value == name for t in targets) and reads(node.value, name) > 0:
                found = True

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

    body = loop.body if isinstance(loop, (cst.For, cst.While)) else None
    if body is not None:
        body.visit(_Updates())
    return found


_UPDATE = (
    "import jax\n"
    "import optax\n"
    "from functools import partial\n\n\n"
    '@partial(jax.jit, static_argnames="optimizer")\n'
    "def update(params, grads, state, optimizer):\n"
    "    updates, state = optimizer.update(grads, state)\n"
    "    return optax.apply_updates(params, updates), state\n\n\n"
)


class StaticArgRecreated(LoopRule):
    code = "JAX510"
    name = "static-arg-recreated"
    summary = "A static argument that is a new object on every call: every call compiles again"
    what_it_does = (
        "Flags an argument in a `static_argnums`/`static_argnames` position of a jitted callable when the call "
        "runs again and again (in a loop, or in a function that a loop runs: of this module, directly or through "
        "other functions, or of another module of the project) and the argument is made anew each time: a `lambda` or `functools.partial(...)`, an "
        "instance of a plain class of the module that defines neither `__hash__` nor `__eq__`, an optax "
        "optimizer (`optax.adam(lr)`, a `GradientTransformation`), a call of a function of the module that "
        "returns one of those, or a name bound to one of those in the same loop body (in the same function); "
        "and a Python float the loop updates from itself (`lr *= 0.9`). The message names the loop and, for a "
        "call in a function, the chain of calls that runs it."
    )
    why_bad = (
        "jax looks a static argument up in its compilation cache by hash and equality. A lambda, a partial, an "
        "instance of a class without `__eq__` and an optax `GradientTransformation` (a NamedTuple of closures "
        "made by each `optax.adam(...)` call) hash and compare by identity, so a new one is a new cache key: "
        "measured with jax 0.10.2, three calls with `optax.adam(1e-3)`, `Config(2.0)` or `partial(f, k=2)` "
        "built per call compile three times, as do three calls with a float that the loop decays. Compilation "
        "usually costs far more than the step. See `static_argnums` in "
        "[`jax.jit`](https://docs.jax.dev/en/latest/_autosummary/jax.jit.html)."
    )
    example = _UPDATE + (
        "def fit(params, state, batches, grad_fn):\n"
        "    for batch in batches:\n"
        "        params, state = update(params, grad_fn(params, batch), state, optax.adam(1e-3))\n"
        "    return params\n"
    )
    use_instead = _UPDATE + (
        "def fit(params, state, batches, grad_fn):\n"
        "    optimizer = optax.adam(1e-3)  # one object: one compilation\n"
        "    for batch in batches:\n"
        "        params, state = update(params, grad_fn(params, batch), state, optimizer)\n"
        "    return params\n"
    )
    not_flagged = (
        "A static argument made once, outside the loop (or outside the function the loop calls); tuples, "
        "strings, numbers that stay the same, frozen dataclasses, NamedTuples of such values and classes with "
        "`__hash__`/`__eq__` (equal values hit the cache); a float set from the loop's own target (`for lr in "
        "rates`: one compilation per rate, as a sweep asks for); calls inside a traced function (they run once, "
        "while it is traced); instances of classes with bases or decorators, whose hashing jaxlint does not know."
    )
    verify = compile_count_confirms("three times", "a static argument changed")

    def visit_Module(self, node: cst.Module) -> None:
        super().visit_Module(node)
        self._per_call: list[tuple[cst.BaseExpression, cst.FunctionDef, str]] = []  # (argument, its def, subject)

    def visit_Call(self, node: cst.Call) -> None:
        super().visit_Call(node)
        if self.facts.traced_scope is not None or self.facts.in_test_file:
            return
        for callee, argument in static_arguments(self.jitted_arguments(node)):
            what = self._new_each_call(argument.expr)
            if what is None:
                continue
            subject = f"`{code(argument.expr)}` ({what}) is passed as {static_position(callee, argument, node)}"
            if self.loop is not None:
                self.report(argument.expr, self._message(subject, None))
            elif isinstance(self.holder, cst.FunctionDef) and not self.cached(self.holder):
                self._per_call.append((argument.expr, self.holder, subject))

    def leave_Module(self, node: cst.Module) -> None:
        for expr, function, subject in self._per_call:
            repeat = self.repeat(function)
            if repeat is not None:
                self.report(expr, self._message(subject, repeat))

    @staticmethod
    def _message(subject: str, repeat: Repeat | None) -> Callable[[Callable[[cst.CSTNode], int]], str]:
        def message(line_of: Callable[[cst.CSTNode], int]) -> str:
            where = (
                "in every iteration of this loop"
                if repeat is None
                else f"on every call of `{repeat.function.name.value}`, which runs in {repeat.describe(line_of)}"
            )
            return (
                f"{subject} {where}: each new value is a new key of jax's compilation cache (static arguments are "
                f"looked up by hash and equality), so every call traces and compiles again; make it once, outside "
                f"the loop, or pass it as a traced argument"
            )

        return message

    def _new_each_call(self, expr: cst.BaseExpression, depth: int = 0) -> str | None:
        """What new object `expr` makes each time it runs ("a lambda"...), or None when it is not visibly one."""
        if isinstance(expr, cst.Lambda):
            return "a lambda"
        if isinstance(expr, cst.Name):
            if self.loop is not None and self.facts.value_of(expr).number == "float":
                if _rebinds_from_itself(self.loop, expr.value):
                    return "a float the loop changes on every iteration"
            bound = self.made_here(expr)
            return self._new_each_call(bound, depth + 1) if depth == 0 and bound is not None else None
        if not isinstance(expr, cst.Call):
            return None
        qualified = self.names.qualified(expr.func)
        if qualified in PARTIAL:
            return "a new `functools.partial`"
        if qualified in OPTIMIZER_FACTORIES:
            return f"a new `{qualified}` `GradientTransformation`, a NamedTuple of new closures"
        instance = self.facts.value_of(expr).instance
        if isinstance(instance, cst.ClassDef) and _hashed_by_identity(instance):
            return f"a new `{instance.name.value}`, hashed by identity: it defines no `__hash__` or `__eq__`"
        function = self.facts.called_def(expr)
        if depth < 2 and function is not None and instance is None:
            returned = [r.value for r in returns(function)]
            kinds = [self._new_each_call(value, 2) if value is not None else None for value in returned]
            if kinds and all(kinds):
                return f"`{function.name.value}` returns {kinds[0]}"
        return None
