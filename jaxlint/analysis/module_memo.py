"""What one module's syntax tells, found once however many rules and rounds ask (a memo for the module checked
last: its nodes stay alive, so their ids stay theirs, while it is kept)."""

from __future__ import annotations

from typing import Callable, Generic, TypeVar

import libcst as cst

T = TypeVar("T")


class ModuleMemo(Generic[T]):
    def __init__(self, make: Callable[[cst.Module], T]) -> None:
        self._make = make
        self._module: cst.Module | None = None
        self._value: T | None = None

    def __call__(self, module: cst.Module) -> T:
        if self._module is not module or self._value is None:
            self._module, self._value = module, self._make(module)
        return self._value
