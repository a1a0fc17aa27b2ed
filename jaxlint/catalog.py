"""The rule catalog users read, generated from the rule classes.

`python -m jaxlint.catalog` rewrites rules/*.md (the index, rules/README.md, holds the rule table);
`python -m jaxlint.catalog --check` fails when any of them is stale (a test runs it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from jaxlint.checks import ALL_RULES
from jaxlint.checks.base import Rule


def rule_page(rule: type[Rule]) -> str:
    """The Markdown page of one rule (also what `jaxlint rule CODE` prints)."""
    parts = [
        f"# {rule.code}: {rule.name}\n",
        f"{rule.summary}.\n",
        f"Default: {'on' if rule.default_enabled else 'off (opt-in: select it by code or name)'}. "
        f"Fixable: {'yes' if rule.fixable else 'no'}.\n",
        f"## What it does\n\n{rule.what_it_does}\n",
        f"## Why is this bad?\n\n{rule.why_bad}\n",
    ]
    if rule.example:
        parts.append(f"## Example\n\n```python\n{rule.example}```\n")
    if rule.use_instead:
        parts.append(f"## Use instead\n\n```python\n{rule.use_instead}```\n")
    if rule.not_flagged:
        parts.append(f"## What it does not flag\n\n{rule.not_flagged}\n")
    parts.append(f"## Fix safety\n\n{rule.fix_safety}\n")
    parts.append(f"## How --verify confirms it\n\n{rule.verify}\n")
    return "\n".join(parts)


def rule_table() -> str:
    rows = ["| code | name | what it flags | fixable | default |", "|---|---|---|---|---|"]
    for rule in ALL_RULES:
        rows.append(
            f"| [{rule.code}]({rule.code}.md) | {rule.name} | {rule.summary} | "
            f"{'yes' if rule.fixable else 'no'} | {'on' if rule.default_enabled else 'opt-in'} |"
        )
    return "\n".join(rows) + "\n"


def rules_index() -> str:
    return (
        "# jaxlint rules\n\n"
        "Every rule jaxlint ships, generated from the rule classes by `python -m jaxlint.catalog`.\n"
        "Select or ignore rules by code, by name, or by prefix (`JAX1`); see\n"
        "[docs/configuration.md](../docs/configuration.md).\n\n" + rule_table()
    )


RULE_INDEX_HEADER = '''"""Each rule's code, name and default, for the command line: reading this never imports the rule
classes and libcst, so a run that finds every file in the cache never does.

Generated from the rule classes by `python -m jaxlint.catalog`: do not edit.
"""


def rule_url(docs_url: str | None, code: str) -> str | None:
    """A rule's page from the `docs-url` setting (a template with `{code}`); None without one: jaxlint
    has no published pages, so it never invents a link."""
    return None if docs_url is None else docs_url.replace("{code}", code)


# (code, name, on by default)
'''


def rule_index_module() -> str:
    # Written as `ruff format` writes it (double quotes): the generated module is checked like the others.
    rows = "".join(f'    ("{rule.code}", "{rule.name}", {rule.default_enabled}),\n' for rule in ALL_RULES)
    return f"{RULE_INDEX_HEADER}RULES = (\n{rows})\n"


def expected_files(root: Path) -> dict[Path, str]:
    """Every generated file under the project root, with the text it should have."""
    files = {root / "rules" / "README.md": rules_index(), root / "jaxlint" / "rule_index.py": rule_index_module()}
    for rule in ALL_RULES:
        files[root / "rules" / f"{rule.code}.md"] = rule_page(rule)
    return files


def stale_files(root: Path) -> list[Path]:
    stale = [
        path
        for path, text in expected_files(root).items()
        if not path.is_file() or path.read_text(encoding="utf-8") != text
    ]
    known = {f"{rule.code}.md" for rule in ALL_RULES} | {"README.md"}
    stale += [page for page in (root / "rules").glob("*.md") if page.name not in known]
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxlint.catalog", description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail if a generated file is stale")
    parser.add_argument("--root", default=".", help="the project root (default: .)")
    args = parser.parse_args(argv)
    root = Path(args.root)
    if args.check:
        stale = stale_files(root)
        for path in stale:
            print(f"stale: {path} (run python -m jaxlint.catalog)", file=sys.stderr)
        return 1 if stale else 0
    (root / "rules").mkdir(exist_ok=True)
    for path, text in expected_files(root).items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
