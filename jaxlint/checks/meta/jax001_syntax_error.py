"""JAX001 syntax-error: A file that is not valid Python source: a syntax error, undecodable bytes, a binary file, or an
invalid notebook."""

from __future__ import annotations

from jaxlint.checks.base import Rule


class SyntaxErrorRule(Rule):
    code = "JAX001"
    name = "syntax-error"
    summary = (
        "A file that is not valid Python source: a syntax error, undecodable bytes, a binary file, "
        "or an invalid notebook"
    )
    what_it_does = (
        "Reports a file that jaxlint cannot parse as Python: a syntax error (at the parser's line and "
        "column), bytes that are not valid in the file's encoding (UTF-8 unless a coding cookie says "
        "otherwise), a binary file, or an `.ipynb` file that is not a valid nbformat 4 Jupyter notebook "
        "(invalid JSON, no `cells` list, a cell without a `source`). The other files of the run are still checked."
    )
    why_bad = (
        "No rule can check a file that does not parse, so a file that silently fails to parse would "
        "hide every finding in it. Python itself refuses to import such a file."
    )
    example = "def f(x):\n    return x +\n"
    use_instead = "def f(x):\n    return x + 1\n"
