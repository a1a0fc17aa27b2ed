"""JAX502 unhashable-static-arg: A list, dict, set or array passed in a static position of a jitted callable."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.callees import Argument, JittedCallee
from jaxlint.analysis.expected_errors import ExpectedErrors
from jaxlint.checks.base import CalleeRule, FixPlan, code
from jaxlint.checks.compilation._common import returns, static_arguments, static_position
from jaxlint.model.functions import ARRAY_MAKERS, SEQUENCE_MODULES
from jaxlint.traversal import children


# ---------------------------------------------------------------------- JAX502

_UNHASHABLE_BUILTINS = frozenset({"list", "dict", "set", "bytearray"})
# What a tuple can stand in for a list in: iteration, reading items, these functions, unpacking.
_SEQUENCE_FUNCTIONS = frozenset(
    {
        "len",
        "tuple",
        "list",
        "sorted",
        "enumerate",
        "zip",
        "sum",
        "max",
        "min",
        "reversed",
        "iter",
        "any",
        "all",
        "set",
        "frozenset",
        "map",
        "math.prod",
        "functools.reduce",
    }
)


def _tuple_works(function: cst.FunctionDef | cst.Lambda, param: str, names) -> bool:
    """Whether every use of `param` in `function` works the same on a tuple as on a list."""
    return all(_use_ok(parents, use, names) for parents, use in _name_uses(function.body, param, ()))


def _name_uses(node: cst.CSTNode, name: str, parents: tuple[cst.CSTNode, ...]):
    """Each `Name` node spelling `name`, with the nodes above it (innermost last)."""
    if isinstance(node, cst.Name):
        if node.value == name:
            yield parents, node
        return
    inner: list[cst.CSTNode]
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
        return (
            bool(func and func.startswith(SEQUENCE_MODULES))
            or spelled in _SEQUENCE_FUNCTIONS
            or (func in _SEQUENCE_FUNCTIONS)
        )
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
        "(`np.array`, `jnp.zeros`...), a tuple holding one of those, a name or `self.attr` bound once to one of "
        "those, a call of a function of the project that returns a list, dict or set literal on every path, or an "
        "instance of a `@dataclass` that keeps `eq` and is not frozen (Python sets its `__hash__` to None). Static positions are resolved as jax does: `static_argnums` against the wrapped function's "
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
        '[`jax.jit`](https://docs.jax.dev/en/latest/_autosummary/jax.jit.html): "Static arguments are included '
        'as part of a compilation cache key, which is why hash and equality operators must be defined."'
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
        "Tuples, strings, numbers, frozen dataclasses, `@dataclass(eq=False)` (hashed by identity) and any value "
        "jaxlint cannot see is unhashable (a parameter, an attribute set in several places, a call of a function "
        "outside the project); arguments in positions that are not static; "
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
    verify = (
        "`--verify` confirms it when the call runs and jax raises `ValueError: Non-hashable static arguments` "
        "at this line, or when the function is compiled at every call of this line, three times or more, "
        "because the static argument changed (jax's reason, `jax_explain_cache_misses`). The call must run: module-level code "
        "under `--verify`, a script or the tests under `--verify=run`."
    )

    def visit_Call(self, node: cst.Call) -> None:
        found = self.jitted_arguments(node)
        bound = self.facts.partial_of(node)
        if bound is not None:  # `partial(step, [64, 64])`: the call it spells gets the list
            callee, spelled = bound
            found = callee, callee.arguments(spelled, self.facts.target_version)
            node = spelled
        for callee, argument in static_arguments(found):
            kind = self._unhashable(argument.expr)
            if kind is None:
                continue
            use = "a tuple" if kind == "a list" else "a hashable value (a tuple, a frozen dataclass)"
            self.report(
                argument.expr,
                (
                    f"`{code(argument.expr)}` ({kind}) is passed as {static_position(callee, argument, node)}: static arguments must be hashable, so this raises "
                    f"`ValueError: Non-hashable static arguments are not supported`; pass {use}"
                ),
                self._fix(callee, argument),
            )

    def _unhashable(self, expr: cst.BaseExpression, depth: int = 0) -> str | None:
        """What kind of unhashable value `expr` visibly is, or None."""
        if isinstance(expr, (cst.List, cst.ListComp)):
            return "a list"
        if isinstance(expr, (cst.Dict, cst.DictComp)):
            return "a dict"
        if isinstance(expr, (cst.Set, cst.SetComp)):
            return "a set"
        if isinstance(expr, cst.Tuple):
            inner = [
                self._unhashable(element.value, depth)
                for element in expr.elements
                if not isinstance(element, cst.StarredElement)
            ]
            return next((f"a tuple holding {kind}" for kind in inner if kind), None)
        if isinstance(expr, cst.Call):
            qualified = self.names.qualified(expr.func)
            if qualified in ARRAY_MAKERS:
                return "an array"
            if (
                isinstance(expr.func, cst.Name)
                and expr.func.value in _UNHASHABLE_BUILTINS
                and self.facts.binding(expr.func) is None
                and not self._bound_anywhere(expr.func)
            ):
                return f"a {expr.func.value}"
            return self._made_unhashable(expr, depth)
        if isinstance(expr, (cst.Name, cst.Attribute)) and depth == 0:  # a name or `self.attr` bound once
            found = self.facts.binding(expr)
            if found is not None and isinstance(found[0], cst.BaseExpression):
                return self._unhashable(found[0], depth + 1)
        return None

    def _made_unhashable(self, call: cst.Call, depth: int) -> str | None:
        """What unhashable value a call visibly gives: an instance of a dataclass whose `__hash__` is None, or
        the list, dict or set literal a function of the project returns on every path."""
        made = self.facts.value_of(call).instance
        if isinstance(made, cst.ClassDef) and self._unhashable_dataclass(made):
            return f"a `{made.name.value}`, a dataclass with `eq` and without `frozen`, whose `__hash__` is None"
        if depth > 1:
            return None
        found = self.facts.binding(call.func, want_def=True)
        if found is not None and isinstance(found[0], cst.FunctionDef):
            kinds = [self._unhashable(r.value, depth + 1) if r.value else None for r in returns(found[0])]
            return f"{kinds[0]} that `{found[0].name.value}` returns" if kinds and all(kinds) else None
        imported = self.facts.imported_literal(call.func)
        if imported is not None and imported.startswith(("a list", "a dict", "a set")):
            return imported
        return None

    def _unhashable_dataclass(self, cls: cst.ClassDef) -> bool:
        """`@dataclass` (or `@dataclasses.dataclass(...)`) that leaves `eq` on and neither freezes the class nor
        asks for `unsafe_hash`, in a class defining no `__hash__`: Python sets its `__hash__` to None."""
        body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
        if cls.bases or any(isinstance(s, cst.FunctionDef) and s.name.value == "__hash__" for s in body):
            return False
        for decorator in cls.decorators:
            expr = decorator.decorator
            options = expr.args if isinstance(expr, cst.Call) else ()
            if self.names.qualified(expr.func if isinstance(expr, cst.Call) else expr) != "dataclasses.dataclass":
                continue
            given = {arg.keyword.value: arg.value for arg in options if arg.keyword is not None}
            if any(arg.keyword is None for arg in options):
                return False
            defaults = {"eq": "True", "frozen": "False", "unsafe_hash": "False"}
            return all(code(given.get(option, cst.Name(default))) == default for option, default in defaults.items())
        return False

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
