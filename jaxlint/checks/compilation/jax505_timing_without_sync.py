"""JAX505 timing-without-sync: A timer read around jax calls with nothing waiting for their results."""

from __future__ import annotations

from typing import Iterator, cast

import libcst as cst

from jaxlint.analysis.bindings import mentioned_names, parameter_names, rebound_names
from jaxlint.analysis.calls import argument
from jaxlint.analysis.donations import reads
from jaxlint.analysis.name_uses import name_uses
from jaxlint.analysis.notebook_cells import starts_cell, timing_cell_magic, timing_magic
from jaxlint.checks.base import CalleeRule, FixPlan, code
from jaxlint.model.functions import ARRAY_METHODS, JAX
from jaxlint.model.timing import (
    BLOCK_UNTIL_READY,
    DISPATCHING,
    EFFECTS,
    HOST_ONLY,
    PROGRESS_BARS,
    SYNCS,
    TIMING_CALLABLES,
)
from jaxlint.model.transforms import ONLY_TRACE, PARTIAL, TREE_MAPS, WRAPPER_ARGUMENTS
from jaxlint.traversal import children, in_order


# ---------------------------------------------------------------------- JAX505

_TIMERS = frozenset(
    {
        "time.time",
        "time.perf_counter",
        "time.monotonic",
        "time.time_ns",
        "time.perf_counter_ns",
        "time.monotonic_ns",
        "timeit.default_timer",
        # the process's CPU time: XLA's threads are the process's, and their work after the read is not counted yet
        "time.process_time",
        "time.process_time_ns",
    }
)
_SYNC_METHODS = frozenset({"block_until_ready", "item", "tolist", "__array__"})
# Calls that neither wait nor hide a wait: what a timed loop around jax calls may also do.
_HARMLESS = frozenset({"range", "len", "enumerate", "zip", "iter", "next", "reversed", "min", "max"})
# Of those, the ones that compare their arguments: given an array, Python asks for its truth value, which waits for
# the computation that makes it (and for every output of that jitted call: they are ready together).
_COMPARING = frozenset({"min", "max"})
_HARMLESS_METHODS = frozenset({"append", "extend", "keys", "values", "items"})


def _timer_start(statement: cst.CSTNode, names) -> str | None:
    """`t0 = time.perf_counter()`: the name holding the start time."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if (
        type(small) is cst.Assign
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and isinstance(small.value, cst.Call)
        and names.qualified(small.value.func) in _TIMERS
    ):
        return small.targets[0].target.value
    return None


def _root_name(expr: cst.BaseExpression) -> str | None:
    """`info` of `info["rews"][-1]` or `state.params`: the name an item or attribute chain starts from."""
    while type(expr) is cst.Subscript or type(expr) is cst.Attribute:
        expr = expr.value
    return expr.value if type(expr) is cst.Name else None


def _restarts(statement: cst.CSTNode, start: str, timers: list[cst.Call]) -> bool:
    """Whether every timer call in `statement` starts the clock again (`t0 = time.perf_counter()`, in a loop after
    the compiling call): a new start, not a read of the first."""
    restarted = {
        id(node.value)
        for node in _walk(statement)
        if type(node) is cst.Assign
        and len(node.targets) == 1
        and type(node.targets[0].target) is cst.Name
        and node.targets[0].target.value == start
    }
    return all(id(call) in restarted for call in timers)


def _subtracts(node: cst.CSTNode, start: str, ends: frozenset[str] | None = None) -> bool:
    """Whether `node` computes `... - start` (`end - start` with `end` one of `ends`, when given)."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Subtract):
        if isinstance(node.right, cst.Name) and node.right.value == start:
            if ends is None or isinstance(node.left, cst.Name) and node.left.value in ends:
                return True
    return any(_subtracts(child, start, ends) for child in children(node))


def _reads_back(statements: list[cst.CSTNode], end: int, start: str) -> bool:
    """Whether the clock read in `statements[end]` is the one subtracted from `start`: the statement subtracts it, or
    binds a name a later statement subtracts `start` from (`t1 = time.time()` ... `t1 - t0`). Another read there
    (`compile_time = time.time()` for another start) ends nothing."""
    if _subtracts(statements[end], start):
        return True
    ends = frozenset(rebound_names([statements[end]]))
    return bool(ends) and any(_subtracts(later, start, ends) for later in statements[end + 1 :])


def _calls_before_read(last: cst.CSTNode, start: str) -> list[cst.Call]:
    """When the statement reading the clock back is a loop or a `with` (`for epoch ...:` whose last line prints
    `time.time() - t0`), the calls its body makes before the statement there that reads it: a wait among them (an
    epoch's `jax.device_get(loss)`) ends what the interval timed before it, in the first iteration and every other.
    Other statements read the clock back themselves: none."""
    calls: list[cst.Call] = []
    while type(last) in (cst.For, cst.While, cst.With):
        body = cast("cst.For | cst.While | cst.With", last).body
        inner: list[cst.CSTNode] = list(body.body) if type(body) is cst.IndentedBlock else []
        end = next((n for n in range(len(inner)) if _reads_back(inner, n, start)), None)
        if end is None:
            break
        calls += [call for statement in inner[:end] for call in _all_calls(statement)]
        last = inner[end]
    return calls


def _measured_into(last: cst.CSTNode, start: str) -> str | None:
    """The name the clock read's statement binds the measured time to (`epoch_time = time.time() - t0`, or `+=`),
    or None."""
    if type(last) is not cst.SimpleStatementLine or len(last.body) != 1 or not _subtracts(last, start):
        return None
    small = last.body[0]
    if type(small) is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name:
        return small.targets[0].target.value
    if type(small) is cst.AugAssign and type(small.target) is cst.Name:
        return small.target.value
    return None


def _read_in(scope: cst.CSTNode, name: str) -> bool:
    """Whether code of `scope` (nested functions included) reads `name`: it is used (name_uses) other than as the
    target of an assignment to it (`x = ...`, `x += ...`)."""
    stores = sum(
        1
        for node, _ in in_order(scope)
        if type(node) in (cst.AssignTarget, cst.AugAssign)
        and type(node.target) is cst.Name
        and node.target.value == name
    )
    return name_uses(scope, {name})[name] > stores


def _called_by(stmt: cst.BaseExpression | None, names) -> cst.Call | None:
    """The call `timeit` makes of a callable: a lambda's body when it takes no parameters and is one call, a
    `partial`'s function with what it binds, a name called bare; None for anything else (a string of code)."""
    if isinstance(stmt, cst.Lambda):
        bare = not parameter_names(stmt.params)
        return stmt.body if bare and isinstance(stmt.body, cst.Call) else None
    if isinstance(stmt, cst.Call) and names.qualified(stmt.func) in PARTIAL and stmt.args and not stmt.args[0].keyword:
        return cst.Call(func=stmt.args[0].value, args=stmt.args[1:])
    if isinstance(stmt, (cst.Name, cst.Attribute)):
        return cst.Call(func=stmt)
    return None


def _made_by(expr: cst.BaseExpression) -> cst.Call | None:
    """The call whose result `expr` is a part of, item by item (`f(x)[1]["loss"]`): that call, or None."""
    while isinstance(expr, cst.Subscript):
        expr = expr.value
    return expr if isinstance(expr, cst.Call) else None


def _all_calls(node: cst.CSTNode) -> Iterator[cst.Call]:
    if isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
        return
    if isinstance(node, cst.Call):
        yield node
    for child in children(node):
        yield from _all_calls(child)


def _may_sync(node: cst.CSTNode) -> bool:
    """Code that may read an array's value on the host without a call: `if`, `while`, `assert`, f-strings."""
    if isinstance(
        node,
        (
            cst.If,
            cst.While,
            cst.Assert,
            cst.FormattedString,
            cst.IfExp,
            cst.Comparison,
            cst.Return,
            cst.Yield,
            cst.Raise,
        ),
    ):
        return True
    if isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
        return False
    return any(_may_sync(child) for child in children(node))


def _flag_test(test: cst.BaseExpression, jax_results: frozenset[str]) -> bool:
    """A test Python answers from a flag without reading an array (`self.multi`, `not verbose`, `mode == "a"`): a
    name or attribute chain, none bound to what the timed work gave, compared at most with a string."""
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        return _flag_test(test.expression, jax_results)
    if type(test) is cst.Comparison and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if type(target.operator) in (cst.Equal, cst.NotEqual) and type(target.comparator) is cst.SimpleString:
            return _flag_test(test.left, jax_results)
        return False
    root = test
    while type(root) is cst.Attribute:
        root = root.value
    return type(root) is cst.Name and root.value not in jax_results


def _branches(node: cst.If, jax_results: frozenset[str]) -> list[list[cst.CSTNode]] | None:
    """The statements of each branch of an `if`/`elif`/`else` (None: a branch that is not a block)."""
    found: list[list[cst.CSTNode]] = []
    branch: cst.If | cst.Else | None = node
    while branch is not None:
        if type(branch.body) is not cst.IndentedBlock:
            return None
        found.append(list(branch.body.body))
        if type(branch) is cst.Else:
            break
        orelse = cast(cst.If, branch).orelse
        if orelse is not None and type(orelse) is cst.If and not _flag_test(orelse.test, jax_results):
            return None
        branch = orelse
    return found


def _computes_nothing(function: cst.FunctionDef | cst.Lambda) -> bool:
    """A body with no call and no operation (`pass`, `return x, y`): jit runs nothing on the device, so a
    timer around it measures dispatch overhead on purpose."""
    body = function.body
    return not any(
        isinstance(
            node,
            (
                cst.Call,
                cst.BinaryOperation,
                cst.UnaryOperation,
                cst.Subscript,
                cst.Attribute,
                cst.Comparison,
                cst.BooleanOperation,
            ),
        )
        for node in _walk(body)
    )


def _gives_nothing(function: cst.FunctionDef | cst.Lambda, names) -> bool:
    """A def that returns no value and has no effect (`jax.debug.print`, a callback): jitted, it has no outputs,
    so nothing of its work is left to run once the call returns (XLA drops the dead computation). A timer around
    it measures tracing and compiling, which is all there is to measure."""
    if type(function) is not cst.FunctionDef:
        return False  # a lambda returns its body
    for node, _ in in_order(function.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        kind = type(node)
        if (kind is cst.Return and cast(cst.Return, node).value is not None) or kind is cst.Yield:
            return False
        if kind is cst.Call and (names.qualified(cast(cst.Call, node).func) or "").startswith(EFFECTS):
            return False
    return True


_Scopes = tuple[cst.CSTNode, ...]  # a module and the defs, lambdas and classes around a point (the analysis's chain)
_SCOPE_TYPES = (cst.Module, cst.FunctionDef, cst.Lambda, cst.ClassDef)


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    yield node
    for child in children(node):
        yield from _walk(child)


class TimingWithoutSync(CalleeRule):
    code = "JAX505"
    name = "timing-without-sync"
    summary = "A timer read around jax calls with nothing waiting for their results"
    what_it_does = (
        "Flags `t0 = time.perf_counter()` (also `time.time`, `time.monotonic`, `time.process_time`, their `_ns` "
        "forms, `timeit.default_timer`; or a loop body that ends with it and reads it back earlier, timing each "
        "iteration) followed in the same block by device work (a call to a jitted callable or to a "
        "`jax.numpy`, `jax.lax`, `jax.random`, `jax.nn` or `jax.scipy` function, an eager `lax.scan` included, "
        "a transform called at once (`jax.jacfwd(f)(x)`), one of jax's own Pallas kernels, "
        "`jax.device_put`, or a method of what that work gave, `info[-1].mean()`) and then by a second read of "
        "the clock subtracted from `t0`, when nothing in "
        "between waits for the results: no `.block_until_ready()`, `jax.block_until_ready(...)`, "
        "`jax.device_get`, `.item()`, `.tolist()`, `float(...)`, `print(...)`, NumPy conversion, or Python's `min`/`max` "
        "of a result (`max(best, loss)` compares, which waits). Making a jitted or other transformed function in "
        "between (`fj = jax.jit(f)`) runs nothing and waits for nothing. Only plain "
        "timed regions are judged, and `if`/`elif`/`else` on a Python flag that no result of the region decides "
        '(`if self.multi:`, `if mode == "a":`), whose branches are judged alike: any other call, `if`, `while`, '
        "comparison or f-string in between might wait, and the region is left alone. In a notebook, a statement timed by "
        "`%timeit` or `%time` that runs jax work and does not wait for it (`%timeit jnp.dot(x, x)`), and a cell under "
        "`%%timeit` or `%%time` whose code runs jax work that nothing in it waits for. And `timeit.timeit(f)` or "
        "`timeit.repeat(f)` of a callable that runs jax work and does not wait for it: a lambda without parameters "
        "(`lambda: step(x)`), a `partial` given what it needs (`partial(step, x)`), a name called bare."
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
        'print(f"{time.perf_counter() - start:.3f} s")\n'
    )
    use_instead = (
        "import time\n\n"
        "import jax\n"
        "import jax.numpy as jnp\n\n"
        "matmul = jax.jit(lambda a: a @ a)\n"
        "x = jnp.ones((2000, 2000))\n"
        "start = time.perf_counter()\n"
        "y = jax.block_until_ready(matmul(x))\n"
        'print(f"{time.perf_counter() - start:.3f} s")\n'
    )
    not_flagged = (
        "Regions with a wait in them (see above), or with any call jaxlint does not know does not wait (a plain "
        "function of the same module counts as the code it runs: one that prints, converts or branches on a "
        "value may wait); regions that do not visibly run device work (`jax.tree_util` runs on "
        "the host; a jitted function whose body computes nothing, such as `pass` or `return state`, is timed for "
        "its dispatch overhead on purpose, and one that returns nothing and has no effect leaves no work running "
        "once it returns, so the timer measures its tracing and compiling); timers that are not read back "
        "with a subtraction from the start in the same block; a measured time bound to a name that nothing in the "
        "function (or the module, at its top level) reads (`epoch_time = time.time() - t0` whose print is commented "
        "out); code inside traced functions."
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
        self._judging: set[int] = set()  # the helpers being judged (`_helper_kind`), against recursion
        self._def_uses: dict[str, tuple[list[cst.FunctionDef], list[tuple[cst.Call, _Scopes]]]] | None = (
            None  # _uses_of_defs
        )
        if not self._tests:
            self._block(node.body)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if self.facts.traced_scope is None and not self._tests:
            self._block(node.body)

    def _block(self, statements) -> None:
        statements = list(statements)
        for index, statement in enumerate(statements):
            if type(statement) is cst.For or type(statement) is cst.While:
                self._each_iteration(statement)
            magic = timing_magic(statement)
            if magic is not None:
                self._timed_by_magic(cast(cst.SimpleStatementLine, statement), magic)
            cell_magic = timing_cell_magic(statement)
            if cell_magic is not None:
                end = next(
                    (n for n in range(index + 1, len(statements)) if starts_cell(statements[n])), len(statements)
                )
                self._timed_cell(statement, statements[index + 1 : end], cell_magic)
            for call in _all_calls(statement) if type(statement) is cst.SimpleStatementLine else ():
                if (
                    self.names.qualified(call.func) in TIMING_CALLABLES
                ):  # (a compound statement's body is a block of its own)
                    self._timed_callable(call)
            start = _timer_start(statement, self.names)
            if start is None:
                continue
            for end in range(index + 1, len(statements)):
                timers = [call for call in _all_calls(statements[end]) if self.names.qualified(call.func) in _TIMERS]
                if timers:
                    if _restarts(statements[end], start, timers):
                        break  # `if i == 0: t0 = time.perf_counter()`: which start the subtraction reads is not known
                    if not _reads_back(statements, end, start):
                        continue
                    if not any(self._kind(call) == "sync" for call in _calls_before_read(statements[end], start)):
                        self._region(statements[index], statements[index + 1 : end], statements[end], start)
                    break

    def _timed_callable(self, call: cst.Call) -> None:
        """`timeit.timeit(f, number=n)`: it reads the clock when `f()` returns, so it times jax work only when the
        callable waits for it (a lambda without parameters, a `partial` given all it needs, a name called bare)."""
        timed = _called_by(argument(call, 0, "stmt"), self.names)
        if timed is None:
            return
        line = cst.SimpleStatementLine(body=[cst.Expr(value=timed)])
        if self._running([line], frozenset()):
            self.report(
                call,
                f"`{code(call, 60)}` times jax work that runs asynchronously, and the timed callable does not wait "
                f"for its result: this measures dispatch, not the computation; time a callable that returns "
                f"`jax.block_until_ready(...)` of the result",
            )

    def _timed_by_magic(self, line: cst.SimpleStatementLine, magic: str) -> None:
        """A notebook's `%timeit f(x)` (notebooks.timed_statement): IPython reads the clock after the statement
        returns, so it times jax work only when the statement waits for it."""
        if not self._running([line], frozenset()):
            return
        timed = line.body[1]  # (the first is the `pass` where the magic was)
        self.report(
            timed,
            f"`{magic}` times jax work that runs asynchronously, and nothing in the statement waits for its result: "
            f"this measures dispatch, not the computation; time `jax.block_until_ready(...)` of the result (or "
            f"its `.block_until_ready()`)",
        )

    def _timed_cell(self, magic_line: cst.CSTNode, cell: list[cst.CSTNode], magic: str) -> None:
        """A notebook cell under `%%timeit` (or `%%time`): IPython reads the clock after the cell's code returns, so
        it times jax work only when that code waits for it."""
        if cell and self._running(cell, frozenset()):
            self.report(
                magic_line,
                f"`{magic}` times the cell's jax work, which runs asynchronously, and nothing in the cell waits for "
                f"its result: this measures dispatch, not the computation; end the cell with "
                f"`jax.block_until_ready(...)` of the result (or its `.block_until_ready()`)",
            )

    def _each_iteration(self, loop: cst.For | cst.While) -> None:
        """A loop whose body ends by starting the clock again (`t0 = time.time()`) and reads it back earlier in the
        body: each iteration times the body's statements before the read, from the start above the loop or the
        previous iteration's restart."""
        body: list[cst.CSTNode] = list(loop.body.body) if type(loop.body) is cst.IndentedBlock else []
        start = _timer_start(body[-1], self.names) if body else None
        if start is None:
            return
        for end, statement in enumerate(body[:-1]):
            timers = [call for call in _all_calls(statement) if self.names.qualified(call.func) in _TIMERS]
            if timers:
                if _reads_back(body[:-1], end, start):
                    self._region(body[-1], body[:end], statement, start, each_iteration=True)
                return

    def _region(
        self, first: cst.CSTNode, region: list[cst.CSTNode], last: cst.CSTNode, start: str, each_iteration: bool = False
    ) -> None:
        if {name.value for name in reads(last)} & rebound_names(region):
            return  # `print(f"{loss} {time.time() - t0}")` may convert a result before reading the clock
        measured = _measured_into(last, start)
        scope = next((node for node in reversed(self.facts.chain) if type(node) is cst.FunctionDef), None)
        if measured is not None and not _read_in(scope or self.facts.chain[0], measured):
            return  # `epoch_time = time.time() - t0` that nothing reads: no number is wrong anywhere
        running = self._running(region, frozenset())
        if not running:
            return
        # `first` is `t0 = time.perf_counter()` (`_timer_start`)
        assert isinstance(first, cst.SimpleStatementLine) and isinstance(first.body[0], cst.Assign)
        started = first.body[0].value
        assert isinstance(started, cst.Call)
        timer = self.names.qualified(started.func)
        # the clock read itself (`stime.append(time.time() - t0)` deep in a `with` block), not the statement around it
        read = next((call for call in _all_calls(last) if self.names.qualified(call.func) in _TIMERS), last)
        self.report(
            started,
            lambda line_of: (
                f"`{start}`{', started again at the end of each iteration,' if each_iteration else ''} times jax work "
                f"that runs asynchronously, and nothing waits for its result before the "
                f"clock is read again at line {line_of(read)}: this measures dispatch, not the computation; call "
                f"`jax.block_until_ready(...)` (or `.block_until_ready()`) on the result before reading `{timer}`"
            ),
            self._fix(running),
        )

    def _running(self, statements: list[cst.CSTNode], jax_results: frozenset[str]) -> list[cst.CSTNode] | None:
        """The statements of a timed region that run jax work (None: something there may wait). An `if` on a
        Python flag (`if self.multi:`, `if mode == "a":`) that no result of the region decides runs one of its
        branches, each judged alike. `jax_results`: the names bound to what the work before gave."""
        running: list[cst.CSTNode] = []
        for statement in statements:
            if type(statement) is cst.If:
                branches = _branches(statement, jax_results) if _flag_test(statement.test, jax_results) else None
                if branches is None:
                    return None
                for branch in branches:
                    inner = self._running(branch, jax_results)
                    if inner is None:
                        return None
                    running += inner
                continue
            if _may_sync(statement):
                return None
            jax_calls = 0
            results = self._results_inside(statement, jax_results)
            for call in _all_calls(statement):
                kind = self._kind(call, results)
                if kind in ("sync", "unknown"):
                    return None
                jax_calls += kind == "jax"
            if jax_calls:
                running.append(statement)
                if type(statement) is cst.SimpleStatementLine:
                    jax_results |= rebound_names([statement])
        return running

    def _results_inside(self, statement: cst.CSTNode, jax_results: frozenset[str]) -> frozenset[str]:
        """`jax_results` with the names a loop or `with` binds inside, in order, to what jax work gave or to values
        computed from those (`w, out = step(w, x)`, read by `best = max(best, out)` further down); asked only where
        a comparing builtin may read them."""
        if type(statement) is cst.SimpleStatementLine or not any(
            type(call.func) is cst.Name and call.func.value in _COMPARING for call in _all_calls(statement)
        ):
            return jax_results
        results = set(jax_results)
        for node in _walk(statement):
            if type(node) is cst.SimpleStatementLine and (
                mentioned_names(node) & results
                or any(self._kind(call, frozenset(results)) == "jax" for call in _all_calls(node))
            ):
                results |= rebound_names([node])
        return frozenset(results)

    def _kind(self, call: cst.Call, jax_results: frozenset[str] = frozenset()) -> str:
        """ "jax" (dispatches work), "sync" (waits), "harmless", or "unknown". `jax_results`: the names the timed
        region bound to what jax work gave (arrays, or pytrees of them)."""
        func = call.func
        qualified = self.names.qualified(func)
        if qualified in SYNCS or (isinstance(func, cst.Attribute) and func.attr.value in _SYNC_METHODS):
            return "sync"
        if qualified is not None and (qualified.startswith("numpy.") or qualified in _TIMERS):
            return "sync" if qualified.startswith("numpy.") else "harmless"
        if qualified in PROGRESS_BARS:
            return "harmless"
        if qualified is not None and qualified.startswith(DISPATCHING):
            return "jax"
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in ARRAY_METHODS
            and (source := _made_by(func.value)) is not None
            and self._kind(source, jax_results) == "jax"
        ):
            return "jax"  # `f(x).squeeze(0)`, `f(x)[1].sum()` of a jitted `f`: an array method on what it gives
        if qualified in WRAPPER_ARGUMENTS:
            return "harmless"  # `fj = jax.jit(f)` in the region: making the wrapper runs nothing and waits for nothing
        if type(func) is cst.Call and (made := self.names.qualified(func.func)) in WRAPPER_ARGUMENTS:
            # `jax.jacfwd(f)(x)`: the transformed function runs at once on tracers, dispatching as it goes (a
            # tracer cannot be read on the host there); `jax.make_jaxpr(f)(x)` only traces
            return "harmless" if made in ONLY_TRACE else "jax"
        if qualified in TREE_MAPS and call.args and self._waits(call.args[0].value):
            return "sync"  # `jax.tree.map(lambda x: x.block_until_ready(), metrics)` waits on every leaf
        if qualified is not None and qualified.startswith(JAX):
            return "harmless" if qualified.startswith(HOST_ONLY) else "unknown"
        callee = self.facts.jitted(call) or self.facts.compiled(call)
        staged = callee.function if callee is not None else self._staged_def(call)
        if callee is not None or staged is not None:
            if staged is not None and (_computes_nothing(staged) or _gives_nothing(staged, self.names)):
                return "harmless"
            return "jax"
        if isinstance(func, cst.Name) and self._jitted_alike(func):
            return "jax"
        if self.facts.jitted_elsewhere(func) is not None:
            return "jax"  # `train_step(state, batch)` of `from .model import train_step`, jitted there
        if isinstance(func, cst.Name) and func.value in _HARMLESS and self.facts.binding(func) is None:
            if func.value in _COMPARING and any(mentioned_names(arg.value) & jax_results for arg in call.args):
                return "sync"  # `max(max_grad, batch_max_grad)` of what a jitted step gave: a comparison waits
            return "harmless"
        if isinstance(func, cst.Name):
            helper = self.facts.called_def(call)
            if helper is not None and not helper.decorators:
                return self._helper_kind(helper)
            runs = self._parameter_runs(func)
            if runs is not None:
                return runs
        if isinstance(func, cst.Attribute) and func.attr.value in _HARMLESS_METHODS:
            return "harmless"
        if isinstance(func, cst.Attribute) and _root_name(func.value) in jax_results:
            return "jax"  # `info[-1].mean()` of `y, info = lax.scan(...)`: an array's method dispatches as `jnp.mean`
        return "unknown"

    def _jitted_alike(self, name: cst.Name) -> bool:
        """A name bound more than once, each time to a jit of something (`g = jax.jit(...)` written twice): whichever
        binding reaches the call, it calls a jitted function."""
        made = self.facts.made_alike(name)
        return made is not None and self.facts.jit_made(made) is not None

    def _parameter_runs(self, name: cst.Name) -> str | None:
        """What a call of a parameter of a module-level function runs, as `_kind` says: every def of the module it
        decorates (`@timeit` on `step`: the wrapper's `f(self, *args)` runs `step`) and every module-level def or
        jitted function the module's calls of it give there (`run_algorithm(value_function_iteration, model)`),
        each judged as the code it runs; None when `name` is no such parameter, or nothing shows what it holds."""
        chain = self.facts.chain
        outer = chain[1] if len(chain) > 1 else None
        if type(outer) is not cst.FunctionDef or name.value not in parameter_names(outer.params):
            return None
        if any(name.value in parameter_names(scope.params) for scope in chain[2:] if type(scope) is cst.FunctionDef):
            return None  # the wrapper's own parameter
        uses = self._uses_of_defs().get(outer.name.value, ([], []))
        decorated, calls = uses
        given = [self._given(call, scopes, outer, name.value) for call, scopes in calls]
        if not decorated and not given:
            return None
        kinds = {self._helper_kind(function) for function in decorated} | set(given)
        return "jax" if kinds == {"jax"} else "unknown"

    def _uses_of_defs(self) -> dict[str, tuple[list[cst.FunctionDef], list[tuple[cst.Call, _Scopes]]]]:
        """By name: the defs a decorator of that name decorates and the calls of that name with the scopes they are
        in, in the whole module (found once)."""
        if self._def_uses is None:
            self._def_uses = {}
            for node, above in in_order(self.facts.chain[0]):
                if type(node) is cst.FunctionDef:
                    for applied in node.decorators:
                        if type(applied.decorator) is cst.Name:
                            self._def_uses.setdefault(applied.decorator.value, ([], []))[0].append(node)
                elif type(node) is cst.Call and type(node.func) is cst.Name:
                    scopes = tuple(scope for scope in above if type(scope) in _SCOPE_TYPES)
                    self._def_uses.setdefault(node.func.value, ([], []))[1].append((node, scopes))
        return self._def_uses

    def _given(self, call: cst.Call, scopes: _Scopes, function: cst.FunctionDef, param: str) -> str:
        """What the function `call` (in `scopes`) gives `function`'s parameter `param` runs: "jax" for a jitted
        function (of this module or another, a factory's product included) or a def of the module that dispatches
        jax work, else "unknown"."""
        positional = [p.name.value for p in (*function.params.posonly_params, *function.params.params)]
        given = argument(call, positional.index(param) if param in positional else len(call.args), param)
        if given is None:
            return "unknown"
        if self.facts.holds_jit(given, scopes) is not None or self.facts.jitted_elsewhere(given, scopes) is not None:
            return "jax"
        found = self.facts.binding(given, want_def=True, chain=scopes) if type(given) is cst.Name else None
        if found is None or type(found[0]) is not cst.FunctionDef:
            return "unknown"
        return self._helper_kind(found[0]) if not found[0].decorators else "unknown"

    def _staged_def(self, call: cst.Call) -> cst.FunctionDef | None:
        """The def of this module a call runs when a decorator stages it (`@eqx.filter_jit`, `@nnx.jit`: any
        transform that traces and compiles, jit-like or not): its call dispatches as a jitted one does."""
        function = self.facts.called_def(call)
        transforms = self.facts.decorating_transforms(function) if function is not None else None
        return function if transforms and any(transform.staged for transform in transforms) else None

    def _helper_kind(self, helper: cst.FunctionDef) -> str:
        """A plain function of this module called in a timed region is the code it runs: "jax" when its body
        dispatches jax work and nothing in it waits or reads a value on the host (its results are left as
        unwaited as a jitted call's), "harmless" when it runs neither, else "unknown"."""
        if id(helper) in self._judging or not isinstance(helper.body, cst.IndentedBlock):
            return "unknown"  # recursion
        self._judging.add(id(helper))
        try:
            statements = helper.body.body
            for statement in statements:
                small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
                checked = small.value if type(small) is cst.Return and small.value is not None else statement
                if _may_sync(checked):
                    return "unknown"
            kinds = {self._kind(call) for statement in statements for call in _all_calls(statement)}
        finally:
            self._judging.discard(id(helper))
        if kinds & {"sync", "unknown"}:
            return "unknown"
        return "jax" if "jax" in kinds else "harmless"

    def _waits(self, function: cst.BaseExpression) -> bool:
        """A function given to a tree map that waits for its leaf: a sync or a NumPy function (`np.array` copies the
        leaf to the host), or a lambda or a def of the module calling one (`lambda x: x.block_until_ready() if
        hasattr(x, "block_until_ready") else x`: a leaf that is no array has nothing to wait for)."""
        if isinstance(function, cst.Lambda):
            return any(self._kind(call) == "sync" for call in _all_calls(function.body))
        qualified = self.names.qualified(function)
        if qualified in SYNCS or qualified is not None and qualified.startswith("numpy."):
            return True
        found = self.facts.binding(function, want_def=True) if isinstance(function, cst.Name) else None
        helper = found[0] if found is not None else None
        return isinstance(helper, cst.FunctionDef) and any(
            self._kind(call) == "sync" for call in _all_calls(helper.body)
        )

    def _fix(self, running: list[cst.CSTNode]) -> FixPlan | None:
        if len(running) != 1 or not isinstance(running[0], cst.SimpleStatementLine) or len(running[0].body) != 1:
            return None
        small = running[0].body[0]
        value = small.value if isinstance(small, (cst.Assign, cst.Expr)) else None
        if not isinstance(value, cst.Call) or self._kind(value) != "jax":
            return None
        spelled = self.spell(BLOCK_UNTIL_READY)
        if spelled is None:
            return None
        name, imports = spelled
        return FixPlan(f"wait with `{name}(...)`", ((value, (f"{name}(", value, ")")),), imports=imports)
