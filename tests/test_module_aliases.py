"""Module-level aliases of imported names (analysis/module_aliases.py) and how Names reads them."""

import textwrap

import libcst as cst

from jaxlint.analysis.bindings import rebound_names
from jaxlint.analysis.module_aliases import module_aliases
from jaxlint.analysis.names import Names


def aliases(source: str) -> dict[str, str]:
    return module_aliases(cst.parse_module(textwrap.dedent(source)), None)


def test_a_name_bound_once_to_an_imported_name_is_that_name():
    found = aliases(
        """
        import functools
        import jax
        from jax import random

        partial = functools.partial
        jit = jax.jit
        split = random.split
        P = partial
        """
    )
    assert found == {
        "partial": "functools.partial",
        "jit": "jax.jit",
        "split": "jax.random.split",
        "P": "functools.partial",
    }


def test_a_name_bound_twice_or_declared_global_is_no_alias():
    found = aliases(
        """
        import jax

        jit = jax.jit
        jit = jax.pmap
        grad = jax.grad
        vmap = jax.vmap
        loop = vmap
        for grad in (jax.grad,):
            pass

        pmap = jax.pmap

        class Config:
            def configure(self, fast):
                if fast:
                    pass
                elif self:
                    global vmap
                    vmap = jax.pmap
                else:
                    match fast:
                        case 1:
                            pass
                    try:
                        pass
                    finally:
                        def inner():
                            global pmap; pmap = jax.vmap
        """
    )
    assert found == {}


def test_only_imported_names_are_aliased():
    assert aliases("x = y\nimport jax\nmake_key = jax.random.key\nn = len\n") == {"make_key": "jax.random.key"}


def test_a_function_that_binds_the_name_itself_hides_the_alias():
    module = cst.parse_module("import functools\npartial = functools.partial\n")
    names = Names(module, None, module_aliases(module, None))
    read = cst.parse_expression("partial")
    assert names.qualified(read) == "functools.partial"
    body = cst.parse_module("partial = print\n").body
    names.enter_function(body, [], rebound_names(body))
    assert names.qualified(cst.parse_expression("partial")) is None
    names.leave_function()
    names.enter_function((), [])
    assert names.qualified(cst.parse_expression("partial.func")) == "functools.partial.func"
