"""Branches no trace reaches: a test of a parameter (against `None`, or its truth) whose answer every traced
call fixes.

Whether a parameter `is None` is decided by Python while jax traces: `None` is a pytree with no leaves, so a
function called with `None` sees `None`, and one called with an array sees a tracer, which is never `None`.
When every call that reaches a function from a trace (a jitted or lax-staged caller) leaves a parameter at its
`None` default, or passes `None`, the trace never enters `if p is not None:`; when every one passes an array, a
tracer or a literal, it never enters `if p is None:`, nor gets past `if p is not None: return p`. Those branches
run only eagerly, on concrete values. The calls are those of the module jaxlint sees (`Key(key=key)` calls
`__init__`), and those of other modules that pass tracers, each never `None` where it gives one (those calls are
told apart by line); a function jax transforms directly (`jax.jit(f)`) is called with arguments jaxlint does not
follow, and is left alone.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from collections.abc import Callable, Mapping
from typing import cast

import libcst as cst

from jaxlint.analysis.bindings import parameter_names, rebound_names, statements
from jaxlint.analysis.loop_guards import constant
from jaxlint.analysis.module_memo import ModuleMemo
from jaxlint.analysis.values import Kind, Value
from jaxlint.traversal import children, in_order

_LITERALS = (
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.FormattedString,
    cst.Tuple,
    cst.List,
    cst.Dict,
    cst.Set,
    cst.ListComp,
    cst.DictComp,
    cst.SetComp,
    cst.Lambda,
)


@dataclass(frozen=True)
class Given:
    """The string or number literals a parameter may hold at the traced calls (`mode="implicit"` at one,
    `"explicit"` at another, `rate=0.0` left at its default, or a name a test there fixes: `if task in ("rte",
    "qnli"):`): not `None`, and Python decides `mode == "other"`, `rate > 0` and `if rate:` while jax traces, so a
    branch none of them takes is never traced."""

    values: frozenset[str | int | float]


# A parameter's value at a traced call, as far as its tests go: `None` (True), not `None` (False), the literal
# `False` (FALSE: not `None`, and false: `if verbose:` is never entered) or `True` (TRUE: not `None`, and true:
# `if not skip_checks:` is never entered), a string or number literal (Given), or the value of one of the caller's own
# parameters (GIVEN: what its callers gave, `None` or not as they decide).
FALSE = "False"
TRUE = "True"
GIVEN = "given"
Fixed = bool | str | Given


def is_none(expr: cst.BaseExpression | None) -> bool:
    return type(expr) is cst.Name and expr.value == "None"


def _is_false(expr: cst.BaseExpression | None) -> bool:
    return type(expr) is cst.Name and expr.value == "False"


def _never_none(expr: cst.BaseExpression, value: Value | None) -> bool:
    if isinstance(expr, _LITERALS) or (type(expr) is cst.Name and expr.value in ("True", "False")):
        return True
    # A tracer, a JAX or NumPy array, and a container the code built (a pytree of them) are never None.
    return value is not None and (value.kind in (Kind.TRACED, Kind.ARRAY) or value.numpy or value.contents is not None)


def none_at_call(
    function: cst.FunctionDef,
    bound: int,
    call: cst.Call,
    values: dict[int, Value | None],
    known: Mapping[str, Fixed] | None = None,
    handed: frozenset[str] = frozenset(),
) -> dict[str, Fixed]:
    """For each parameter of `function` whose `None`-ness this call fixes: True when it is `None` there (left at
    a `None` default, or given `None`), False when it is not (given a literal, a tracer or an array), GIVEN when
    the call hands on one of the caller's parameters that its callers give (`handed`). `values`: what the
    analysis knows of the call's arguments, by id of the argument's expression; `known`: the caller's names that
    are `None` (True) or not (False) where the call is (none_flow.py), or the string a test there fixes."""
    given = arguments_given(function, bound, call)
    if given is None:
        return {}
    params = function.params
    positional = [*params.posonly_params, *params.params][bound:]
    found: dict[str, Fixed] = {}
    for param in (*positional, *params.kwonly_params):
        name = param.name.value
        fixed = given.get(name, param.default)
        if (literal := fixed_by_literal(fixed)) is not None:
            found[name] = literal
        elif name in given and isinstance(held := given[name], cst.Name) and known and held.value in known:
            found[name] = known[held.value]  # `blocks=blocks` where `blocks is None` (or `== "a"`) was tested
        elif name in given and _never_none(given[name], values.get(id(given[name]))):
            found[name] = False
        elif name in given and type(held := given[name]) is cst.Name and held.value in handed:
            found[name] = GIVEN  # `scatter_add(src, index, dim_size)` inside a jitted function given `dim_size`
    return found


def fixed_by_literal(expr: cst.BaseExpression | None) -> Fixed | None:
    """What a literal given to a parameter (or its default) fixes: True for `None`, FALSE for `False` (`verbose=False`),
    TRUE for `True`, the value of a string or number (`mode="implicit"`, `rate=0.0`); None for anything else."""
    if is_none(expr):
        return True
    if _is_false(expr):
        return FALSE
    if type(expr) is cst.Name and expr.value == "True":
        return TRUE
    literal = _literal_value(expr)
    return Given(frozenset({literal})) if literal is not None else None


def _literal_value(expr: cst.BaseExpression | None) -> str | int | float | None:
    """The value of a string or number literal (`"a"`, `0.0`, `-1`); None for anything else (`True` is TRUE)."""
    if expr is None:
        return None
    known, value = constant(expr)
    return value if known and isinstance(value, (str, int, float)) and type(value) is not bool else None


def arguments_given(
    function: cst.FunctionDef | cst.Lambda, bound: int, call: cst.Call
) -> dict[str, cst.BaseExpression] | None:
    """The argument `call` gives each parameter it names (None: `*args` or too many positional arguments)."""
    if any(arg.star for arg in call.args):
        return None
    positional = [*function.params.posonly_params, *function.params.params][bound:]
    given: dict[str, cst.BaseExpression] = {}
    index = 0
    for arg in call.args:
        if arg.keyword is None:
            if index >= len(positional):
                return None
            given[positional[index].name.value] = arg.value
            index += 1
        else:
            given[arg.keyword.value] = arg.value
    return given


def agreed(answers: list[dict[str, Fixed]]) -> dict[str, Fixed]:
    """What every call fixes the same way: a literal at one and another value that is not `None` at the other
    agree that it is not `None`; a value handed on at one (GIVEN) and one not `None` at the other, that no call
    leaves it `None`."""
    if not answers:
        return {}
    common = dict(answers[0])
    for answer in answers[1:]:
        kept: dict[str, Fixed] = {}
        for name, fixed in common.items():
            if name not in answer:
                continue
            if answer[name] == fixed:
                kept[name] = fixed
            elif isinstance(fixed, Given) and isinstance(other := answer[name], Given):
                kept[name] = Given(fixed.values | other.values)  # one of the literals the calls give
            elif GIVEN in (fixed, answer[name]) and True not in (fixed, answer[name]):
                kept[name] = GIVEN
            elif fixed is not True and answer[name] is not True:
                kept[name] = False  # not `None` at either, by different values
        common = kept
    return common


def dead_branch(test: cst.BaseExpression, truth: bool, nones: dict[str, Fixed]) -> bool:
    """Whether the branch of `test` taken when it is `truth` is never entered, given which parameters are
    `None` (True) or not (False) at every traced call: `if p is not None:` (and `p is None`'s `else`) for a
    parameter always `None`; `if p is None:` (and `p is not None`'s `else`) for one never `None`. A parameter
    every traced call gives a value its own caller was given (GIVEN) is not known to reach `if p is None:`: that
    branch fills in what a caller left out, and no traced call is seen leaving it out."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return dead_branch(test.expression, not truth, nones)
    if isinstance(test, cst.BooleanOperation):
        # `a and b` is true only when both are; `a or b` is false only when both are.
        if isinstance(test.operator, cst.And) is truth:
            return dead_branch(test.left, truth, nones) or dead_branch(test.right, truth, nones)
        return False
    if type(test) is cst.Name:  # `if verbose:` with `verbose` `None` or `False` at every traced call
        fixed = nones.get(test.value)
        if isinstance(fixed, Given):  # `if rate:` with `rate=0.0` at every traced call
            held = {bool(value) for value in fixed.values}
            return len(held) == 1 and held.pop() is not truth
        return fixed in (True, FALSE) if truth else fixed == TRUE
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    operator = type(test.comparisons[0].operator)
    left, right = test.left, test.comparisons[0].comparator
    if operator in (cst.Equal, cst.NotEqual, cst.In, cst.NotIn):
        return _dead_by_text(test, truth, nones)
    if operator in _ORDER:
        return _dead_by_order(test, truth, nones)
    if operator not in (cst.Is, cst.IsNot) or not is_none(right) or type(left) is not cst.Name:
        return False
    fixed = nones.get(left.value)
    if fixed is None:
        return False
    entered_when_none = (operator is cst.Is) is truth
    if fixed == GIVEN:
        return entered_when_none
    none = fixed is True  # (`False` is not `None`)
    holds = none if operator is cst.Is else not none  # what the test gives at every traced call
    return holds is not truth


def filled_in(
    test: cst.BaseExpression, truth: bool, nones: dict[str, Fixed], given: dict[str, cst.BaseExpression]
) -> bool:
    """Whether the branch of `test` taken when it is `truth` runs only when a parameter the call gives is `None`
    (`if inds is None:`, `if inds is not None: ... else:`), and the call does not fix whether it is: a branch that
    fills in what the caller left out runs or not by the caller's value."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1) or not is_none(
        test.comparisons[0].comparator
    ):
        return False
    operator = type(test.comparisons[0].operator)
    name = test.left.value if type(test.left) is cst.Name else None
    entered_when_none = truth if operator is cst.Is else not truth if operator is cst.IsNot else None
    return bool(entered_when_none) and name in given and name not in nones


_ORDER: dict[type, Callable[[int | float, int | float], bool]] = {
    cst.LessThan: lambda a, b: a < b,
    cst.LessThanEqual: lambda a, b: a <= b,
    cst.GreaterThan: lambda a, b: a > b,
    cst.GreaterThanEqual: lambda a, b: a >= b,
}


def _dead_by_order(test: cst.Comparison, truth: bool, nones: dict[str, Fixed]) -> bool:
    """`rate > 0` (either side) of a parameter given number literals at every traced call: Python's answer is
    known when every one of them gives the same."""
    compare = _ORDER[type(test.comparisons[0].operator)]
    left, right = test.left, test.comparisons[0].comparator
    flipped = type(left) is not cst.Name
    name, other = (right, left) if flipped else (left, right)
    bound = _literal_value(other)
    fixed = nones.get(name.value) if type(name) is cst.Name else None
    if not isinstance(bound, (int, float)) or not isinstance(fixed, Given):
        return False
    numbers = [value for value in fixed.values if not isinstance(value, str)]
    if len(numbers) < len(fixed.values):
        return False
    holds = {compare(bound, value) if flipped else compare(value, bound) for value in numbers}
    return len(holds) == 1 and holds.pop() is not truth


def _dead_by_text(test: cst.BaseExpression, truth: bool, nones: dict[str, Fixed]) -> bool:
    """`mode == "explicit"`, `mode != "a"`, `mode in ("a", "b")` (either side for `==`/`!=`) of a parameter given
    string or number literals at every traced call: Python's answer is known when every one of them gives the same."""
    tested = literal_test(test)
    if tested is None or not isinstance(fixed := nones.get(tested[0]), Given):
        return False
    _, values, positive = tested
    if not all(type(value) in (str, int, float) for value in values):
        return False
    inside = {value in values for value in fixed.values}
    if len(inside) != 1:
        return False  # some of the literals pass the test and some do not
    holds = inside.pop() is positive
    return holds is not truth


def literal_test(test: cst.BaseExpression) -> tuple[str, frozenset, bool] | None:
    """A test of a name against literals, as (name, the literals, whether it holds when the name is one of them):
    `mode == "a"` (or `"a" == mode`) and `mode in ("a", "b")` (a tuple, list or set display) hold then, `!=` and
    `not in` do not."""
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return None
    operator, right = type(test.comparisons[0].operator), test.comparisons[0].comparator
    if operator in (cst.In, cst.NotIn):
        if type(test.left) is not cst.Name or type(right) not in (cst.Tuple, cst.List, cst.Set):
            return None
        elements = cast("cst.Tuple | cst.List | cst.Set", right).elements
        found = [constant(e.value) for e in elements if type(e) is not cst.StarredElement]
        if len(found) != len(elements) or not all(known for known, _ in found):
            return None
        return test.left.value, frozenset(value for _, value in found), operator is cst.In
    if operator not in (cst.Equal, cst.NotEqual):
        return None
    for name, other in ((test.left, right), (right, test.left)):
        known, value = constant(other)
        if type(name) is cst.Name and known and name.value not in ("True", "False", "None"):
            return name.value, frozenset({value}), operator is cst.Equal
    return None


def literal_facts(test: cst.BaseExpression, truth: bool) -> list[tuple[str, frozenset]]:
    """What the branch of `test` taken when it is `truth` shows of names tested against literals, as (name, the
    literals it is one of): `mode == "a"` taken, `mode != "a"` not taken, each such conjunct of an `and` taken
    (`not deterministic and mode == "a"`: Python runs the branch only when every conjunct holds), and a name every
    part of an `or` taken tests (`mode == "a" or mode == "b"`: one of both)."""
    if type(test) is cst.BooleanOperation:
        left, right = literal_facts(test.left, truth), literal_facts(test.right, truth)
        if isinstance(test.operator, cst.And) is truth:  # `a and b` taken, `a or b` not taken: each part is so
            return left + right
        either = dict(right)  # `a or b` taken, `a and b` not taken: one part is so
        return [(name, values | either[name]) for name, values in left if name in either]
    if type(test) is cst.UnaryOperation and isinstance(test.operator, cst.Not):
        return literal_facts(test.expression, not truth)
    found = literal_test(test)
    return [(found[0], found[1])] if found is not None and found[2] is truth else []


def tests_before_rebinding(function: cst.FunctionDef, names: set[str]) -> dict[cst.BaseExpression, set[str]]:
    """The tests of the `if` statements (and their `elif`s) of `function`'s body that run before any statement
    rebinds some of `names`, with those names: there each still holds what the call gave (jaxns tests
    `block_state is None` first, and binds it to a new value after the `if`)."""
    found: dict[cst.BaseExpression, set[str]] = {}
    live = set(names)
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    for statement in body:
        if not live:
            break
        branch: cst.If | cst.Else | None = statement if type(statement) is cst.If else None
        while isinstance(branch, cst.If):
            found[branch.test] = set(live)
            branch = branch.orelse
        live -= rebound_names([statement])
    return found


def settled(
    function: cst.FunctionDef | cst.Lambda, common: dict[str, Fixed]
) -> tuple[dict[str, Fixed], dict[cst.BaseExpression, dict[str, Fixed]]]:
    """What the traced calls' agreed answers (`common`) fix where each parameter still holds what the call gave: in
    the whole body for those it never binds again, and, for the others, at the tests before the statement that
    does (`if beta is None: beta = ...`), by test."""
    rebound = rebound_names(function.body) if common and isinstance(function, cst.FunctionDef) else set()
    at_tests: dict[cst.BaseExpression, dict[str, Fixed]] = {}
    if rebound & common.keys():
        early = tests_before_rebinding(cast(cst.FunctionDef, function), rebound & common.keys())
        at_tests = {test: {name: common[name] for name in live} for test, live in early.items()}
    return {name: fixed for name, fixed in common.items() if name not in rebound}, at_tests


def _leaves(guard: cst.If) -> bool:
    """Whether an `if` without `else` ends its block in `return` or `raise`."""
    last = list(statements(guard.body))[-1:]
    return guard.orelse is None and bool(last) and isinstance(last[0], (cst.Return, cst.Raise))


def guards_the_rest(function: cst.CSTNode | None, test: cst.BaseExpression) -> bool:
    """Whether `test` is that of an `if` of `function`'s body, with no `else`, whose block ends in `return` or
    `raise` (`if key is not None: return key`): the statements after it run only when the test is false."""
    body = (
        function.body.body
        if isinstance(function, cst.FunctionDef) and isinstance(function.body, cst.IndentedBlock)
        else ()
    )
    guard = next((s for s in body if type(s) is cst.If and s.test is test), None)
    return guard is not None and _leaves(guard)


Guard = tuple[cst.BaseExpression, bool]  # the test of an `if` around a point, and which branch the point is in


_module_guards: ModuleMemo[dict[int, dict[int, tuple[Guard, ...]]]] = ModuleMemo(lambda module: {})


def module_parameter_guards(module: cst.Module, function: cst.FunctionDef) -> dict[int, tuple[Guard, ...]]:
    """`parameter_guards` of a def of `module`, found once for every round and analysis that asks."""
    found = _module_guards(module)
    if id(function) not in found:
        found[id(function)] = parameter_guards(function)
    return found[id(function)]


def parameter_guards(function: cst.FunctionDef) -> dict[int, tuple[Guard, ...]]:
    """For each node of `function` (by id; nested functions left out) inside `if` statements that test only
    parameters no statement before the test rebinds (nor the loop around it), those tests: what a call's arguments
    decide of them (`if shuffle:` for `get_data_loader(rng, data, shuffle=False)`, `if inds is None: inds = ...`)
    holds where the test runs, so at every point of its branches, and after an `if` whose block returns or raises
    (`if p is None: return ...`) at every later point of its block. One walk answers every node."""
    params = {param.name.value for param in (*function.params.posonly_params, *function.params.params)}
    params |= {param.name.value for param in function.params.kwonly_params}
    found: dict[int, tuple[Guard, ...]] = {}

    def walk(node: cst.CSTNode, guards: tuple[Guard, ...], rebound: frozenset[str]) -> None:
        """`rebound`: the parameters a statement before `node` (or the loop around it) may have rebound."""
        if guards:
            found[id(node)] = guards
        kind = type(node)
        if kind in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
            return
        if kind in (cst.For, cst.While):  # a later iteration's test sees what the body bound
            rebound |= rebound_names([node]) & params
        guard = cast(cst.If, node) if kind is cst.If else None
        if guard is not None and not tested_names(guard.test) <= params - rebound:
            guard = None
        for child in children(node):
            if guard is not None and child is not guard.test:
                walk(child, (*guards, (guard.test, child is guard.body)), rebound)
            else:
                walk(child, guards, rebound)
            if isinstance(child, cst.BaseStatement):
                if type(child) is cst.If and _leaves(child) and tested_names(child.test) <= params - rebound:
                    guards = (*guards, (child.test, False))  # `if p is None: return ...`: the rest runs when false
                rebound |= rebound_names([child]) & params

    walk(function.body, (), frozenset())
    return found


def tested_names(test: cst.BaseExpression) -> set[str]:
    """The names a test reads."""
    return {found.value for found, _ in in_order(test) if type(found) is cst.Name} - {"None", "True", "False"}


def narrowed_at(
    chain: tuple[cst.CSTNode, ...],
    point: cst.CSTNode,
    guards_of: Callable[[cst.FunctionDef], dict[int, tuple[Guard, ...]]],
) -> dict[str, Fixed]:
    """The names a string test around `point` fixes (`if method == "jax":`, `if task in ("rte", "qnli"):`), as
    Given: in the function that holds `point`, and in each function around it for the def or lambda `point` sits in (a closure reads the name when it
    runs, so only a parameter its function never binds again keeps the value the test saw). A name a scope nearer
    `point` binds is that scope's own. `guards_of`: parameter_guards, kept by the caller."""
    found: dict[str, Fixed] = {}
    shadowed: set[str] = set()
    for scope in reversed(chain):
        if type(scope) is not cst.FunctionDef:  # a lambda binds its parameters; a class body, nothing a def reads
            if type(scope) is cst.Lambda:
                shadowed |= set(parameter_names(scope.params))
            point = scope
            continue
        own = set(parameter_names(scope.params))
        rebound = rebound_names(scope.body)
        for test, truth in guards_of(scope).get(id(point), ()):
            tested = literal_test(test)
            if tested is None or tested[2] is not truth:
                continue
            name, texts, _ = tested
            strings = all(isinstance(text, str) for text in texts)
            if strings and name in own and name not in rebound and name not in shadowed:
                found.setdefault(name, Given(frozenset(texts)))
        shadowed |= own | rebound
        point = scope
    return found


def fixed_arguments(call: cst.Call) -> tuple[tuple[tuple[int | str, str], ...], tuple[int | str, ...] | None]:
    """For another module: the arguments of `call` whose value decides a test (`None`, `True`, `False`, a string
    or number literal), by position or keyword, as text; and every place the call gives an argument (None: a `*args` or
    `**kwargs` hides some, so what a parameter left out holds is not known)."""
    fixed: list[tuple[int | str, str]] = []
    places: list[int | str] = []
    position, starred = 0, False  # (after a `*args`, where the positional ones land is not known)
    for arg in call.args:
        if arg.star:
            starred = True
            continue
        if arg.keyword is not None:
            place: int | str = arg.keyword.value
        elif starred:
            continue
        else:
            place, position = position, position + 1
        places.append(place)
        text = _fixed_text(arg.value)
        if text is not None:
            fixed.append((place, text))
    return tuple(fixed), None if starred else tuple(places)


def _fixed_text(expr: cst.BaseExpression | None) -> str | None:
    if type(expr) is cst.Name and expr.value in ("None", "True", "False"):
        return expr.value
    literal = _literal_value(expr)
    if isinstance(literal, str):
        return "'" + literal
    return "#" + repr(literal) if literal is not None else None


def fixed_of(text: str) -> Fixed:
    """What `fixed_arguments`' text of an argument (or `_fixed_text` of a default) fixes of its parameter."""
    if text == "None":
        return True
    if text in (FALSE, TRUE):
        return text
    if text.startswith("#"):
        return Given(frozenset({ast.literal_eval(text[1:])}))
    return Given(frozenset({text[1:]}))


def fixed_default(param: cst.Param) -> Fixed | None:
    """What a parameter's default fixes, where a call leaves it out (None: nothing a test decides)."""
    text = _fixed_text(param.default)
    return fixed_of(text) if text is not None else None
