"""JAX405 sequence-index: A JAX array indexed with a Python list or `range` (a NumPy and PyTorch habit)."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.bindings import parameter_names
from jaxlint.analysis.scopes import assigned_values
from jaxlint.checks.base import Rule, code
from jaxlint.checks.shapes._common import indexed, sequence_index


class SequenceIndex(Rule):
    code = "JAX405"
    name = "sequence-index"
    summary = "A JAX array indexed with a Python list or `range` (a NumPy and PyTorch habit)"
    what_it_does = (
        "Flags `x[[0, 2]]`, `x[idx]` where `idx` holds a list the code built, `x[[i for i in ...]]`, "
        "`x[range(n)]` and `x.at[[0, 2]]` on a value jaxlint knows to be a JAX array (eager or traced), and a "
        "`range(...)` among the indices of a tuple (`x[range(n), :]`)."
    )
    why_bad = (
        "NumPy reads `x[[0, 2]]` as the rows 0 and 2; JAX refuses a non-tuple sequence as an index, because "
        "NumPy once read it as a tuple of indices too, and raises `TypeError: Using a non-tuple sequence for "
        "multidimensional indexing is not allowed; use arr[array(seq)] instead of arr[seq]`, eagerly and under "
        "`jit` alike. A `range` among a tuple's indices raises too: it is not an array-like. Measured on jax "
        "0.10.2. [Sharp bits: non-array inputs]"
        "(https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#non-array-inputs-numpy-vs-jax)"
    )
    example = "import jax.numpy as jnp\n\nx = jnp.arange(10.0)\nfirst = x[[0, 2, 4]]\n"
    use_instead = "import jax.numpy as jnp\n\nx = jnp.arange(10.0)\nfirst = x[jnp.array([0, 2, 4])]\n"
    not_flagged = (
        "A tuple of lists (`x[[0, 1], [1, 2]]`: each is an array of indices), a NumPy or JAX array of "
        "indices, lists and NumPy arrays indexed with lists (NumPy reads them), values jaxlint cannot show to "
        "be JAX arrays, and the target of an assignment (JAX101's)."
    )
    verify = "`--verify` runs the function and expects the `TypeError` at this line."

    def __init__(self, facts, reporter) -> None:
        super().__init__(facts, reporter)
        self._targets: set[int] = set()  # subscripts written to: JAX101 tells those

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._targets.add(id(node.target))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets.add(id(node.target))

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if id(node) in self._targets:
            return
        base, update = indexed(node)
        held = self.facts.value_of(base)
        if not held.is_array or held.numpy:
            return
        elements = [element.slice for element in node.slice]
        index: cst.BaseExpression | None
        if len(elements) == 1 and type(elements[0]) is cst.Index:
            index = elements[0].value
            what = self._sequence(index)
        else:  # (lists among a tuple's indices are arrays of indices; a `range` is not array-like)
            index = next((e.value for e in elements if type(e) is cst.Index and self._range(e.value)), None)
            what = self._range(index) if index is not None else None
        if index is None or what is None:
            return
        spelled = f"{code(base)}.at" if update else code(base)
        fix = "jnp.arange(...)" if what == "`range`" else f"jnp.array({code(index)})"
        self.report(
            node,
            lambda line_of: (
                f"indexing a JAX array with a Python {what} raises TypeError: `{code(base)}` holds a JAX array"
                f"{f' ({held.describe(code(base), line_of)})' if held.tracer is not None else ''}; "
                f"index with an array: `{spelled}[{fix}]`"
            ),
            because=held if held.tracer is not None else None,
        )

    def _sequence(self, index: cst.BaseExpression) -> str | None:
        """A list or `range` written out (sequence_index), or a name the function around binds to list displays or
        comprehensions only (not a parameter: a call may give it a tuple, which indexes several axes)."""
        written = sequence_index(self, index)
        if written is not None or type(index) is not cst.Name:
            return written
        scope = next((n for n in reversed(self.facts.chain) if type(n) in (cst.FunctionDef, cst.Module)), None)
        if type(scope) is cst.FunctionDef and index.value in parameter_names(scope.params):
            return None
        body = scope.body if type(scope) is cst.FunctionDef else list(scope.body) if type(scope) is cst.Module else []
        bound = assigned_values(body, index.value)
        return "list" if bound and all(type(value) in (cst.List, cst.ListComp) for value in bound) else None

    def _range(self, index: cst.BaseExpression) -> str | None:
        return "`range`" if sequence_index(self, index) == "`range`" else None
