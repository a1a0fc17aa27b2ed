"""Blocks that expect an error (`with pytest.raises(...)`): code in them is a test of that very error."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

if TYPE_CHECKING:

    class _Mixin:
        """What the mixin uses of the Rule it comes before (checks/base.py, a higher layer)."""

        names: Any

        def report(self, node: cst.CSTNode, message: Any, fix: Any = None, because: Any = None) -> None: ...
else:
    _Mixin = object


def expects_error(node: cst.With, names) -> bool:
    """`with self.assertRaises(...)`, `with pytest.raises(...)`: the code inside is meant to fail."""
    for item in node.items:
        call = item.item
        if not isinstance(call, cst.Call):
            continue
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value.startswith("assertRaises"):
            return True
        if names.qualified(func) == "pytest.raises":
            return True
    return False


class ExpectedErrors(_Mixin):
    """Leaves out findings inside blocks that expect an error (a test of that very error). Mix in before Rule."""

    _expecting = 0

    def visit_With(self, node: cst.With) -> None:
        if expects_error(node, self.names):
            self._expecting += 1

    def leave_With(self, node: cst.With) -> None:
        if expects_error(node, self.names):
            self._expecting -= 1

    def report(self, node, message, fix=None, because=None) -> None:
        if not self._expecting:
            super().report(node, message, fix, because)
