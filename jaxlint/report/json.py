"""A JSON list of ruff-style objects, one per finding."""

from __future__ import annotations

import json
import os

from jaxlint.diagnostics import Fix
from jaxlint.rule_index import rule_url
from jaxlint.results import RunResult


def fix_object(fix: Fix | None) -> dict | None:
    if fix is None:
        return None
    return {
        "applicability": fix.applicability,
        "message": fix.message,
        "edits": [
            {
                "content": edit.content,
                "location": {"row": edit.row, "column": edit.col},
                "end_location": {"row": edit.end_row, "column": edit.end_col},
                **({} if edit.cell is None else {"cell": edit.cell}),  # notebooks: rows count from this cell
            }
            for edit in fix.edits
        ],
    }


def render(result: RunResult) -> str:
    objects = [
        {
            "code": d.code,
            "message": d.message,
            "filename": os.path.abspath(d.filename),
            "location": {"row": d.row, "column": d.col},
            "end_location": {"row": d.end_row, "column": d.end_col},
            "fix": fix_object(d.fix),
            "url": rule_url(d.code),
            "noqa_row": d.noqa_row,
            "cell": d.cell,
            "evidence": [{"row": step.row, "cell": step.cell, "why": step.why} for step in d.evidence],
        }
        for d in result.diagnostics
    ]
    for found, d in zip(objects, result.diagnostics):
        if d.verify is not None:  # only when --verify ran
            found["verify"] = {"status": d.verify.status, "detail": d.verify.detail}
    return json.dumps(objects, indent=2) + "\n"
