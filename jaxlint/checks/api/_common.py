"""What JAX801 and JAX802 share: finding uses of removed or deprecated APIs outside compatibility code."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
import re
from typing import ClassVar, cast

import libcst as cst

from jaxlint.analysis.name_uses import name_uses
from jaxlint.analysis.names import dotted
from jaxlint.checks.base import FixPlan, Rule, source
from jaxlint.diagnostics import SAFE
from jaxlint.model.apis import ARRAY_ROWS, Api, OPS_INDEX, load_keywords, load_table, newest_version, parse_jax_version
from jaxlint.traversal import TOKENS, children


_GUARDS = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError"})
_INDEX_KEYWORDS = frozenset({"indices_are_sorted", "unique_indices", "mode"})


def _import_name(node: cst.Attribute | cst.Name) -> str:
    """The dotted name an import statement spells: always one, since import names are plain dotted names."""
    name = dotted(node)
    assert name is not None
    return name


_PUNCTUATION = TOKENS - {cst.Name, cst.SimpleString}  # whitespace, operators, brackets, other literals


def _is_future_annotations(node: cst.ImportFrom) -> bool:
    return (
        isinstance(node.module, cst.Name)
        and node.module.value == "__future__"
        and not isinstance(node.names, cst.ImportStar)
        and any(isinstance(alias.name, cst.Name) and alias.name.value == "annotations" for alias in node.names)
    )


def _tests_version(test: cst.BaseExpression) -> bool:
    """`if hasattr(jax, "tree_map"):`, `if jax.__version__ >= ...:`: code written for several jax releases.
    Walks the test's nodes rather than printing it: every `if` of every file asks."""
    pending: list[cst.CSTNode] = [test]
    while pending:
        expr = pending.pop()
        kind = type(expr)  # (not isinstance: against a libcst class it runs ABCMeta's check in Python)
        if kind is cst.Name or kind is cst.SimpleString:
            text = cast("cst.Name | cst.SimpleString", expr).value
            if (kind is cst.Name and text == "hasattr") or "version" in text.lower():
                return True
        pending.extend(child for child in children(expr) if type(child) not in _PUNCTUATION)
    return False


def _catches_guard(handler: cst.ExceptHandler) -> bool:
    caught = handler.type
    if caught is None:
        return True
    names = [element.value for element in caught.elements] if isinstance(caught, cst.Tuple) else [caught]
    return any((dotted(name) or "").rsplit(".", 1)[-1] in _GUARDS | {"Exception"} for name in names)


@lru_cache(maxsize=1)
def _array_attribute_read() -> re.Pattern[str]:
    """`.name` for every attribute a jax release removed from arrays (`x.device_buffer`, `x.split`)."""
    names = sorted(api[len(ARRAY_ROWS) + 1 :] for api in load_table() if api.startswith(f"{ARRAY_ROWS}."))
    return re.compile(rf"\.(?:\s|\\|#[^\n]*)*(?:{'|'.join(names)})\b")


@lru_cache(maxsize=1)
def _last_names() -> frozenset[str]:
    """The last part of every API in the table: an attribute with another name is never one of them."""
    return frozenset(api.rsplit(".", 1)[-1] for api in load_table())


class ApiUses(Rule):
    """Finds uses of the table's APIs; each subclass reports those in one status."""

    about_running = False  # a removed API is to be replaced where the text spells it, run or not

    status: ClassVar[str]
    fixable = True

    def __init__(self, facts, reporter) -> None:
        super().__init__(facts, reporter)
        self._table = load_table()
        self._gone_keywords = load_keywords()
        self._last_names = _last_names()
        self._in_import = 0
        self._guarded = 0
        self._depth = 0
        self._version_tests: set[cst.CSTNode] = set()
        self._calls: set[cst.CSTNode] = set()  # `func` of the index-update calls already reported
        self._index_imports: list[tuple[cst.ImportAlias, cst.ImportFrom, str, Api]] = []
        self._fixable_calls: Counter[str] = Counter()
        self._annotation = 0  # inside an annotation
        self._lazy_annotations = False  # `from __future__ import annotations`: annotations are never evaluated

    @classmethod
    def needs_values(cls, source: str) -> bool:
        """Only `x.<attribute jax removed from arrays>` asks the analysis whether `x` holds an array."""
        return _array_attribute_read().search(source) is not None

    def _target(self):
        return parse_jax_version(self.facts.jax_version) if self.facts.jax_version else newest_version()

    def _entry(self, qualified: str | None, covering: bool = False, module: bool = False) -> Api | None:
        """The entry for `qualified` (or, with `covering`, for a module containing it) in our status.
        A module that is gone while its name still resolves as an attribute (`jax.config`) counts only
        where an import statement names it as a `module`."""
        if qualified is None:
            return None
        parts = qualified.split(".")
        for end in range(len(parts), 0 if covering else len(parts) - 1, -1):
            entry = self._table.get(".".join(parts[:end]))
            if entry is not None and (module or not entry.import_only):
                return entry if entry.status(self._target()) == self.status else None
        return None

    def _message(self, spelled: str, entry: Api, instead: str | None = None) -> str:
        when = entry.when(self.status)
        if self.status == "removed":
            text = f"`{spelled}` was removed in jax {when}"
        else:
            text = f"`{spelled}` is deprecated since jax {when}"
        instead = instead or entry.replacement
        if instead:
            text += f"; use `{instead}`"
        if entry.note:
            text += f" ({entry.note})"
        if self.status == "removed" and self._annotation and self._lazy_annotations:
            text += (
                " (only in an annotation, unevaluated under `from __future__ import annotations`: the code runs; "
                "`typing.get_type_hints` and documentation tools fail)"
            )
        return text

    # ------------------------------------------------------------------ where uses are not reported

    def visit_Try(self, node: cst.Try) -> None:
        if any(_catches_guard(handler) for handler in node.handlers):
            self._guarded += 1

    def leave_Try(self, node: cst.Try) -> None:
        if any(_catches_guard(handler) for handler in node.handlers):
            self._guarded -= 1

    def visit_If(self, node: cst.If) -> None:
        if _tests_version(node.test):
            self._guarded += 1
            self._version_tests.add(node)

    def leave_If(self, node: cst.If) -> None:
        if node in self._version_tests:
            self._guarded -= 1

    def visit_IfExp(self, node: cst.IfExp) -> None:
        """`jax.tree_map if hasattr(jax, "tree_map") else jax.tree.map`."""
        if _tests_version(node.test):
            self._guarded += 1
            self._version_tests.add(node)

    leave_IfExp = leave_If

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        """`hasattr(jax, "pxla") and isinstance(x, jax.pxla.ShardedDeviceArray)`."""
        if isinstance(node.operator, cst.And) and _tests_version(node.left):
            self._guarded += 1
            self._version_tests.add(node)

    leave_BooleanOperation = leave_If

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._depth += 1

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._depth -= 1

    visit_ClassDef = visit_FunctionDef
    leave_ClassDef = leave_FunctionDef

    def visit_Annotation(self, node: cst.Annotation) -> None:
        self._annotation += 1

    def leave_Annotation(self, node: cst.Annotation) -> None:
        self._annotation -= 1

    # ------------------------------------------------------------------ imports

    def visit_Import(self, node: cst.Import) -> None:
        self._in_import += 1
        if self._guarded:
            return
        for alias in node.names:
            module = _import_name(alias.name)
            entry = self._entry(module, covering=True, module=True)
            if entry is None:
                continue
            fix = None
            new = self._moved_module(entry, module)
            if entry.import_only and alias.asname is not None:
                new = None  # `import jax.config as c` -> `import jax as c` would bind the package, not config
            if new is not None and (alias.asname is not None or new.split(".")[0] == module.split(".")[0]):
                fix = FixPlan(f"import `{new}`", ((alias.name, new),))
            self.report(alias, self._message(module, entry, new), fix)

    def leave_Import(self, node: cst.Import) -> None:
        self._in_import -= 1

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self._in_import += 1
        if _is_future_annotations(node):
            self._lazy_annotations = True
        if self._guarded or node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        module = _import_name(node.module)
        entry = self._entry(module, covering=True, module=True)
        if entry is not None:
            new = self._moved_module(entry, module)
            fix = None if new is None else FixPlan(f"import from `{new}`", ((node.module, new),))
            self.report(node.module, self._message(module, entry, new), fix)
            return
        for alias in node.names:
            name = _import_name(alias.name)
            entry = self._entry(f"{module}.{name}")
            if entry is None:
                continue
            local = alias.evaluated_alias or name  # the name it binds: `as` a plain name, or its own
            if entry.at_method or entry.api == OPS_INDEX:
                self._index_imports.append((alias, node, local, entry))
                continue
            fix = self._renamed_import(node, alias, module, local, entry)
            self.report(alias, self._message(f"{module}.{name}", entry), fix)

    def leave_ImportFrom(self, node: cst.ImportFrom) -> None:
        self._in_import -= 1

    @staticmethod
    def _moved_module(entry: Api, module: str) -> str | None:
        """The new name of an imported module when the entry is a rename: the tail kept."""
        if not entry.rename_safe or not entry.replacement:
            return None
        return entry.replacement + module[len(entry.api) :]

    def _renamed_import(
        self, node: cst.ImportFrom, alias: cst.ImportAlias, module: str, local: str, entry: Api
    ) -> FixPlan | None:
        """`from jax import tree_map` -> `from jax.tree import map as tree_map`: every use keeps working."""
        if not entry.rename_safe or not entry.replacement or "." not in entry.replacement:
            return None
        if node.module is None or isinstance(node.names, cst.ImportStar):
            return None  # not reached: visit_ImportFrom skips these
        parent, name = entry.replacement.rsplit(".", 1)
        imported = name if name == local else f"{name} as {local}"
        message = f"import `{entry.replacement}`"
        if parent == module:
            if alias.asname is not None:
                return FixPlan(message, ((alias.name, name),))
            return FixPlan(message, ((alias.name, imported),))
        if len(node.names) == 1:
            same = imported == source(alias.with_changes(comma=cst.MaybeSentinel.DEFAULT))
            return FixPlan(message, ((node.module, parent),) + (() if same else ((alias, imported),)))
        if self._depth == 0 and not self._guarded:
            rest = self._without(node, alias)
            return FixPlan(message, ((node, f"{rest}\nfrom {parent} import {imported}"),))
        return None

    @staticmethod
    def _without(node: cst.ImportFrom, alias: cst.ImportAlias) -> str:
        """The source of a from-import with one of its names taken out."""
        assert not isinstance(node.names, cst.ImportStar)  # visit_ImportFrom skips `import *`
        names = [item for item in node.names if item is not alias]
        names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return source(node.with_changes(names=names, semicolon=cst.MaybeSentinel.DEFAULT))

    # ------------------------------------------------------------------ attribute spellings

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self._in_import or self._guarded or node.attr.value not in self._last_names or node in self._calls:
            return
        qualified = self.names.qualified(node)
        entry = self._entry(qualified)
        if entry is None and f"{ARRAY_ROWS}.{node.attr.value}" in self._table and self._holds_array(node.value):
            self._array_attribute(node)
            return
        if entry is None:
            return
        spelled = source(node)
        renamed = self.respell(node, entry.replacement) if entry.rename_safe and entry.replacement else None
        if renamed is None:
            self.report(node, self._message(spelled, entry))
            return
        new, imports = renamed
        self.report(node, self._message(spelled, entry, new), FixPlan(f"use `{new}`", ((node, new),), SAFE, imports))

    def _holds_array(self, expr: cst.BaseExpression) -> bool:
        """Whether the analysis knows `expr` holds a jax array: only then is `expr.<name>` an array attribute. A part
        unpacked from a traced pytree (a scan's carry) may be any node of it (AlphaFold's `SafeKey`, carried with
        the activations, has its own `.split`)."""
        value = self.facts.value_of(expr)
        return value.is_array and not value.pytree_part

    def _array_attribute(self, node: cst.Attribute) -> None:
        """`x.device_buffer` on an array: the table's `jax.Array.*` rows, whose replacement names the
        array `x`; fixed only where it is a pure rename of the attribute (`x.layout` -> `x.format`)."""
        entry = self._entry(f"{ARRAY_ROWS}.{node.attr.value}")
        if entry is None:
            return
        array = source(node.value)
        instead = re.sub(r"\bx\b", lambda _: array, entry.replacement) if entry.replacement else None
        renamed = re.fullmatch(r"x\.(\w+)", entry.replacement or "") if entry.rename_safe else None
        fix = FixPlan(f"use `{instead}`", ((node.attr, renamed.group(1)),), SAFE) if renamed else None
        self.report(node, self._message(source(node), entry, instead), fix)

    # ------------------------------------------------------------------ jax.ops.index_* calls

    def visit_Call(self, node: cst.Call) -> None:
        if self._guarded:
            return
        if type(node.func) is cst.Name and node.func.value == "getattr":
            self._getattr(node)
            return
        qualified = self.names.qualified(node.func)
        self._keywords(node, qualified)
        entry = self._entry(qualified)
        if entry is None or not entry.at_method:
            return
        self._calls.add(node.func)
        new = self._at_update(node, entry.at_method)
        if new is None:
            self.report(node, self._message(source(node.func), entry))
            return
        for used in (node.func, self._index_helper(node.args[1].value)):
            if isinstance(used, cst.Name):
                self._fixable_calls[used.value] += 1
            if used is not None:
                self._calls.add(used)  # rewritten by this fix: not reported on its own
        self.report(node, self._message(source(node.func), entry, new), FixPlan(f"use `{new}`", ((node, new),)))

    def _keywords(self, node: cst.Call, qualified: str | None) -> None:
        """`jnp.clip(x, a_min=0)`: a keyword the function took in older releases and no longer takes."""
        gone = self._gone_keywords.get(qualified) if qualified is not None else None
        if not gone:
            return
        for arg in node.args:
            entry = gone.get(arg.keyword.value) if arg.keyword is not None else None
            if entry is None or entry.status(self._target()) != self.status:
                continue
            assert arg.keyword is not None
            spelled = f"{source(node.func)}({arg.keyword.value}=...)"
            instead = f"{entry.replacement}=" if entry.replacement else None
            fix = None
            if entry.rename_safe and entry.replacement:
                fix = FixPlan(f"use `{instead}`", ((arg.keyword, entry.replacement),))
            self.report(arg.keyword, self._message(spelled, entry, instead), fix)

    def _getattr(self, node: cst.Call) -> None:
        """`getattr(jax, "tree_map")`: the attribute named by a literal string. With a default
        (`getattr(jax, "tree_map", None)`) it is compatibility code, and left alone."""
        if len(node.args) != 2 or any(arg.keyword or arg.star for arg in node.args) or not self.names.free("getattr"):
            return
        owner, name = node.args[0].value, node.args[1].value
        if not isinstance(name, cst.SimpleString) or name.prefix.lower() not in ("", "u"):
            return
        value = name.evaluated_value
        if not isinstance(value, str):
            return  # not reached: the prefix is "" or "u"
        base = self.names.qualified(owner)
        entry = self._entry(f"{base}.{value}" if base else None)
        if entry is None:
            return
        spelled = f"getattr({source(owner)}, {source(name)})"
        fix, instead = None, None
        if entry.rename_safe and entry.replacement:
            renamed = self.spell(entry.replacement)
            if renamed is not None:
                instead = renamed[0]
                fix = FixPlan(f"use `{instead}`", ((node, instead),), SAFE, renamed[1])
        self.report(node, self._message(spelled, entry, instead), fix)

    def _index_helper(self, index: cst.BaseExpression) -> cst.BaseExpression | None:
        """`jax.ops.index` (or the name it was imported as) when `index` is `jax.ops.index[...]`."""
        if isinstance(index, cst.Subscript) and self.names.qualified(index.value) == OPS_INDEX:
            return index.value
        return None

    def _at_update(self, call: cst.Call, method: str) -> str | None:
        """`index_add(x, idx, v)` -> `x.at[idx].add(v)` (and `jax.ops.index[i, :]` -> `i, :`), or None
        when the arguments do not fit."""
        positional = [arg for arg in call.args if arg.keyword is None]
        keywords = [(arg.keyword, arg) for arg in call.args if arg.keyword is not None]
        if (
            len(positional) != 3
            or any(arg.star for arg in call.args)
            or any(keyword.value not in _INDEX_KEYWORDS for keyword, _ in keywords)
        ):
            return None
        if "#" in source(call):
            return None  # rebuilding the call would drop the comments inside it
        operand, index, value = (arg.value for arg in positional)
        array = source(operand)
        if not isinstance(operand, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) and not operand.lpar:
            array = f"({array})"
        extra = "".join(f", {keyword.value}={source(arg.value)}" for keyword, arg in keywords)
        where = source(index)
        if isinstance(index, cst.Subscript) and self._index_helper(index) is not None:
            where = "".join(source(element) for element in index.slice).rstrip(", ")
        return f"{array}.at[{where}].{method}({source(value)}{extra})"

    def leave_Module(self, node: cst.Module) -> None:
        """Index-update imports: removed by the fix once every use of the name is a fixed call."""
        uses = name_uses(node, {local for _, _, local, _ in self._index_imports}) if self._index_imports else {}
        for alias, statement, local, entry in self._index_imports:
            fix = None
            assert statement.module is not None and not isinstance(
                statement.names, cst.ImportStar
            )  # see visit_ImportFrom
            if self._depth == 0 and uses[local] == self._fixable_calls[local]:
                removal = "" if len(statement.names) == 1 else self._without(statement, alias)
                if removal or self._is_own_line(node, statement):
                    fix = FixPlan(f"remove the import of `{local}`", ((statement, removal),))
            instead = f"x.at[idx].{entry.at_method}(v)" if entry.at_method else None
            self.report(
                alias,
                self._message(f"{_import_name(statement.module)}.{_import_name(alias.name)}", entry, instead),
                fix,
            )

    @staticmethod
    def _is_own_line(module: cst.Module, statement: cst.ImportFrom) -> bool:
        """A module-level line holding nothing but this import: emptying it leaves valid code."""
        return any(isinstance(line, cst.SimpleStatementLine) and list(line.body) == [statement] for line in module.body)
