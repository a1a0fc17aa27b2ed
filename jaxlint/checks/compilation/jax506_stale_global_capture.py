"""JAX506 stale-global-capture: A jitted (staged) function reads a module global that the module changes after tracing
it."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import AbstractSet, Callable, Iterator, cast

import libcst as cst

from jaxlint.analysis.bindings import (
    declared_outer,
    mentioned_names,
    parameter_names,
    rebound_names,
    statements,
    target_names,
)
from jaxlint.analysis.dead_branches import arguments_given
from jaxlint.analysis.loop_guards import first_iteration_only
from jaxlint.analysis.names import scope_imports
from jaxlint.analysis.traced import TracedFunction
from jaxlint.checks.base import Rule
from jaxlint.model.transforms import CACHED_BY_FUNCTION, PARTIAL
from jaxlint.traversal import children, in_order


_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
_COMPOUND = (cst.For, cst.While, cst.If, cst.With, cst.Try, cst.TryStar, cst.Match)


@dataclass(frozen=True)
class _Item:
    """One step of a block, in order: what it binds, what it calls, the loops around it."""

    node: cst.CSTNode
    binds: frozenset[str]
    calls: frozenset[str]
    loops: tuple[cst.CSTNode, ...]


@dataclass(frozen=True)
class _Read:
    function: cst.FunctionDef | cst.Lambda  # the staged function (or lambda)
    scope: TracedFunction
    chain: tuple[cst.CSTNode, ...]  # the module, classes and functions around it, itself last


class StaleGlobalCapture(Rule):
    code = "JAX506"
    name = "stale-global-capture"
    summary = "A jitted (staged) function reads a module global that the module changes after tracing it"
    what_it_does = (
        "Flags, in a function jax stages (`jit`, `pjit`, `filter_jit`, `vmap`, lax bodies, helpers they call), "
        "a read of a module-level name that the program visibly rebinds after the function was traced: in a "
        "module-level loop that also calls the function (`for lr in rates: params = step(params)`, the loop "
        "variable included), by a later assignment after a call of it, or in a function that declares the "
        "name `global` and rebinds it (or calls a setter that does) in a loop, or after a call of it. A call "
        "counts when it is of the staged function, of a name it is bound to (`step = jax.jit(_step)`) or of a "
        "module function that mentions it."
    )
    why_bad = (
        "jax reads a global while it traces the function, and the compiled function keeps the value it read "
        "as a constant. Later calls with same-shaped arguments reuse the compiled function: the new value is "
        "silently ignored until something makes jax trace again. Measured on jax 0.10.2: with `lr = 0.1` and "
        "`@jax.jit def step(p): return p - lr`, `step(1.0)` is `0.9`; after `lr = 0.5`, `step(1.0)` is still "
        "`0.9`; the page's example ends with `params` at `0.85` (three steps at `0.1`) instead of `0.9445`. "
        "The cache is the function's, not the `jax.jit` wrapper's: `jax.jit(f)(1.0)` made anew in each "
        "iteration of `for lr in (0.1, 0.5):` gives `0.9` both times. "
        "[The Sharp Bits: pure functions]"
        "(https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions) shows it with a "
        "global `g` that changes after the first call."
    )
    example = (
        "learning_rate = 0.1\n\n\n"
        "@jax.jit\n"
        "def sgd_step(params, grads):\n"
        "    return params - learning_rate * grads\n\n\n"
        "params, grads = jnp.ones(3), jnp.full(3, 0.5)\n"
        "for learning_rate in (0.1, 0.01, 0.001):\n"
        "    params = sgd_step(params, grads)\n"
    )
    use_instead = (
        "@jax.jit\n"
        "def sgd_step(params, grads, learning_rate):\n"
        "    return params - learning_rate * grads\n\n\n"
        "params, grads = jnp.ones(3), jnp.full(3, 0.5)\n"
        "for learning_rate in (0.1, 0.01, 0.001):\n"
        "    params = sgd_step(params, grads, learning_rate)\n"
    )
    not_flagged = (
        "Constants bound once; names rebound only before any call that traces the function (configuration set "
        'at the top of a script or in `if __name__ == "__main__":` before the first call; the plain function '
        "a `g = jax.jit(f)` wrapper is made from, called eagerly before the rebinding, which caches nothing; a "
        "binding only in the first iteration of a loop over `range(n)` or `enumerate(...)` (`if epoch == 0 and "
        "it == 0: network = init(...)`) before anything in it traces, or in the other branch of that test); "
        "names bound to "
        "functions, classes or modules (`def`, `class`, `import`); globals read by a function defined inside the "
        "loop that rebinds them (each iteration makes a new function, traced anew); a loop whose call gives a static "
        "argument computed from a name the innermost loop shared with the rebinding binds (`step(p, freqs=scales[i])`: "
        "jax traces again for each new value, so which passes run a stale value is not known); globals that start as "
        "`None` and are set through `global` (lazy initialisation, set once); functions under `grad` alone or "
        "traced only by `eval_shape`/`make_jaxpr`, which read globals on every call; methods (jaxlint does "
        "not follow which object's method a call traces). Rebinds jaxlint cannot see (another module "
        "assigning `config.lr`, a setter called from another module) are missed."
    )
    verify = "Not confirmed by `--verify` yet."

    def visit_Module(self, node: cst.Module) -> None:
        self._module = node
        self._reads: list[_Read] = []
        # Each def with the names it and the defs around it bind locally: a call of one of those is not of the global.
        self._functions: list[tuple[cst.FunctionDef, frozenset[str]]] = []
        self._writers: dict[str, list[cst.FunctionDef]] = {}  # rebinds a global through `global`
        # Each staged function with the nodes of the caching transforms (`jax.jit`) applied to it.
        self._jitted: list[tuple[cst.FunctionDef | cst.Lambda, list[cst.CSTNode]]] = []
        self._cached: set[int] = set()  # those whose own name, when called, runs a cached trace (leave_Module)

    def visit_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        around = [f for f in self.facts.chain if type(f) is cst.FunctionDef or type(f) is cst.Lambda]
        self._functions.append((node, frozenset().union(*(_locals(f) for f in around))))
        self._record(node)

    def visit_Lambda_body(self, node: cst.Lambda) -> None:
        self._record(node)

    def _record(self, node: cst.FunctionDef | cst.Lambda) -> None:
        scope = self.facts.function
        if scope is not None and scope.staged and not scope.only_traced_for_shapes:
            self._reads.append(_Read(node, scope, self.facts.chain))
            jitted = [t.node for t in scope.transforms if t.name in CACHED_BY_FUNCTION]
            if jitted:
                self._jitted.append((node, jitted))

    def visit_Global(self, node: cst.Global) -> None:
        function = self.facts.chain[-1]
        if isinstance(function, cst.FunctionDef):
            assigned = rebound_names(function.body)
            for item in node.names:
                if item.name.value in assigned:
                    self._writers.setdefault(item.name.value, []).append(function)

    def leave_Module(self, node: cst.Module) -> None:
        if not self._reads:
            return
        module_items = list(_items(node.body, (), self._wraps))
        candidates = self._candidates(module_items)
        if not candidates:
            return
        called_at_once = _called_at_once(node)
        self._cached = {
            id(function)
            for function, jitted in self._jitted
            if any(_decorates(function, t) or id(t) in called_at_once for t in jitted)
        }
        program = _Program(self, module_items, candidates)
        reported: set[int] = set()
        for read in self._reads:
            for name, load in _global_reads(read, candidates, self._wraps).items():
                if id(load) in reported:
                    continue
                evidence = program.stale(read, name)
                if evidence is not None:
                    reported.add(id(load))
                    self._report(load, read.scope, name, evidence)

    def _wraps(self, call: cst.Call) -> bool:
        qualified = self.names.qualified(call.func)
        return self.facts.is_transform(qualified) or qualified in PARTIAL

    def _caches(self, item: _Item) -> bool:
        """A module-level function jax keeps traces of (`@jax.jit def step`), or a name bound to a jitted
        callable (`step = jax.jit(_step)`): calls of it reuse the first trace."""
        node = item.node
        if isinstance(node, cst.FunctionDef):
            return id(node) in self._cached
        return (
            isinstance(node, cst.Assign)
            and isinstance(node.value, cst.Call)
            and self.names.qualified(node.value.func) in CACHED_BY_FUNCTION
        )

    def _candidates(self, items: list[_Item]) -> set[str]:
        """Module globals bound more than once (or in a loop, or through `global`), that are not
        functions, classes or modules."""
        counts: dict[str, int] = {}
        for item in items:
            for name in item.binds:
                counts[name] = counts.get(name, 0) + (2 if item.loops else 1)
        defined = set(scope_imports(self._module.body))
        defined |= {item.node.name.value for item in items if isinstance(item.node, (cst.FunctionDef, cst.ClassDef))}
        rebound = {name for name, count in counts.items() if count > 1} | (self._writers.keys() & counts.keys())
        return rebound - defined

    def _report(self, load: cst.Name, scope: TracedFunction, name: str, evidence) -> None:
        trace = scope.trace

        def message(line_of) -> str:
            if trace is None:
                how = "traced"
            elif scope.transforms:
                how = f"staged by `{trace.name}` at {trace.where(line_of)}"
            else:
                how = f"called at {trace.where(line_of)} from a function traced by `{trace.name}`"
            return (
                f"`{scope.name}` ({how}) reads the global `{name}`, which {evidence(line_of)}: jax keeps the value "
                f"it read at the first trace in the compiled function and ignores later ones; pass `{name}` "
                f"as an argument"
            )

        self.report(load, message)


class _Program:
    """The module's blocks in order (module level and every function body), to see when a global
    changes relative to the calls that trace a staged function."""

    def __init__(self, rule: StaleGlobalCapture, module_items: list[_Item], candidates: set[str]) -> None:
        self.rule = rule
        self.module_items = module_items
        self.functions = [
            (f, [replace(item, calls=item.calls - local) for item in _items(f.body, (), rule._wraps)])
            for f, local in rule._functions
        ]
        values: dict[str, list[cst.BaseExpression]] = {name: [] for name in candidates}
        for name, statement in _assignments(rule._module.body, candidates):
            values[name].append(statement.value)
        # A global that starts as `None` and is set through `global` is lazily initialised, once.
        self.lazy = {
            name
            for name, bound in values.items()
            if bound and all(isinstance(v, cst.Name) and v.value == "None" for v in bound)
        }
        self.staged = {id(read.function) for read in rule._reads}
        bound = Counter(name for item in module_items if not _wraps_itself(item, rule._wraps) for name in item.binds)
        self.redefined = {name for name, count in bound.items() if count > 1}
        # Each definition (names bound, not redefined; names mentioned; cached), and by the names it mentions:
        # _reach() follows them from an entry as a worklist, not over every definition until nothing changes.
        self.definitions = [
            (binds - self.redefined, mentions, rule._caches(item))
            for item in module_items
            if (d := _definition(item, rule._wraps)) is not None
            for binds, mentions in [d]
        ]
        self._mentioning: dict[str, list[int]] = {}
        for index, (_, mentions, _) in enumerate(self.definitions):
            for mentioned in mentions:
                self._mentioning.setdefault(mentioned, []).append(index)
        self._at = {id(item.node): i for i, item in enumerate(module_items)}  # each step's index, by its node's id
        self._lambdas: dict[int, int] | None = None  # the step holding each lambda, by its id: filled when asked
        self._reaches: dict[int, set[str]] = {}  # by the entry's id
        self._declared: dict[int, set[str]] = {}  # each function's `global` names, by its id: asked per read
        self._branches: dict[int, dict[int, tuple[Test, ...]]] = {}  # each block's _branch_tests, by its id
        # Each block (the module's, then each function's) with every name its steps call: a block that calls
        # nothing a read reaches is passed over at once (stale() runs per read, over every block).
        self.blocks = [
            (function, items, frozenset().union(*(item.calls for item in items)))
            for function, items in [(None, module_items), *self.functions]
        ]

    def stale(self, read: _Read, name: str):
        """How `name` visibly changes after `read.function` is traced (a message piece), or None."""
        entry = read.chain[1] if len(read.chain) > 1 else read.function
        if isinstance(entry, cst.ClassDef):
            return None  # a method: which object's method a call traces is not followed
        if entry is not read.function and id(entry) not in self.staged:
            return None  # made anew by each call of the function around it: traced anew
        if id(entry) not in self._reaches:
            self._reaches[id(entry)] = self._reach(entry)
        reach = self._reaches[id(entry)]
        if not reach:
            return None
        defined_at = self._defining(entry)
        writers = {} if name in self.lazy else {w.name.value: w for w in self.rule._writers.get(name, ())}
        for function, items, calls in self.blocks:
            if not calls & reach:
                continue  # no trace in it
            if function is not None and id(function) not in self._declared:
                self._declared[id(function)] = declared_outer(function.body)
            global_here = function is None or name in self._declared[id(function)]
            binds = [
                i for i, item in enumerate(items) if (global_here and name in item.binds) or item.calls & writers.keys()
            ]
            traces = [
                i
                for i, item in enumerate(items)
                if item.calls & reach and (function is not None or defined_at is None or i > defined_at)
            ]
            if not binds or not traces:
                continue
            defined_in = {loop for item in items if _defines(item, entry) for loop in item.loops}
            for t in traces:
                for b in binds:
                    shared = [loop for loop in items[t].loops if loop in items[b].loops and loop not in defined_in]
                    if shared and _first_pass_only(
                        self._tests(function), items[b], items[t], b < t, shared, self.rule.names
                    ):
                        continue
                    if shared and _static_varies(read, items[t], _bound_in(items, shared[-1])):
                        continue
                    after = (
                        b > t and any(t2 > b for t2 in traces) and (any(b0 < t for b0 in binds) or function is not None)
                    )
                    if shared or after:
                        return self._evidence(items[b], items[t], reach, writers, shared[0] if shared else None)
        return None

    def _tests(self, function: cst.FunctionDef | None) -> dict[int, tuple[Test, ...]]:
        """The `if` tests around each step of the module's block (`function` None) or of a function's."""
        body = function.body if function is not None else self.rule._module.body
        if id(body) not in self._branches:
            self._branches[id(body)] = _branch_tests(body)
        return self._branches[id(body)]

    def _evidence(self, bind: _Item, trace: _Item, reach: set[str], writers: dict, loop):
        called = sorted(trace.calls & reach)[0]
        via = sorted(bind.calls & writers.keys())

        def text(line_of) -> str:
            where = f"line {line_of(bind.node)}"
            how = (
                f"is rebound by `{via[0]}` (a `global` assignment), called at {where}"
                if via
                else f"is rebound at {where}"
            )
            if loop is bind.node:
                return (
                    f"is the variable of the loop at line {line_of(loop)}, which calls `{called}` "
                    f"(line {line_of(trace.node)})"
                )
            if loop is not None:
                return (
                    f"{how} in the loop at line {line_of(loop)}, which also calls `{called}` "
                    f"(line {line_of(trace.node)})"
                )
            return f"{how}, after `{called}` is called at line {line_of(trace.node)} and before it is called again"

        return text

    def _defining(self, entry: cst.CSTNode) -> int | None:
        """The index of the module-level step that defines `entry` (as _defines() tells), if any."""
        if not isinstance(entry, cst.Lambda):
            return self._at.get(id(entry))
        if self._lambdas is None:
            self._lambdas = {}
            for index, item in enumerate(self.module_items):
                if not isinstance(item.node, _COMPOUND):
                    for node in _nodes(item.node):
                        if isinstance(node, cst.Lambda):
                            self._lambdas.setdefault(id(node), index)
        return self._lambdas.get(id(entry))

    def _reach(self, entry: cst.CSTNode) -> set[str]:
        """Names whose call may run the first trace of `entry` again: a cached (jitted) function that is
        `entry` or mentions it, and names bound to such a function, or to functions mentioning one.
        A redefined name may hold another function by then: it carries nothing."""
        index = self._defining(entry)
        item = self.module_items[index] if index is not None else None
        start = item.binds - self.redefined if item is not None else set()
        reach = self._closure(start)
        held = set(start) if item is not None and self.rule._caches(item) else set()
        for mentioned in reach:  # a cached function mentioning one: its first trace may trace `entry`
            for binds, _, caches in (self.definitions[i] for i in self._mentioning.get(mentioned, ())):
                if caches:
                    held |= binds
        return self._closure(held)

    def _closure(self, names: AbstractSet[str]) -> set[str]:
        """`names`, and the names bound to definitions that mention one of them, transitively."""
        found = set(names)
        pending = list(found)
        while pending:
            for index in self._mentioning.get(pending.pop(), ()):
                for name in self.definitions[index][0]:
                    if name not in found:
                        found.add(name)
                        pending.append(name)
        return found


Test = tuple[cst.BaseExpression, bool]  # the test of an `if` around a step, and which branch the step is in


def _branch_tests(body) -> dict[int, tuple[Test, ...]]:
    """The tests of the `if` statements around each step of a block (by the step's id; nested functions left out)."""
    found: dict[int, tuple[Test, ...]] = {}

    def walk(block, tests: tuple[Test, ...]) -> None:
        for statement in statements(block):
            found[id(statement)] = tests
            if isinstance(statement, cst.If):
                walk(statement.body, (*tests, (statement.test, True)))
                other = (*tests, (statement.test, False))
                if isinstance(statement.orelse, cst.If):
                    walk(cst.IndentedBlock(body=[statement.orelse]), other)
                elif statement.orelse is not None:
                    walk(statement.orelse.body, other)
            elif not isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                for inner in _blocks(statement):
                    walk(inner, tests)

    walk(body, ())
    return found


def _first_pass_only(
    tests: dict[int, tuple[Test, ...]], bind: _Item, trace: _Item, bound_first: bool, loops: list, names
) -> bool:
    """Whether the binding runs only in the first iteration of each of `loops` (`if epoch == 0 and it == 0:
    network = init(...)`), and there before the trace or in the other branch of that test: every call then traces
    with the value it bound, and nothing binds it again."""
    guards = [test for test, truth in tests.get(id(bind.node), ()) if truth]
    for loop in loops:
        if not any(first_iteration_only(test, loop, names) for test in guards):
            return False
    if bound_first:
        return True
    exclusive = {id(test) for test, truth in tests.get(id(trace.node), ()) if not truth}
    return any(id(test) in exclusive and first_iteration_only(test, loop, names) for test in guards for loop in loops)


def _bound_in(items: list[_Item], loop: cst.CSTNode) -> frozenset[str]:
    """The names a loop binds in each pass: its target and what its body assigns."""
    return frozenset().union(*(item.binds for item in items if loop in item.loops))


def _static_varies(read: _Read, trace: _Item, varying: frozenset[str]) -> bool:
    """Whether the call of the staged function in `trace` gives a static argument computed from a name the loop
    binds (`step(..., freqs=scales[i])`): jax traces again for each new value of it, and reads the global again,
    so whether a pass runs a stale value is not known."""
    function = read.function
    static = read.scope.static
    if not static or not isinstance(function, cst.FunctionDef):
        return False
    for call in _nodes(trace.node):
        if type(call) is not cst.Call or not (type(call.func) is cst.Name and call.func.value == function.name.value):
            continue
        given = arguments_given(function, 0, call) or {}
        if any(param in static and mentioned_names(value) & varying for param, value in given.items()):
            return True
    return False


def _wraps_itself(item: _Item, wraps: Wraps) -> bool:
    """`step = jax.jit(step)`: the name holds its own function, wrapped, as a decorator would make it."""
    node = item.node
    if type(node) is not cst.Assign or len(node.targets) != 1 or type(node.targets[0].target) is not cst.Name:
        return False
    value = node.value
    return (
        type(value) is cst.Call
        and wraps(value)
        and bool(value.args)
        and type(value.args[0].value) is cst.Name
        and value.args[0].value.value == node.targets[0].target.value
    )


def _called_at_once(module: cst.Module) -> set[int]:
    """The ids of the calls whose result the same expression calls (`jax.jit(f)` of `jax.jit(f)(x)`): jax keeps the
    trace with `f`, so each such call of `f` reuses the first."""
    return {id(node.func) for node, _ in in_order(module) if type(node) is cst.Call and type(node.func) is cst.Call}


def _decorates(function: cst.FunctionDef | cst.Lambda, transform: cst.CSTNode) -> bool:
    """Whether the transform is one of the def's decorators (`@jax.jit`): then calling the def's name calls the
    jitted function. `_step` of `step = jax.jit(_step)` stays the plain function, which runs eagerly; the
    wrapper's calls are the traces (`_caches`)."""
    if type(function) is not cst.FunctionDef:
        return False
    return any(node is transform for decorator in function.decorators for node, _ in in_order(decorator))


def _assignments(body, names: set[str]) -> Iterator[tuple[str, cst.Assign]]:
    """The `name = value` statements of a block for each of `names`, in its nested blocks too (not in
    functions): one walk for all the names."""
    for statement in statements(body):
        if isinstance(statement, cst.Assign):
            assigned = {t.target.value for t in statement.targets if isinstance(t.target, cst.Name)}
            for name in sorted(assigned & names):
                yield name, statement
        for block in _blocks(statement):
            yield from _assignments(block, names)


def _blocks(statement: cst.CSTNode) -> list:
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) or not hasattr(statement, "body"):
        return []
    if not isinstance(statement, (cst.For, cst.While, cst.If, cst.With, cst.Try, cst.TryStar)):
        return []
    blocks = [statement.body]
    blocks += [handler.body for handler in getattr(statement, "handlers", ())]
    for part in ("orelse", "finalbody"):
        block = getattr(statement, part, None)
        if isinstance(block, cst.If):
            blocks.append(cst.IndentedBlock(body=[block]))
        elif block is not None:
            blocks.append(block.body)
    return blocks


Wraps = Callable[[cst.Call], bool]  # `jax.jit(f)`, `partial(f, ...)`: takes a function, calls nothing yet


def _items(body, loops: tuple[cst.CSTNode, ...], wraps: Wraps) -> Iterator[_Item]:
    """The steps of a block in order; nested function and class bodies are not entered."""
    for statement in statements(body):
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            yield _Item(statement, frozenset({statement.name.value}), frozenset(), loops)
        elif isinstance(statement, cst.For):
            inner = (*loops, statement)
            yield _Item(statement, frozenset(target_names(statement.target)), _called(statement.iter, wraps), inner)
            yield from _items(statement.body, inner, wraps)
            if statement.orelse is not None:
                yield from _items(statement.orelse.body, loops, wraps)
        elif isinstance(statement, cst.While):
            inner = (*loops, statement)
            yield _Item(statement, frozenset(), _called(statement.test, wraps), inner)
            yield from _items(statement.body, inner, wraps)
        elif isinstance(statement, cst.If):
            yield _Item(statement, frozenset(), _called(statement.test, wraps), loops)
            for block in _blocks(statement):
                yield from _items(block, loops, wraps)
        elif isinstance(statement, cst.With):
            names = frozenset(
                n for item in statement.items if item.asname is not None for n in target_names(item.asname.name)
            )
            calls = frozenset().union(*(_called(item.item, wraps) for item in statement.items))
            yield _Item(statement, names, calls, loops)
            yield from _items(statement.body, loops, wraps)
        elif isinstance(statement, (cst.Try, cst.TryStar)):
            for block in _blocks(statement):
                yield from _items(block, loops, wraps)
        elif isinstance(statement, cst.Match):
            yield _Item(statement, frozenset(rebound_names([statement])), _called(statement.subject, wraps), loops)
        else:
            yield _Item(statement, frozenset(rebound_names([statement])), _called(statement, wraps), loops)


def _definition(item: _Item, wraps: Wraps) -> tuple[frozenset[str], frozenset[str]] | None:
    """What a module-level statement binds to something that may trace what it mentions (names bound,
    names mentioned): a `def` or `class`, `step = jax.jit(_step)`, `step = partial(_step, ...)`,
    `step = _step`. Other calls give results (`state = lax.fori_loop(0, n, step_fn, state)`), not functions."""
    node = item.node
    if isinstance(node, cst.FunctionDef):  # (a name the def binds is its own local wherever it reads it)
        return item.binds, mentioned_names(node) - _locals(node)
    if isinstance(node, cst.ClassDef):
        return item.binds, mentioned_names(node)
    if not isinstance(node, cst.Assign):
        return None
    value = node.value
    if isinstance(value, cst.Call):
        if not wraps(value):
            return None
        return item.binds, frozenset().union(*(mentioned_names(arg.value) for arg in value.args))
    return item.binds, mentioned_names(value)


def _children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """A node's children, last first: popped from a stack, they come out in source order."""
    return reversed(children(node))


_HEADS = frozenset({cst.Attribute, cst.Call})  # what `a.b(c).d` is made of, down to `a`
_DEFINITIONS = frozenset({cst.FunctionDef, cst.ClassDef, cst.Lambda})


def _called(node: cst.CSTNode, wraps: Wraps) -> frozenset[str]:
    """Names a statement calls, or passes to a call (a callback): `step(p)`, `run(step)`, `jax.jit(f)(x)`."""
    found: set[str] = set()
    pending = [node]
    while pending:
        current = pending.pop()
        if type(current) is cst.Call and not wraps(current):  # (type: an ABC isinstance is slow)
            head = current.func
            while type(head) in _HEADS:
                head = head.value if type(head) is cst.Attribute else cast(cst.Call, head).func
            if type(head) is cst.Name:
                found.add(head.value)
            found.update(arg.value.value for arg in current.args if isinstance(arg.value, cst.Name))
            if isinstance(current.func, cst.Call):  # `jax.jit(f)(x)` traces `f` now
                found.update(arg.value.value for arg in current.func.args if isinstance(arg.value, cst.Name))
        if type(current) not in _DEFINITIONS:
            pending.extend(_children(current))
    return frozenset(found)


def _contains(node: cst.CSTNode, inner: cst.CSTNode) -> bool:
    return any(current is inner for current in _nodes(node))


def _nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and every node under it, in source order."""
    pending = [node]
    while pending:
        current = pending.pop()
        yield current
        pending.extend(_children(current))


def _defines(item: _Item, entry: cst.CSTNode) -> bool:
    """Whether a step defines `entry`: its `def`, or the statement holding its lambda."""
    if item.node is entry:
        return True
    return isinstance(entry, cst.Lambda) and not isinstance(item.node, _COMPOUND) and _contains(item.node, entry)


def _locals(function: cst.FunctionDef | cst.Lambda) -> set[str]:
    """Names local to a function or lambda: its parameters and what its body binds (not `global`)."""
    names = set(parameter_names(function.params))
    if isinstance(function, cst.FunctionDef):
        names |= rebound_names(function.body) - declared_outer(function.body)
    return names


def _global_reads(read: _Read, candidates: set[str], wraps: Wraps) -> dict[str, cst.Name]:
    """The first load of each candidate in the function that is the module's global (not a local of
    it, of a function around it, of a nested function or of a comprehension)."""
    wanted = set(candidates)
    for scope in read.chain[1:]:
        if isinstance(scope, (cst.FunctionDef, cst.Lambda)):
            wanted -= _locals(scope)
        if isinstance(scope, cst.FunctionDef):
            wanted -= declared_outer(scope.body)  # writing its own global is JAX508's
    found: dict[str, cst.Name] = {}
    called: set[str] = set()  # a global called is a function: not the values this rule is about
    body = read.function.body
    pending: list[tuple[cst.CSTNode, frozenset[str]]] = [(body, frozenset(wanted))]
    while pending:
        node, names = pending.pop()
        if not names:
            continue
        if isinstance(node, cst.Name):
            if node.value in names and node.value not in found:
                found[node.value] = node
        elif isinstance(node, cst.Attribute):
            pending.append((node.value, names))
        elif isinstance(node, cst.Call):
            if isinstance(node.func, cst.Name):
                called.add(node.func.value)
            if node.args and wraps(node) and isinstance(node.args[0].value, cst.Name):
                called.add(node.args[0].value.value)  # `vmap(energy_fn)`: a function too
            pending.extend((child, names) for child in _children(node))
        elif isinstance(node, cst.Arg):
            pending.append((node.value, names))
        elif isinstance(node, (cst.FunctionDef, cst.Lambda)):
            pending.append((node.body, names - _locals(node)))
        elif isinstance(node, _COMPREHENSIONS):
            bound: set[str] = set()
            clause: cst.CompFor | None = node.for_in
            while clause is not None:
                bound.update(target_names(clause.target))
                clause = clause.inner_for_in
            pending.extend((child, names - bound) for child in _children(node))
        else:
            pending.extend((child, names) for child in _children(node))
    return {name: load for name, load in found.items() if name not in called}
