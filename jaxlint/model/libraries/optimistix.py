"""optimistix, as data (checked with optimistix 0.1.0 on jax 0.10.2): its solvers trace `fn(y, args)` with `y`
a tracer; `args` are traced where they hold arrays and static where they hold Python numbers."""

from __future__ import annotations

from jaxlint.model.transform_spec import POSITIONS, TransformSpec

_SOLVE = TransformSpec(
    POSITIONS,
    staged=True,
    positional_options=("solver", "y0", "args", "options"),
    traced_positions=(0,),
    function_keyword="fn",
)

TRANSFORMS = {f"optimistix.{solve}": _SOLVE for solve in ("root_find", "minimise", "least_squares", "fixed_point")}
