"""JAX503 jit-method-self: `@jax.jit` on a method: `self` is traced as an array argument."""

from __future__ import annotations

import libcst as cst

from jaxlint.checks.base import CalleeRule
from jaxlint.model.transforms import JITS


# ---------------------------------------------------------------------- JAX503


class JitMethodSelf(CalleeRule):
    code = "JAX503"
    name = "jit-method-self"
    summary = "`@jax.jit` on a method: `self` is traced as an array argument"
    what_it_does = (
        "Flags `@jax.jit` (also `@jax.jit(...)`, `@partial(jax.jit, ...)`, `pjit`) directly on a method whose "
        "first parameter is `self`, when `self` is not static (`static_argnums=0` or `static_argnames='self'`) "
        "and the class is visibly not a pytree: a class of this module with no base classes but `object`, "
        "other such classes, or a flax linen or PyTorch `Module` (jax takes their instances as leaves too), no "
        "decorator but `@dataclasses.dataclass`, no `tree_flatten` method and no `jax.tree_util.register_*` call "
        "naming it."
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
            if self.facts.never_flattened(cls):
                self.report(
                    decorator,
                    (
                        f"`{transform}` on the method `{method.name.value}` traces `self` as an array argument: "
                        f"calling it on a `{cls.name.value}` raises `TypeError: Error interpreting argument to "
                        f"<function {cls.name.value}.{method.name.value}> as an abstract array`; jit a function of "
                        f"the arrays it needs and call that from the method, or mark `self` static "
                        f"(`static_argnums=0`, which ignores later changes to its attributes)"
                    ),
                )
