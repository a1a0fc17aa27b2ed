"""Files git ignores (`.gitignore` files and `.git/info/exclude`), and folders that hold a Python environment.

As ruff's `respect-gitignore`: what a project tells git not to track (a virtual environment, generated
code, downloaded data) is not its code either. Patterns follow gitignore(5): the last one that matches
wins, a deeper `.gitignore` overrides a shallower one, and nothing below an ignored folder comes back
(the walk never enters it). They apply inside a git work tree only, as in git; a global excludes file
(`core.excludesFile`) is not read.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path


def is_environment(folder: str) -> bool:
    """A virtual environment (`pyvenv.cfg`) or an installation (`lib/python3.12` holds `site-packages`),
    whatever its name: installed libraries are not the project's code."""
    return os.path.isfile(os.path.join(folder, "pyvenv.cfg")) or os.path.isdir(os.path.join(folder, "site-packages"))


@dataclass(frozen=True)
class _Pattern:
    regex: re.Pattern[str]
    negated: bool
    folders_only: bool
    anchored: bool  # matched against the path from its .gitignore's folder, else against the name alone

    def matches(self, relative: str, is_folder: bool) -> bool:
        if self.folders_only and not is_folder:
            return False
        return self.regex.fullmatch(relative if self.anchored else relative.rpartition("/")[2]) is not None


def parse(text: str) -> list[_Pattern]:
    """The patterns of a gitignore file, in order."""
    patterns = []
    for line in text.splitlines():
        line = re.sub(r"(?<!\\) +$", "", line)
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated or line.startswith(("\\!", "\\#")):
            line = line[1:]
        folders_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        patterns.append(_Pattern(re.compile(_regex(line.lstrip("/"))), negated, folders_only, anchored))
    return patterns


def _regex(glob: str) -> str:
    """A gitignore glob as a regular expression: `*` and `?` stop at `/`, `**` crosses folders."""
    parts, index = [], 0
    while index < len(glob):
        if glob.startswith("**/", index) and (index == 0 or glob[index - 1] == "/"):
            parts.append("(?:.*/)?")
            index += 3
        elif glob.startswith("**", index) and index == len(glob) - 2 and (index == 0 or glob[index - 1] == "/"):
            parts.append(".*")
            index += 2
        elif glob[index] == "*":
            parts.append("[^/]*")
            index += 1
        elif glob[index] == "?":
            parts.append("[^/]")
            index += 1
        elif glob[index] == "[" and "]" in glob[index + 2 :]:
            end = glob.index("]", index + 2)
            body = glob[index + 1 : end]
            parts.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]")
            index = end + 1
        elif glob[index] == "\\" and index + 1 < len(glob):
            parts.append(re.escape(glob[index + 1]))
            index += 2
        else:
            parts.append(re.escape(glob[index]))
            index += 1
    return "".join(parts)


class GitIgnore:
    """Whether paths are ignored by git, reading each folder's `.gitignore` once."""

    def __init__(self) -> None:
        self._patterns: dict[Path, list[_Pattern]] = {}
        self._roots: dict[Path, Path | None] = {}

    def ignored(self, path: str, is_folder: bool) -> bool:
        absolute = Path(os.path.abspath(path))
        root = self._root(absolute.parent)
        if root is None:
            return False
        verdict = False
        for folder in reversed([absolute.parent, *absolute.parent.parents]):
            if folder != root and root not in folder.parents:
                continue
            relative = absolute.relative_to(folder).as_posix()
            for pattern in self._folder_patterns(folder, root):
                if pattern.matches(relative, is_folder):
                    verdict = not pattern.negated
        return verdict

    def _root(self, folder: Path) -> Path | None:
        """The work tree `folder` is in: the nearest folder at or above it with a `.git`."""
        if folder not in self._roots:
            here = os.path.exists(folder / ".git")
            self._roots[folder] = folder if here else None if folder.parent == folder else self._root(folder.parent)
        return self._roots[folder]

    def _folder_patterns(self, folder: Path, root: Path) -> list[_Pattern]:
        if folder not in self._patterns:
            names = [".git/info/exclude", ".gitignore"] if folder == root else [".gitignore"]
            self._patterns[folder] = [pattern for name in names for pattern in parse(_read(folder / name))]
        return self._patterns[folder]


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:  # none, or unreadable: nothing ignored by it
        return ""
