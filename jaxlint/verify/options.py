"""`[tool.jaxlint.verify]`: the per-file timeout and example arguments, validated like the rest of the config."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jaxlint.suggest import unknown_key

DEFAULT_TIMEOUT = 60.0
_KEYS = ("timeout", "examples")


class VerifyConfigError(ValueError):
    """A bad `[tool.jaxlint.verify]` value; config.py turns it into its ConfigError."""


@dataclass(frozen=True)
class VerifyOptions:
    all_scopes: bool = False  # --verify=all: trace every transformed function, not only files with findings
    timeout: float = DEFAULT_TIMEOUT  # seconds per file
    examples: dict[str, dict[str, Any]] = field(default_factory=dict)  # "pkg.mod:fn" -> {param: value}


def validate(table: Any, where: str) -> None:
    where = f"{where}: 'verify'"
    if not isinstance(table, dict):
        raise VerifyConfigError(f"{where} must be a table, got {type(table).__name__} {table!r}")
    unknown = [key for key in table if key not in _KEYS]
    if unknown:
        raise VerifyConfigError(unknown_key(where, unknown[0], _KEYS))
    timeout = table.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise VerifyConfigError(f"{where}: 'timeout' must be a positive number of seconds, got {timeout!r}")
    examples = table.get("examples", {})
    if not isinstance(examples, dict):
        raise VerifyConfigError(f"{where}: 'examples' must be a table of \"module:function\" = "
                                f"{{ parameter = value }}, got {examples!r}")
    for target, arguments in examples.items():
        module, _, function = target.partition(":")
        if not (module and function and all(p.isidentifier() for p in (*module.split("."), *function.split(".")))):
            raise VerifyConfigError(f"{where}: examples key {target!r} must look like \"pkg.module:function\"")
        if not isinstance(arguments, dict):
            raise VerifyConfigError(f"{where}: examples {target!r} must be a table of parameter = value, "
                                    f"got {arguments!r}")


def from_table(table: dict[str, Any], all_scopes: bool, timeout: float | None) -> VerifyOptions:
    """Options from a validated `[tool.jaxlint.verify]` table; a command-line timeout wins."""
    return VerifyOptions(all_scopes, float(timeout or table.get("timeout", DEFAULT_TIMEOUT)),
                         dict(table.get("examples", {})))
