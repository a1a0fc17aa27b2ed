"""JAX5xx: compilation, caching and buffer donation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import libcst as cst

from jaxlint.analysis.bindings import rebound_names
from jaxlint.analysis.callees import Argument, JittedCallee
from jaxlint.analysis.donations import Donation, reads
from jaxlint.checks.base import FixPlan, Rule, code
from jaxlint.model.transforms import CACHED_BY_FUNCTION, JITS, TREE_MAPS
from jaxlint.traversal import children


def expects_error(node: cst.With, names) -> bool:
    """`with self.assertRaises(...)`, `with pytest.raises(...)`: the code inside is meant to fail."""
    for item in node.items:
        call = item.item
        if not isinstance(call, cst.Call):
            continue
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value.startswith("assertRaises"):
            return True
        if names.qualified(func) == "pytest.raises":
            return True
    return False


class ExpectedErrors:
    """Leaves out findings inside blocks that expect an error (a test of that very error). Mix in before Rule."""

    _expecting = 0

    def visit_With(self, node: cst.With) -> None:
        if expects_error(node, self.names):
            self._expecting += 1

    def leave_With(self, node: cst.With) -> None:
        if expects_error(node, self.names):
            self._expecting -= 1

    def report(self, node, message, fix=None) -> None:
        if not self._expecting:
            super().report(node, message, fix)


class CalleeRule(Rule):
    """A rule that asks which calls call a jitted callable."""

    def jitted_arguments(self, call: cst.Call) -> tuple[JittedCallee, list[Argument]] | None:
        callee = self.facts.jitted(call)
        if callee is None:
            return None
        return callee, callee.arguments(call, self.facts.target_version)


def _option_text(callee: JittedCallee, *options: str) -> str:
    return ", ".join(f"{option}={code(callee.options[option])}" for option in options if callee.gives(option))


def _callee_name(call: cst.Call) -> str:
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else "the jitted function"


# ---------------------------------------------------------------------- JAX504


class DonatedBufferReuse(CalleeRule):
    code = "JAX504"
    needs_donations = True
    name = "donated-buffer-reuse"
    summary = "An array read after it was donated to a jitted call"
    what_it_does = (
        "Flags a read of a name after it was passed in a donated position of a jitted callable "
        "(`donate_argnums`/`donate_argnames` of `jax.jit`, `jax.pmap`, `pjit`) and before it "
        "is bound again: later in the same function, after the `if` or the `match` case that donated it, or in the "
        "next iteration of a loop that donates it without rebinding it. The callee is followed through the spellings of a jitted "
        "callable: `jax.jit(f, donate_argnums=0)` assigned to a name (or to `self.step`) and called later, "
        "`@partial(jax.jit, donate_argnums=...)`, `@jax.jit(donate_argnames=...)`, aliases of those names, "
        "`jax.jit(partial(f, cfg), ...)`; keywords are matched to the wrapped function's parameters as jax does."
    )
    why_bad = (
        "Donating an argument tells XLA it may reuse the argument's buffer for an output. When it does (an output "
        "has the same shape and dtype), jax marks the array deleted: any later use of it raises "
        "`RuntimeError: Array has been deleted with shape=float32[3].` (checked with jax 0.10.2 on CPU; a pytree "
        "argument's array leaves are deleted the same way; its static fields, such as a train state's `apply_fn`, "
        "are not, and reading one is flagged all the same). When no output matches, jax warns `Some donated buffers were "
        "not usable` and the array survives, so the same code fails on another shape. JAX's "
        "[buffer donation](https://docs.jax.dev/en/latest/buffer_donation.html) documentation: \"you will not use "
        "the donated input buffer after calling the donating function\"."
    )
    example = (
        "import jax\n"
        "from functools import partial\n\n\n"
        "@partial(jax.jit, donate_argnums=0)\n"
        "def sgd(params, grads):\n"
        "    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)\n\n\n"
        "def train(params, grads):\n"
        "    new_params = sgd(params, grads)\n"
        "    drift = jax.tree.map(lambda a, b: a - b, new_params, params)  # params was donated\n"
        "    return new_params, drift\n"
    )
    use_instead = (
        "import jax\n"
        "from functools import partial\n\n\n"
        "@partial(jax.jit, donate_argnums=0)\n"
        "def sgd(params, grads):\n"
        "    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)\n\n\n"
        "def train(params, grads):\n"
        "    params = sgd(params, grads)  # rebind the name to the result: the old buffer is never read\n"
        "    return params\n"
    )
    not_flagged = (
        "`state = step(state, batch)` and `loss, state = step(state, batch)`, which rebind the name; reads on a "
        "path where the donating call did not run (`try` handlers, the other branch of an `if`); arguments "
        "that are not plain names (`self.state`, `batch[\"x\"]`), NumPy arrays and Python values (jax copies "
        "them to the device, so the caller's object is never deleted); another name for the same array "
        "(`old = params` before the call); callables jaxlint cannot see are jitted with donation (imported from "
        "another module, chosen at run time, bound more than once); `equinox.filter_jit(donate=...)`; "
        "`flax.nnx.jit(donate_argnums=...)`, which writes the results back into the donated Modules and "
        "Optimizers, so they stay usable."
    )
    verify = (
        "Not confirmed by `--verify`: it traces functions without running them, and only running the "
        "donating call deletes the buffer."
    )

    def visit_Module(self, node: cst.Module) -> None:
        self._reported: set[int] = set()  # each read is reported once
        self._quiet: set[int] = set()  # statements inside blocks that expect an error
        self._expecting = 0

    def _statement(self, node: cst.CSTNode) -> None:
        if self.facts.in_test_file:
            return  # tests read donated arrays on purpose, to check they were deleted
        if self._expecting:
            self._quiet.add(id(node))
        for read, donation in self.facts.donations.reads(node):
            self._flag(node, read, donation)

    visit_Assign = visit_AnnAssign = visit_AugAssign = visit_Expr = visit_Return = _statement
    visit_Raise = visit_Assert = visit_Del = visit_If = visit_While = visit_For = _statement
    visit_FunctionDef = visit_ClassDef = visit_Match = visit_MatchCase = _statement

    def visit_With(self, node: cst.With) -> None:
        self._statement(node)  # its items
        self._expecting += expects_error(node, self.names)

    def leave_With(self, node: cst.With) -> None:
        self._expecting -= expects_error(node, self.names)

    def _leave_loop(self, node: cst.For | cst.While) -> None:
        for statement, read, donation in self.facts.donations.read_again(node):
            if not self.facts.in_test_file:
                self._flag(statement, read, donation)

    leave_For = leave_While = _leave_loop

    def _flag(self, statement: cst.CSTNode, read: cst.Name, donation: Donation) -> None:
        if id(read) in self._reported or id(statement) in self._quiet:
            return
        self._reported.add(id(read))
        options = _option_text(donation.callee, "donate_argnums", "donate_argnames")
        name, function = read.value, _callee_name(donation.call)
        when = " in the previous iteration" if read is donation.argument else ""
        self.report(read, lambda line_of: (
            f"`{name}` was donated to `{function}` at line {line_of(donation.call)}{when}"
            f"{f' ({options})' if options else ''} and is read here: jax deleted its buffer, so this raises "
            f"`RuntimeError: Array has been deleted`; use the call's result (`{name} = {function}(...)`), "
            f"or do not donate `{name}`"
        ))


# ---------------------------------------------------------------------- JAX507


class DonateByKeyword(ExpectedErrors, CalleeRule):
    code = "JAX507"
    name = "donate-by-keyword"
    summary = "A parameter listed for donation passed in a way jax does not donate (by keyword, or by position)"
    what_it_does = (
        "Flags an argument of a call to a jitted callable whose parameter is listed in `donate_argnums` (or "
        "`donate_argnames`) but which jax will not donate as it is passed:\n\n"
        "- `jax.pmap(f, donate_argnums=0)` called with that argument by keyword: pmap donates positional "
        "arguments only;\n"
        "- `jax.jit(f, donate_argnums=0, donate_argnames='y')` (both given) called with the `donate_argnums` "
        "parameter by keyword, or with the `donate_argnames` parameter by position: when both are given jax "
        "does not match numbers to names;\n"
        "- with `target-jax-version` older than 0.4.14, `jax.jit(f, donate_argnums=0)` called with that "
        "argument by keyword (`donate_argnames` and the matching of names to numbers came in jax 0.4.14).\n\n"
        "The callee is found as for JAX504 (jit assigned to a name or `self.attr`, decorators, aliases, "
        "`partial`); its signature must be visible."
    )
    why_bad = (
        "Nothing is donated, silently: no error and no warning, the input buffer stays allocated and the memory "
        "the donation was meant to save is spent on every call. Checked with jax 0.10.2: `jax.pmap(f, "
        "donate_argnums=0)(x=x, y=y)` leaves `x` alive while `(x, y)` deletes it; `jax.jit(f, donate_argnums=0, "
        "donate_argnames='y')(x=x, y=y)` deletes `y` but not `x`, and `(x, y)` deletes `x` but not `y`. With only "
        "`donate_argnums` given, `jax.jit` since 0.4.14 finds the names with `inspect.signature`, and passing by "
        "keyword donates as well (not flagged). See the `donate_argnums` and `donate_argnames` parameters of "
        "[`jax.jit`](https://docs.jax.dev/en/latest/_autosummary/jax.jit.html) and "
        "[buffer donation](https://docs.jax.dev/en/latest/buffer_donation.html)."
    )
    example = (
        "import jax\n"
        "from functools import partial\n\n\n"
        "@partial(jax.pmap, axis_name='i', donate_argnums=0)\n"
        "def update(params, grads):\n"
        "    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)\n\n\n"
        "def train(params, grads):\n"
        "    return update(params=params, grads=grads)\n"
    )
    use_instead = (
        "import jax\n"
        "from functools import partial\n\n\n"
        "@partial(jax.pmap, axis_name='i', donate_argnums=0)\n"
        "def update(params, grads):\n"
        "    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)\n\n\n"
        "def train(params, grads):\n"
        "    return update(params, grads)\n"
    )
    not_flagged = (
        "`jax.jit` (and `pjit`, `flax.nnx.jit`) given only `donate_argnums` or only `donate_argnames`, "
        "called either way, on jax 0.4.14 or newer: jax matches names and numbers itself; callees whose "
        "signature jaxlint cannot see; specs that are not literals."
    )
    verify = "Not confirmed by `--verify`: nothing fails; the buffer is simply not donated."

    def visit_Call(self, node: cst.Call) -> None:
        found = self.jitted_arguments(node)
        if found is None:
            return
        callee, arguments = found
        for argument in arguments:
            if not argument.donate_listed or argument.donated is not False:
                continue
            self.report(argument.expr, self._message(callee, argument, _callee_name(node)))

    def _message(self, callee: JittedCallee, argument: Argument, function: str) -> str:
        options = _option_text(callee, "donate_argnums", "donate_argnames")
        param = argument.param or argument.keyword or code(argument.expr)
        if argument.keyword is None:
            return (f"`{param}` is passed by position, but `{function}` lists it in `donate_argnames` only "
                    f"({options}): with both options given jax does not match names to positions, so nothing "
                    f"is donated; add its position to `donate_argnums` or pass `{param}=` by keyword")
        if callee.transform == "jax.pmap" or not callee.gives("donate_argnames") and self.facts.target_version:
            why = ("`jax.pmap` donates positional arguments only" if callee.transform == "jax.pmap" else
                   f"before jax 0.4.14 (the target is {self.facts.jax_version}) keyword arguments are never donated")
            return (f"`{param}` is passed by keyword, so it is not donated ({options}): {why}; "
                    f"pass it by position")
        return (f"`{param}` is passed by keyword, but `{function}` lists it in `donate_argnums` only ({options}): "
                f"with `donate_argnames` also given jax does not match positions to names, so nothing is donated; "
                f"add `'{param}'` to `donate_argnames` or pass it by position")


# ---------------------------------------------------------------------- JAX502

_UNHASHABLE_BUILTINS = frozenset({"list", "dict", "set", "bytearray"})
# Calls that return an array (NumPy or JAX): arrays are unhashable.
_ARRAY_MAKERS = frozenset(
    f"{module}.{name}" for module in ("numpy", "jax.numpy")
    for name in "array asarray zeros ones full empty arange linspace eye identity".split()
)
# What a tuple can stand in for a list in: iteration, reading items, these functions, unpacking.
_SEQUENCE_FUNCTIONS = frozenset({
    "len", "tuple", "list", "sorted", "enumerate", "zip", "sum", "max", "min", "reversed", "iter", "any",
    "all", "set", "frozenset", "map", "math.prod", "functools.reduce",
})
_SEQUENCE_MODULES = ("jax.numpy.", "numpy.", "jax.lax.")


def _tuple_works(function: cst.FunctionDef | cst.Lambda, param: str, names) -> bool:
    """Whether every use of `param` in `function` works the same on a tuple as on a list."""
    return all(_use_ok(parents, use, names) for parents, use in _name_uses(function.body, param, ()))


def _name_uses(node: cst.CSTNode, name: str, parents: tuple[cst.CSTNode, ...]):
    """Each `Name` node spelling `name`, with the nodes above it (innermost last)."""
    if isinstance(node, cst.Name):
        if node.value == name:
            yield parents, node
        return
    if isinstance(node, cst.Attribute):  # `x.shape` does not use a parameter named `shape`
        inner = [node.value]
    elif isinstance(node, cst.Arg):  # nor does `f(shape=...)`
        inner = [node.value]
    else:
        inner = children(node)
    for child in inner:
        yield from _name_uses(child, name, (*parents, node))


def _use_ok(parents: tuple[cst.CSTNode, ...], use: cst.Name, names) -> bool:
    parent = parents[-1] if parents else None
    above = parents[-2] if len(parents) > 1 else None
    if isinstance(parent, (cst.For, cst.CompFor)):
        return parent.iter is use
    if isinstance(parent, cst.Subscript) and parent.value is use:
        return not isinstance(above, (cst.AssignTarget, cst.AugAssign, cst.Del))  # not `p[0] = v`
    if isinstance(parent, cst.Attribute) and parent.value is use:
        return parent.attr.value in ("count", "index")
    if isinstance(parent, cst.Arg):
        if parent.star == "*":
            return True
        func = names.qualified(above.func) if isinstance(above, cst.Call) else None
        spelled = above.func.value if isinstance(above, cst.Call) and isinstance(above.func, cst.Name) else None
        return bool(func and func.startswith(_SEQUENCE_MODULES)) or spelled in _SEQUENCE_FUNCTIONS or (
            func in _SEQUENCE_FUNCTIONS)
    if isinstance(parent, cst.ComparisonTarget):
        return isinstance(parent.operator, (cst.In, cst.NotIn)) and parent.comparator is use
    if isinstance(parent, cst.Assign):
        return parent.value is use and all(isinstance(t.target, (cst.Tuple, cst.List)) for t in parent.targets)
    return isinstance(parent, (cst.Param, cst.AssignTarget))  # the parameter itself, or a plain rebinding


class UnhashableStaticArg(ExpectedErrors, CalleeRule):
    code = "JAX502"
    name = "unhashable-static-arg"
    summary = "A list, dict, set or array passed in a static position of a jitted callable"
    what_it_does = (
        "Flags an argument in a `static_argnums`/`static_argnames` position (`static_broadcasted_argnums` for "
        "`jax.pmap`) of a call to a jitted callable when it is visibly unhashable: a list, dict or set literal or "
        "comprehension, `list(...)`/`dict(...)`/`set(...)`, a NumPy or `jax.numpy` array constructor "
        "(`np.array`, `jnp.zeros`...), a tuple holding one of those, or a name bound once, in its scope, to one "
        "of those. Static positions are resolved as jax does: `static_argnums` against the wrapped function's "
        "signature also makes the parameter static by keyword, and the other way round. The callee is found "
        "through `jax.jit(f, static_argnums=...)` assigned to a name or to `self.attr`, `@partial(jax.jit, "
        "static_argnums=...)`, `@jax.jit(static_argnames=...)`, aliases and `partial`."
    )
    why_bad = (
        "jax hashes static arguments to look up the compiled function in its cache. An unhashable one raises "
        "`ValueError: Non-hashable static arguments are not supported. An error occurred while trying to hash an "
        "object of type <class 'list'>, [1, 2]. The error was: TypeError: unhashable type: 'list'` at the call "
        "(checked with jax 0.10.2 for lists, dicts, sets, NumPy and jax arrays and tuples holding a list; "
        "`jax.pmap` raises the same `ValueError` for `static_broadcasted_argnums`). See `static_argnums` in "
        "[`jax.jit`](https://docs.jax.dev/en/latest/_autosummary/jax.jit.html): \"Static arguments are included "
        "as part of a compilation cache key, which is why hash and equality operators must be defined.\""
    )
    example = (
        "import jax\n"
        "import jax.numpy as jnp\n"
        "from functools import partial\n\n\n"
        "@partial(jax.jit, static_argnums=1)\n"
        "def pad_to(x, shape):\n"
        "    return jnp.zeros(shape).at[: x.shape[0]].set(x)\n\n\n"
        "def batch(x):\n"
        "    return pad_to(x, [128])\n"
    )
    use_instead = (
        "import jax\n"
        "import jax.numpy as jnp\n"
        "from functools import partial\n\n\n"
        "@partial(jax.jit, static_argnums=1)\n"
        "def pad_to(x, shape):\n"
        "    return jnp.zeros(shape).at[: x.shape[0]].set(x)\n\n\n"
        "def batch(x):\n"
        "    return pad_to(x, (128,))\n"
    )
    not_flagged = (
        "Tuples, strings, numbers, frozen dataclasses and any value jaxlint cannot see is unhashable (a "
        "parameter, an attribute, a call to another function); arguments in positions that are not static; "
        "callees whose static positions are not literals."
    )
    fixable = True
    fix_safety = (
        "Safe, for a list literal only, when the callee's body is visible and uses the parameter only in ways "
        "a tuple behaves the same in: iterating it, reading items, `len`, `in`, unpacking, `*args`, and passing "
        "it to `tuple`, `sorted`, `zip`, `sum` and similar builtins or to `jax.numpy`/`numpy`/`jax.lax` functions. "
        "`[64, 64]` becomes `(64, 64)` and `[128]` becomes `(128,)`. The call raised before, so no working code "
        "changes meaning. Dicts, sets and arrays have no automatic fix."
    )
    verify = "Not confirmed by `--verify`: the error is raised when the call runs, not while tracing."

    def visit_Call(self, node: cst.Call) -> None:
        found = self.jitted_arguments(node)
        bound = self.facts.partial_of(node)
        if bound is not None:  # `partial(step, [64, 64])`: the call it spells gets the list
            callee, spelled = bound
            found = callee, callee.arguments(spelled, self.facts.target_version)
            node = spelled
        if found is None:
            return
        callee, arguments = found
        for argument in arguments:
            if not argument.static:
                continue
            kind = self._unhashable(argument.expr)
            if kind is None:
                continue
            options = _option_text(callee, "static_argnums", "static_argnames", "static_broadcasted_argnums")
            param = f" `{argument.param}`" if argument.param else ""
            use = "a tuple" if kind == "a list" else "a hashable value (a tuple, a frozen dataclass)"
            self.report(argument.expr, (
                f"`{code(argument.expr)}` ({kind}) is passed as static argument{param} of "
                f"`{_callee_name(node)}` ({options}): static arguments must be hashable, so this raises "
                f"`ValueError: Non-hashable static arguments are not supported`; pass {use}"
            ), self._fix(callee, argument))

    def _unhashable(self, expr: cst.BaseExpression, depth: int = 0) -> str | None:
        """What kind of unhashable value `expr` visibly is, or None."""
        if isinstance(expr, (cst.List, cst.ListComp)):
            return "a list"
        if isinstance(expr, (cst.Dict, cst.DictComp)):
            return "a dict"
        if isinstance(expr, (cst.Set, cst.SetComp)):
            return "a set"
        if isinstance(expr, cst.Tuple):
            inner = [self._unhashable(element.value, depth) for element in expr.elements
                     if not isinstance(element, cst.StarredElement)]
            return next((f"a tuple holding {kind}" for kind in inner if kind), None)
        if isinstance(expr, cst.Call):
            qualified = self.names.qualified(expr.func)
            if qualified in _ARRAY_MAKERS:
                return "an array"
            if (isinstance(expr.func, cst.Name) and expr.func.value in _UNHASHABLE_BUILTINS
                    and self.facts.binding(expr.func) is None
                    and not self._bound_anywhere(expr.func)):
                return f"a {expr.func.value}"
            return None
        if isinstance(expr, cst.Name) and depth == 0:
            found = self.facts.binding(expr)
            if found is not None and isinstance(found[0], cst.BaseExpression):
                return self._unhashable(found[0], depth + 1)
        return None

    def _bound_anywhere(self, name: cst.Name) -> bool:
        """A builtin's name rebound in some scope around (then `list(...)` may not be the builtin)."""
        return self.facts.bound_around(name.value)

    def _fix(self, callee: JittedCallee, argument: Argument) -> FixPlan | None:
        expr = argument.expr
        if not isinstance(expr, cst.List) or callee.function is None or argument.param is None:
            return None
        if not _tuple_works(callee.function, argument.param, self.names):
            return None
        elements = expr.elements
        single = len(elements) == 1 and not isinstance(elements[0].comma, cst.Comma)
        # Only the brackets change: the elements, their comments and line breaks stay as written.
        replacements = ((expr.lbracket, "("), (expr.rbracket, ",)" if single else ")"))
        return FixPlan("use a tuple", replacements)


# ---------------------------------------------------------------------- JAX501

_CACHES = frozenset({"functools.cache", "functools.lru_cache"})


@dataclass
class _Frame:
    """One function (or the module) being visited: its loops, and the jitted names made in each."""

    node: cst.CSTNode
    loops: list[dict[str, cst.Call]]  # per enclosing loop: name -> the fresh jit bound to it there
    local: dict[str, cst.Call]  # the same outside any loop
    defs_in_loops: set[int]  # ids of defs made inside a loop of this function


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
        "`functools.cache`/`lru_cache`; `jax.jit` inside a function that is itself traced (it is inlined into "
        "the outer trace); function bodies whose function is not visibly called in a loop; "
        "`flax.nnx.jit`, whose cache jaxlint has not checked."
    )
    verify = "Not confirmed by `--verify`: recompilation is slow, not an error."

    def visit_Module(self, node: cst.Module) -> None:
        self._frames = [_Frame(node, [], {}, set())]
        self._per_call: list[tuple[cst.Call, int, str]] = []  # (the jit, id of its function, what it wraps)
        self._called_in_loops: set[int] = set()  # ids of defs called inside some loop
        self._reported: set[int] = set()
        self._named_uses: dict[int, list] = {}  # a jit bound to a name in a loop: [the jit, loop depth, calls]

    def _enter(self, node: cst.CSTNode) -> None:
        self._frames.append(_Frame(node, [], {}, set()))

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
        self.report(jit, (
            f"`{self.names.qualified(jit.func) or 'jax.jit'}` of {what} is created and called in every "
            f"iteration of this loop: each new callable misses jax's compilation cache, so it is traced "
            f"and compiled again every time; create the jitted function once, outside the loop"))

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
            bound = next(((loop[node.func.value], depth) for depth, loop in reversed(list(enumerate(frame.loops, 1)))
                          if node.func.value in loop), None)
            if bound is not None:  # judged when its loop ends: called again in the iteration, it is reused
                uses = self._named_uses.setdefault(id(bound[0]), [bound[0], bound[1], 0])
                uses[2] += 1 if len(frame.loops) == bound[1] else 2
            return
        if jit is None and isinstance(node.func, cst.Name):
            jit = frame.local.get(node.func.value)
        what = self._fresh(jit) if jit is not None and id(jit) not in self._reported else None
        if what is None:
            return
        self._reported.add(id(jit))
        if frame.loops:
            self._report_in_loop(jit, what)
        elif isinstance(frame.node, cst.FunctionDef) and not self._cached(frame.node):
            self._per_call.append((jit, id(frame.node), what))

    def leave_Module(self, node: cst.Module) -> None:
        for jit, function, what in self._per_call:
            if function in self._called_in_loops:
                self.report(jit, (
                    f"`{self.names.qualified(jit.func) or 'jax.jit'}` of {what} is created and called on every "
                    f"call of this function, which is called in a loop: each new callable misses jax's "
                    f"compilation cache, so every call traces and compiles again; create the jitted function "
                    f"once (at module level, or in `__init__`)"))

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
        if found is None or not isinstance(found[0], cst.FunctionDef):
            return None
        function, _, through_self = found
        if through_self:
            return f"the bound method `{code(wrapped)}`"
        frame = self._frames[-1]
        if frame.loops:
            return f"the def `{function.name.value}` made in the loop" if id(function) in frame.defs_in_loops else None
        if found[1][-1] is frame.node and isinstance(frame.node, cst.FunctionDef):
            return f"the nested def `{function.name.value}`"
        return None


# ---------------------------------------------------------------------- JAX503

# Calls that make a class a pytree (its instances then trace as arrays): the class is their first argument.
_PYTREE_REGISTRATIONS = frozenset({
    "jax.tree_util.register_pytree_node", "jax.tree_util.register_pytree_node_class",
    "jax.tree_util.register_pytree_with_keys", "jax.tree_util.register_pytree_with_keys_class",
    "jax.tree_util.register_dataclass", "jax.tree_util.register_static",
})
_FLATTEN_METHODS = frozenset({"tree_flatten", "tree_flatten_with_keys"})  # a pytree class registered elsewhere
# Class decorators that leave the class an ordinary (non-pytree) class.
_PLAIN_CLASS_DECORATORS = frozenset({"dataclasses.dataclass", "functools.total_ordering"})


class JitMethodSelf(CalleeRule):
    code = "JAX503"
    name = "jit-method-self"
    summary = "`@jax.jit` on a method: `self` is traced as an array argument"
    what_it_does = (
        "Flags `@jax.jit` (also `@jax.jit(...)`, `@partial(jax.jit, ...)`, `pjit`) directly on a method whose "
        "first parameter is `self`, when `self` is not static (`static_argnums=0` or `static_argnames='self'`) "
        "and the class is visibly not a pytree: a class of this module with no base classes but `object` or "
        "other such classes, no decorator but `@dataclasses.dataclass`, no `tree_flatten` method and no "
        "`jax.tree_util.register_*` call naming it."
    )
    why_bad = (
        "`jax.jit` wraps the plain function, so `obj.method(x)` calls it with `obj` as its first argument, and "
        "jax must turn every argument into an array or a pytree of arrays. With jax 0.10.2 the call raises "
        "`TypeError: Error interpreting argument to <function Scaler.apply> as an abstract array. The problematic "
        "value is of type <class 'Scaler'> and was passed to the function at path self.` Marking `self` static "
        "makes the call work, but jax then caches by the object's hash: a later change to `self.s` is not seen "
        "(checked: the result stays the old one). See [JAX FAQ: how to use jit with "
        "methods](https://docs.jax.dev/en/latest/faq.html#how-to-use-jit-with-methods)."
    )
    example = (
        "import jax\n\n\n"
        "class Scaler:\n"
        "    def __init__(self, scale):\n"
        "        self.scale = scale\n\n"
        "    @jax.jit\n"
        "    def apply(self, x):\n"
        "        return x * self.scale\n"
    )
    use_instead = (
        "import jax\n\n\n"
        "@jax.jit\n"
        "def _apply(scale, x):\n"
        "    return x * scale\n\n\n"
        "class Scaler:\n"
        "    def __init__(self, scale):\n"
        "        self.scale = scale\n\n"
        "    def apply(self, x):\n"
        "        return _apply(self.scale, x)\n"
    )
    not_flagged = (
        "Methods of classes that are or may be pytrees: `flax.struct.dataclass`, `chex.dataclass`, "
        "`equinox.Module` subclasses, `NamedTuple`s, any base class or decorator jaxlint does not know, "
        "classes registered with `jax.tree_util.register_*` or defining `tree_flatten`; methods with `self` "
        "static; `@staticmethod`/`@classmethod`; `jax.jit(self.method)` (a bound method: `self` is not an "
        "argument); the stale-attribute problem of a static `self`."
    )
    verify = "Not confirmed by `--verify` yet: the error comes from calling the method on an instance."

    def visit_Module(self, node: cst.Module) -> None:
        self._candidates: list[tuple[cst.Decorator, cst.FunctionDef, cst.ClassDef, str]] = []  # reported at the end
        self._registered: set[str] = set()
        self._classes: dict[str, cst.ClassDef] = {}

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if len(self.facts.chain) == 1:
            self._classes[node.name.value] = node

    def visit_Call(self, node: cst.Call) -> None:
        if self.names.qualified(node.func) in _PYTREE_REGISTRATIONS and node.args:
            first = node.args[0].value
            if isinstance(first, cst.Name):
                self._registered.add(first.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        owner = self.facts.chain[-1]
        if not isinstance(owner, cst.ClassDef) or not node.decorators:
            return
        params = [*node.params.posonly_params, *node.params.params]
        if not params or params[0].name.value != "self":
            return
        if len(node.decorators) != 1:
            return  # another decorator may bind or wrap `self`
        callee = self.facts.jit_decorated(node)
        if callee is None or callee.transform not in JITS:
            return
        positions, names = callee.static()
        if positions is None or names is None or 0 in positions or "self" in names:
            return
        self._candidates.append((node.decorators[0], node, owner, callee.transform))

    def leave_Module(self, node: cst.Module) -> None:
        for decorator, method, cls, transform in self._candidates:
            if self._plain_class(cls, set()):
                self.report(decorator, (
                    f"`{transform}` on the method `{method.name.value}` traces `self` as an array argument: "
                    f"calling it on a `{cls.name.value}` raises `TypeError: Error interpreting argument to "
                    f"<function {cls.name.value}.{method.name.value}> as an abstract array`; jit a function of "
                    f"the arrays it needs and call that from the method, or mark `self` static "
                    f"(`static_argnums=0`, which ignores later changes to its attributes)"))

    def _plain_class(self, cls: cst.ClassDef, seen: set[str]) -> bool:
        """Visibly an ordinary class whose instances are not pytrees."""
        name = cls.name.value
        if name in self._registered or name in seen or cls.keywords:
            return False
        seen.add(name)
        for decorator in cls.decorators:
            expr = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
            if self.names.qualified(expr) not in _PLAIN_CLASS_DECORATORS:
                return False
        for statement in cls.body.body:
            if isinstance(statement, cst.FunctionDef) and statement.name.value in _FLATTEN_METHODS:
                return False
        for base in cls.bases:
            value = base.value
            if isinstance(value, cst.Name) and value.value == "object":
                continue
            parent = self._classes.get(value.value) if isinstance(value, cst.Name) else None
            if parent is None or not self._plain_class(parent, seen):
                return False
        return True


# ---------------------------------------------------------------------- JAX505

_TIMERS = frozenset({
    "time.time", "time.perf_counter", "time.monotonic", "time.time_ns", "time.perf_counter_ns",
    "time.monotonic_ns", "timeit.default_timer",
})
# Calls that wait for jax's results (or may: anything that reads an array's value on the host).
_SYNCS = frozenset({"jax.block_until_ready", "jax.device_get", "jax.effects_barrier"})
_SYNC_METHODS = frozenset({"block_until_ready", "item", "tolist", "__array__"})
# Modules whose functions run work on the device, asynchronously (`jax.tree_util` and the like run on the host).
_DISPATCHING = ("jax.numpy.", "jax.lax.", "jax.random.", "jax.nn.", "jax.scipy.", "jax.device_put")
# Calls that neither wait nor hide a wait: what a timed loop around jax calls may also do.
_HARMLESS = frozenset({"range", "len", "enumerate", "zip", "iter", "next", "reversed", "min", "max"})
_HARMLESS_METHODS = frozenset({"append", "extend", "keys", "values", "items"})


def _timer_start(statement: cst.CSTNode, names) -> str | None:
    """`t0 = time.perf_counter()`: the name holding the start time."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)
            and isinstance(small.value, cst.Call) and names.qualified(small.value.func) in _TIMERS):
        return small.targets[0].target.value
    return None


def _subtracts(node: cst.CSTNode, start: str) -> bool:
    """Whether `node` computes `... - start`."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Subtract):
        if isinstance(node.right, cst.Name) and node.right.value == start:
            return True
    return any(_subtracts(child, start) for child in children(node))


def _all_calls(node: cst.CSTNode) -> Iterator[cst.Call]:
    if isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
        return
    if isinstance(node, cst.Call):
        yield node
    for child in children(node):
        yield from _all_calls(child)


def _may_sync(node: cst.CSTNode) -> bool:
    """Code that may read an array's value on the host without a call: `if`, `while`, `assert`, f-strings."""
    if isinstance(node, (cst.If, cst.While, cst.Assert, cst.FormattedString, cst.IfExp, cst.Comparison,
                         cst.Return, cst.Yield, cst.Raise)):
        return True
    if isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
        return False
    return any(_may_sync(child) for child in children(node))


def _computes_nothing(function: cst.FunctionDef | cst.Lambda) -> bool:
    """A body with no call and no operation (`pass`, `return x, y`): jit runs nothing on the device, so a
    timer around it measures dispatch overhead on purpose."""
    body = function.body
    return not any(isinstance(node, (cst.Call, cst.BinaryOperation, cst.UnaryOperation, cst.Subscript,
                                     cst.Attribute, cst.Comparison, cst.BooleanOperation))
                   for node in _walk(body))


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    yield node
    for child in children(node):
        yield from _walk(child)


class TimingWithoutSync(CalleeRule):
    code = "JAX505"
    name = "timing-without-sync"
    summary = "A timer read around jax calls with nothing waiting for their results"
    what_it_does = (
        "Flags `t0 = time.perf_counter()` (also `time.time`, `time.monotonic`, their `_ns` forms, "
        "`timeit.default_timer`) followed in the same block by device work (a call to a jitted callable or to a "
        "`jax.numpy`, `jax.lax`, `jax.random`, `jax.nn` or `jax.scipy` function, or `jax.device_put`) and then by a second read of the clock subtracted from `t0`, when nothing in "
        "between waits for the results: no `.block_until_ready()`, `jax.block_until_ready(...)`, "
        "`jax.device_get`, `.item()`, `.tolist()`, `float(...)`, `print(...)` or NumPy conversion. Only plain "
        "timed regions are judged: any other call, `if`, `while`, comparison or f-string in between might wait, "
        "and the region is left alone."
    )
    why_bad = (
        "jax dispatches work asynchronously: a jitted call returns as soon as the computation is queued. The "
        "timer then measures dispatch, not the computation. Measured with jax 0.10.2 on CPU, for a jitted "
        "`(a @ a) @ a` on 2000x2000 arrays: 0.11 ms without waiting, 1670 ms with `.block_until_ready()`. See "
        "[Asynchronous dispatch](https://docs.jax.dev/en/latest/async_dispatch.html) and the benchmarking "
        "advice in the [FAQ](https://docs.jax.dev/en/latest/faq.html#benchmarking-jax-code)."
    )
    example = (
        "import time\n\n"
        "import jax\n"
        "import jax.numpy as jnp\n\n"
        "matmul = jax.jit(lambda a: a @ a)\n"
        "x = jnp.ones((2000, 2000))\n"
        "start = time.perf_counter()\n"
        "y = matmul(x)\n"
        "print(f\"{time.perf_counter() - start:.3f} s\")\n"
    )
    use_instead = (
        "import time\n\n"
        "import jax\n"
        "import jax.numpy as jnp\n\n"
        "matmul = jax.jit(lambda a: a @ a)\n"
        "x = jnp.ones((2000, 2000))\n"
        "start = time.perf_counter()\n"
        "y = jax.block_until_ready(matmul(x))\n"
        "print(f\"{time.perf_counter() - start:.3f} s\")\n"
    )
    not_flagged = (
        "Regions with a wait in them (see above), or with any call jaxlint does not know does not wait (a helper "
        "of yours may convert the result); regions that do not visibly run device work (`jax.tree_util` runs on "
        "the host; a jitted function whose body computes nothing, such as `pass` or `return state`, is timed for "
        "its dispatch overhead on purpose); timers that are not read back "
        "with a subtraction from the start in the same block; code inside traced functions."
    )
    fixable = True
    fix_safety = (
        "Safe, offered when the timed region has exactly one statement running jax, at its top level, of the "
        "form `out = f(...)` or `f(...)`: it becomes `out = jax.block_until_ready(f(...))`. "
        "`jax.block_until_ready` returns its argument unchanged (non-array leaves of a pytree included), so "
        "only the waiting changes, which is what the measurement needs."
    )
    verify = "Not confirmed by `--verify`: nothing fails; the numbers are wrong."

    def visit_Module(self, node: cst.Module) -> None:
        self._tests = self.facts.in_test_file  # tests time dispatch and tracing on purpose
        if not self._tests:
            self._block(node.body)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if self.facts.traced_scope is None and not self._tests:
            self._block(node.body)

    def _block(self, statements) -> None:
        statements = list(statements)
        for index, statement in enumerate(statements):
            start = _timer_start(statement, self.names)
            if start is None:
                continue
            for end in range(index + 1, len(statements)):
                if any(self.names.qualified(call.func) in _TIMERS for call in _all_calls(statements[end])):
                    if any(_subtracts(later, start) for later in statements[end:]):
                        self._region(statements[index], statements[index + 1:end], statements[end], start)
                    break

    def _region(self, first: cst.CSTNode, region: list[cst.CSTNode], last: cst.CSTNode, start: str) -> None:
        if {name.value for name in reads(last)} & rebound_names(region):
            return  # `print(f"{loss} {time.time() - t0}")` may convert a result before reading the clock
        running = []  # statements with jax work
        for statement in region:
            if _may_sync(statement):
                return
            jax_calls = 0
            for call in _all_calls(statement):
                kind = self._kind(call)
                if kind in ("sync", "unknown"):
                    return
                jax_calls += kind == "jax"
            if jax_calls:
                running.append(statement)
        if not running:
            return
        timer = self.names.qualified(first.body[0].value.func)
        self.report(first.body[0].value, lambda line_of: (
            f"`{start}` times jax work that runs asynchronously, and nothing waits for its result before the "
            f"clock is read again at line {line_of(last)}: this measures dispatch, not the computation; call "
            f"`jax.block_until_ready(...)` (or `.block_until_ready()`) on the result before reading `{timer}`"
        ), self._fix(running))

    def _kind(self, call: cst.Call) -> str:
        """"jax" (dispatches work), "sync" (waits), "harmless", or "unknown"."""
        func = call.func
        qualified = self.names.qualified(func)
        if qualified in _SYNCS or (isinstance(func, cst.Attribute) and func.attr.value in _SYNC_METHODS):
            return "sync"
        if qualified is not None and (qualified.startswith("numpy.") or qualified in _TIMERS):
            return "sync" if qualified.startswith("numpy.") else "harmless"
        if qualified is not None and qualified.startswith(_DISPATCHING):
            return "jax"
        if qualified in TREE_MAPS and call.args and self._waits(call.args[0].value):
            return "sync"  # `jax.tree.map(lambda x: x.block_until_ready(), metrics)` waits on every leaf
        if qualified is not None and qualified.startswith("jax."):
            return "harmless" if qualified.startswith(("jax.tree_util.", "jax.tree.")) else "unknown"
        callee = self.facts.jitted(call)
        if callee is not None:
            return "harmless" if callee.function is not None and _computes_nothing(callee.function) else "jax"
        if isinstance(func, cst.Name) and func.value in _HARMLESS and self.facts.binding(func) is None:
            return "harmless"
        if isinstance(func, cst.Attribute) and func.attr.value in _HARMLESS_METHODS:
            return "harmless"
        return "unknown"

    def _waits(self, function: cst.BaseExpression) -> bool:
        """A function given to a tree map that waits for its leaf: a sync, or a lambda calling one."""
        if isinstance(function, cst.Lambda):
            return isinstance(function.body, cst.Call) and self._kind(function.body) == "sync"
        return self.names.qualified(function) in _SYNCS

    def _fix(self, running: list[cst.CSTNode]) -> FixPlan | None:
        if len(running) != 1 or not isinstance(running[0], cst.SimpleStatementLine) or len(running[0].body) != 1:
            return None
        small = running[0].body[0]
        value = small.value if isinstance(small, (cst.Assign, cst.Expr)) else None
        if not isinstance(value, cst.Call) or self._kind(value) != "jax":
            return None
        spelled = self.spell("jax.block_until_ready")
        if spelled is None:
            return None
        name, imports = spelled
        return FixPlan(f"wait with `{name}(...)`", ((value, (f"{name}(", value, ")")),), imports=imports)
