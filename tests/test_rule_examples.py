"""Every rule's documented example is flagged and its "use instead" is clean (Fixit's INVALID/VALID idea).

The pages show code as users write it, without the imports every JAX file has; they are added here.
"""

from __future__ import annotations

import pytest

from jaxlint.checks import ALL_RULES
from jaxlint.lint import LintOptions, lint_source

IMPORTS = (
    "import logging\nimport math\nfrom functools import partial\n\n"
    "import jax\nimport jax.numpy as jnp\nimport numpy as np\nfrom jax import lax\n\n"
)
# Rules that only `--verify` reports: their pages show what tracing finds, not what a static rule flags.
STATIC_RULES = [rule for rule in ALL_RULES if any(name.startswith("visit_") for name in dir(rule))]


def codes_found(rule, text: str) -> list[str]:
    source = IMPORTS + text if rule.code != "JAX001" else text
    return [d.code for d in lint_source(source, f"{rule.code}_example.py", LintOptions(frozenset({rule.code})))]


@pytest.mark.parametrize("rule", STATIC_RULES, ids=lambda rule: rule.code)
def test_example_is_flagged(rule) -> None:
    assert rule.example, f"{rule.code} has no example"
    assert rule.code in codes_found(rule, rule.example)


@pytest.mark.parametrize("rule", [r for r in STATIC_RULES if r.use_instead], ids=lambda rule: rule.code)
def test_use_instead_is_clean(rule) -> None:
    assert codes_found(rule, rule.use_instead) == []
