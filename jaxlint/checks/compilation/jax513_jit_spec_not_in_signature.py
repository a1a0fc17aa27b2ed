"""JAX513 jit-spec-not-in-signature: A `static_argnums`/`donate_argnums` position or `static_argnames`/
`donate_argnames` name that the jitted function does not have."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.callees import JittedCallee, options_of
from jaxlint.analysis.expected_errors import ExpectedErrors
from jaxlint.analysis.traced import NotLiteral, literal_ints, literal_strs
from jaxlint.checks.base import CalleeRule, code
from jaxlint.model.functions import VALUE_ERRORS
from jaxlint.model.transform_spec import Role
from jaxlint.model.transforms import JIT_CHECKS_ARGUMENT_SPECS_SINCE, JITS


def _roles(transform: str) -> list[Role]:
    """Where a jit takes its static and its donated arguments (model/transform_spec.py)."""
    options = options_of(transform)
    return [role for role in (options.static, options.donate) if role is not None]


# The options that give positions or names: a call giving none of them makes no spec to check.
_OPTIONS = frozenset(
    option for transform in JITS for role in _roles(transform) for option in (role.argnums, role.argnames) if option
)
_METHOD_DECORATORS = ("staticmethod",)


class JitSpecNotInSignature(ExpectedErrors, CalleeRule):
    code = "JAX513"
    name = "jit-spec-not-in-signature"
    summary = "A `static_argnums`/`donate_argnums` position or `*_argnames` name the jitted function does not have"
    what_it_does = (
        "Flags a literal `static_argnums` or `donate_argnums` entry beyond the positional parameters of the "
        "function `jax.jit` is applied to, and a literal `static_argnames` or `donate_argnames` entry that is "
        "none of its parameters (or a positional-only one), when jaxlint sees that function: a def or lambda of "
        "the module, decorated by nothing but the jit, given to `jax.jit(f, ...)`, `@jax.jit(...)` or "
        "`@partial(jax.jit, ...)`, with the parameters `partial` or a bound `self` fill taken away."
    )
    why_bad = (
        "jit checks its options against the function's signature when it is applied. With jax 0.10.2, "
        "`jax.jit(f, static_argnums=2)` on `def f(key, t)` raises `ValueError: Jitted function has "
        "static_argnums=(2,), but only accepts 2 positional arguments.`, and an unknown name raises `ValueError: "
        "Jitted function has invalid argnames {'n'} in static_argnames. Function does not take these args.`: "
        "the decorated def, or the line that jits it, fails before anything runs (since jax 0.4.26; a warning "
        "before, when the option did nothing). See [`jax.jit`](https://docs.jax.dev/en/latest/_autosummary/"
        "jax.jit.html)."
    )
    example = (
        "from functools import partial\n\n"
        "import jax\n\n\n"
        "@partial(jax.jit, static_argnums=2)\n"
        "def histogram(key, t):\n"
        "    return jax.random.uniform(key) * t\n"
    )
    use_instead = (
        "from functools import partial\n\n"
        "import jax\n\n\n"
        "@partial(jax.jit, static_argnums=1)\n"
        "def histogram(key, t):\n"
        "    return jax.random.uniform(key) * t\n"
    )
    not_flagged = (
        "Functions with `*args` (for positions) or `**kwargs` (for names); functions under another decorator or "
        "that jaxlint cannot see; `partial` with keywords; options that are not literals; `jax.pmap` and other "
        "transforms; a target jax release (`target-jax-version`) older than 0.4.26."
    )
    verify = "`--verify` runs the code that applies jit and expects the `ValueError` at this line."
    raises = VALUE_ERRORS  # caught around the jit, the error is shown on purpose

    def visit_Call(self, node: cst.Call) -> None:
        given = node.args if type(node.func) is not cst.Call else (*node.args, *node.func.args)
        if not any(arg.keyword is not None and arg.keyword.value in _OPTIONS for arg in given):
            return  # (`partial(jax.jit, static_argnums=1)(f)` gives its options to the call it calls)
        callee = self.facts.jit_made(node)
        if callee is not None and callee.where is node and _undecorated(callee.function):
            self._check(callee)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        callee = self.facts.jit_decorated(node)
        if callee is not None and node.decorators and callee.where is node.decorators[-1]:
            self._check(callee)  # the jit is the innermost decorator: it sees the def's own signature

    def _check(self, callee: JittedCallee) -> None:
        target = self.facts.target_version
        if callee.transform not in JITS or target is not None and target < JIT_CHECKS_ARGUMENT_SPECS_SINCE:
            return
        function, signature = callee.function, callee.signature
        if function is None or signature is None or callee.bound_names:
            return
        params = function.params
        name = function.name.value if isinstance(function, cst.FunctionDef) else "the lambda"
        count = len(signature.positional)
        roles = _roles(callee.transform)
        for role in roles:
            option, spec = role.argnums, callee.options.get(role.argnums)
            if spec is None or isinstance(params.star_arg, cst.Param):
                continue
            try:
                beyond = [n for n in literal_ints(spec) if n >= count or -n > count]
            except NotLiteral:
                continue
            if beyond:
                self.report(
                    spec,
                    (
                        f"`{option}={code(spec)}` gives position {beyond[0]}, but `{name}` takes {count} positional "
                        f"parameter{'' if count == 1 else 's'}{' after those bound' if callee.bound else ''}: jit "
                        f"raises `ValueError: Jitted function has {option}=..., but only accepts {count} positional "
                        f"arguments.` when it is applied; give a position below {count}, or name the parameter in "
                        f"`{role.argnames}`"
                    ),
                )
        positional_only = {p.name.value for p in params.posonly_params}
        for role in roles:
            spec = callee.options.get(role.argnames) if role.argnames is not None else None
            if spec is None:
                continue
            try:
                names = literal_strs(spec)
            except NotLiteral:
                continue
            takes_any = isinstance(params.star_kwarg, cst.Param)
            missing = [n for n in names if n in positional_only or not takes_any and n not in signature.all]
            if missing:
                why = "is positional-only" if missing[0] in positional_only else f"is no parameter of `{name}`"
                self.report(
                    spec,
                    (
                        f"`{missing[0]}` in `{role.argnames}` {why}: jit raises `ValueError: Jitted function has "
                        f"invalid argnames {{'{missing[0]}'}} in {role.argnames}.` when it is applied; name a parameter it takes "
                        f"by keyword"
                    ),
                )


def _undecorated(function: cst.FunctionDef | cst.Lambda | None) -> bool:
    """Whether jit sees the def's own signature: nothing but `staticmethod` decorates it."""
    if not isinstance(function, cst.FunctionDef):
        return True
    return all(type(d.decorator) is cst.Name and d.decorator.value in _METHOD_DECORATORS for d in function.decorators)
