"""flake8 plugin: the same findings at the same positions, inside every editor that runs flake8.

Which rules run follows `[tool.jaxlint]` (the nearest at or above each file) like the jaxlint
command; flake8's own --select/--ignore and `# noqa` then apply on top, as for any plugin: the plugin
leaves `# noqa` comments to flake8 (so `flake8 --disable-noqa` shows what they hide, and flake8-noqa
sees them used), and applies only jaxlint's own file-level `# jaxlint: noqa`.
flake8 cannot fix code, so a fixable finding says which jaxlint command fixes it.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Iterator

from jaxlint import __version__
from jaxlint.analysis.traced import TransformTable
from jaxlint.config import CommandLine, Settings, build_settings
from jaxlint.diagnostics import SAFE, Diagnostic
from jaxlint.lint import lint_source


@lru_cache(maxsize=None)
def _settings(cwd: str) -> Settings:
    return build_settings(CommandLine(), Path(cwd))


class JaxlintChecker:
    name = "jaxlint"
    version = __version__

    def __init__(self, tree, filename: str, lines: list[str]) -> None:  # flake8 passes by name
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        settings = _settings(str(Path(self.filename).absolute().parent))  # the file's config, as jaxlint
        source = "".join(self.lines)
        table = TransformTable(settings.extra_transforms)
        for d in lint_source(source, self.filename, settings.enabled_for(self.filename), table,
                             settings.key_names, settings.target_jax_version,
                             python_version=settings.python_version, line_noqa=False):
            yield d.row, d.col - 1, f"{d.code} {d.message}{_fixable(d)}", type(self)


def _fixable(d: Diagnostic) -> str:
    if d.fix is None:
        return ""
    if d.fix.applicability == SAFE:
        return " (fixable with `jaxlint --fix`)"
    return " (fixable with `jaxlint --fix --unsafe-fixes`)"
