"""analysis/callees.py: which calls call a jitted callable, and how jax treats each argument."""

from __future__ import annotations

import textwrap

import libcst as cst

from jaxlint.analysis.callees import Callees
from jaxlint.analysis.names import Names
from jaxlint.analysis.traced import DEFAULT_TABLE
from jaxlint.lint import LintOptions, lint_source


def module_calls(source: str):
    """The Callees of a module and its module-level calls, by the callee's spelling."""
    module = cst.parse_module(textwrap.dedent(source))
    callees = Callees(module, Names(module), DEFAULT_TABLE)
    calls = {}
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                value = getattr(small, "value", None)
                if isinstance(value, cst.Call):
                    calls[cst.Module(body=[]).code_for_node(value.func)] = value
    return module, callees, calls


def roles(source: str, name: str, jax_version=None, query: str = "jitted"):
    module, callees, calls = module_calls(source)
    callee = getattr(callees, query)(calls[name], (module,))
    if callee is None:
        return None
    return [(a.keyword, a.param, a.static, a.donated) for a in callee.arguments(calls[name], jax_version)]


PREAMBLE = """
import jax
from functools import partial
"""


def test_jit_assigned_to_a_name_resolves_numbers_to_names() -> None:
    source = PREAMBLE + """
def f(x, y, n):
    return x
g = jax.jit(f, static_argnums=2, donate_argnums=0)
g(a, y=b, n=3)
"""
    assert roles(source, "g") == [(None, "x", False, True), ("y", "y", False, False), ("n", "n", True, False)]


def test_decorated_partial_and_alias() -> None:
    source = PREAMBLE + """
@partial(jax.jit, static_argnames="n", donate_argnames=("x",))
def f(x, n):
    return x
h = f
h(a, 3)
"""
    assert roles(source, "h") == [(None, "x", False, True), (None, "n", True, False)]


def test_partial_inside_jit_shifts_the_positions() -> None:
    source = PREAMBLE + """
def f(cfg, x, y):
    return x
g = jax.jit(partial(f, cfg), donate_argnums=0)
g(a, y=b)
"""
    assert roles(source, "g") == [(None, "x", False, True), ("y", "y", False, False)]


def test_both_donate_options_given_are_not_inferred() -> None:
    source = PREAMBLE + """
def f(x, y):
    return x
g = jax.jit(f, donate_argnums=0, donate_argnames="y")
g(x=a, y=b)
"""
    assert roles(source, "g") == [("x", "x", False, False), ("y", "y", False, True)]


def test_before_jax_0_4_14_keywords_are_not_donated() -> None:
    source = PREAMBLE + """
def f(x, y):
    return x
g = jax.jit(f, donate_argnums=0)
g(x=a, y=b)
"""
    assert roles(source, "g", (0, 4, 13)) == [("x", "x", False, False), ("y", "y", False, False)]
    assert roles(source, "g", (0, 4, 14)) == [("x", "x", False, True), ("y", "y", False, False)]


def test_a_name_bound_twice_or_not_jitted_resolves_to_nothing() -> None:
    source = PREAMBLE + """
def f(x):
    return x
g = jax.jit(f, donate_argnums=0)
g = f
g(a)
f(a)
"""
    assert roles(source, "g") is None
    assert roles(source, "f") is None


def test_def_rebound_to_its_own_jit() -> None:
    source = PREAMBLE + """
def step(state, batch):
    return state
step = jax.jit(step, donate_argnums=(0,))
step(s, b)
"""
    assert roles(source, "step") == [(None, "state", False, True), (None, "batch", False, False)]


def test_a_compiled_call_takes_the_dynamic_arguments_only() -> None:
    source = PREAMBLE + """
def f(scale, x, y):
    return x
c = jax.jit(f, static_argnums=0, donate_argnums=2).lower(2.0, a, b).compile()
c(a, b)
"""
    assert roles(source, "c") is None
    assert roles(source, "c", query="compiled") == [(None, "x", False, False), (None, "y", False, True)]


def test_a_name_rebound_to_its_stages_is_compiled_without_static_arguments() -> None:
    stages = """
fn = fn.lower(a, b)
fn = fn.compile()
fn(a, b)
"""
    donating = PREAMBLE + "def fn(x, y):\n    return x\nfn = jax.jit(fn, donate_argnums=1)" + stages
    static = PREAMBLE + "def fn(s, y):\n    return y\nfn = jax.jit(fn, static_argnums=0, donate_argnums=1)" + stages
    assert roles(donating, "fn", query="donating") == [(None, None, False, False), (None, None, False, True)]
    assert roles(static, "fn", query="donating") is None


def test_lowering_without_compiling_is_not_called() -> None:
    source = PREAMBLE + """
f = jax.jit(lambda x: x, donate_argnums=0)
lowered = f.lower(a)
lowered(a)
"""
    assert roles(source, "lowered", query="donating") is None


def test_unknown_wrapped_function_still_knows_positions_not_keywords() -> None:
    source = PREAMBLE + """
from lib import f
g = jax.jit(f, donate_argnums=0)
g(a, y=b)
"""
    assert roles(source, "g") == [(None, None, False, True), ("y", "y", False, None)]


def test_jax507_names_the_target_version_for_old_jax() -> None:
    source = PREAMBLE + """
def f(x, y):
    return x + y
g = jax.jit(f, donate_argnums=0)
out = g(x=a, y=b)
"""
    found = lint_source(source, "t.py", LintOptions(frozenset({"JAX507"}), jax_version="0.4.13"))
    assert [(d.row, d.col, d.message) for d in found] == [(8, 11, (
        "`x` is passed by keyword, so it is not donated (donate_argnums=0): before jax 0.4.14 (the target is "
        "0.4.13) keyword arguments are never donated; pass it by position"))]
    assert lint_source(source, "t.py", LintOptions(frozenset({"JAX507"}))) == []


def test_jax504_message_names_the_call_line_and_the_option() -> None:
    source = PREAMBLE + """
@partial(jax.jit, donate_argnums=0)
def sgd(params, grads):
    return params - grads

def train(params, grads):
    new = sgd(params, grads)
    return new, params
"""
    found = lint_source(source, "t.py", LintOptions(frozenset({"JAX504"})))
    assert [(d.row, d.col, d.code, d.message) for d in found] == [(11, 17, "JAX504", (
        "`params` was donated to `sgd` at line 10 (donate_argnums=0) and is read here: jax deleted its buffer, "
        "so this raises `RuntimeError: Array has been deleted`; use the call's result (`params = sgd(...)`), "
        "or do not donate `params`"))]
