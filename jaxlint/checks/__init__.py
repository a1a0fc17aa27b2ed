"""The rule catalog: every rule class, and lookups by code or name."""

from __future__ import annotations

from jaxlint.checks.api.jax801_removed_api import RemovedApi
from jaxlint.checks.api.jax802_deprecated_api import DeprecatedApi
from jaxlint.checks.compilation.jax501_jit_recreated import JitRecreated
from jaxlint.checks.compilation.jax502_unhashable_static_arg import UnhashableStaticArg
from jaxlint.checks.compilation.jax503_jit_method_self import JitMethodSelf
from jaxlint.checks.compilation.jax504_donated_buffer_reuse import DonatedBufferReuse
from jaxlint.checks.compilation.jax505_timing_without_sync import TimingWithoutSync
from jaxlint.checks.compilation.jax506_stale_global_capture import StaleGlobalCapture
from jaxlint.checks.compilation.jax507_donate_by_keyword import DonateByKeyword
from jaxlint.checks.compilation.jax508_state_mutation_in_traced import StateMutationInTraced
from jaxlint.checks.compilation.jax509_print_at_trace_time import PrintAtTraceTime
from jaxlint.checks.compilation.jax510_static_arg_recreated import StaticArgRecreated
from jaxlint.checks.compilation.jax511_shape_changes_in_loop import ShapeChangesInLoop
from jaxlint.checks.compilation.jax512_non_array_jit_argument import NonArrayJitArgument
from jaxlint.checks.compilation.jax513_jit_spec_not_in_signature import JitSpecNotInSignature
from jaxlint.checks.compilation.jax514_stale_attribute_capture import StaleAttributeCapture
from jaxlint.checks.dtypes.jax701_float64_without_x64 import Float64WithoutX64
from jaxlint.checks.dtypes.jax702_non_array_input import NonArrayInput
from jaxlint.checks.dtypes.jax703_lax_mixed_dtypes import LaxMixedDtypes
from jaxlint.checks.dtypes.jax704_unexpected_keyword import UnexpectedKeyword
from jaxlint.checks.meta.jax001_syntax_error import SyntaxErrorRule
from jaxlint.checks.meta.jax002_unused_noqa import UnusedNoqa
from jaxlint.checks.meta.jax003_unreadable_file import UnreadableFileRule
from jaxlint.checks.meta.jax010_verify_trace_error import VerifyTraceError
from jaxlint.checks.meta.jax011_verify_tracer_leak import VerifyTracerLeak
from jaxlint.checks.meta.jax012_verify_key_reuse import VerifyKeyReuse
from jaxlint.checks.meta.jax013_verify_recompile import VerifyRecompile
from jaxlint.checks.mutation.jax101_in_place_update import InPlaceUpdate
from jaxlint.checks.mutation.jax102_discarded_functional_update import DiscardedFunctionalUpdate
from jaxlint.checks.mutation.jax103_augmented_assign_not_in_place import AugmentedAssignNotInPlace
from jaxlint.checks.mutation.jax104_missing_at import MissingAt
from jaxlint.checks.randomness.jax201_prng_key_reuse import PrngKeyReuse
from jaxlint.checks.randomness.jax202_key_reuse_in_loop import KeyReuseInLoop
from jaxlint.checks.randomness.jax203_constant_key_in_traced import ConstantKeyInTraced
from jaxlint.checks.randomness.jax204_stateful_rng_in_traced import StatefulRngInTraced
from jaxlint.checks.randomness.jax205_legacy_prng_key import LegacyPrngKey
from jaxlint.checks.randomness.jax206_categorical_of_probabilities import CategoricalOfProbabilities
from jaxlint.checks.randomness.jax207_number_array_as_key import NumberArrayAsKey
from jaxlint.checks.shapes.jax401_traced_shape import TracedShape
from jaxlint.checks.shapes.jax402_boolean_mask_index import BooleanMaskIndex
from jaxlint.checks.shapes.jax403_data_dependent_size import DataDependentSize
from jaxlint.checks.shapes.jax404_traced_slice_bounds import TracedSliceBounds
from jaxlint.checks.shapes.jax405_sequence_index import SequenceIndex
from jaxlint.checks.tracers.jax301_python_control_flow_on_tracer import PythonControlFlowOnTracer
from jaxlint.checks.tracers.jax302_python_logic_on_tracer import PythonLogicOnTracer
from jaxlint.checks.tracers.jax303_tracer_concretization import TracerConcretization
from jaxlint.checks.tracers.jax304_tracer_as_python_index import TracerAsPythonIndex
from jaxlint.checks.tracers.jax305_numpy_on_tracer import NumpyOnTracer
from jaxlint.checks.tracers.jax306_print_in_traced import PrintInTraced
from jaxlint.checks.tracers.jax307_debug_print_fstring import DebugPrintFstring
from jaxlint.checks.tracers.jax308_tracer_leak import TracerLeak
from jaxlint.checks.tracers.jax309_iterator_in_traced_loop import IteratorInTracedLoop
from jaxlint.checks.tracers.jax310_log_in_traced import LogInTraced
from jaxlint.checks.transforms.jax601_grad_non_scalar import GradNonScalar
from jaxlint.checks.transforms.jax602_grad_integer_input import GradIntegerInput
from jaxlint.checks.transforms.jax603_vmap_in_axes_arity import VmapInAxesArity
from jaxlint.checks.transforms.jax604_reverse_mode_while_loop import ReverseModeWhileLoop
from jaxlint.checks.transforms.jax605_where_nan_gradient import WhereNanGradient
from jaxlint.checks.transforms.jax606_zero_gradient import ZeroGradient
from jaxlint.checks.base import Rule

ALL_RULES: tuple[type[Rule], ...] = (
    SyntaxErrorRule,
    UnusedNoqa,
    UnreadableFileRule,
    InPlaceUpdate,
    DiscardedFunctionalUpdate,
    AugmentedAssignNotInPlace,
    MissingAt,
    PrngKeyReuse,
    KeyReuseInLoop,
    ConstantKeyInTraced,
    StatefulRngInTraced,
    LegacyPrngKey,
    CategoricalOfProbabilities,
    NumberArrayAsKey,
    PythonControlFlowOnTracer,
    PythonLogicOnTracer,
    TracerConcretization,
    TracerAsPythonIndex,
    NumpyOnTracer,
    PrintInTraced,
    DebugPrintFstring,
    TracerLeak,
    IteratorInTracedLoop,
    LogInTraced,
    TracedShape,
    BooleanMaskIndex,
    DataDependentSize,
    TracedSliceBounds,
    SequenceIndex,
    JitRecreated,
    UnhashableStaticArg,
    JitMethodSelf,
    DonatedBufferReuse,
    TimingWithoutSync,
    StaleGlobalCapture,
    DonateByKeyword,
    StateMutationInTraced,
    PrintAtTraceTime,
    StaticArgRecreated,
    ShapeChangesInLoop,
    NonArrayJitArgument,
    JitSpecNotInSignature,
    StaleAttributeCapture,
    GradNonScalar,
    GradIntegerInput,
    VmapInAxesArity,
    ReverseModeWhileLoop,
    WhereNanGradient,
    ZeroGradient,
    Float64WithoutX64,
    NonArrayInput,
    LaxMixedDtypes,
    UnexpectedKeyword,
    RemovedApi,
    DeprecatedApi,
    VerifyTraceError,  # JAX01x: reported by --verify only
    VerifyTracerLeak,
    VerifyKeyReuse,
    VerifyRecompile,
)
BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in ALL_RULES}
BY_NAME: dict[str, type[Rule]] = {rule.name: rule for rule in ALL_RULES}


def find_rule(code_or_name: str) -> type[Rule] | None:
    """The rule spelled by a code (any case) or a kebab-case name."""
    return BY_CODE.get(code_or_name.upper()) or BY_NAME.get(code_or_name.lower())
