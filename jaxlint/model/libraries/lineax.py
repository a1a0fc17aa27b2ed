"""lineax, as data (checked with lineax 0.1.1 on jax 0.10.2): a `FunctionLinearOperator` traces its function,
to linearize it, with a traced input."""

from __future__ import annotations

from jaxlint.model.transform_spec import POSITIONS, TransformSpec

TRANSFORMS = {
    "lineax.FunctionLinearOperator": TransformSpec(
        POSITIONS,
        staged=True,
        positional_options=("input_structure", "tags"),
        traced_positions=(0,),
        function_keyword="fn",
    ),
}
