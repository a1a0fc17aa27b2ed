"""A call's arguments, as the callee will receive them, when the source says so."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from jaxlint.model.keys import BRANCHING, CONDS
from jaxlint.model.transforms import LAX_OPERANDS


@dataclass
class Arguments:
    positional: list[cst.BaseExpression] = field(default_factory=list)  # those before any `*args`
    keywords: dict[str, cst.BaseExpression] = field(default_factory=dict)
    starred: bool = False  # `*args`: the positions after it are unknown
    double_starred: bool = False  # `**kwargs`: any keyword may be given

    @property
    def complete(self) -> bool:
        """No `*args` or `**kwargs`: every argument is one of the above."""
        return not (self.starred or self.double_starred)


def arguments(call: cst.Call) -> Arguments:
    found = Arguments()
    for arg in call.args:
        if arg.star == "**":
            found.double_starred = True
        elif arg.star == "*":
            found.starred = True
        elif arg.keyword is not None:
            found.keywords[arg.keyword.value] = arg.value
        elif not found.starred:
            found.positional.append(arg.value)
    return found


def argument(call: cst.Call, position: int, keyword: str) -> cst.BaseExpression | None:
    """The argument for one parameter: by keyword, or by position when no `*args` comes first."""
    given = arguments(call)
    if keyword in given.keywords:
        return given.keywords[keyword]
    return given.positional[position] if position < len(given.positional) else None


def branch_operands(call: cst.Call, qualified: str) -> list[cst.BaseExpression]:
    """What `lax.cond(pred, f, g, *operands)` or `lax.switch(i, branches, *operands)` hands each branch, in order
    (`operand=x`: that one); none when `*args` hides them, or for a cond of five positional arguments, which may
    be the older `cond(pred, x_true, f_true, x_false, f_false)` (jax tells the forms apart by what is callable)."""
    if qualified not in BRANCHING:
        return []
    given = arguments(call)
    _, words, rest = LAX_OPERANDS[qualified]
    keyword = next((given.keywords[word] for word in words if word in given.keywords), None)
    if keyword is not None:
        return [keyword]
    if given.starred or rest is None or (qualified in CONDS and len(given.positional) == 5):
        return []
    return given.positional[rest:]


def rejected_places(params: cst.Parameters, places: tuple[int | str, ...], offset: int) -> bool:
    """Whether Python rejects a call giving arguments at these places (positions counted from `offset`, the
    parameters the call fills itself, and keywords) before the function's body runs: one by position lands on a
    parameter also given by keyword ("got multiple values for argument"), or more come by position than the function
    takes."""
    positional = [param.name.value for param in (*params.posonly_params, *params.params)]
    count = sum(1 for place in places if isinstance(place, int))
    filled = positional[offset : offset + count]
    if len(filled) < count:
        return type(params.star_arg) is not cst.Param
    return any(isinstance(place, str) and place in filled for place in places)
