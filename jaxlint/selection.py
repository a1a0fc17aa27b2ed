"""Rule selectors (`JAX101`, `in-place-update`, prefixes such as `JAX3`) resolved to rule codes."""

from __future__ import annotations

from typing import Iterable

from jaxlint.rule_index import RULES

DEFAULT = frozenset(code for code, _, default_enabled in RULES if default_enabled)
_BY_CODE_OR_NAME = {key: code for code, name, _ in RULES for key in (code, name)}


class UnknownSelector(ValueError):
    """A selector that names no rule."""


def resolve(selectors: Iterable[str], *, for_select: bool) -> set[str]:
    """Codes matched by `selectors`.

    An exact code or name always matches its rule. A prefix matches every rule under it when
    ignoring, but only the default-on rules when selecting: opt-in rules are enabled by name only.
    """
    codes: set[str] = set()
    for selector in selectors:
        if selector.upper() == "ALL":  # as in ruff: every rule, opt-in ones included
            codes.update(code for code, _, _ in RULES)
            continue
        code = _BY_CODE_OR_NAME.get(selector.upper()) or _BY_CODE_OR_NAME.get(selector.lower())
        if code is not None:
            codes.add(code)
            continue
        prefix = selector.upper()
        matched = [code for code, _, _ in RULES if prefix.startswith("JAX") and code.startswith(prefix)]
        if not matched:
            raise UnknownSelector(selector)
        codes.update(c for c in matched if not for_select or c in DEFAULT)
    return codes


def enabled_codes(select: list[str] | None, extend_select: list[str], ignore: list[str]) -> frozenset[str]:
    chosen = resolve(select, for_select=True) if select is not None else set(DEFAULT)
    chosen |= resolve(extend_select, for_select=True)
    return frozenset(chosen - resolve(ignore, for_select=False))
