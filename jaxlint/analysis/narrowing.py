"""What an `isinstance` test says about a JAX array: a JAX array, concrete or a tracer, is never a NumPy
array or a Python number, and always a `jax.Array`. Code that dispatches on the type of its argument
(`if isinstance(x, np.ndarray): np.allclose(...)  elif isinstance(x, jax.Array): jnp.allclose(...)`)
never sends an array or a tracer down the other branches."""

from __future__ import annotations

from typing import Callable

import libcst as cst

from jaxlint.analysis.bindings import is_docstring
from jaxlint.analysis.names import Names
from jaxlint.model.functions import ARRAY_ATTRIBUTES, ARRAY_CLASSES, NOT_ARRAY_CLASSES
from jaxlint.model.transforms import TREE_LEAF_LISTS


def not_an_array(
    test: cst.BaseExpression,
    names: Names,
    definition: Callable[[cst.BaseExpression], cst.CSTNode | None] = lambda _: None,
    imported: Callable[[cst.Call], tuple[int, bool] | None] = lambda _: None,
) -> tuple[str, bool] | None:
    """For `isinstance(x, T)`: (`x`, True) when no JAX array passes the test (then `x` is no array in
    the body), (`x`, False) when every JAX array passes it (then `x` is no array in the `else`); the
    other way round for `not isinstance(x, T)`. A call of a function of the module that only returns such
    a test of its parameter (`def is_traced(v): return isinstance(v, jax.core.Tracer)`, found with
    `definition`) tests its argument the same way; so does a call of another module's (`imported`: the
    position of the parameter it tests, with what the test says, from that module's interface)."""
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        found = not_an_array(test.expression, names, definition, imported)
        return None if found is None else (found[0], not found[1])
    attribute = _attribute_test(test, names)
    if attribute is not None:
        return attribute, False
    call: cst.BaseExpression | None = _leafwise(test, names)
    if type(call) is cst.Call and not (type(call.func) is cst.Name and call.func.value == "isinstance"):
        function = definition(call.func)
        tested = returned_test(function, names) if type(function) is cst.FunctionDef else imported(call)
        return _tested_argument(call, tested)
    return _type_test(call, names)


def returned_test(function: cst.FunctionDef, names: Names) -> tuple[int, bool] | None:
    """For a def that only returns a type test of one of its positional parameters (`return isinstance(v,
    jax.core.Tracer)`, or what `_leafwise` reads as one): that parameter's position, with what `not_an_array` says
    of the test (for other modules' calls of it)."""
    found = _type_test(_leafwise(returned(function), names), names)
    positional = [param.name.value for param in (*function.params.posonly_params, *function.params.params)]
    return (positional.index(found[0]), found[1]) if found is not None and found[0] in positional else None


def _tested_argument(call: cst.Call, tested: tuple[int, bool] | None) -> tuple[str, bool] | None:
    """The name a call gives the parameter another module's type test tests, with what the test says."""
    if tested is None:
        return None
    position, verdict = tested
    given = call.args[position] if position < len(call.args) else None
    if any(arg.keyword is not None or arg.star for arg in call.args[: position + 1]) or given is None:
        return None
    return (given.value.value, verdict) if type(given.value) is cst.Name else None


def _type_test(call: cst.BaseExpression | None, names: Names) -> tuple[str, bool] | None:
    """`isinstance(x, T)` of a name: (`x`, True) when no JAX array passes it, (`x`, False) when every one does."""
    if not (
        type(call) is cst.Call
        and type(call.func) is cst.Name
        and call.func.value == "isinstance"
        and len(call.args) == 2
        and isinstance(call.args[0].value, cst.Name)
    ):
        return None
    types = call.args[1].value
    elements = [element.value for element in types.elements] if isinstance(types, cst.Tuple) else [types]
    classes = {
        names.qualified(element) or (element.value if isinstance(element, cst.Name) else None) for element in elements
    }
    subject = call.args[0].value.value
    if classes <= NOT_ARRAY_CLASSES:
        return subject, True
    if classes & ARRAY_CLASSES:
        return subject, False
    return None


def _attribute_test(call: cst.BaseExpression | None, names: Names) -> str | None:
    """The subject of `hasattr(x, "shape")` for an attribute every JAX array (and tracer) has: in the `else`,
    `x` is no array (`a.shape if hasattr(a, "shape") else np.asarray(a).shape`)."""
    if not (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Name)
        and call.func.value == "hasattr"
        and names.qualified(call.func) is None
        and len(call.args) == 2
        and isinstance(call.args[0].value, cst.Name)
        and isinstance(call.args[1].value, cst.SimpleString)
    ):
        return None
    return call.args[0].value.value if call.args[1].value.evaluated_value in ARRAY_ATTRIBUTES else None


def returned(function: cst.CSTNode | None) -> cst.BaseExpression | None:
    """What a def whose body is one `return <expression>` (a docstring aside) returns."""
    if type(function) is not cst.FunctionDef or type(function.body) is not cst.IndentedBlock:
        return None
    statements = [s for s in function.body.body if not is_docstring(s)]
    line = statements[0] if len(statements) == 1 else None
    if type(line) is not cst.SimpleStatementLine or type(line.body[0]) is not cst.Return:
        return None
    return line.body[0].value


def _leafwise(test: cst.BaseExpression | None, names: Names) -> cst.BaseExpression | None:
    """`isinstance(x, T)` for `any(isinstance(v, T) for v in jax.tree.leaves(x))`: an array is its own one leaf, so
    for an array the two agree (`contains_tracer(x)`); any other test as it is."""
    if not (
        type(test) is cst.Call
        and type(test.func) is cst.Name
        and test.func.value == "any"
        and names.qualified(test.func) is None
        and len(test.args) == 1
        and type(generator := test.args[0].value) is cst.GeneratorExp
    ):
        return test
    loop, each = generator.for_in, generator.elt
    leaves = loop.iter
    if (
        loop.ifs
        or loop.inner_for_in is not None
        or type(loop.target) is not cst.Name
        or type(leaves) is not cst.Call
        or TREE_LEAF_LISTS.get(names.qualified(leaves.func) or "") != (False, False)
        or len(leaves.args) != 1
        or leaves.args[0].keyword is not None
        or leaves.args[0].star
        or type(each) is not cst.Call
        or type(each.func) is not cst.Name
        or each.func.value != "isinstance"
        or len(each.args) != 2
        or type(each.args[0].value) is not cst.Name
        or each.args[0].value.value != loop.target.value
    ):
        return test
    return each.with_changes(args=[each.args[0].with_changes(value=leaves.args[0].value), each.args[1]])
