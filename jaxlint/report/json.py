"""A JSON list of ruff-style objects, one per finding."""

from __future__ import annotations

import json
import os

from jaxlint.rule_index import rule_url
from jaxlint.runner import RunResult


def render(result: RunResult) -> str:
    objects = [
        {
            "code": d.code,
            "message": d.message,
            "filename": os.path.abspath(d.filename),
            "location": {"row": d.row, "column": d.col},
            "end_location": {"row": d.end_row, "column": d.end_col},
            "fix": None,
            "url": rule_url(d.code),
            "noqa_row": d.noqa_row,
        }
        for d in result.diagnostics
    ]
    return json.dumps(objects, indent=2) + "\n"
