"""JAX310 log-in-traced: `logging` of a traced value inside a jitted function (off by default)."""

from __future__ import annotations

import libcst as cst

from jaxlint.checks.base import Rule, code
from jaxlint.checks.tracers._common import report_shown_tracer

_LEVELS = frozenset("debug info warning warn error exception critical fatal log".split())
_LOGGER_FACTORIES = frozenset({"logging.getLogger", "absl.logging.get_absl_logger"})


class LogInTraced(Rule):
    code = "JAX310"
    name = "log-in-traced"
    summary = "`logging` of a traced value inside a jitted function"
    default_enabled = False
    what_it_does = (
        "Flags `logging.<level>(...)`, `logger.<level>(...)` (a module-level `logging.getLogger(...)`) and "
        "`absl.logging` calls that get a traced value (directly, inside a dict, list or tuple, in an f-string, "
        "through `%` or `.format`) inside a jitted (or vmapped, pmapped, lax-body) function."
    )
    why_bad = (
        "The Python code of a traced function runs once, while JAX traces it: the log line shows a tracer "
        "(`JitTracer(float32[3])`), its shape and dtype, instead of the numbers, and is not written again on "
        "later calls, which run the compiled computation. To log the values of every call, return them and log "
        "them outside, or use `jax.debug.print` or `jax.debug.callback`."
    )
    example = (
        "import logging\n\n"
        "import jax\n"
        "import jax.numpy as jnp\n\n\n"
        "@jax.jit\n"
        "def step(params, batch):\n"
        "    loss = jnp.mean((batch @ params) ** 2)\n"
        '    logging.info("loss %s", loss)\n'
        "    return loss\n"
    )
    use_instead = (
        "import logging\n\n"
        "import jax\n"
        "import jax.numpy as jnp\n\n\n"
        "@jax.jit\n"
        "def step(params, batch):\n"
        "    return jnp.mean((batch @ params) ** 2)\n\n\n"
        "def train(params, batches):\n"
        "    for batch in batches:\n"
        '        logging.info("loss %s", step(params, batch))\n'
    )
    not_flagged = (
        "Logs of static values (shapes, dtypes, static arguments); logging outside traced functions; "
        "`jax.debug.print`. Off by default: a log written at trace time is the usual way to record what is being "
        "compiled, and the tracer it shows gives the shape and dtype that such a log is after (every log of a "
        "traced value met in the packages of jaxlint's first looks was one). `print` of a traced value is "
        "JAX306's."
    )
    verify = (
        "`--verify` traces the function with the logging calls recorded and confirms a tracer was logged at this line."
    )

    def visit_Module(self, node: cst.Module) -> None:
        self._loggers = {
            target.target.value
            for statement in node.body
            if isinstance(statement, cst.SimpleStatementLine)
            for small in statement.body
            if isinstance(small, cst.Assign)
            and isinstance(small.value, cst.Call)
            and self.names.qualified(small.value.func) in _LOGGER_FACTORIES
            for target in small.targets
            if isinstance(target.target, cst.Name)
        }

    def _logging(self, func: cst.BaseExpression) -> str | None:
        qualified = self.names.qualified(func) or ""
        if qualified.startswith(("logging.", "absl.logging.")) and qualified.rsplit(".", 1)[1] in _LEVELS:
            return qualified
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value in self._loggers
            and func.attr.value in _LEVELS
        ):
            return code(func)
        return None

    def visit_Call(self, node: cst.Call) -> None:
        what = self._logging(node.func)
        if what is not None:
            remedy = 'log it outside the traced function, or use `jax.debug.print("... {}", value)`'
            report_shown_tracer(self, node, what, remedy)
