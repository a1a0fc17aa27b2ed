"""The rule catalog: every rule class, and lookups by code or name."""

from __future__ import annotations

from jaxlint.checks.api import DeprecatedApi, RemovedApi
from jaxlint.checks.base import Rule
from jaxlint.checks.compilation import (
    DonateByKeyword, DonatedBufferReuse, JitMethodSelf, JitRecreated, TimingWithoutSync, UnhashableStaticArg,
)
from jaxlint.checks.globals_ import StaleGlobalCapture
from jaxlint.checks.gradients import (
    GradIntegerInput, GradNonScalar, ReverseModeWhileLoop, WhereNanGradient, ZeroGradient,
)
from jaxlint.rule_index import DOCS_URL, rule_url  # noqa: F401 (the catalog's documentation links)
from jaxlint.checks.dtypes import Float64WithoutX64, LaxMixedDtypes, NonArrayInput
from jaxlint.checks.meta import SyntaxErrorRule, UnreadableFileRule
from jaxlint.checks.mutation import AugmentedAssignNotInPlace, DiscardedFunctionalUpdate, InPlaceUpdate
from jaxlint.checks.randomness import (
    ConstantKeyInTraced, KeyReuseInLoop, LegacyPrngKey, PrngKeyReuse, StatefulRngInTraced,
)
from jaxlint.checks.runtime import VerifyKeyReuse, VerifyTraceError, VerifyTracerLeak
from jaxlint.checks.side_effects import PrintAtTraceTime, StateMutationInTraced
from jaxlint.checks.shapes import BooleanMaskIndex, DataDependentSize, TracedShape, TracedSliceBounds
from jaxlint.checks.transforms import VmapInAxesArity
from jaxlint.checks.tracers import (
    DebugPrintFstring, IteratorInTracedLoop, NumpyOnTracer, PrintInTraced, PythonControlFlowOnTracer,
    PythonLogicOnTracer, TracerAsPythonIndex, TracerConcretization, TracerLeak,
)

ALL_RULES: tuple[type[Rule], ...] = (
    SyntaxErrorRule,
    UnreadableFileRule,
    InPlaceUpdate,
    DiscardedFunctionalUpdate,
    AugmentedAssignNotInPlace,
    PrngKeyReuse,
    KeyReuseInLoop,
    ConstantKeyInTraced,
    StatefulRngInTraced,
    LegacyPrngKey,
    PythonControlFlowOnTracer,
    PythonLogicOnTracer,
    TracerConcretization,
    TracerAsPythonIndex,
    NumpyOnTracer,
    PrintInTraced,
    DebugPrintFstring,
    TracerLeak,
    IteratorInTracedLoop,
    TracedShape,
    BooleanMaskIndex,
    DataDependentSize,
    TracedSliceBounds,
    JitRecreated,
    UnhashableStaticArg,
    JitMethodSelf,
    DonatedBufferReuse,
    TimingWithoutSync,
    StaleGlobalCapture,
    DonateByKeyword,
    StateMutationInTraced,
    PrintAtTraceTime,
    GradNonScalar,
    GradIntegerInput,
    VmapInAxesArity,
    ReverseModeWhileLoop,
    WhereNanGradient,
    ZeroGradient,
    Float64WithoutX64,
    NonArrayInput,
    LaxMixedDtypes,
    RemovedApi,
    DeprecatedApi,
    VerifyTraceError,  # JAX01x: reported by --verify only
    VerifyTracerLeak,
    VerifyKeyReuse,
)
BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in ALL_RULES}
BY_NAME: dict[str, type[Rule]] = {rule.name: rule for rule in ALL_RULES}


def find_rule(code_or_name: str) -> type[Rule] | None:
    """The rule spelled by a code (any case) or a kebab-case name."""
    return BY_CODE.get(code_or_name.upper()) or BY_NAME.get(code_or_name.lower())
