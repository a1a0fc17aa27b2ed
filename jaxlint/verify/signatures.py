"""Abstract signatures recorded while the user's code ran (`--verify=run`), kept in the result cache's
folder so that a later plain `--verify` traces each function with the shapes it is really called with.
No jax here: signatures are the JSON forms observe.abstract writes."""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

FILE = "verify-signatures.json"
Store = dict[str, dict[str, list[dict[str, Any]]]]  # file (from the project root) -> function -> signatures


def load(folder: str | None) -> Store:
    if folder is None:
        return {}
    try:
        with open(os.path.join(folder, FILE), encoding="utf-8") as handle:
            store = json.load(handle)
        return store if isinstance(store, dict) else {}
    except (OSError, ValueError):
        return {}  # missing or damaged: nothing recorded


def add(store: Store, recorded: list[dict[str, Any]], root: str) -> bool:
    """Add the `signature` events of one run; a function's signatures from this run replace older ones."""
    fresh: Store = {}
    for event in recorded:
        key = os.path.relpath(event["file"], root)
        found = fresh.setdefault(key, {}).setdefault(event["function"], [])
        if event["signature"] not in found:
            found.append(event["signature"])
    for key, functions in fresh.items():
        store.setdefault(key, {}).update(functions)
    return bool(fresh)


def save(folder: str | None, store: Store) -> None:
    """Write atomically; a folder that cannot be written only costs the replay."""
    if folder is None:
        return
    try:
        os.makedirs(folder, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".signatures-")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(store, out)
        os.replace(temporary, os.path.join(folder, FILE))
    except OSError:
        pass
