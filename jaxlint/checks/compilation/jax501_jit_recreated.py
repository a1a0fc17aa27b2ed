"""JAX501 jit-recreated: `jax.jit` of a fresh callable (lambda, partial, nested def, bound method) made and called in a
loop."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, cast

import libcst as cst

from jaxlint.analysis.bindings import target_names
from jaxlint.analysis.callees import VMAPS
from jaxlint.analysis.repetition import Repeat
from jaxlint.checks.base import LoopRule, code
from jaxlint.analysis.bindings import method_of
from jaxlint.checks.compilation._common import compile_count_confirms, reads
from jaxlint.traversal import children
from jaxlint.model.transforms import CACHED_BY_FUNCTION, JAX_JIT, NEW_FUNCTION_PER_CALL, PARTIAL


# ---------------------------------------------------------------------- JAX501


@dataclass
class _ScopeJits:
    """One function (or the module) being visited: its loops, and the jitted names made in each."""

    node: cst.CSTNode
    loops: list[dict[str, Jit]]  # per enclosing loop: name -> the fresh jit bound to it there
    local: dict[str, Jit]  # the same outside any loop
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


# A jit: `jax.jit(f)`, or the decorator of a nested `@jax.jit def f`.
Jit = cst.Call | cst.Decorator


def _options(jit: Jit) -> list[cst.BaseExpression]:
    """What a jit is given besides its function (`out_shardings=...`, `static_argnums=...`): fixed when the jit is
    made."""
    if isinstance(jit, cst.Decorator):
        return [arg.value for arg in jit.decorator.args] if isinstance(jit.decorator, cst.Call) else []
    return [arg.value for arg in jit.args[1:]]


def _per_iteration(loop: cst.CSTNode) -> set[str]:
    """The names that take a new value in each iteration of a `for` loop or a comprehension: its targets, and the
    names its body assigns from them."""
    if isinstance(loop, cst.For):
        targets, body = [loop.target], [loop.body]
    elif isinstance(loop, (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
        targets, body = [], []
        comp: cst.CompFor | None = loop.for_in
        while comp is not None:
            targets.append(comp.target)
            comp = comp.inner_for_in
    else:
        return set()  # a `while` loop: what changes in it is not known
    varying = {name for target in targets for name in target_names(target)}
    assignments = [
        (_names_in(target.target), node.value)
        for block in body
        for node in _assignments(block)
        for target in node.targets
    ]
    changed = True
    while changed:
        changed = False
        for names, value in assignments:
            if not names <= varying and _names_in(value) & varying:
                varying |= names
                changed = True
    return varying


def _assignments(node: cst.CSTNode) -> list[cst.Assign]:
    """The assignments inside `node`, functions and classes inside it excepted."""
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return []
    found = [node] if isinstance(node, cst.Assign) else []
    return found + [assign for child in children(node) for assign in _assignments(child)]


def _names_in(node: cst.CSTNode) -> set[str]:
    """The names in `node` (not an attribute's name, nor a keyword's)."""
    if isinstance(node, cst.Name):
        return {node.value}
    if isinstance(node, cst.Attribute):
        return _names_in(node.value)
    if isinstance(node, cst.Arg):
        return _names_in(node.value)
    return {name for child in children(node) for name in _names_in(child)}


_STORED_REMEDY = (
    "each instance's jit wraps a new callable, which misses jax's compilation cache, so every call traces and "
    "compiles again; make the instance once, outside the loop, or jit a module-level function"
)


def _stored_message(subject: str, repeat: Repeat) -> Callable[[Callable[[cst.CSTNode], int]], str]:
    def message(line_of: Callable[[cst.CSTNode], int]) -> str:
        function = repeat.function.name.value
        return f"{subject} on every call of `{function}`, which runs in {repeat.describe(line_of)}: {_STORED_REMEDY}"

    return message


def _stored_jit(cls: cst.ClassDef, attr: str, names) -> tuple[cst.Call, str] | None:
    """The jit of a fresh callable (a bound method of `self`, a lambda, a partial) that the class's `__init__`
    stores in `self.<attr>`, and what it wraps."""
    init = method_of(cls, "__init__")
    body = init.body.body if init is not None and isinstance(init.body, cst.IndentedBlock) else ()
    for line in body:
        for statement in line.body if isinstance(line, cst.SimpleStatementLine) else ():
            if not (isinstance(statement, cst.Assign) and isinstance(statement.value, cst.Call)):
                continue
            target = statement.targets[0].target
            is_attr = isinstance(target, cst.Attribute) and target.attr.value == attr
            if not (is_attr and code(cast(cst.Attribute, target).value) == "self" and len(statement.targets) == 1):
                continue
            jit = statement.value
            wrapped = jit.args[0].value if jit.args and jit.args[0].keyword is None and not jit.args[0].star else None
            if names.qualified(jit.func) not in CACHED_BY_FUNCTION or wrapped is None:
                return None
            if isinstance(wrapped, cst.Lambda):
                return jit, "a lambda"
            if isinstance(wrapped, cst.Call) and names.qualified(wrapped.func) in PARTIAL:
                return jit, "a `functools.partial`"
            if isinstance(wrapped, cst.Call) and names.qualified(wrapped.func) in NEW_FUNCTION_PER_CALL:
                return jit, f"a new `{code(wrapped.func)}(...)`"
            bound = isinstance(wrapped, cst.Attribute) and code(wrapped.value) == "self"
            if bound and method_of(cls, cast(cst.Attribute, wrapped).attr.value) is not None:
                return jit, f"the bound method `{code(wrapped)}`"
            return None
    return None


class JitRecreated(LoopRule):
    code = "JAX501"
    name = "jit-recreated"
    summary = "`jax.jit` of a fresh callable (lambda, partial, nested def, bound method) made and called in a loop"
    what_it_does = (
        "Flags `jax.jit(f)` (also `pjit`, `pmap`, `equinox.filter_jit`) where `f` is a new object each time the "
        "expression runs (a "
        "`lambda`, a `functools.partial(...)`, a def made in the same loop body, `self.method`, a bound "
        "method, or what a transform returns: `jax.grad(f)`, `value_and_grad`, `jacfwd`, `jacrev`, `hessian`, "
        "`jax.vmap(f)`, `jax.checkpoint(f)` and `jax.jit(f)` make a new function at each call) and the jitted callable is called in the same place: directly (`jax.jit(lambda x: ...)(x)`), or "
        "through a name bound to it and called in the same loop body; also a def made there with `@jax.jit` (or "
        "`@partial(jax.jit, ...)`) and called, and `jax.vmap(jax.jit(f))(x)`, which calls the fresh jit. It flags "
        "this inside a loop (`for`, `while`, a comprehension), and in a function body when that function runs in "
        "a loop of the same module, called there directly or through other functions, or in a loop of another "
        "module of the project that calls it (not from inside a traced "
        "function, where the jit is inlined into the outer trace): the message names the loop and the chain of "
        "calls. And a jit of a fresh callable (`jax.jit(self._apply)`, a lambda, a partial) that a class's "
        "`__init__` stores on the instance, called through an instance made again each time (`Model(p).apply(x)` "
        "or `model = Model(p)` in the same loop body or function)."
    )
    why_bad = (
        "jax caches compiled code by the identity of the wrapped function. A new lambda, partial, nested def or "
        "bound method is a new key, so every iteration traces and compiles again, silently: measured with jax "
        "0.10.2 and `jax_log_compiles`, three iterations of `jax.jit(lambda v: v * 3)(x)` (likewise a `partial`, "
        "a nested def, `jax.jit(obj.method)` or `jax.jit(jax.grad(f))`) compile three times, while `jax.jit(g)(x)` with a module-level "
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
        "that skip the `if` reuse the last one); a jit whose options come from what the loop changes in each iteration "
        "(`jax.jit(f, out_shardings=specs[name])` in `for name in groups:`, or options computed from the loop "
        "variable in its body): each iteration needs a jit of its own, which one made outside the loop cannot be; "
        "`jax.jit` inside a function that is itself traced (it is inlined into "
        "the outer trace); function bodies whose function is not visibly called in a loop; "
        "`flax.nnx.jit`, whose cache jaxlint has not checked."
    )
    verify = compile_count_confirms("three times", "it is a new function object each time")

    def visit_Module(self, node: cst.Module) -> None:
        super().visit_Module(node)
        self._frames = [_ScopeJits(node, [], {}, set())]
        self._per_call: list[tuple[Jit, cst.FunctionDef, str]] = []  # (the jit, its function, what it wraps)
        self._reported: set[int] = set()
        # A jit bound to a name in a loop: [the jit, loop depth, calls, the name].
        self._named_uses: dict[int, list] = {}
        self._branches: list[tuple[cst.If, bool]] = []  # the `if` arms around the walk (True: the body)
        self._bound_in: dict[int, tuple[tuple[cst.If, bool], ...]] = {}  # a jit bound to a name: the arms around
        self._decorated: dict[int, cst.FunctionDef] = {}  # a jit decorator: the nested def it decorates
        self._stored: list[tuple[cst.Attribute, cst.FunctionDef, str]] = []  # (`model.forward`, its def, subject)

    def visit_If_body(self, node: cst.If) -> None:
        self._branches.append((node, True))

    def visit_If_orelse(self, node: cst.If) -> None:
        self._branches.append((node, False))

    def leave_If_body(self, node: cst.If) -> None:
        self._branches.pop()

    leave_If_orelse = leave_If_body

    def _maybe_skipped(self, jit: Jit, name: str) -> bool:
        """Whether an iteration (a call of the function) can reach this call of `name` without rebinding it: the
        jit is bound in an arm of an `if` that does not hold the call, and the other arm does not bind the name
        (`if need_compile: step = jax.jit(partial(update, n=n))` ... `x = step(x)`; `fn = cache.get(k)`, `if fn
        is None: fn = cache[k] = jax.jit(...)`). Then the call runs the jit an earlier iteration (call) made, and
        the code rebuilds it only when its condition asks for it."""
        bound = self._bound_in.get(id(jit), ())
        here = tuple(self._branches)
        for position, (branch, arm) in enumerate(bound):
            if position < len(here) and here[position] == (branch, arm):
                continue
            other = branch.body if not arm else branch.orelse
            return other is None or name not in _assigned_names(other)
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        frame = self._frames[-1]
        if frame.loops:
            frame.defs_in_loops.add(id(node))
        made_again = isinstance(frame.node, cst.FunctionDef) or bool(frame.loops)  # (a module-level loop too)
        if made_again and self.facts.traced_scope is None and not self.facts.in_test_file:
            jit = self._jit_decorator(node)
            if jit is not None:  # `@jax.jit def step` in a function body or a loop: a new jit each time the def runs
                self._decorated[id(jit)] = node
                self._bind(node.name.value, jit)

    def _jit_decorator(self, node: cst.FunctionDef) -> cst.Decorator | None:
        """The decorator of a def that jits it with a cache kept on the function (`@jax.jit`,
        `@partial(jax.jit, static_argnums=1)`), when all its decorators are transforms."""
        transforms = self.facts.decorating_transforms(node)
        if not transforms or transforms[0].name not in CACHED_BY_FUNCTION:
            return None
        return node.decorators[0]

    def visit_FunctionDef_body(self, node: cst.CSTNode) -> None:
        self._enter_holder(node)
        self._frames.append(_ScopeJits(node, [], {}, set()))

    def leave_FunctionDef_body(self, node: cst.CSTNode) -> None:
        self._leave_holder(node)
        self._frames.pop()

    visit_Lambda_body, leave_Lambda_body = visit_FunctionDef_body, leave_FunctionDef_body

    def _open_loop(self, node: cst.CSTNode) -> None:
        self._enter_loop(node)
        self._frames[-1].loops.append({})

    def _close_loop(self, node: cst.CSTNode) -> None:
        """A jit bound to a name in this loop and called once per iteration is a new compile each time;
        one called again in the same iteration (a warm-up, then timed runs) is compiled once per setting,
        as a jit closing over the iteration's values must be."""
        loops = [*self._holders[-1][1]]
        self._leave_loop(node)
        depth = len(self._frames[-1].loops)
        for key, (jit, bound_depth, calls, name) in list(self._named_uses.items()):
            if bound_depth != depth:
                continue
            del self._named_uses[key]
            once = calls == 1 and reads(node, name) == 1  # called, and not also handed on
            what = self._fresh(jit) if once and key not in self._reported else None
            if what is not None and not self._made_per_iteration(jit, loops):
                self._reported.add(key)
                self._report_in_loop(jit, what)
        self._frames[-1].loops.pop()

    @staticmethod
    def _made_per_iteration(jit: Jit, loops: list[cst.CSTNode]) -> bool:
        """Whether the jit's options come from what the loops around change in each iteration
        (`jax.jit(f, out_shardings=specs[name])` in `for name in groups:`): each iteration needs a jit of its own
        then, and one made outside the loop could not serve it."""
        options = [name for option in _options(jit) for name in _names_in(option)]
        return bool(options) and any(set(options) & _per_iteration(loop) for loop in loops)

    def _transform_name(self, jit: Jit) -> str:
        if isinstance(jit, cst.Decorator):
            transform = self.facts.decorator_transform(jit)
            return transform.name if transform is not None else JAX_JIT
        return self.names.qualified(jit.func) or JAX_JIT

    def _report_in_loop(self, jit: Jit, what: str) -> None:
        self.report(
            jit,
            (
                f"`{self._transform_name(jit)}` of {what} is created and called in every "
                f"iteration of this loop: each new callable misses jax's compilation cache, so it is traced "
                f"and compiled again every time; create the jitted function once, outside the loop"
            ),
        )

    visit_For_body = visit_While_body = _open_loop
    leave_For_body = leave_While_body = _close_loop
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _open_loop
    leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = _close_loop

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        if isinstance(node.value, cst.Call) and self._fresh(node.value) is not None:
            self._bind(node.targets[0].target.value, node.value)

    def _bind(self, name: str, jit: Jit) -> None:
        frame = self._frames[-1]
        (frame.loops[-1] if frame.loops else frame.local)[name] = jit
        self._bound_in[id(jit)] = tuple(self._branches)

    def visit_Call(self, node: cst.Call) -> None:
        super().visit_Call(node)
        frame = self._frames[-1]
        if self.facts.traced_scope is not None or self.facts.in_test_file:
            return  # tests build a fresh jit per case on purpose
        self._check_stored(node.func)
        jit: Jit | None = self._called_jit(node.func)
        called = self._called_name(node.func)
        if jit is None and called is not None and frame.loops:
            bound = next(
                ((loop[called], depth) for depth, loop in reversed(list(enumerate(frame.loops, 1))) if called in loop),
                None,
            )
            if bound is not None:  # judged when its loop ends: called again in the iteration, it is reused
                uses = self._named_uses.setdefault(id(bound[0]), [bound[0], bound[1], 0, called])
                reused = len(frame.loops) != bound[1] or self._maybe_skipped(bound[0], called)
                uses[2] += 2 if reused else 1
            return
        if jit is None and called is not None:
            jit = frame.local.get(called)
            if jit is not None and self._maybe_skipped(jit, called):
                return  # `fn = cache.get(k)`, `if fn is None: fn = jax.jit(...)`: built on a miss only
        what = self._fresh(jit) if jit is not None and id(jit) not in self._reported else None
        if what is None or jit is None:
            return
        self._reported.add(id(jit))
        if frame.loops:
            if not self._made_per_iteration(jit, self._holders[-1][1]):
                self._report_in_loop(jit, what)
        elif isinstance(frame.node, cst.FunctionDef) and not self.cached(frame.node):
            self._per_call.append((jit, frame.node, what))

    def _check_stored(self, func: cst.BaseExpression) -> None:
        """`Model(cfg).forward(x)`, or `model.forward(x)` with `model = Model(cfg)` made each time this point
        runs, where `Model.__init__` sets `self.forward` to a jit of a fresh callable: each instance has its own."""
        if not isinstance(func, cst.Attribute):
            return
        receiver = func.value
        made = receiver if type(receiver) is cst.Call else None
        if isinstance(receiver, cst.Name):
            made = self.made_here(receiver)
        cls = self.facts.value_of(made).instance if made is not None else None
        stored = _stored_jit(cls, func.attr.value, self.names) if type(cls) is cst.ClassDef else None
        if stored is None:
            return
        jit, what = stored
        subject = (
            f"`{code(func)}` is the `{self._transform_name(jit)}` of {what} that `{cast(cst.ClassDef, cls).name.value}"
            f".__init__` makes, and the instance is made again"
        )
        if self.loop is not None:
            self.report(func, f"{subject} in every iteration of this loop: {_STORED_REMEDY}")
        elif isinstance(self.holder, cst.FunctionDef) and not self.cached(self.holder):
            self._stored.append((func, self.holder, subject))

    def _called_jit(self, func: cst.BaseExpression) -> cst.Call | None:
        """The jit a call calls as written: `jax.jit(f)(x)`, or through `jax.vmap(jax.jit(f))(x)`, whose
        inner jit is called (and compiled) on every call of the vmapped function."""
        if type(func) is not cst.Call:
            return None
        if self._vmapped(func) is not None:
            mapped = func.args[0].value
            return mapped if isinstance(mapped, cst.Call) else None
        return func

    def _called_name(self, func: cst.BaseExpression) -> str | None:
        """The name a call calls the callable bound to: `step(x)`, or `jax.vmap(step)(x)`, which calls it too."""
        mapped = self._vmapped(func) if type(func) is cst.Call else None
        called = mapped if mapped is not None else func
        return called.value if type(called) is cst.Name else None

    def _vmapped(self, call: cst.Call) -> cst.BaseExpression | None:
        """What `jax.vmap(f)` maps: `f`."""
        if self.names.qualified(call.func) in VMAPS and call.args and call.args[0].keyword is None:
            return call.args[0].value
        return None

    def leave_Module(self, node: cst.Module) -> None:
        for func, function, subject in self._stored:
            repeat = self.repeat(function, func)
            if repeat is not None:
                self.report(func, _stored_message(subject, repeat))
        for jit, function, what in self._per_call:
            repeat = self.repeat(function, self._decorated[id(jit)] if isinstance(jit, cst.Decorator) else jit)
            if repeat is None:
                continue
            self.report(jit, self._per_call_message(self._transform_name(jit), what, repeat))

    @staticmethod
    def _per_call_message(name: str, what: str, repeat: Repeat) -> Callable[[Callable[[cst.CSTNode], int]], str]:
        def message(line_of: Callable[[cst.CSTNode], int]) -> str:
            return (
                f"`{name}` of {what} is created and called on every call of `{repeat.function.name.value}`, "
                f"which runs in {repeat.describe(line_of)}: each new callable misses jax's compilation cache, so "
                f"every call traces and compiles again; create the jitted function once (at module level, or in "
                f"`__init__`)"
            )

        return message

    def _same_function_each_time(self, transformed: cst.Call) -> bool:
        """Whether a transform is given one function each time it runs (an import, or a module-level def): then
        only the transform's new wrapper misses jit's cache, and making the jit once fixes it. A function made
        anew there (a partial bound in the loop, a nested def closing over the call's values) would compile each
        time anyway."""
        if not transformed.args or transformed.args[0].keyword is not None:
            return False
        function = transformed.args[0].value
        if self.names.qualified(function) is not None:
            return True
        found = self.facts.binding(function, want_def=True)
        return (
            found is not None
            and isinstance(found[0], cst.FunctionDef)
            and not found[2]
            and isinstance(found[1][-1], cst.Module)
        )

    def _fresh(self, jit: Jit) -> str | None:
        """What fresh callable a jit wraps ("a lambda"...), or None when it is not one."""
        if isinstance(jit, cst.Decorator):
            decorated = self._decorated[id(jit)]
            made_in_loop = id(decorated) in self._frames[-1].defs_in_loops
            return f"the {'def' if made_in_loop else 'nested def'} `{decorated.name.value}`" + (
                " made in the loop" if made_in_loop else ""
            )
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
        if isinstance(wrapped, cst.Call) and self.names.qualified(wrapped.func) in NEW_FUNCTION_PER_CALL:
            return f"a new `{code(wrapped.func)}(...)`" if self._same_function_each_time(wrapped) else None
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
