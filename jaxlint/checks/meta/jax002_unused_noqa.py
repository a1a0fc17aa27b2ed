"""JAX002 unused-noqa: A `# noqa` code that suppresses nothing on its line."""

from __future__ import annotations

from jaxlint.checks.base import Rule


class UnusedNoqa(Rule):
    """Found by jaxlint/noqa.py once the other rules have run on the file: it needs their findings."""

    code = "JAX002"
    name = "unused-noqa"
    summary = "A `# noqa` code that suppresses nothing on its line"
    default_enabled = False
    fixable = True
    what_it_does = (
        "Reports the jaxlint codes of a `# noqa: ...` comment (codes, rule names or prefixes such as `JAX1`) "
        "whose rules ran on the file and found nothing on that line, as ruff's RUF100. Opt-in: "
        "`--extend-select JAX002`."
    )
    why_bad = (
        "A suppression left behind after the code was fixed hides the next real finding on that line, and "
        "tells the reader that something there is wrong when nothing is."
    )
    example = "import jax.numpy as jnp\n\nx = jnp.zeros(3)  # noqa: JAX101\n"
    use_instead = "import jax.numpy as jnp\n\nx = jnp.zeros(3)\n"
    not_flagged = (
        "A blanket `# noqa` and codes of other tools (`E501`): they may serve another linter. Codes of rules "
        "not enabled for the file, and of the rules that only `--verify` or reading the file report "
        "(JAX0xx), whose findings a static run cannot see. The file-level `# jaxlint: noqa`."
    )
    fix_safety = (
        "Safe: the unused codes are taken out of the comment, and the comment itself when no code is left "
        "and nothing follows it. A comment with words that are neither codes nor rule names "
        "(`# noqa: JAX101 because ...`) gets no fix."
    )
