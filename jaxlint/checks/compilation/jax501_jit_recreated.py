"""JAX501 jit-recreated: `jax.jit` of a fresh callable (lambda, partial, nested def, bound method) made and called in a
loop."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from jaxlint.checks.base import CalleeRule, code
from jaxlint.model.transforms import CACHED_BY_FUNCTION


# ---------------------------------------------------------------------- JAX501

_CACHES = frozenset({"functools.cache", "functools.lru_cache"})


@dataclass
class _ScopeJits:
    """One function (or the module) being visited: its loops, and the jitted names made in each."""

    node: cst.CSTNode
    loops: list[dict[str, cst.Call]]  # per enclosing loop: name -> the fresh jit bound to it there
    local: dict[str, cst.Call]  # the same outside any loop
    defs_in_loops: set[int]  # ids of defs made inside a loop of this function


def _assigned_names(node: cst.CSTNode) -> set[str]:
    """The names an assignment binds anywhere inside `node` (functions and classes inside it excepted)."""
    found: set[str] = set()

    class _Names(cst.CSTVisitor):
        def visit_AssignTarget(self, target: cst.AssignTarget) -> None:
            if isinstance(target.target, cst.Name):
                found.add(target.target.value)

        def visit_FunctionDef(self, _: cst.FunctionDef) -> bool:
            return False

        def visit_ClassDef(self, _: cst.ClassDef) -> bool:
            return False

    node.visit(_Names())
    return found


class JitRecreated(CalleeRule):
    code = "JAX501"
    name = "jit-recreated"
    summary = "`jax.jit` of a fresh callable (lambda, partial, nested def, bound method) made and called in a loop"
    what_it_does = (
        "Flags `jax.jit(f)` (also `pjit`, `pmap`, `equinox.filter_jit`) where `f` is a new object each time the "
        "expression runs (a "
        "`lambda`, a `functools.partial(...)`, a def made in the same loop body, or `self.method`, a bound "
        "method) and the jitted callable is called in the same place: directly (`jax.jit(lambda x: ...)(x)`), or "
        "through a name bound to it and called in the same loop body. It flags this inside a loop (`for`, "
        "`while`, a comprehension), and in a function body when that function is itself called in a loop in the "
        "same module."
    )
    why_bad = (
        "jax caches compiled code by the identity of the wrapped function. A new lambda, partial, nested def or "
        "bound method is a new key, so every iteration traces and compiles again, silently: measured with jax "
        "0.10.2 and `jax_log_compiles`, three iterations of `jax.jit(lambda v: v * 3)(x)` (likewise a `partial`, "
        "a nested def or `jax.jit(obj.method)`) compile three times, while `jax.jit(g)(x)` with a module-level "
        "`g` compiles once; `equinox.filter_jit` 0.13.8 behaves the same. Compilation usually costs far more "
        "than the step itself. See "
        "[JIT and caching](https://docs.jax.dev/en/latest/jit-compilation.html#jit-and-caching)."
    )
    example = (
        "import jax\n"
        "import jax.numpy as jnp\n\n\n"
        "def evaluate(params, batches):\n"
        "    losses = []\n"
        "    for x, y in batches:\n"
        "        loss = jax.jit(lambda p: jnp.mean((x @ p - y) ** 2))(params)\n"
        "        losses.append(loss)\n"
        "    return losses\n"
    )
    use_instead = (
        "import jax\n"
        "import jax.numpy as jnp\n\n\n"
        "@jax.jit\n"
        "def mse(params, x, y):\n"
        "    return jnp.mean((x @ params - y) ** 2)\n\n\n"
        "def evaluate(params, batches):\n"
        "    return [mse(params, x, y) for x, y in batches]\n"
    )
    not_flagged = (
        "`jax.jit(f)` of a module-level function or of a def made outside the loop (the same object each time: "
        "one compilation); a jitted callable created once and stored (`self.step = jax.jit(self._step)` in "
        "`__init__`, a module-level `step = jax.jit(...)`) or returned by a factory; functions decorated with "
        "`functools.cache`/`lru_cache`; a jit rebuilt in a loop only when an `if` asks for it and called outside "
        "that `if` (`if need_compile: step = jax.jit(partial(update, n=n))` then `x = step(x)`: the iterations "
        "that skip the `if` reuse the last one); `jax.jit` inside a function that is itself traced (it is inlined into "
        "the outer trace); function bodies whose function is not visibly called in a loop; "
        "`flax.nnx.jit`, whose cache jaxlint has not checked."
    )
    verify = (
        "`--verify` counts every compile of a jitted function at the line that calls it, with jax's reason "
        "(`jax_explain_cache_misses`), and confirms when the function at this line is compiled at every call of "
        "one line, three times or more, because it is a new function object each time. The loop must run: module-level "
        "code under `--verify`, a script or the tests under `--verify=run`."
    )

    def visit_Module(self, node: cst.Module) -> None:
        self._frames = [_ScopeJits(node, [], {}, set())]
        self._per_call: list[tuple[cst.Call, int, str]] = []  # (the jit, id of its function, what it wraps)
        self._called_in_loops: set[int] = set()  # ids of defs called inside some loop
        self._reported: set[int] = set()
        self._named_uses: dict[int, list] = {}  # a jit bound to a name in a loop: [the jit, loop depth, calls]
        self._branches: list[tuple[cst.If, bool]] = []  # the `if` arms around the walk (True: the body)
        self._bound_in: dict[int, tuple[tuple[cst.If, bool], ...]] = {}  # a jit bound to a name: the arms around

    def visit_If_body(self, node: cst.If) -> None:
        self._branches.append((node, True))

    def visit_If_orelse(self, node: cst.If) -> None:
        self._branches.append((node, False))

    def leave_If_body(self, node: cst.If) -> None:
        self._branches.pop()

    leave_If_orelse = leave_If_body

    def _maybe_skipped(self, jit: cst.Call, name: str) -> bool:
        """Whether an iteration can reach this call of `name` without rebinding it: the jit is bound in an arm
        of an `if` that does not hold the call, and the other arm does not bind the name
        (`if need_compile: step = jax.jit(partial(update, n=n))` ... `x = step(x)`). Then the call runs the jit
        an earlier iteration made, and the code rebuilds it only when its condition asks for it."""
        bound = self._bound_in.get(id(jit), ())
        here = tuple(self._branches)
        for position, (branch, arm) in enumerate(bound):
            if position < len(here) and here[position] == (branch, arm):
                continue
            other = branch.body if not arm else branch.orelse
            return other is None or name not in _assigned_names(other)
        return False

    def _enter(self, node: cst.CSTNode) -> None:
        self._frames.append(_ScopeJits(node, [], {}, set()))

    def _leave(self, node: cst.CSTNode) -> None:
        self._frames.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        frame = self._frames[-1]
        if frame.loops:
            frame.defs_in_loops.add(id(node))

    def visit_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        self._enter(node)

    def leave_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        self._leave(node)

    visit_Lambda_body, leave_Lambda_body = visit_FunctionDef_body, leave_FunctionDef_body

    def _enter_loop(self, node: cst.CSTNode) -> None:
        self._frames[-1].loops.append({})

    def _leave_loop(self, node: cst.CSTNode) -> None:
        """A jit bound to a name in this loop and called once per iteration is a new compile each time;
        one called again in the same iteration (a warm-up, then timed runs) is compiled once per setting,
        as a jit closing over the iteration's values must be."""
        depth = len(self._frames[-1].loops)
        for key, (jit, bound_depth, calls) in list(self._named_uses.items()):
            if bound_depth != depth:
                continue
            del self._named_uses[key]
            what = self._fresh(jit) if calls == 1 and key not in self._reported else None
            if what is not None:
                self._reported.add(key)
                self._report_in_loop(jit, what)
        self._frames[-1].loops.pop()

    def _report_in_loop(self, jit: cst.Call, what: str) -> None:
        self.report(
            jit,
            (
                f"`{self.names.qualified(jit.func) or 'jax.jit'}` of {what} is created and called in every "
                f"iteration of this loop: each new callable misses jax's compilation cache, so it is traced "
                f"and compiled again every time; create the jitted function once, outside the loop"
            ),
        )

    visit_For_body = visit_While_body = _enter_loop
    leave_For_body = leave_While_body = _leave_loop
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _enter_loop
    leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = _leave_loop

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        if isinstance(node.value, cst.Call) and self._fresh(node.value) is not None:
            frame = self._frames[-1]
            (frame.loops[-1] if frame.loops else frame.local)[node.targets[0].target.value] = node.value
            self._bound_in[id(node.value)] = tuple(self._branches)

    def visit_Call(self, node: cst.Call) -> None:
        frame = self._frames[-1]
        if frame.loops:
            callee = self.facts.binding(node.func)
            if callee is not None and isinstance(callee[0], cst.FunctionDef):
                self._called_in_loops.add(id(callee[0]))
        if self.facts.traced_scope is not None or self.facts.in_test_file:
            return  # tests build a fresh jit per case on purpose
        jit = node.func if isinstance(node.func, cst.Call) else None
        if jit is None and isinstance(node.func, cst.Name) and frame.loops:
            bound = next(
                (
                    (loop[node.func.value], depth)
                    for depth, loop in reversed(list(enumerate(frame.loops, 1)))
                    if node.func.value in loop
                ),
                None,
            )
            if bound is not None:  # judged when its loop ends: called again in the iteration, it is reused
                uses = self._named_uses.setdefault(id(bound[0]), [bound[0], bound[1], 0])
                reused = len(frame.loops) != bound[1] or self._maybe_skipped(bound[0], node.func.value)
                uses[2] += 2 if reused else 1
            return
        if jit is None and isinstance(node.func, cst.Name):
            jit = frame.local.get(node.func.value)
        what = self._fresh(jit) if jit is not None and id(jit) not in self._reported else None
        if what is None or jit is None:
            return
        self._reported.add(id(jit))
        if frame.loops:
            self._report_in_loop(jit, what)
        elif isinstance(frame.node, cst.FunctionDef) and not self._cached(frame.node):
            self._per_call.append((jit, id(frame.node), what))

    def leave_Module(self, node: cst.Module) -> None:
        for jit, function, what in self._per_call:
            if function in self._called_in_loops:
                self.report(
                    jit,
                    (
                        f"`{self.names.qualified(jit.func) or 'jax.jit'}` of {what} is created and called on every "
                        f"call of this function, which is called in a loop: each new callable misses jax's "
                        f"compilation cache, so every call traces and compiles again; create the jitted function "
                        f"once (at module level, or in `__init__`)"
                    ),
                )

    def _cached(self, function: cst.FunctionDef) -> bool:
        for decorator in function.decorators:
            expr = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
            if self.names.qualified(expr) in _CACHES:
                return True
        return False

    def _fresh(self, jit: cst.Call) -> str | None:
        """What fresh callable a jit call wraps ("a lambda"...), or None when it is not one."""
        if self.names.qualified(jit.func) not in CACHED_BY_FUNCTION or not jit.args:
            return None
        first = jit.args[0]
        if first.keyword is not None or first.star:
            return None
        wrapped = first.value
        if isinstance(wrapped, cst.Lambda):
            return "a lambda"
        if isinstance(wrapped, cst.Call) and self.names.qualified(wrapped.func) == "functools.partial":
            return "a `functools.partial`"
        found = self.facts.binding(wrapped, want_def=True)
        if found is None:
            return None
        function, _, through_self = found
        if not isinstance(function, cst.FunctionDef):
            return None
        if through_self:
            return f"the bound method `{code(wrapped)}`"
        frame = self._frames[-1]
        if frame.loops:
            return f"the def `{function.name.value}` made in the loop" if id(function) in frame.defs_in_loops else None
        if found[1][-1] is frame.node and isinstance(frame.node, cst.FunctionDef):
            return f"the nested def `{function.name.value}`"
        return None
