"""Compiles counted per function and call site, and what made jax compile again, read from jax's own
explanation of each tracing cache miss (`jax_explain_cache_misses`). No jax here: the observer feeds it
jax's log messages and compile events (observe.py).

A second compile is often right (a new input shape, a second dtype), and so are a few compiles at a line
that runs many times (one per dataset, one per learning rate of a sweep). Only a function compiled at
every call of a line, RECOMPILES times or more, for a cause that repeats without end, is reported: a
function object made anew at each call, a static argument that changed (a new object each call, or a new
value), or (SHAPE_RECOMPILES times or more) an input whose shape or dtype keeps changing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

RECOMPILES = 3  # compiles of one function at one call site that make it a compile at every call
# A loop over a few datasets of their own shapes compiles at every call too, on purpose: a shape that
# changed is a compile at every call only from this many on.
SHAPE_RECOMPILES = 5
_MISS = re.compile(r"TRACING CACHE MISS at (?P<site>.*?):\n(?P<body>.*)", re.S)
_SITE = re.compile(r"^(?P<file>.+?):(?P<line>\d+)(?::(?P<col>\d+))?(?: \(.*\))?$")  # empty under some transforms
_NEW_FUNCTION = re.compile(
    r"never seen function:\s+(?P<function>\S+) id=\d+(?: defined at (?P<file>.+?):(?P<line>\d+))?"
)
_SEEN_FUNCTION = re.compile(r"^  for (?P<function>\S+)(?: defined at (?P<file>.+?):(?P<line>\d+))?$", re.M)
_STATIC = re.compile(
    r"\* at input path (?P<path>\S+), now .*? Static\(val=(?P<now>.*)\) and before .*? Static\(val=(?P<before>.*)\), "
    r"so the pytree node metadata does not match"
)
_TYPE = re.compile(r"\* at (?P<name>.+?), now (?P<now>\S+) and before (?P<before>\S+?)(?=https:|$)", re.M)
# What to do, after what changed.
NEW_FUNCTION_FIX = "define and jit it once, outside the loop or function that calls it"
NEW_OBJECT_FIX = "create it once, or pass a value that is equal and hashes equal from call to call"
STATIC_VALUE_FIX = "pass a value that changes as a traced argument, not a static one"
TYPE_FIX = "keep the shape and dtype fixed from call to call (pad or bucket the input)"
_ADDRESS = re.compile(r"0x[0-9a-f]+")
_COMPILED = re.compile(r"^\w+\((?P<function>.+)\)$")  # jax's name of a compiled computation: `jit(step)`
_POSITION = re.compile(r"^\[0\]\[(?P<index>\d+)\]$")
_KEYWORD = re.compile(r"^\[1\]\['(?P<name>\w+)'\]$")


@dataclass(frozen=True)
class Miss:
    """One tracing cache miss: where the function was called, the function, where it is defined, and
    what changed since its last compile ("" for a first compile or a cause not reported)."""

    site: tuple[str, int] | None
    function: str
    defined: tuple[str, int] | None
    change: str
    fix: str = ""  # what to do about it
    column: int | None = None  # of the call, from 1, when jax gives it
    kind: str = ""  # of the change: "function", "static" or "type"


def read_miss(message: str) -> Miss | None:
    """jax's explanation of a tracing cache miss, read; None for any other log message."""
    match = _MISS.match(message)
    if match is None:
        return None
    body, called = match["body"], _SITE.match(match["site"])
    new = _NEW_FUNCTION.search(body)
    found = new or _SEEN_FUNCTION.search(body)
    if found is None:
        return None
    defined = (found["file"], int(found["line"])) if found["line"] else None
    if new is not None:  # jax adds the hint from the second function object seen at this call
        change, fix, kind = (
            ("a new function object each call", NEW_FUNCTION_FIX, "function")
            if "seen another function" in body
            else ("", "", "")
        )
    else:
        change, fix, kind = _static_change(body) or _type_change(body)
    site = (called["file"], int(called["line"])) if called else None
    column = int(called["col"]) + 1 if called and called["col"] else None
    return Miss(site, found["function"], defined, _ADDRESS.sub("0x...", change), fix, column, kind)


def _static_change(body: str) -> tuple[str, str, str] | None:
    changes, fix = [], STATIC_VALUE_FIX
    for found in _STATIC.finditer(body):
        now, before = found["now"], found["before"]
        if _ADDRESS.sub("", now) == _ADDRESS.sub("", before):
            changes.append(f"static argument {_argument(found['path'])} changed: {now} is a new object each call")
            fix = NEW_OBJECT_FIX
        else:
            changes.append(f"static argument {_argument(found['path'])} changed: now {now}, before {before}")
    return ("; ".join(changes), fix, "static") if changes else None


def _argument(path: str) -> str:
    """`1` for jax's input path `[0][1]` (the second positional argument), `lr` for `[1]['lr']`."""
    position, keyword = _POSITION.match(path), _KEYWORD.match(path)
    return position["index"] if position else f"`{keyword['name']}`" if keyword else path


def _type_change(body: str) -> tuple[str, str, str]:
    changes = [
        f"argument `{found['name']}` changed: now {found['now']}, before {found['before']}"
        for found in _TYPE.finditer(body)
    ]
    return ("; ".join(changes), TYPE_FIX, "type") if changes and "different input types:" in body else ("", "", "")


def compiled_function(name: str) -> str:
    """The function of a compile event's name (`jit(step)` -> `step`)."""
    match = _COMPILED.match(name)
    return match["function"] if match else name


class Compiles:
    """The compiles of each function at each call site, paired with the cache miss that caused each."""

    def __init__(self) -> None:
        self.misses: dict[str, Miss] = {}  # function -> its latest miss not yet compiled
        self.counts: dict[tuple, int] = {}

    def missed(self, miss: Miss) -> None:
        """A miss waits for its function's compile; jax may explain the same trace twice (under `grad`, a
        second time as a new tracing context): the miss that names a change is kept."""
        if miss.change or miss.function not in self.misses:
            self.misses[miss.function] = miss

    def compiled(self, name: str, site: tuple[str, int]) -> tuple[Miss, int] | None:
        """A compile of the computation `name` called at `site`: its miss and how many times this function
        was compiled there, when the miss was at this call (a jit traced inside another has none of its own)."""
        miss = self.misses.pop(compiled_function(name), None)
        if miss is None or miss.site != site:
            return None
        key = (site, miss.function, miss.defined)
        self.counts[key] = self.counts.get(key, 0) + 1
        return miss, self.counts[key]
