"""The worker's report: one JSON object per line, appended and flushed as it happens, so a worker that
is killed at its timeout (or crashes) still leaves everything it saw before. No jax here."""

from __future__ import annotations

import json
import os
from typing import Any


class EventLog:
    """Appends events to a file; the user's code may print anything, so nothing goes to stdout."""

    def __init__(self, path: str) -> None:
        self.handle = open(path, "a", encoding="utf-8")

    def emit(self, event: str, **fields: Any) -> None:
        self.handle.write(json.dumps({"event": event, **fields}, default=repr) + "\n")
        self.handle.flush()


def read_events(path: str) -> list[dict[str, Any]]:
    """Every whole event in the file; a line cut short by a kill is dropped."""
    if not os.path.isfile(path):
        return []
    events = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            try:
                events.append(json.loads(line))
            except ValueError:
                continue
    return events
