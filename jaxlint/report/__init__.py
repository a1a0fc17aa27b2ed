"""Output formats. Each module has `render(result) -> str`; lines and columns are 1-based everywhere."""

from __future__ import annotations

from jaxlint.report import github, json, junit, sarif, source, text

FORMATS = {
    "text": text.render,
    "json": json.render,
    "sarif": sarif.render,
    "github": github.render,
    "junit": junit.render,
    "concise": text.render,  # the text findings without the summary
    "full": source.render,  # the text findings with their source line, whole message and evidence
}
