"""Parsing a file as the Python version it is written for, whatever Python runs jaxlint.

libcst's parser reads the syntax of every Python version it knows (3.12 `type` statements and
generics, 3.14 t-strings) on any host; what the code's own version (`target-version`) lacks is
reported from the tree. Two things Python's own parser used to catch first are kept: a cheap guard
against nesting that would crash libcst's parser (it overflows its stack where Python refuses
cleanly), and Python's message for a real syntax error, which is the one users know.
"""

from __future__ import annotations

import ast
import re
import sys

import libcst as cst
from libcst._nodes.base import CSTNode

from jaxlint.traversal import children

from jaxlint.files import LINE_BREAK, InputError

# Syntax newer than some Python versions: (version, libcst node type, what needs it). The walk that
# finds them runs only when the target is older and the text may contain one (_MAY_BE_NEWER).
_NEWER_SYNTAX = (
    ((3, 10), "Match", "`match` statements"),
    ((3, 11), "TryStar", "`except*`"),
    ((3, 12), "TypeAlias", "`type` statements"),
    ((3, 12), "TypeParameters", "type parameter lists"),
    ((3, 13), "TypeParam", "type parameter defaults"),
    ((3, 14), "TemplatedString", "template strings (t-strings)"),
    ((3, 14), "ExceptHandler", "`except` with several exception types and no parentheses"),
    ((3, 14), "ExceptStarHandler", "`except*` with several exception types and no parentheses"),
)
NEWEST = max(version for version, _, _ in _NEWER_SYNTAX)
# Lines that may hold one of them (a statement `match ...:`, `type X = ...`, a type parameter list, `except A, B:`,
# a t-string): only a module with one is walked for them. Most modules have `except` and a name `match` or `type`.
# Three searches, each cheap: one alternation of them all tries every branch at every character, and a t-string's
# test, a quote with its prefix looked at behind it, fails at once where no quote is (its prefix first: at every
# character, three times the cost).
_MAY_BE_NEWER = (
    re.compile(
        r"^[ \t]*(?:match\b[^=\n]*:[ \t]*(?:#.*)?$|type[ \t]+\w+[ \t]*[\[=]|except\*?[ \t]*[^(\s][^:\n]*,)",
        re.MULTILINE,
    ),
    re.compile(r"(?:def|class)[ \t]+\w+[ \t]*\["),
    re.compile(r"['\"](?<=(?<![\w'\"])[tT]['\"])|['\"](?<=(?<![\w'\"])(?:[tT][rR]|[rR][tT])['\"])"),
)
# Lines a host Python older than the code may refuse although the code is valid in its version.
_NEWER_LOOKING_LINE = re.compile(
    r"^\s*type\s+\w|(?:def|class)\s+\w+\s*\[|\bexcept\b|(?<![\w'\"])(?:[fFtT][rR]?|[rR][fFtT])['\"]"
)

# Python refuses more than 200 nested brackets, in every version; libcst's parser crashes (a stack
# overflow that kills the process) 5,000 to 8,000 levels deep, brackets or operator chains alike.
MAX_BRACKETS = 200
MAX_NESTING = 4_000
_TOKEN = re.compile(
    r"""
    (?P<skip>\#[^\r\n]*
       | [A-Za-z]{0,3}(?:\"\"\"(?:\\.|[^\\])*?\"\"\" | '''(?:\\.|[^\\])*?''' | "(?:\\.|[^\\"\r\n])*" | '(?:\\.|[^\\'\r\n])*'))
  | (?P<open>[(\[{]) | (?P<close>[)\]}]) | (?P<reset>[,;]) | (?P<newline>\r\n|\r|\n)
  | (?P<word>[A-Za-z_]\w*) | (?P<dot>\.) | (?P<op>[-+*/%@&|^~<>=!:]+)
""",
    re.VERBOSE,
)
_OPERATOR_WORDS = frozenset({"and", "or", "not", "if", "else", "lambda", "await", "in", "is"})


def parse_python_version(text: str) -> tuple[int, int]:
    major, minor = text.split(".")
    return int(major), int(minor)


def check_nesting(source: str) -> None:
    """InputError when the code nests too deeply to be parsed safely.

    The depth is estimated from tokens, from above: each open bracket is a level, and so is each
    operator chained with the ones before it in the same expression (a comma or a new statement ends
    the chain), plus the attribute accesses, calls and subscripts applied to one operand (`a.b.c()`).
    """
    if len(source) <= MAX_NESTING and sum(map(source.count, "([{")) <= MAX_BRACKETS:
        return  # too short to nest that deep: each level takes a character at least
    stack: list[tuple[int, int, int]] = []
    base = operators = postfix = 0
    for token in _TOKEN.finditer(source):
        kind = token.lastgroup
        if kind == "open":
            stack.append((base, operators, postfix))
            base, operators, postfix = base + operators + postfix + 1, 0, 0
            if len(stack) > MAX_BRACKETS:
                row, col = _position(source, token.start())
                raise InputError("JAX001", "syntax error: too many nested parentheses", row, col)
        elif kind == "close" or kind == "dot":
            if kind == "close" and stack:
                base, operators, postfix = stack.pop()
            postfix += 1
        elif kind == "reset" or kind == "newline" and not stack:
            operators = postfix = 0
        elif kind == "op" or kind == "word" and token.group() in _OPERATOR_WORDS:
            operators, postfix = operators + 1, 0
        else:
            continue
        if base + operators + postfix > MAX_NESTING:
            raise InputError(
                "JAX003", "nested too deeply for jaxlint to check (thousands of levels); the file was skipped"
            )


def _position(source: str, offset: int) -> tuple[int, int]:
    lines = LINE_BREAK.split(source[:offset])
    return len(lines), len(lines[-1]) + 1


def parse(source: str, target: tuple[int, int]) -> cst.Module:
    """The module's tree, or InputError JAX001 when it is not valid Python of the `target` version."""
    check_nesting(source)
    try:
        module = _parse_unchecked(source)
    except cst.ParserSyntaxError as error:
        raise _syntax_error(source, target, error) from None
    if target < NEWEST and any(pattern.search(source) for pattern in _MAY_BE_NEWER):
        _reject_newer_syntax(module, target)
    return module


_VALIDATE = CSTNode.__post_init__
_HOOK = "__post_init__"  # patched with setattr: mypy refuses assigning to a method


def _parse_unchecked(source: str) -> cst.Module:
    """libcst's parse, without the check that each node's constructor runs (`CSTNode.__post_init__`
    validates what a tree built by hand may get wrong; the parser's nodes are right as built, as a
    comment there says): a seventh of the parse. The check is back for every other node, whatever
    happens, and is restored to the original (two threads parsing at once cannot leave it off)."""
    setattr(CSTNode, _HOOK, _unchecked)
    try:
        return cst.parse_module(source)
    finally:
        setattr(CSTNode, _HOOK, _VALIDATE)


def _unchecked(node: CSTNode) -> None:
    """A node built by the parser."""


def _syntax_error(source: str, target: tuple[int, int], error: cst.ParserSyntaxError) -> InputError:
    """Python's own message and position when Python can judge the code (it knows the target's
    syntax, or the line it refuses uses nothing newer); else libcst's."""
    where = (1, 1)  # libcst's tokenizer errors carry no position (it says 1:0): then Python's, when it has one
    try:
        compile(source, "<jaxlint>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
        mixed = _MIXED_INDENT.search(source)
        if mixed is not None:
            # Python reads a tab as indentation up to the next multiple of 8 columns; libcst's tokenizer does not.
            return InputError(
                "JAX003",
                "jaxlint's parser cannot read indentation that mixes tabs and spaces on one line, which Python "
                "accepts, so the file was skipped; indent with spaces",
                *_position(source, mixed.start()),
            )
    except SyntaxError as python:
        row, col = python.lineno or 1, python.offset or 1
        line = python.text or ""
        if sys.version_info[:2] >= target or not _NEWER_LOOKING_LINE.search(line):
            return InputError("JAX001", f"syntax error: {python.msg}", row, col)
        where = (row, col)
    except (RecursionError, MemoryError, ValueError):
        pass
    message = re.sub(r"^parser error: error at \d+:\d+: ", "", error.message)
    if not message.startswith("tokenizer error"):
        where = (error.raw_line, error.raw_column + 1)
    return InputError("JAX001", f"syntax error: {message}", *where)


_MIXED_INDENT = re.compile(r"^(?: +\t|\t+ )", re.MULTILINE)  # a line's indentation holding both tabs and spaces


def _reject_newer_syntax(module: cst.Module, target: tuple[int, int]) -> None:
    newer = [(version, node_type, what) for version, node_type, what in _NEWER_SYNTAX if version > target]
    found: list[tuple[cst.CSTNode, tuple[int, int], str]] = []
    # In source order, with the tree read in place: a libcst visitor rebuilds and revalidates every node.
    stack: list[cst.CSTNode] = [module]
    while stack and not found:
        node = stack.pop()
        for version, node_type, what in newer:
            if type(node).__name__ == node_type and _is_newer(node):
                found.append((node, version, what))
                break
        stack.extend(reversed(children(node)))
    if found:
        from libcst.metadata import MetadataWrapper, PositionProvider

        node, version, what = found[0]
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        start = wrapper.resolve(PositionProvider)[node].start
        raise InputError(
            "JAX001",
            f"syntax error: {what} need Python {version[0]}.{version[1]}; the code's "
            f"target version is {target[0]}.{target[1]} (`target-version`, or "
            f"`requires-python`)",
            start.line,
            start.column + 1,
        )


def _is_newer(node: cst.CSTNode) -> bool:
    """Whether a node of a type listed in _NEWER_SYNTAX uses the newer form."""
    if isinstance(node, cst.TypeParam):
        return node.default is not None
    if isinstance(node, (cst.ExceptHandler, cst.ExceptStarHandler)):
        return isinstance(node.type, cst.Tuple) and not node.type.lpar
    return True
