"""`[tool.jaxlint.verify]`: the timeout, example arguments and run commands, validated like the rest of
the config."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from typing import Any

from jaxlint.suggest import unknown_key

DEFAULT_TIMEOUT = 60.0
_KEYS = ("timeout", "examples", "run")
_PYTHONS = ("python", "python3")


class VerifyConfigError(ValueError):
    """A bad `[tool.jaxlint.verify]` value; config.py turns it into its ConfigError."""


@dataclass(frozen=True)
class Command:
    """A command --verify=run executes: a script or module run as `__main__`, or pytest."""

    text: str
    mode: str  # "run" (a script), "run-module" (python -m) or "pytest"
    target: str  # the script or module ("" for pytest)
    args: tuple[str, ...]


@dataclass(frozen=True)
class VerifyOptions:
    all_scopes: bool = False  # --verify=all: trace every transformed function, not only flagged ones
    timeout: float = DEFAULT_TIMEOUT  # seconds per file and per run command
    examples: dict[str, dict[str, Any]] = field(default_factory=dict)  # "pkg.mod:fn" -> {param: value}
    commands: tuple[Command, ...] = ()  # --verify=run: what to run, in order
    cache_dir: str | None = None  # where recorded signatures are kept (None: --no-cache)


def parse_command(text: str) -> Command:
    """`python train.py --steps 2`, `python -m pkg.train`, `pytest -x tests/` (or `python -m pytest`)."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise VerifyConfigError(f"run command {text!r}: {error}") from None
    if words and os.path.basename(words[0]) in _PYTHONS and words[1:2] == ["-m"] and len(words) > 2:
        if words[2] == "pytest":
            return Command(text, "pytest", "", tuple(words[3:]))
        return Command(text, "run-module", words[2], tuple(words[3:]))
    if words and os.path.basename(words[0]) in _PYTHONS and len(words) > 1 and not words[1].startswith("-"):
        return Command(text, "run", words[1], tuple(words[2:]))
    if words and words[0] == "pytest":
        return Command(text, "pytest", "", tuple(words[1:]))
    raise VerifyConfigError(f"run command {text!r} must be `python SCRIPT ...`, `python -m MODULE ...` or `pytest ...`")


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
        raise VerifyConfigError(
            f"{where}: 'examples' must be a table of \"module:function\" = {{ parameter = value }}, got {examples!r}"
        )
    for target, arguments in examples.items():
        module, _, function = target.partition(":")
        if not (module and function and all(p.isidentifier() for p in (*module.split("."), *function.split(".")))):
            raise VerifyConfigError(f'{where}: examples key {target!r} must look like "pkg.module:function"')
        if not isinstance(arguments, dict):
            raise VerifyConfigError(
                f"{where}: examples {target!r} must be a table of parameter = value, got {arguments!r}"
            )
    commands = table.get("run", [])
    if not (isinstance(commands, list) and all(isinstance(c, str) for c in commands)):
        raise VerifyConfigError(f"{where}: 'run' must be a list of commands, got {commands!r}")
    for text in commands:
        try:
            parse_command(text)
        except VerifyConfigError as error:
            raise VerifyConfigError(f"{where}: {error}") from None


def from_table(
    table: dict[str, Any], mode: str, timeout: float | None, scripts: list[str], cache_dir: str | None
) -> VerifyOptions:
    """Options from a validated `[tool.jaxlint.verify]` table; a command-line timeout wins. With
    `--verify=run`, the scripts named on the command line run first, then the table's commands."""
    commands: tuple[Command, ...] = ()
    if mode == "run":
        commands = (
            *(Command(f"python {shlex.quote(s)}", "run", os.path.abspath(s), ()) for s in scripts),
            *(parse_command(text) for text in table.get("run", [])),
        )
    return VerifyOptions(
        mode == "all",
        float(timeout or table.get("timeout", DEFAULT_TIMEOUT)),
        dict(table.get("examples", {})),
        commands,
        cache_dir,
    )
