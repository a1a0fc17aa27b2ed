"""JAX802 deprecated-api: An API that jax has deprecated: it still works, with a DeprecationWarning, until it is
removed."""

from __future__ import annotations

from jaxlint.checks.api._common import ApiUses


class DeprecatedApi(ApiUses):
    code = "JAX802"
    name = "deprecated-api"
    status = "deprecated"
    fixable = False  # nothing deprecated in the newest jax is a pure rename; older targets reuse JAX801's fixes
    summary = "An API that jax has deprecated: it still works, with a DeprecationWarning, until it is removed"
    what_it_does = (
        "Flags every use of a JAX API that is deprecated in the target jax version but not yet removed "
        "(`jax.experimental.pjit.pjit`, `jax.experimental.shard_map.shard_map`, the `jax.core` names "
        "deprecated in 0.10.0, and, for an older target version, everything JAX801 reports that was only "
        "deprecated then), through the same spellings as JAX801. A name counts as deprecated from the first "
        "release whose source warns about it (a `_deprecations` table, or a `DeprecationWarning` or "
        "`FutureWarning` raised by the function or module)."
    )
    why_bad = (
        "A deprecated API is removed a few releases later (JAX's policy is at least three months): the "
        "code that works today breaks on the next upgrade, and the `DeprecationWarning` is easy to miss."
    )
    example = (
        "from jax.experimental.pjit import pjit\n\n"
        "step = pjit(train_step, in_shardings=shardings, out_shardings=shardings)\n"
    )
    use_instead = "import jax\n\nstep = jax.jit(train_step, in_shardings=shardings, out_shardings=shardings)\n"
    not_flagged = (
        "APIs deprecated after the configured `target-jax-version`, the replacements themselves, and "
        "compatibility code (as for JAX801)."
    )
    fix_safety = (
        "Nothing deprecated in the newest jax is a pure rename, so by default there is no fix. With an older "
        "`target-jax-version`, the APIs JAX801 renames (`jax.tree_map` while only deprecated, in 0.4.26–0.5) "
        "get the same safe fix."
    )
    verify = (
        "`--verify` records warnings and confirms it when the line runs and jax raises a `DeprecationWarning` there."
    )
