"""Messages for misspelled configuration keys, shared by every table jaxlint reads."""

from __future__ import annotations

import difflib
from typing import Sequence


def unknown_key(where: str, key: str, known: Sequence[str]) -> str:
    """`<where>: unknown key 'selct' (did you mean 'select'?)`."""
    close = difflib.get_close_matches(key, known, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return f"{where}: unknown key '{key}'{hint}"
