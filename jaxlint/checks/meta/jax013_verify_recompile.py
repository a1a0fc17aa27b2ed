"""JAX013 verify-recompile: A jitted function compiled again and again at one call, found by `--verify`."""

from __future__ import annotations

from jaxlint.checks.base import Rule
from jaxlint.checks.meta._common import FOUND_BY_TRACING


class VerifyRecompile(Rule):
    code = "JAX013"
    name = "verify-recompile"
    summary = "A jitted function compiled again and again at one call, found by `--verify`"
    what_it_does = (
        "With `--verify`, every compile and every call of a function `jax.jit` made in your project is "
        "counted at the line that called it, with jax's own explanation of why its cache missed "
        "(`jax_explain_cache_misses`). A function compiled at every call of a line, three times or more, each "
        "time because the function object is new or a static argument changed (a new object, or a new "
        "value), or five times or more because an input's shape or dtype changed, is reported at the call "
        "and at the function, with the count and what changed, when no JAX501/JAX502 finding predicted it. "
        "A second compile (a last, smaller batch; a second dtype) and a few compiles at a line called many "
        "times (one per learning rate of a sweep) are normal and never reported; nor are shape changes in "
        "the tests, which choose their shapes."
    )
    why_bad = (
        "A compile takes from milliseconds to minutes; a function that compiles at every call makes the "
        "program 10-1000x slower, silently: the results are right."
    )
    example = (
        "def train_step(params, batch):\n"
        "    @jax.jit\n"
        "    def loss(p):  # a new function object at every call of train_step\n"
        "        return ((batch @ p) ** 2).sum()\n"
        "    return loss(params)\n"
    )
    use_instead = (
        "@jax.jit\n"
        "def loss(p, batch):  # defined once: compiled once per input shape\n"
        "    return ((batch @ p) ** 2).sum()\n"
        "\n"
        "def train_step(params, batch):\n"
        "    return loss(params, batch)\n"
    )
    verify = FOUND_BY_TRACING
