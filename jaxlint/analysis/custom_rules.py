"""The derivative rules a module registers for its custom_jvp and custom_vjp functions (`@f.defjvp def f_jvp(...)`,
`f.defjvp(f_jvp)`, `f.defvjp(f_fwd, f_bwd)`): jax runs a rule when it differentiates a call of `f`, so the rule's
parameters are tracers exactly where `f`'s are (a staged trace around the call), and a rule storing one leaks it."""

from __future__ import annotations

from typing import Literal

import libcst as cst

from jaxlint.analysis.names import Names
from jaxlint.analysis.traced import decorator_transform
from jaxlint.model.transforms import CUSTOM_RULES

# What a rule is given: `jvp` (primals, tangents), `fwd` the function's own arguments, `bwd` (residuals, cotangents).
Role = Literal["jvp", "fwd", "bwd"]
_REGISTRATIONS: dict[str, tuple[Role, ...]] = {"defjvp": ("jvp",), "defvjp": ("fwd", "bwd")}


def custom_rules(module: cst.Module, names: Names, table) -> dict[cst.FunctionDef, tuple[cst.FunctionDef, Role]]:
    """Each module-level def registered as a rule of a module-level custom_jvp or custom_vjp def: that def, and
    what the rule is given."""
    defs = {s.name.value: s for s in module.body if type(s) is cst.FunctionDef}
    customs = {
        name: function
        for name, function in defs.items()
        if any(
            (t := decorator_transform(d, names, table)) is not None and t.name in CUSTOM_RULES
            for d in function.decorators
        )
    }
    found: dict[cst.FunctionDef, tuple[cst.FunctionDef, Role]] = {}
    for statement in module.body:
        if type(statement) is cst.FunctionDef:
            for decorator in statement.decorators:
                registered = _registered(decorator.decorator, customs)
                if registered is not None and registered[1] == ("jvp",):
                    found[statement] = (registered[0], "jvp")
        elif type(statement) is cst.SimpleStatementLine:
            for small in statement.body:
                call = small.value if type(small) is cst.Expr else None
                if type(call) is not cst.Call:
                    continue
                registered = _registered(call.func, customs)
                if registered is None:
                    continue
                for arg, role in zip(call.args, registered[1]):
                    rule = defs.get(arg.value.value) if type(arg.value) is cst.Name and arg.keyword is None else None
                    if rule is not None:
                        found[rule] = (registered[0], role)
    return found


def _registered(
    expr: cst.BaseExpression, customs: dict[str, cst.FunctionDef]
) -> tuple[cst.FunctionDef, tuple[Role, ...]] | None:
    """`f.defjvp` or `f.defvjp` of a custom def `f`: that def and the roles of the rules it takes, in order."""
    if type(expr) is not cst.Attribute or type(expr.value) is not cst.Name or expr.attr.value not in _REGISTRATIONS:
        return None
    function = customs.get(expr.value.value)
    return (function, _REGISTRATIONS[expr.attr.value]) if function is not None else None
