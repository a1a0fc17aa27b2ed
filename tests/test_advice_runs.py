"""The change a finding's message suggests, applied to its rule's documented example, runs with real jax.

Each case is a rule's example (its page in rules/, the rule's `example`) with the imports every JAX file has,
the pieces of advice its findings give (asserted in the messages, so that advice and case change together),
the example with that advice applied (by hand, or jaxlint's own fixes, unsafe ones included) and a call
that exercises it. One subprocess per rule family runs its cases with real jax: the example as documented
fails (raises, or prints tracers, or loses the update) and the example with the advice applied does not.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

import pytest

from jaxlint.checks import ALL_RULES, find_rule
from jaxlint.fix import fix_source
from jaxlint.lint import LintOptions, lint_source
from test_rule_examples import IMPORTS, STATIC_RULES

EVERY_RULE = LintOptions(frozenset(rule.code for rule in ALL_RULES))

# Runs each case with real jax: {"name", "source", "call"} in, the error each raised (or None) out. `printed`
# holds what the case printed, for calls that check it.
RUNNER = r"""
import contextlib, io, json, sys
import jax

results = {}
for case in json.load(sys.stdin):
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            namespace = {"__name__": "example", "printed": printed}
            exec(compile(case["source"] + "\n" + case["call"], case["name"], "exec"), namespace)
            jax.effects_barrier()
        results[case["name"]] = None
    except Exception as error:
        results[case["name"]] = f"{type(error).__name__}: {error}"[:400]
print(json.dumps(results))
"""

FIXES = "jaxlint's fixes"
PRINTS_VALUES = 'jax.effects_barrier()\nassert printed.getvalue() and "Tracer" not in printed.getvalue(), printed.getvalue()'


@dataclass(frozen=True)
class Case:
    code: str  # the rule whose example this is
    says: tuple[str, ...]  # pieces of advice the example's findings give
    change: str | tuple[tuple[str, str], ...]  # FIXES, or (old, new) replacements in the example
    call: str  # runs the example's code
    name: str = ""  # tells apart two cases of one rule
    setup: str = ""  # the values the example uses without defining them

    @property
    def example(self) -> str:
        return IMPORTS + self.setup + find_rule(self.code).example

    def applied(self) -> str:
        if self.change == FIXES:
            lint = lambda text: lint_source(text, "example.py", EVERY_RULE)  # noqa: E731
            return fix_source(self.example, lint, unsafe=True).source
        source = self.example
        for old, new in self.change:
            assert source.count(old) == 1, (self.code, old)
            source = source.replace(old, new)
        return source


STATIC_X = ("@jax.jit\ndef relu", "@partial(jax.jit, static_argnames=('x',))\ndef relu")
CASES = [
    Case("JAX101", ("use `x = x.at[0].set(1.0)`", "use `x = x.at[1].add(2.0)`"), FIXES, "assert x.tolist() == [1, 2, 0]"),
    Case("JAX102", ("assign it: `x = x.at[0].set(1.0)`",), FIXES, "assert x[0] == 1.0"),
    Case("JAX104", ("update through `.at`: `x.at[0].set(...)`",), FIXES, "assert x.tolist() == [1.0, 0.0, 0.0, 0.0]"),
    Case("JAX301", ("use `jnp.where` or `lax.cond`",),
         (("    if x > 0:\n        return x\n    return 0.0\n", "    return jnp.where(x > 0, x, 0.0)\n"),),
         "assert relu(jnp.array([-1.0, 2.0])).tolist() == [0.0, 2.0]", "where"),
    Case("JAX301", ("or mark `x` static with `static_argnames=('x',)`",), (STATIC_X,),
         "assert relu(2.0) == 2.0 and relu(-1.0) == 0.0", "static"),
    Case("JAX302", ("use `&` (or `jnp.logical_and`), then `jnp.where` or `lax.cond` for the `if`",
                    "use `~` (or `jnp.logical_not`), then `jnp.where` or `lax.cond` for the `if`", "use `jnp.maximum`"),
         (("    if too_big and not jnp.isnan(g):\n        g = limit\n",
           "    g = jnp.where(too_big & ~jnp.isnan(g), limit, g)\n"),
          ("return max(g, -limit)", "return jnp.maximum(g, -limit)")),
         "assert clip_grad(jnp.array([3.0, -5.0]), 1.0).tolist() == [1.0, -1.0]"),
    Case("JAX303", ("keep it an array (`.astype(...)`)",), (("float(factor)", "factor.astype(jnp.float32)"),),
         "assert scale(jnp.ones(2), 3.0).tolist() == [3.0, 3.0]", "array"),
    Case("JAX303", ("or mark `factor` static with `static_argnames=('factor',)`",),
         (("@jax.jit", "@partial(jax.jit, static_argnames=('factor',))"),),
         "assert scale(jnp.ones(2), 3.0).tolist() == [3.0, 3.0]", "static"),
    Case("JAX304", ("loop with `lax.fori_loop`",),
         (("    for _ in range(n - 1):\n        out = out * x\n",
           "    out = lax.fori_loop(0, n - 1, lambda _, out: out * x, out)\n"),),
         "assert power(jnp.float32(2.0), 3) == 8.0", "fori_loop"),
    Case("JAX304", ("or mark `n` static with `static_argnames=('n',)`",),
         (("@jax.jit", "@partial(jax.jit, static_argnames=('n',))"),), "assert power(2.0, 3) == 8.0", "static"),
    Case("JAX305", ("use `jnp.linalg.norm`",), FIXES, "assert jnp.allclose(normalize(jnp.array([3.0, 4.0])), jnp.array([0.6, 0.8]))"),
    Case("JAX306", ('use `jax.debug.print("... {}", value)`',), FIXES,
         'step(jnp.ones(2), {"x": jnp.ones((3, 2)), "y": jnp.ones(3)})\n' + PRINTS_VALUES),
    Case("JAX307", ('pass the value as an argument: `jax.debug.print("... {}", value)`',), FIXES,
         "step(jnp.ones(2))\n" + PRINTS_VALUES),
    Case("JAX401", ("mark `max_len` static with `static_argnames=('max_len',)`",),
         (("@jax.jit", "@partial(jax.jit, static_argnames=('max_len',))"),),
         "assert positional_encoding(jnp.zeros((4, 1)), 4).shape == (4, 1)"),
    Case("JAX402", ("use `jnp.where(jnp.isnan(x), new_values, x)`", "use `jnp.where(x > 0, x, 0)`"),
         (("x = x.at[jnp.isnan(x)].set(0.0)", "x = jnp.where(jnp.isnan(x), 0.0, x)"),
          ("x[x > 0].sum()", "jnp.where(x > 0, x, 0).sum()")),
         "assert clean(jnp.array([1.0, jnp.nan, -1.0, 2.0])) == 3.0"),
    Case("JAX403", ("pass `size=` with an upper bound",), (("jnp.nonzero(x > 0)", "jnp.nonzero(x > 0, size=x.size)"),),
         "assert positive_indices(jnp.array([1.0, -1.0, 2.0]))[:2].tolist() == [0, 2]"),
    Case("JAX404", ("use `lax.dynamic_slice_in_dim(x, start, 8)`",),
         (("x[start:start + 8]", "lax.dynamic_slice_in_dim(x, start, 8)"),),
         "assert window(jnp.arange(20.0), 3).tolist() == list(range(3, 11))"),
    Case("JAX502", ("pass a tuple",), FIXES, "assert batch(jnp.ones(3)).shape == (128,)"),
    Case("JAX503", ("or mark `self` static (`static_argnums=0`",),
         (("    @jax.jit\n", "    @partial(jax.jit, static_argnums=0)\n"),),
         "assert Scaler(2.0).apply(jnp.ones(2)).tolist() == [2.0, 2.0]"),
    Case("JAX509", ("use `jax.debug.print` to print at run time",), FIXES,
         "step(1.0, jnp.ones(2))\nstep(2.0, jnp.ones(2))\njax.effects_barrier()\n"
         "assert printed.getvalue().count('running step') == 2, printed.getvalue()"),
    Case("JAX601", ("pass `has_aux=True`",), (("jax.grad(loss_fn)", "jax.grad(loss_fn, has_aux=True)"),),
         "assert grads[0].shape == (2,)", setup="params, x, y = jnp.ones(2), jnp.ones((3, 2)), jnp.ones(3)\n"),
    Case("JAX602", ("pass a float (`3.0`)",), FIXES, "assert slope == 29.0"),
    Case("JAX603", ("give one entry per positional parameter",), (("in_axes=(None, 0, 0)", "in_axes=(None, 0)"),),
         "assert run(jnp.ones((2, 2)), jnp.ones((3, 2))).shape == (3, 2)"),
    Case("JAX605", ("`jnp.where(p > 0, p, 1.0)` in place of `p`",),
         (("p * jnp.log(p)", "p * jnp.log(jnp.where(p > 0, p, 1.0))"),), "assert not jnp.isnan(grads).any()"),
    Case("JAX702", ("convert it with `jnp.asarray(...)`",), FIXES, "assert total_loss(jnp.ones(2), jnp.ones(3)) == 2.0"),
    Case("JAX703", ("use `jnp.add`",), (("lax.add(", "jnp.add("),), "assert first_step() == 1.0"),
    Case("JAX801", ("use `jax.example_libraries.stax`", "use `jax.Array`", "use `x.at[0].set(1.0)`",
                    "use `jax.tree.map`", "use `jnp.prod`"), FIXES,
         'assert scale({"a": jnp.ones(2)}, jnp.ones(2))["a"].tolist() == [1.0, 1.0]'),
]
FAMILIES = sorted({find_rule(case.code).__module__.split(".")[-2] for case in CASES})


def case_name(case: Case) -> str:
    return f"{case.code} {case.name}".strip()


def messages(source: str) -> list[str]:
    return [d.message for d in lint_source(source, "example.py", EVERY_RULE)]


@pytest.mark.parametrize("case", CASES, ids=case_name)
def test_the_example_gives_the_advice_the_case_applies(case: Case) -> None:
    found = messages(case.example)
    for advice in case.says:
        assert any(advice in message for message in found), (advice, found)
    assert case.applied() != case.example
    assert messages(case.applied()) == []


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_the_advice_applied_runs_and_the_example_does_not(family: str) -> None:
    cases = [case for case in CASES if find_rule(case.code).__module__.split(".")[-2] == family]
    runs = [{"name": f"{case_name(case)} as documented", "source": case.example, "call": case.call}
            for case in cases]
    runs += [{"name": f"{case_name(case)} advised", "source": case.applied(), "call": case.call} for case in cases]
    run = subprocess.run([sys.executable, "-c", RUNNER], input=json.dumps(runs), capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    results = json.loads(run.stdout.splitlines()[-1])
    assert {name: error for name, error in results.items() if name.endswith("advised") and error} == {}
    assert [name for name, error in results.items() if name.endswith("as documented") and error is None] == []


def test_every_static_rule_whose_fix_is_offered_on_its_example_has_a_case() -> None:
    covered = {case.code for case in CASES}
    fixable = {rule.code for rule in STATIC_RULES if rule.example and any(
        d.fix is not None and d.code == rule.code for d in lint_source(IMPORTS + rule.example, "example.py", EVERY_RULE))}
    # JAX205 (a legacy key made a typed one) and JAX505 (a timer that waits) run either way: nothing to show.
    assert fixable - covered == {"JAX205", "JAX505"}


# `static_argnames` is advice only for a parameter that could be a Python number: jax rejects an array as a
# static argument (`ValueError: Non-hashable static arguments are not supported`).
STATIC_OR_NOT = '''import jax
import jax.numpy as jnp


@jax.jit
def above(x, threshold):
    if x.sum() > threshold:
        return x
    return -x


@jax.jit
def positive(x, n):
    if n > 0:
        return x
    return -x


@jax.jit
def used_as_array(x):
    if x > 0:
        return x.sum()
    return x


@jax.jit
def against_an_array(x, n):
    total = x.sum()
    while n > total:
        n = n - 1
    return n


@jax.jit
def leaf(params):
    if params["w"] > 0:
        return params
    return params


@jax.jit
def clip(g, limit):
    return max(g, -limit)


@jax.jit
def unpacked(x, dims):
    h, w = dims
    if h > 2:
        return x
    return x
'''


def test_static_argnames_is_advised_only_for_what_could_be_a_python_number() -> None:
    found = lint_source(STATIC_OR_NOT, "example.py", EVERY_RULE)
    assert [(d.row, d.code, "static_argnames" in d.message) for d in found] == [
        (7, "JAX301", False),  # `x.sum() > threshold`: an array
        (14, "JAX301", True),  # `n > 0`
        (21, "JAX301", False),  # `x` is used as an array (`x.sum()`)
        (29, "JAX301", False),  # a static `n` would still be compared with the tracer `total`
        (36, "JAX301", False),  # a pytree leaf
        (43, "JAX302", False),  # a static `limit` leaves `max` on the tracer `g`
        (49, "JAX301", True),  # a piece of a tuple of numbers
    ]
    assert found[1].message.endswith("use `jnp.where` or `lax.cond`, or mark `n` static with `static_argnames=('n',)`")
    assert found[0].message.endswith("transformed by `jax.jit` at line 5); use `jnp.where` or `lax.cond`")
