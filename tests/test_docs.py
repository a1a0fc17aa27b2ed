"""The code on README.md and docs/*.md, run as a reader would run it.

- A `python` block is a file of the page's example: its first line names it (`# train.py`), the rest is
  its text.
- A `console` block runs its `$ jaxlint ...` and `$ cat FILE` commands, in order, in a fresh folder holding
  the page's files so far and the bundled `fixtures/`, and must print exactly what the page shows.
- A TOML block with `[tool.jaxlint]` must load as jaxlint's configuration; other TOML, YAML and JSON must
  parse, and a workflow that uses the action may only give it inputs action.yml declares.
- Each `jaxlint` command line in a `bash` block must parse as the command line does (`rule` ones run).
- Lua and Emacs Lisp (editor settings) are not run here.
"""

from __future__ import annotations

import io
import json
import re
import shlex
import sys
from pathlib import Path

import pytest
import yaml

from jaxlint.cli import _parser, main
from jaxlint.config import CommandLine, build_settings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\]\(([^)\s]+)\)")
FILE_NAME = re.compile(r"# ([\w./-]+)\n")
LANGUAGES = {"python", "console", "bash", "toml", "yaml", "json", "lua", "elisp"}


def name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def blocks(page: Path, language: str | None = None) -> list[tuple[str, str]]:
    found = BLOCK.findall(page.read_text(encoding="utf-8"))
    return [(lang, text) for lang, text in found if language is None or lang == language]


def test_every_block_names_a_language_this_test_knows() -> None:
    unknown = [(name(page), lang) for page in PAGES for lang, _ in blocks(page) if lang not in LANGUAGES]
    assert unknown == []


def test_every_relative_link_resolves_and_every_page_is_in_the_index() -> None:
    broken = []
    for page in [*PAGES, ROOT / "rules" / "README.md"]:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if target.startswith(("http://", "https://", "#")):
                continue
            path = (page.parent / target.split("#", 1)[0]).resolve()
            if not path.exists():
                broken.append((name(page), target))
    assert broken == []
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert [name(page) for page in PAGES[1:] if page.name != "index.md" and f"]({page.name})" not in index] == []


# --- python and console: the examples, run ------------------------------------------------------------


def run_console(block: str, files: dict[str, str], folder: Path, monkeypatch, capsys) -> list[tuple[str, str]]:
    """(what the page shows, what the command printed) for each command of a console block."""
    folder.mkdir()
    for file_name, text in files.items():
        (folder / file_name).parent.mkdir(parents=True, exist_ok=True)
        (folder / file_name).write_text(text, encoding="utf-8")
    (folder / "fixtures").symlink_to(ROOT / "fixtures", target_is_directory=True)
    monkeypatch.chdir(folder)
    compared = []
    for command in re.split(r"^\$ ", block, flags=re.MULTILINE)[1:]:
        line, _, shown = command.partition("\n")
        program, *args = shlex.split(line)
        if program == "cat":
            printed = "".join(Path(arg).read_text(encoding="utf-8") for arg in args)
        else:
            assert program == "jaxlint", f"a console block runs jaxlint or cat, not {line!r}"
            out = io.StringIO()
            capsys.readouterr()
            main(args, out=out)
            captured = capsys.readouterr()  # a terminal shows both streams: the report, then the notes
            printed = out.getvalue() + captured.out + captured.err
        compared.append((f"$ {line}\n{shown}", f"$ {line}\n{printed}"))
    return compared


def _example_pages() -> list[Path]:
    return [page for page in PAGES if blocks(page, "console")]


@pytest.mark.parametrize("page", _example_pages(), ids=name)
def test_console_examples_print_what_the_page_shows(page: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    files: dict[str, str] = {}
    compared = []
    for number, (lang, text) in enumerate(blocks(page)):
        if lang == "python":
            named = FILE_NAME.match(text)
            assert named, f"{name(page)}: a python block starts with the name of its file: {text[:40]!r}"
            files[named[1]] = text[named.end() :]
        elif lang == "console":
            compared += run_console(text, files, tmp_path / str(number), monkeypatch, capsys)
    assert [shown for shown, _ in compared] == [printed for _, printed in compared]


def test_every_python_block_is_run_by_a_console_block_after_it() -> None:
    unrun = []
    for page in PAGES:
        languages = [lang for lang, _ in blocks(page)]
        unrun += [(name(page), i) for i, lang in enumerate(languages) if lang == "python" and
                  "console" not in languages[i + 1:]]
    assert unrun == []


# --- configuration, workflows, settings ----------------------------------------------------------------


def test_config_snippets_load_as_jaxlint_settings(tmp_path: Path) -> None:
    loaded = 0
    for page in PAGES:
        for number, (_, text) in enumerate(blocks(page, "toml")):
            tomllib.loads(text)
            if "[tool.jaxlint" in text:
                folder = tmp_path / f"{page.stem}-{number}"
                folder.mkdir()
                (folder / "pyproject.toml").write_text(text, encoding="utf-8")
                build_settings(CommandLine(), folder)  # ConfigError on a key, value or code it does not know
                loaded += 1
    assert loaded >= 3  # configuration.md's two and verify.md's


def test_yaml_and_json_blocks_parse_and_workflows_give_the_action_only_its_inputs() -> None:
    inputs = set(yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"])
    used = []
    for page in PAGES:
        for _, text in blocks(page, "json"):
            json.loads(text)
        for _, text in blocks(page, "yaml"):
            document = yaml.safe_load(text)
            for job in document.get("jobs", {}).values():
                for step in job["steps"]:
                    if step.get("uses", "").split("@")[0].endswith("/jaxlint"):
                        used.append(set(step.get("with", {})))
    assert used and all(given <= inputs for given in used)


def _command_lines() -> list[tuple[str, list[str]]]:
    """Each `jaxlint` command in a bash block (a pipeline's jaxlint part), as its arguments."""
    found = []
    for page in PAGES:
        for _, text in blocks(page, "bash"):
            for line in text.splitlines():
                for part in line.split("|"):
                    words = shlex.split(part, comments=True)
                    if words[:1] == ["jaxlint"]:
                        found.append((name(page), words[1:]))
    return found


def test_every_jaxlint_command_line_in_the_pages_parses() -> None:
    lines = _command_lines()
    assert len(lines) >= 20
    for page, args in lines:
        if args[:1] == ["rule"]:
            assert main(args, out=io.StringIO()) == 0, (page, args)
        elif args[:1] == ["server"]:
            assert args == ["server"], (page, args)
        else:
            args = args[1:] if args[:1] == ["check"] else args
            # As main does: a bare `--verify` must not take the path after it as its value.
            _parser().parse_args(["--verify=flagged" if a == "--verify" else a for a in args])
