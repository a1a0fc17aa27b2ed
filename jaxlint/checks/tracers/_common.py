"""What several JAX3xx rules share: hints for static values, where only tracers count, and the print fixes.

Python printing and formatting rewritten for `jax.debug.print`, which formats at run time.

The fixes of JAX306 (print-in-traced), JAX307 (debug-print-fstring) and JAX509 (print-at-trace-time):
each keeps the printed text, and gives up (no fix) where the translation would not be faithful."""

from __future__ import annotations

import ast
import json
import re
import string
from collections.abc import Callable

import libcst as cst

from jaxlint.analysis.values import Kind, Value
from jaxlint.checks.base import FixPlan, Rule, code
from jaxlint.checks.shapes._common import could_be_static
from jaxlint.diagnostics import SAFE, UNSAFE
from jaxlint.model.functions import DEBUG_PRINT
from jaxlint.model.transforms import RUN_AS_GIVEN


# What replaces a Python branch on a traced condition, by statement: its keyword and JAX's form of it.
BRANCHES = {
    cst.If: ("if", "`jnp.where` or `lax.cond`"),
    cst.IfExp: ("if", "`jnp.where` or `lax.cond`"),
    cst.While: ("while", "`lax.while_loop`"),
    cst.Assert: ("assert", "`checkify.check` or `jax.debug.callback`"),
}


def static_hint(rule: Rule, value: Value, *operands: cst.BaseExpression) -> str:
    """How to make the value static, when the fix is a jit argument spec: only when the operands (the one
    holding it and those it is used with, `max(g, -limit)`) are plain arithmetic on a parameter that could be
    a Python number (shapes._common.could_be_static)."""
    tracer = value.tracer
    if (
        tracer is not None
        and tracer.caller is None
        and not tracer.computed
        and not tracer.path
        and tracer.returned_by is None  # a function's result: the argument it came from may be a pytree
        and rule.facts.takes_static_argnames(tracer.transform.name)
        and all(could_be_static(rule, operand, tracer.param, tracer.function) for operand in operands)
    ):
        return f", or mark `{tracer.param}` static with `static_argnames=('{tracer.param}',)`"
    return ""


def report_shown_tracer(
    rule: Rule, call: cst.Call, what: str, remedy: str, fix: Callable[[], FixPlan | None] | None = None
) -> None:
    """Report a call that shows its arguments (`print`, a log call: `what`) when one of them is traced, in a traced
    function whose Python code does not run eagerly (JAX306, JAX310)."""
    scope = rule.facts.traced_scope
    if scope is None or not (scope.staged or scope.differentiated) or scope.runs_eagerly:
        return
    for arg in call.args:
        value = rule.facts.traced_in(arg.value, staged=scope.staged)
        if value.kind is not Kind.TRACED:
            continue
        if scope.staged:
            shown = "runs once at trace time and shows a tracer (`JitTracer(...)`; `VmapTracer(...)` under vmap), not the numbers"
        else:
            shown = "under a gradient transform shows `GradTracer(primal=...)`, not the numbers"
        text = code(arg.value)
        rule.report(
            call,
            lambda line_of: (
                f"`{what}` of a traced value {shown}: `{text}` is traced ({value.describe(text, line_of)}); {remedy}"
            ),
            fix() if fix is not None else None,
            because=value,
        )
        return


def only_traced(rule: Rule) -> bool:
    """Whether the code here runs only while a transform traces it, so that a fix may assume its traced
    values are tracers: it is in a function decorated with a transform (whose name then calls the
    transformed function; its results are arrays, so the functions nested in it cannot escape), or in
    a lambda written as a transform's argument. Not in a helper that traced code passes tracers to, nor
    in a function wrapped by a call (`jax.jit(f)`): those may also be called with NumPy arrays or numbers."""
    scope, node = rule.facts.traced_scope, rule.facts.traced_node
    if scope is None:
        return False
    for function in rule.facts.chain:
        if not isinstance(function, cst.FunctionDef):
            continue
        for decorator in function.decorators:
            transform = rule.facts.decorator_transform(decorator)
            if transform is not None and transform.name not in RUN_AS_GIVEN:
                return True
    return isinstance(node, cst.Lambda) and any(
        isinstance(t.node, cst.Call) and t.name not in RUN_AS_GIVEN and _written_in(node, t.node)
        for t in scope.transforms
    )


def _written_in(function: cst.Lambda, call: cst.Call) -> bool:
    """`lax.fori_loop(0, n, lambda i, x: ..., x)`, `lax.switch(i, [lambda: ...])`: the lambda is an argument."""
    for arg in call.args:
        items = arg.value.elements if isinstance(arg.value, (cst.List, cst.Tuple)) else [arg.value]
        if any((item.value if isinstance(item, cst.BaseElement) else item) is function for item in items):
            return True
    return False


def debug_print_fix(rule: Rule, node: cst.Call) -> FixPlan | None:
    """`print("loss", loss)` -> `jax.debug.print("loss {}", loss)`: the same text, printed at run time."""
    if any(arg.keyword or arg.star for arg in node.args):
        return None  # sep=, end=, file=, *args: no faithful translation
    texts: list[str] = []
    values: list = []
    for arg in node.args:
        text = _text(arg.value)
        if text is not None:
            texts.append(_escaped(text))
            continue
        if isinstance(arg.value, cst.FormattedString):
            converted = _runtime_template(arg.value)
        elif _formats_at_trace_time(rule, arg.value):
            converted = _percent_template(rule, arg.value) or _format_template(arg.value)
        else:
            converted = "{}", _argument(arg.value)
        if converted is None:
            return None  # a string formatted in Python would print the tracer: no faithful translation
        texts.append(converted[0])
        values.extend(converted[1])
    spelled = rule.spell(DEBUG_PRINT)
    if spelled is None:
        return None
    name, imports = spelled
    call = (f"{name}({json.dumps(' '.join(texts), ensure_ascii=False)}", *values, ")")
    return FixPlan(f"use `{name}`", ((node, call),), UNSAFE, imports)


def _text(expr: cst.BaseExpression) -> str | None:
    """The text of a plain (not bytes) string literal."""
    if isinstance(expr, cst.SimpleString) and "b" not in expr.prefix.lower():
        value = expr.evaluated_value
        return value if isinstance(value, str) else None  # always a str without the `b` prefix
    return None


def _escaped(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _formats_at_trace_time(rule: Rule, expr: cst.BaseExpression) -> bool:
    """A string built from a traced value in Python (`"%s" % x`, `"{}".format(x)`): it holds the tracer's repr."""
    return (
        rule.facts.value_of(expr).kind is not Kind.TRACED
        and rule.facts.traced_in(expr, staged=True).kind is Kind.TRACED
    )


_PERCENT = re.compile(r"%(.?)", re.DOTALL)
_PERCENT_FIELDS = {"%": None, "s": "{}", "r": "{!r}"}


def _percent_template(rule: Rule, expr: cst.BaseExpression) -> tuple[str, tuple] | None:
    """`"loss %s (%r)" % (x, y)` -> `"loss {} ({!r})"` and `x, y`: only `%s`, `%r` and `%%`, whose
    `str.format` forms print the same text; None for anything else."""
    if not (isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Modulo)):
        return None
    template = _text(expr.left)
    if template is None:
        return None
    body, fields, start = [], 0, 0
    for match in _PERCENT.finditer(template):
        if match.group(1) not in _PERCENT_FIELDS:
            return None
        field = _PERCENT_FIELDS[match.group(1)]
        body += [_escaped(template[start : match.start()]), "%" if field is None else field]
        fields += field is not None
        start = match.end()
    body.append(_escaped(template[start:]))
    right = expr.right
    if isinstance(right, cst.Tuple) and not any(isinstance(e, cst.StarredElement) for e in right.elements):
        operands = [element.value for element in right.elements]
    else:
        held = rule.facts.value_of(right)
        if not held.is_array or held.container:
            return None  # `"%s %s" % pair`: a tuple at run time fills several fields
        operands = [right]
    if len(operands) != fields:
        return None
    return "".join(body), tuple(piece for operand in operands for piece in _argument(operand))


def _format_template(expr: cst.BaseExpression) -> tuple[str, tuple] | None:
    """`"loss {} {:.3f}".format(x, y)` -> the same template and `x, y`, when every field is automatically
    numbered and takes a positional argument: `jax.debug.print` formats with `str.format` too."""
    if not (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and expr.func.attr.value == "format"
        and not expr.func.value.lpar
    ):
        return None
    template = _text(expr.func.value)
    if template is None or any(arg.keyword is not None or arg.star for arg in expr.args):
        return None
    try:
        fields = [(name, spec) for _, name, spec, _ in string.Formatter().parse(template) if name is not None]
    except ValueError:
        return None
    if len(fields) != len(expr.args) or any(name != "" or "{" in (spec or "") for name, spec in fields):
        return None
    return template, tuple(piece for arg in expr.args for piece in _argument(arg.value))


def placeholders_fix(call: cst.Call, template: cst.BaseExpression, safe: bool) -> FixPlan | None:
    """`f"x = {x:.3f}"` -> `"x = {:.3f}", x`, keeping the quotes, the text and the format specs."""
    positional = [arg for arg in call.args if arg.keyword is None]
    if not isinstance(template, cst.FormattedString) or len(positional) != 1 or template.lpar:
        return None  # more arguments: the f-string's `{{}}` may be meant for them
    split = _split_fstring(template, lambda text: text)
    if split is None:
        return None
    prefix = template.start.replace("f", "").replace("F", "")
    new = (f"{prefix}{split[0]}{template.end}", *split[1])
    return FixPlan("pass the values as arguments", ((template, new),), SAFE if safe else UNSAFE)


def _runtime_template(template: cst.FormattedString) -> tuple[str, tuple] | None:
    """An f-string as the text `str.format` expects at run time (escapes evaluated) and its arguments."""
    prefix = template.start.replace("f", "").replace("F", "").rstrip("'\"")
    return _split_fstring(template, lambda text: ast.literal_eval(f"{prefix}{template.end}{text}{template.end}"))


def _split_fstring(template: cst.FormattedString, text_of) -> tuple[str, tuple] | None:
    """An f-string's text with `{}` placeholders (each part's text through `text_of`), and fix pieces
    passing its fields' expressions as arguments; None when a field has no placeholder form."""
    body: list[str] = []
    values: list = []
    for part in template.parts:
        if isinstance(part, cst.FormattedStringText):
            body.append(text_of(part.value))
            continue
        assert isinstance(part, cst.FormattedStringExpression)  # an f-string's other parts
        field = _field(part)
        if field is None:
            return None
        body.append(field)
        values.extend(_argument(part.expression))
    return "".join(body), tuple(values)


def _field(part: cst.FormattedStringExpression) -> str | None:
    """`{x!r:>8}` -> `{!r:>8}`; None for `{x=}` and nested fields in the format spec."""
    if part.equal is not None:
        return None
    spec = ""
    if part.format_spec is not None:
        texts = [piece for piece in part.format_spec if isinstance(piece, cst.FormattedStringText)]
        if len(texts) != len(part.format_spec):
            return None
        spec = ":" + "".join(piece.value for piece in texts)
    conversion = f"!{part.conversion}" if part.conversion else ""
    return "{" + conversion + spec + "}"


def _argument(expr: cst.BaseExpression) -> tuple:
    """Fix pieces passing `expr` on as a call argument, as written (a bare tuple gets parentheses)."""
    return (", ", "(", expr, ")") if isinstance(expr, cst.Tuple) and not expr.lpar else (", ", expr)
