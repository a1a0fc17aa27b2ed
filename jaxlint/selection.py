"""Rule selectors (`JAX101`, `in-place-update`, prefixes such as `JAX3`) resolved to rule codes."""

from __future__ import annotations

from typing import Iterable

from jaxlint.checks import ALL_RULES, find_rule

DEFAULT = frozenset(rule.code for rule in ALL_RULES if rule.default_enabled)


class UnknownSelector(ValueError):
    """A selector that names no rule."""


def resolve(selectors: Iterable[str], *, for_select: bool) -> set[str]:
    """Codes matched by `selectors`.

    An exact code or name always matches its rule. A prefix matches every rule under it when
    ignoring, but only the default-on rules when selecting: opt-in rules are enabled by name only.
    """
    codes: set[str] = set()
    for selector in selectors:
        rule = find_rule(selector)
        if rule is not None:
            codes.add(rule.code)
            continue
        prefix = selector.upper()
        matched = [r.code for r in ALL_RULES if prefix.startswith("JAX") and r.code.startswith(prefix)]
        if not matched:
            raise UnknownSelector(selector)
        codes.update(c for c in matched if not for_select or c in DEFAULT)
    return codes


def enabled_codes(select: list[str] | None, extend_select: list[str], ignore: list[str]) -> frozenset[str]:
    chosen = resolve(select, for_select=True) if select is not None else set(DEFAULT)
    chosen |= resolve(extend_select, for_select=True)
    return frozenset(chosen - resolve(ignore, for_select=False))
