"""The calls of a transform bound to a name (`sample_jit = jax.jit(sample)`): each one is a trace of `sample`.

jax traces `sample` at each call of `sample_jit`, with that call's arguments: a parameter the call leaves `None`
stays `None` in the trace (dead_branches.py). When the module reads the wrapper only to call it, directly or
through a name that `a if test else b` binds to it, and nothing else transforms `sample`, those calls are every
trace of it: which of its `is None` branches no trace enters follows from them, as it does for a helper from its
traced calls. What an `is None` test of the caller's parameters says where the call is made (`if blocks is None:
return sample(...)` before `sample_jit(..., blocks=blocks)`) holds at the call; so does what the test choosing
the wrapper says (`kernel = sample if blocks is None else sample_jit`: when `kernel` is `sample_jit`, `blocks`
is not `None`).
"""

from __future__ import annotations

from collections import Counter

import libcst as cst

from jaxlint.analysis.name_uses import module_name_uses

Key = tuple[int, str]  # (id of a scope, a name bound there)
Nones = dict[str, bool]  # names of the caller known `None` (True) or not (False)


class WrappedCalls:
    """The wrappers a module binds, the names chosen between them by a conditional expression, and what is known
    of the caller's parameters at each call of a name."""

    def __init__(self) -> None:
        self.wrappers: set[Key] = set()
        # `kernel = sample if blocks is None else sample_jit`: where it is bound, and each name it may hold, with
        # what the test says then.
        self.choices: dict[Key, tuple[tuple[cst.CSTNode, ...], list[tuple[cst.Name, Nones]]]] = {}
        self.at_call: dict[int, Nones] = {}  # by id of a call of a name

    def bound(self, key: Key, wrapper: bool) -> None:
        """`key` is bound again: to a transform's wrapper, or to something else (no longer a wrapper)."""
        self.choices.pop(key, None)
        if wrapper:
            self.wrappers.add(key)
        else:
            self.wrappers.discard(key)

    def chosen(self, chain: tuple[cst.CSTNode, ...], name: str, arms: list[tuple[cst.BaseExpression, Nones]]) -> None:
        """`name` is bound where `chain` ends to a conditional expression whose arms are these, each with what its
        test says there."""
        key = (id(chain[-1]), name)
        self.wrappers.discard(key)
        named = [(arm, nones) for arm, nones in arms if isinstance(arm, cst.Name)]
        if len(named) == len(arms):
            self.choices[key] = (chain, named)
        else:
            self.choices.pop(key, None)


def only_called(module: cst.Module, reads: Counter[tuple[Key | None, str]]) -> set[Key]:
    """The names (wrappers and choices) every use of which in `module` is one of `reads` (a call, or an arm of a
    choice), counted by key with its name: a name read in any other way (passed, returned, exported) may be
    called elsewhere, with arguments not seen."""
    uses = module_name_uses(module)
    counted: Counter[str] = Counter()
    for (_, name), count in reads.items():
        counted[name] += count + 1  # (and the name's one binding)
    return {key for key, name in reads if key is not None and uses[name] == counted[name]}
