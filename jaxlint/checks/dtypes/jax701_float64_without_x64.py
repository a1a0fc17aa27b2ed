"""JAX701 float64-without-x64: A 64-bit dtype requested from jax in a project that never enables `jax_enable_x64`."""

from __future__ import annotations

from typing import cast, Callable

import libcst as cst

from jaxlint.analysis.calls import arguments
from jaxlint.analysis.module_aliases import module_assignments
from jaxlint.analysis.x64 import is_wide_dtype, wide_dtype_test
from jaxlint.checks.base import Message, Rule, code
from jaxlint.model.dtypes import DTYPE_POSITION, DTYPE_QUERIES, NARROWED, WIDE_DTYPES
from jaxlint.model.functions import ARRAY_NAMESPACES, JAX


class Float64WithoutX64(Rule):
    code = "JAX701"
    name = "float64-without-x64"
    summary = "A 64-bit dtype requested from jax in a project that never enables `jax_enable_x64`"
    what_it_does = (
        'Flags a 64-bit dtype (`jnp.float64`, `np.float64`, `"float64"`, `int64`, `uint64`, `complex128`) given '
        "to a `jax.numpy`, `jax.lax`, `jax.random` or `jax.nn` function (`dtype=`, or the dtype position of "
        "`jnp.zeros`, `jnp.array`, `jnp.full`, `lax.convert_element_type`...), to `.astype(...)` of a value "
        "known to be a JAX array, or called as `jnp.float64(x)` (directly, or through a module constant or a name "
        "of the function bound once to such a dtype: `dtype = jnp.float64`), in a project where no module turns on "
        "`jax_enable_x64`. A project is the folder imports start from (see docs/projects.md): "
        '`jax.config.update("jax_enable_x64", True)` in any of its modules (a `conftest.py` included), '
        '`os.environ["JAX_ENABLE_X64"] = ...`, the `jax.enable_x64` context, or code that reads the flag '
        '(`jax.config.jax_enable_x64`, `jax.config.read("jax_enable_x64")`) silences it in every module of the '
        "project. A `conftest.py` that does so silences it in every file of its folder and the folders below, "
        "whatever their project: pytest imports it before the test modules there (not those of a sibling folder, "
        "up to the folder of pytest's configuration file). So does a package a project imports from a folder above "
        "it (or that folder's `src/`) when one of its modules turns the flag on: importing it runs that module, and "
        "the flag holds for the whole process (`tests/` without `__init__.py` importing the repository's package). "
        "The other way round, a package whose repository's tests or scripts turn the flag on in a project that "
        "imports it (`tests/conftest.py` beside `tests/test_model.py`, which imports the package from `src/`) runs "
        "with it there. A file outside any project counts only itself; a notebook, itself and what it imports: a module "
        "of its folder or a package found above it that turns the flag on when imported (a package counts whole). "
        "A switch Python never takes (`if enable_float64:` after `enable_float64 = False`) turns nothing on."
    )
    why_bad = (
        "Without `jax_enable_x64`, jax has no 64-bit arrays: it truncates the requested dtype to its 32-bit "
        "sibling and only warns. Measured on jax 0.10.2: `jnp.zeros(3, dtype=jnp.float64).dtype` is `float32`, "
        "with `UserWarning: Explicitly requested dtype float64 requested in zeros is not available, and will be "
        "truncated to dtype float32`; `jnp.ones(3).astype(jnp.float64)`, `jnp.float64(1.5)` and "
        '`jnp.array([1, 2], dtype="int64")` give `float32`, `float32` and `int32` the same way. Code written '
        "for double precision silently runs in single precision (wrong tolerances, overflowing integer "
        "counters). See [The Sharp Bits: double (64bit) precision]"
        "(https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#double-64bit-precision) and "
        "[default dtypes and the X64 flag](https://docs.jax.dev/en/latest/default_dtypes.html)."
    )
    example = "import jax.numpy as jnp\n\n\ndef init_state(n):\n    return jnp.zeros(n, dtype=jnp.float64)\n"
    use_instead = (
        "import jax\n"
        "import jax.numpy as jnp\n\n"
        'jax.config.update("jax_enable_x64", True)  # once, at startup; or JAX_ENABLE_X64=1 in the environment\n\n\n'
        "def init_state(n):\n"
        "    return jnp.zeros(n, dtype=jnp.float64)\n"
    )
    not_flagged = (
        "NumPy arrays (`np.zeros(3, dtype=np.float64)`: NumPy has 64 bits); dtypes given to functions that only "
        "describe them (`jnp.finfo`, `jnp.issubdtype`, `jnp.dtype`, `jnp.promote_types`...); `.astype` of values "
        "jaxlint cannot show to be JAX arrays; dtypes held in variables (a module-level alias of the dtype, "
        "`DTYPE = jnp.float64`, is reported once, where it is bound, with the calls that ask for it counted); "
        "every module of a project where a "
        "module enables or reads the flag; a branch that runs only when a JAX array is 64-bit (`if x.dtype == "
        "jnp.float64:`, `x.dtype in (jnp.float64, jnp.complex128)`, `jnp.issubdtype(x.dtype, jnp.float64)`, the "
        "`else` of `!=`, and conditional expressions), since jax makes such an array only with the flag on (the dtype "
        "test of a value known to be a NumPy array does not count: NumPy makes float64 anyway). A project that enables x64 only through the `JAX_ENABLE_X64` "
        "environment variable set outside Python (a shell, CI) looks like one that never does: mark the "
        "project by reading the flag (`assert jax.config.jax_enable_x64`) or ignore the rule there."
    )
    verify = (
        "`--verify` confirms it when the line runs (at import, or in a function it runs or traces) and jax "
        "warns there: `UserWarning: Explicitly requested dtype float64 ... is not available`."
    )

    def visit_Module(self, node: cst.Module) -> None:
        self._requests: list[tuple[cst.CSTNode, str, str]] = []
        # Requests through a module-level alias (`DTYPE = jnp.float64`), by its name: one cause, reported once.
        self._through_alias: dict[str, list[tuple[cst.CSTNode, str, str]]] = {}
        # Of each name of a function bound once to a 64-bit dtype: that value, the name, and the requests through it.
        self._through_local: dict[int, tuple[cst.CSTNode, str, list[tuple[cst.CSTNode, str, str]]]] = {}
        self._x64_branches = 0  # depth of branches that run only when an array is 64-bit (so x64 is on)

    def _guards(self, test: cst.BaseExpression, body: bool) -> bool:
        found = wide_dtype_test(test, self.names)
        return found is not None and found[1] is body and not self.facts.value_of(found[0]).numpy

    def _enter(self, node: cst.If | cst.IfExp, body: bool) -> None:
        if self._guards(node.test, body):
            self._x64_branches += 1

    def _leave(self, node: cst.If | cst.IfExp, body: bool) -> None:
        if self._guards(node.test, body):
            self._x64_branches -= 1

    def visit_If_body(self, node: cst.If) -> None:
        self._enter(node, True)

    def leave_If_body(self, node: cst.If) -> None:
        self._leave(node, True)

    def visit_If_orelse(self, node: cst.If) -> None:
        self._enter(node, False)

    def leave_If_orelse(self, node: cst.If) -> None:
        self._leave(node, False)

    visit_IfExp_body, leave_IfExp_body = visit_If_body, leave_If_body
    visit_IfExp_orelse, leave_IfExp_orelse = visit_If_orelse, leave_If_orelse

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.names.qualified(node.func) or ""
        if qualified in WIDE_DTYPES and qualified.startswith(JAX):
            if not self._x64_branches:
                self._requests.append((node, qualified.rpartition(".")[2], f"`{code(node.func)}(...)`"))
            return
        given = arguments(node)
        if qualified.startswith(ARRAY_NAMESPACES) and qualified not in DTYPE_QUERIES:
            dtype = given.keywords.get("dtype")
            position = DTYPE_POSITION.get(qualified)
            if dtype is None and position is not None and position < len(given.positional):
                dtype = given.positional[position]
            self._request(dtype, f"`{code(node.func)}`")
        elif type(node.func) is cst.Attribute and node.func.attr.value == "astype" and len(given.positional) == 1:
            if self.facts.value_of(node.func.value).is_array:
                self._request(given.positional[0], f"`{code(node.func)}`")

    def _request(self, dtype: cst.BaseExpression | None, where: str) -> None:
        if self._x64_branches:
            return
        wide = None if dtype is None else is_wide_dtype(dtype, self.names)
        held = self._held_dtype(dtype) if dtype is not None and wide is None else None
        if held is not None:  # `dtype = jnp.float64` in the function: told once, at that binding
            self._through_local.setdefault(id(held), (held, cast(cst.Name, dtype).value, []))[2].append(
                (cast(cst.CSTNode, dtype), cast(str, is_wide_dtype(held, self.names)), where)
            )
            return
        if wide is None or dtype is None:
            return
        if isinstance(dtype, cst.Name) and dtype.value in self.names.aliases:
            self._through_alias.setdefault(dtype.value, []).append((dtype, wide, where))
        else:
            self._requests.append((dtype, wide, where))

    def _held_dtype(self, dtype: cst.BaseExpression) -> cst.BaseExpression | None:
        """The 64-bit dtype a name of a function holds, bound once there (`dtype = jnp.float64`, then
        `jnp.zeros(n, dtype=dtype)`); None for anything else."""
        if type(dtype) is not cst.Name or dtype.value in self.names.aliases:
            return None
        found = self.facts.binding(dtype)
        value = found[0] if found is not None and len(found[1]) > 1 else None
        return value if isinstance(value, cst.BaseExpression) and is_wide_dtype(value, self.names) else None

    def leave_Module(self, node: cst.Module) -> None:
        if not (self._requests or self._through_alias or self._through_local) or self.facts.x64_enabled:
            return  # (x64 asked only when needed: see project.read_facts)
        for found, wide, where in self._requests:
            self.report(found, f"{where} asks for `{wide}`, {_TRUNCATED.format(narrow=NARROWED[wide])}")
        for alias, requests in self._through_alias.items():
            self.report(module_assignments(node).get(alias) or requests[0][0], _alias_message(alias, requests))
        for value, name, requests in self._through_local.values():
            self.report(value, _alias_message(name, requests))


_TRUNCATED = (
    "but no module of this project enables `jax_enable_x64`: jax truncates it to `{narrow}` (with a "
    '`UserWarning`); call `jax.config.update("jax_enable_x64", True)` at startup, or ask for a 32-bit dtype'
)


def _alias_message(alias: str, requests: list[tuple[cst.CSTNode, str, str]]) -> Message:
    first, wide, where = requests[0]
    others = f" and {len(requests) - 1} more" if len(requests) > 1 else ""

    def message(line_of: Callable[[cst.CSTNode], int]) -> str:
        return (
            f"`{alias}` is `{wide}`, which {where} (line {line_of(first)}){others} ask for, "
            f"{_TRUNCATED.format(narrow=NARROWED[wide])}"
        )

    return message
