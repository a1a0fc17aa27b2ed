"""JAX003 unreadable-file: A file that cannot be read or checked: missing, a broken symlink, permission denied, too
deeply nested."""

from __future__ import annotations

from jaxlint.checks.base import Rule


class UnreadableFileRule(Rule):
    code = "JAX003"
    name = "unreadable-file"
    summary = "A file that cannot be read or checked: missing, a broken symlink, permission denied, too deeply nested"
    what_it_does = (
        "Reports a path that jaxlint was asked to check but could not read: a file that does not exist, "
        "a symlink whose target is missing, a file without read permission, a folder it cannot list, code "
        "nested so deeply that checking it would exceed Python's recursion limit, or valid Python that jaxlint's "
        "parser (libcst) cannot read (a line indented by tabs mixed with spaces). The run goes on with the "
        "other files."
    )
    why_bad = (
        "A file that is never read is never checked. Reporting it, instead of skipping it quietly, "
        "keeps a broken link or a permissions problem from turning into a silent gap in CI."
    )
