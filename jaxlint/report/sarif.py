"""SARIF 2.1.0, for code-scanning dashboards: each rule with its page, one result per finding."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from jaxlint import __version__
from jaxlint.diagnostics import Diagnostic
from jaxlint.rule_index import rule_url
from jaxlint.results import RunResult

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _rule(rule, page: str, docs_url: str | None) -> dict:
    """The rule's whole page as its help, so a dashboard explains a finding without a link to follow;
    `helpUri` only where the `docs-url` setting says the pages are published."""
    described = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.what_it_does},
        "help": {"text": page, "markdown": page},
        "defaultConfiguration": {"level": "error" if rule.default_enabled else "none"},
    }
    url = rule_url(docs_url, rule.code)
    return described if url is None else {**described, "helpUri": url}


def _artifact(filename: str) -> dict:
    """Relative paths stay relative to the folder jaxlint ran in (%SRCROOT%), as code scanning expects."""
    path = Path(filename)
    if path.is_absolute():
        return {"uri": path.as_uri()}
    return {"uri": quote(path.as_posix()), "uriBaseId": "%SRCROOT%"}


def _where(d: Diagnostic) -> dict:
    """The finding's location. A region counts lines of the file, so a notebook finding names its cell
    as a logical location instead, and keeps its place within the cell in the result's properties."""
    region = {"startLine": d.row, "startColumn": d.col, "endLine": d.end_row, "endColumn": d.end_col}
    physical = {"artifactLocation": _artifact(d.filename)}
    if d.cell is None:
        return {"locations": [{"physicalLocation": {**physical, "region": region}}]}
    cell = f"cell {d.cell}"
    return {
        "locations": [
            {
                "physicalLocation": physical,
                "logicalLocations": [{"name": cell, "fullyQualifiedName": f"{d.filename}:{cell}"}],
            }
        ],
        "properties": {"cell": d.cell, "cellRegion": region},
    }


def _fixes(d) -> dict:
    """SARIF `fixes`: the replacements `jaxlint --fix` would make. A region counts lines of the file,
    so a notebook's edits, whose rows count from a cell, go to the result's properties instead."""
    if d.fix is None:
        return {}
    replacements = [
        {
            "deletedRegion": {"startLine": e.row, "startColumn": e.col, "endLine": e.end_row, "endColumn": e.end_col},
            "insertedContent": {"text": e.content},
            **({} if e.cell is None else {"properties": {"cell": e.cell}}),
        }
        for e in d.fix.edits
    ]
    if d.cell is not None:
        return {
            "properties": {
                "cellFix": {"description": f"{d.fix.message} ({d.fix.applicability})", "replacements": replacements}
            }
        }
    return {
        "fixes": [
            {
                "description": {"text": f"{d.fix.message} ({d.fix.applicability})"},
                "artifactChanges": [{"artifactLocation": _artifact(d.filename), "replacements": replacements}],
            }
        ]
    }


def _evidence(d: Diagnostic) -> dict:
    """SARIF `relatedLocations`: the steps of the finding's evidence, each at its line of the file (a step in
    another module, or in a notebook whose lines count from a cell, names no region)."""
    if not d.evidence:
        return {}
    related = []
    for number, step in enumerate(d.evidence):
        located: dict = {"id": number, "message": {"text": step.why}}
        if step.row is not None and step.cell is None:
            located["physicalLocation"] = {"artifactLocation": _artifact(d.filename), "region": {"startLine": step.row}}
        related.append(located)
    return {"relatedLocations": related}


def _result(d: Diagnostic, rule_index: int) -> dict:
    where, fixes = _where(d), _fixes(d)
    properties = {**where.pop("properties", {}), **fixes.pop("properties", {})}
    if d.verify is not None:  # only when --verify ran
        properties["verify"] = {"status": d.verify.status, "detail": d.verify.detail}
    found = {
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": "error",
        "message": {"text": d.message},
        **where,
        **fixes,
        **_evidence(d),
    }
    return {**found, "properties": properties} if properties else found


def render(result: RunResult) -> str:
    from jaxlint.catalog import rule_page  # the rules' documentation, which only SARIF carries
    from jaxlint.checks import ALL_RULES

    index = {rule.code: i for i, rule in enumerate(ALL_RULES)}
    results = [_result(d, index[d.code]) for d in result.diagnostics]
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "jaxlint",
                        "version": __version__,
                        "rules": [_rule(rule, rule_page(rule), result.docs_url) for rule in ALL_RULES],
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"
