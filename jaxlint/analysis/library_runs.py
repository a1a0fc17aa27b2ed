"""Calls through which a library runs a function of the user's: `model.apply(variables, x)` runs a flax Module's
`__call__(x)`, `net.apply(params, rng, x)` runs the function `hk.transform` wrapped. Called from a traced
function, they give that function the caller's tracers (model/classes.py: METHOD_RUNNERS, FUNCTION_RUNNERS)."""

from __future__ import annotations

from collections.abc import Collection

import libcst as cst

from jaxlint.analysis.callees import ModuleBindings
from jaxlint.analysis.names import Names
from jaxlint.model.classes import FUNCTION_RUNNERS, METHOD_RUNNERS, RNG_DROPPING

Chain = tuple[cst.CSTNode, ...]


def library_base(
    cls: cst.ClassDef,
    module: cst.Module,
    bindings: ModuleBindings,
    names: Names,
    bases: Collection[str],
    depth: int = 0,
) -> str | None:
    """The library base class of `bases` that `cls` derives from, directly or through classes of this module."""
    for arg in cls.bases:
        if arg.keyword is not None or arg.star:
            continue
        qualified = names.qualified(arg.value) or ""
        if qualified in bases:
            return qualified
        base = bindings.class_of(arg.value, (module,))
        if base is not None and depth < 8:
            found = library_base(base, module, bindings, names, bases, depth + 1)
            if found is not None:
                return found
    return None


def _leading(call: cst.Call, count: int) -> bool:
    """The call gives at least `count` plain positional arguments first."""
    first = call.args[:count]
    return len(first) == count and all(arg.keyword is None and not arg.star for arg in first)


def module_run(
    call: cst.Call, cls: cst.ClassDef, module: cst.Module, bindings: ModuleBindings, names: Names
) -> tuple[str, int] | None:
    """For `instance.apply(...)` of a class deriving from a library Module: the method it runs (`__call__`, or
    the one `method=` names as `Cls.encode` or `"encode"`) and how many arguments come before that method's own."""
    base = library_base(cls, module, bindings, names, METHOD_RUNNERS)
    runner = METHOD_RUNNERS[base] if base is not None else None
    func = call.func
    if runner is None or not isinstance(func, cst.Attribute):
        return None
    skip = runner.methods.get(func.attr.value)
    if skip is None or not _leading(call, skip):
        return None
    method = runner.default
    named = next((arg.value for arg in call.args if arg.keyword and arg.keyword.value == runner.method_keyword), None)
    if named is not None:
        method = _method_name(named)
    return (method, skip) if method is not None else None


def _method_name(expr: cst.BaseExpression) -> str | None:
    """`encode` of `method=Model.encode` or `method="encode"`; None for anything else (a lambda, a variable)."""
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
        return expr.attr.value
    if isinstance(expr, cst.SimpleString) and isinstance(expr.evaluated_value, str):
        return expr.evaluated_value
    return None


def function_run(
    call: cst.Call, bindings: ModuleBindings, chain: Chain, names: Names
) -> tuple[cst.BaseExpression, Chain, int] | None:
    """For `net.apply(...)` where `net` is bound once to `hk.transform(f)` (or is a def `@hk.transform`
    decorates): `f`, the chain where that name resolves, and how many arguments come before its own."""
    func = call.func
    if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name):
        return None
    found = bindings.binding(func.value, chain)
    if found is None:
        return None
    made, where, _ = found
    dropped = None
    target: cst.BaseExpression
    if isinstance(made, cst.FunctionDef) and len(made.decorators) == 1:
        wrapper, target = names.qualified(made.decorators[0].decorator), made.name
    elif isinstance(made, cst.Call):
        made, dropped = _unwrapped(made, names)
        if not _leading(made, 1):
            return None
        wrapper, target = names.qualified(made.func), made.args[0].value
    else:
        return None
    runner = FUNCTION_RUNNERS.get(wrapper or "")
    skip = runner.methods.get(func.attr.value) if runner is not None else None
    if skip is None:
        return None
    skip -= dropped == func.attr.value
    return (target, where, skip) if _leading(call, skip) else None


def _unwrapped(made: cst.Call, names: Names) -> tuple[cst.Call, str | None]:
    """`hk.transform(f)` inside `hk.without_apply_rng(...)`, with the method the wrapper drops an argument of."""
    dropped = RNG_DROPPING.get(names.qualified(made.func) or "")
    if dropped is not None and _leading(made, 1) and isinstance(made.args[0].value, cst.Call):
        return made.args[0].value, dropped
    return made, None
