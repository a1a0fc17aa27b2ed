"""JAX4xx: array shapes must be known while tracing."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.calls import arguments
from jaxlint.model.transforms import LOOP_BODIES, MAPS
from jaxlint.analysis.values import Kind, Value
from jaxlint.checks.base import FixPlan, Rule, code
from jaxlint.diagnostics import UNSAFE


def _np(*names: str) -> list[str]:
    return ["jax.numpy." + name for name in names]


# Arguments that set a shape, a size or a count: function -> (what they set, positions, keywords).
_SHAPE_ARGUMENTS: dict[str, tuple[str, tuple[int, ...], tuple[str, ...]]] = {
    **{f: ("shape", (0,), ("shape",)) for f in _np("zeros", "ones", "empty", "full")},
    **{f: ("shape", (), ("shape",)) for f in _np("zeros_like", "ones_like", "empty_like", "full_like")},
    **{f: ("size", (0, 1), ("N", "M")) for f in _np("eye", "tri")},
    "jax.numpy.identity": ("size", (0,), ("n",)),
    "jax.numpy.arange": ("range", (0, 1, 2), ("start", "stop", "step")),
    **{f: ("`num`", (2,), ("num",)) for f in _np("linspace", "logspace", "geomspace")},
    "jax.nn.one_hot": ("`num_classes`", (1,), ("num_classes",)),
    **{f: ("split", (1,), ("indices_or_sections",))
       for f in _np("split", "array_split", "hsplit", "vsplit", "dsplit")},
    "jax.numpy.reshape": ("shape", (1,), ("shape", "newshape")),
    "jax.numpy.resize": ("shape", (1,), ("new_shape",)),
    "jax.numpy.broadcast_to": ("shape", (1,), ("shape",)),
    "jax.numpy.tile": ("`reps`", (1,), ("reps",)),
    "jax.numpy.pad": ("`pad_width`", (1,), ("pad_width",)),
    "jax.numpy.repeat": ("`total_repeat_length`", (), ("total_repeat_length",)),
    "jax.numpy.bincount": ("length", (2,), ("minlength", "length")),
    **{f: ("`size`", (), ("size",)) for f in _np(
        "where", "nonzero", "argwhere", "flatnonzero", "unique", "unique_values", "unique_counts",
        "unique_inverse", "unique_all", "union1d", "intersect1d", "setdiff1d", "setxor1d", "extract",
        "compress")},
    "jax.lax.full": ("shape", (0,), ("shape",)),
    "jax.lax.iota": ("size", (1,), ("size",)),
    "jax.lax.broadcast": ("shape", (1,), ("sizes",)),
    "jax.lax.broadcast_in_dim": ("shape", (1,), ("shape",)),
    "jax.lax.reshape": ("shape", (1,), ("new_sizes",)),
    "jax.lax.dynamic_slice": ("slice size", (2,), ("slice_sizes",)),
    "jax.lax.dynamic_slice_in_dim": ("slice size", (2,), ("slice_size",)),
    "jax.random.split": ("number of keys", (1,), ("num",)),
}
# jax.random samplers: where `shape` goes by position (any sampler takes `shape=` by keyword).
_RANDOM_SHAPE_POSITION = {
    **dict.fromkeys("""bits uniform randint normal exponential gumbel laplace logistic cauchy
        rademacher maxwell""".split(), 1),
    **dict.fromkeys("bernoulli choice gamma dirichlet poisson t".split(), 2),
    **dict.fromkeys("truncated_normal categorical beta multivariate_normal".split(), 3),
}
# Functions whose result size depends on the values of their data arguments, unless given a size:
# function -> (data positions, the keyword that fixes the size).
_DATA_DEPENDENT: dict[str, tuple[tuple[int, ...], str]] = {
    **{f: ((0,), "size") for f in _np(
        "where", "nonzero", "argwhere", "flatnonzero", "unique", "unique_values", "unique_counts",
        "unique_inverse", "unique_all", "extract", "compress")},
    **{f: ((0, 1), "size") for f in _np("union1d", "intersect1d", "setdiff1d", "setxor1d")},
    "jax.numpy.bincount": ((0,), "length"),
}


def _arguments(call: cst.Call) -> tuple[list[cst.BaseExpression], dict[str, cst.BaseExpression]] | None:
    """Positional and keyword arguments, or None when `**kwargs` may hold any keyword."""
    given = arguments(call)
    return None if given.double_starred else (given.positional, given.keywords)


def _static_hint(rule: Rule, value: Value, operand: cst.BaseExpression, mask: bool = True) -> str | None:
    """How to give JAX a Python value instead of the tracer, when `operand` is plain arithmetic on a
    traced parameter (`n`, `n * 2`, `max_len - n`); None when it is computed from array data.
    A vmapped or loop argument cannot be static: then the hint is a mask (if `mask`)."""
    tracer = value.tracer
    if tracer is None or not _plain(rule, operand, tracer.param):
        return None
    param, transform = tracer.param, tracer.transform.name
    if tracer.caller is not None:
        return f"pass a static Python value for `{param}` from `{tracer.caller}`"
    if rule.facts.takes_static_argnames(transform):
        return f"mark `{param}` static with `static_argnames=('{param}',)`"
    if transform in MAPS or transform in LOOP_BODIES:
        if not mask:
            return None
        each = "example" if transform in MAPS else "iteration"
        return (f"`{param}` changes with each {each} of `{transform}`: use a static maximum size and a mask "
                f"(`jnp.arange(max_size) < {param}`)")
    return f"make `{param}` a static Python value"


def _plain(rule: Rule, expr: cst.BaseExpression, param: str) -> bool:
    """Arithmetic whose only traced operands are the parameter itself or pieces of it (`h, w = dims`)."""
    if isinstance(expr, cst.BinaryOperation):
        return _plain(rule, expr.left, param) and _plain(rule, expr.right, param)
    if isinstance(expr, cst.UnaryOperation):
        return _plain(rule, expr.expression, param)
    if isinstance(expr, cst.Name) and expr.value == param:
        return True
    value = rule.facts.value_of(expr)
    if value.kind is not Kind.TRACED:
        return True
    # A name unpacked from the parameter (`h, w = dims`); any computation makes an array instead.
    return (isinstance(expr, cst.Name) and value.container and value.tracer is not None
            and value.tracer.param == param)


def _is_call_to(rule: Rule, node: cst.Call, method: str) -> bool:
    """`x.<method>(...)` on a known JAX array (or tracer)."""
    func = node.func
    if not isinstance(func, cst.Attribute) or func.attr.value != method:
        return False
    return rule.facts.value_of(func.value).is_array


def _repeats(rule: Rule, node: cst.Call) -> tuple[cst.BaseExpression, Value] | None:
    """The staged traced `repeats` of `jnp.repeat(x, r)` / `x.repeat(r)` without `total_repeat_length=`."""
    arguments = _arguments(node)
    if arguments is None or "total_repeat_length" in arguments[1]:
        return None
    positional, keywords = arguments
    if rule.names.qualified(node.func) == "jax.numpy.repeat":
        repeats = positional[1] if len(positional) > 1 else keywords.get("repeats")
    elif _is_call_to(rule, node, "repeat"):
        repeats = positional[0] if positional else keywords.get("repeats")
    else:
        return None
    if repeats is None:
        return None
    value = rule.facts.value_of(repeats)
    return (repeats, value) if value.staged else None


def _maybe_array(rule: Rule, expr: cst.BaseExpression) -> bool:
    """A JAX array, or unknown; not a shape, a Python sequence or a NumPy array (JAX304's ground)."""
    held = rule.facts.value_of(expr)
    return not held.is_known or held.is_array


def _whole_axis(index: cst.BaseSlice) -> bool:
    """A bare `:`."""
    return isinstance(index, cst.Slice) and index.lower is None and index.upper is None and index.step is None


def _indexed(node: cst.Subscript) -> tuple[cst.BaseExpression, bool]:
    """The array a subscript indexes, and whether it is the `x.at[...]` of a functional update."""
    base = node.value
    if isinstance(base, cst.Attribute) and base.attr.value == "at":
        return base.value, True
    return base, False


class TracedShape(Rule):
    code = "JAX401"
    name = "traced-shape"
    summary = "A traced value used as a shape, size or count"
    what_it_does = (
        "Flags a traced value passed where JAX needs a concrete shape, size or count, inside a jitted "
        "(or vmapped, lax-body) function and the helpers it calls with traced arguments: the shape of "
        "`jnp.zeros/ones/empty/full` (and `shape=` of the `*_like` functions), `N`/`M` of `jnp.eye`/`jnp.tri`, "
        "`jnp.identity`, any bound of `jnp.arange`, `num` of `jnp.linspace/logspace/geomspace`, "
        "`num_classes` of `jax.nn.one_hot`, the sections of `jnp.split` (and `array_split`, `hsplit`...), "
        "the shape of `jnp.reshape`, `x.reshape(...)`, `jnp.resize` and `jnp.broadcast_to`, `reps` of "
        "`jnp.tile`, `pad_width` of `jnp.pad`, `minlength`/`length` of `jnp.bincount`, a traced argument "
        "used as `repeats` of `jnp.repeat`, `size=` of `jnp.nonzero`/`unique` and the like, the shapes "
        "and slice sizes of `lax.full/iota/broadcast/broadcast_in_dim/reshape/dynamic_slice`, "
        "`shape` of the `jax.random` samplers and `num` of `jax.random.split`. A shape tuple counts "
        "when any of its elements is traced. A `jnp`/`lax` result computed inside a staged function counts "
        "too, even from static values (`jnp.array(x.shape).prod()`): under `jit` it is a tracer."
    )
    why_bad = (
        "XLA compiles for fixed shapes, so JAX must know every shape while it traces the function; a "
        "tracer only has a value when the compiled code runs. JAX raises `TypeError: Shapes must be 1D "
        "sequences of concrete values of integer type` or a `ConcretizationTypeError`."
    )
    example = (
        "@jax.jit\n"
        "def positional_encoding(x, max_len):\n"
        "    pos = jnp.arange(max_len)\n"
        "    return x + jnp.sin(pos / 10000.0)[:, None]\n"
    )
    use_instead = (
        "@partial(jax.jit, static_argnames=('max_len',))\n"
        "def positional_encoding(x, max_len):\n"
        "    pos = jnp.arange(max_len)\n"
        "    return x + jnp.sin(pos / 10000.0)[:, None]\n\n\n"
        "# or derive the size from a shape, which is static:\n"
        "@jax.jit\n"
        "def positional_encoding(x):\n"
        "    pos = jnp.arange(x.shape[0])\n"
        "    return x + jnp.sin(pos / 10000.0)[:, None]\n"
    )
    not_flagged = (
        "Sizes computed from shapes in Python or NumPy (`x.shape[0] // 2`, `np.prod(x.shape)`, "
        "`math.prod(x.shape)`, `x.ndim`, `x.size`, `len(x)`), static arguments "
        "(`static_argnums`/`static_argnames`, by position or by keyword), literals, module constants and "
        "parameters with defaults; traced values where JAX accepts them (`jnp.full(shape, fill_value)` "
        "with a traced fill value, the start and stop of `jnp.linspace`); `repeats` computed from data "
        "inside the function, which JAX403 reports; functions under `grad` alone, whose tracers carry "
        "values; code outside traced functions."
    )
    verify = "`--verify` traces the function and expects the `TypeError` or `ConcretizationTypeError` at this line."

    def visit_Call(self, node: cst.Call) -> None:
        arguments = _arguments(node)
        if arguments is None:
            return
        positional, keywords = arguments
        qualified = self.names.qualified(node.func) or ""
        if qualified in _SHAPE_ARGUMENTS:
            what, positions, words = _SHAPE_ARGUMENTS[qualified]
            candidates = [positional[i] for i in positions if i < len(positional)]
            candidates += [keywords[w] for w in words if w in keywords]
        elif qualified.startswith("jax.random."):
            what, position = "shape", _RANDOM_SHAPE_POSITION.get(qualified[len("jax.random."):])
            candidates = [keywords["shape"]] if "shape" in keywords else []
            if position is not None and position < len(positional):
                candidates.append(positional[position])
        elif _is_call_to(self, node, "reshape"):
            what = "shape"  # `x.reshape(n, -1)`, `x.reshape((n, -1))`, `x.reshape(shape=...)`
            candidates = positional + ([keywords["shape"]] if "shape" in keywords else [])
        else:
            candidates = []
        for candidate in candidates:
            found = self._traced_part(candidate)
            if found is not None:
                self._report(node, what, *found)
                return
        repeats = _repeats(self, node)
        if repeats is not None and repeats[1].container:
            # A traced argument used as a count; a repeats array computed from data is JAX403.
            self._report(node, "repeat count", *repeats)

    def _traced_part(self, expr: cst.BaseExpression) -> tuple[cst.BaseExpression, Value] | None:
        """The expression itself or an element of a shape tuple (`(n, 3)`, `(n,) + x.shape`), if traced."""
        if isinstance(expr, (cst.Tuple, cst.List)):
            parts = [element.value for element in expr.elements]
        elif isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add) and any(
                isinstance(side, (cst.Tuple, cst.List)) for side in (expr.left, expr.right)):
            parts = [expr.left, expr.right]
        else:
            value = self.facts.value_of(expr)
            if value.staged_constant and self.facts.in_jaxpr_trace():
                return expr, value
            return (expr, value) if value.staged else None
        for part in parts:
            found = self._traced_part(part)
            if found is not None:
                return found
        return None

    def _report(self, node: cst.Call, what: str, operand: cst.BaseExpression, value: Value) -> None:
        hint = _static_hint(self, value, operand)
        fix = (f"{hint}, or derive it from static shapes (`x.shape[0]`)" if hint else
               "use a static value instead (a Python int, a static argument, or one derived from `x.shape`)")
        self.report(node, lambda line_of: (
            f"`{code(node.func)}` needs a concrete {what} while tracing, but `{code(operand)}` is traced "
            f"({value.describe(code(operand), line_of)}); {fix}"
        ))


class BooleanMaskIndex(Rule):
    code = "JAX402"
    name = "boolean-mask-index"
    summary = "Indexing with a traced boolean mask (`x[mask]`, `x.at[mask]`)"
    what_it_does = (
        "Flags `x[mask]` and `x.at[mask]` where `mask` is a traced boolean array inside a jitted (or "
        "vmapped, lax-body) function or a helper it calls with traced arguments: a comparison (`x > 0`), "
        "`~m`, `m & n`, `m | n`, or a boolean `jnp` function such as `jnp.isnan(x)` or "
        "`jnp.logical_and(a, b)`. `x` is a JAX array, or anything not known to be something else."
    )
    why_bad = (
        "The result of `x[mask]` has as many elements as `mask` has `True` values, which is only known "
        "when the compiled code runs; XLA needs the size while JAX traces. JAX raises "
        "`NonConcreteBooleanIndexError: Array boolean indices must be concrete`. The same holds for "
        "`x.at[mask].set(v)`."
    )
    example = (
        "@jax.jit\n"
        "def clean(x):\n"
        "    x = x.at[jnp.isnan(x)].set(0.0)\n"
        "    return x[x > 0].sum()\n"
    )
    use_instead = (
        "@jax.jit\n"
        "def clean(x):\n"
        "    x = jnp.where(jnp.isnan(x), 0.0, x)\n"
        "    return jnp.where(x > 0, x, 0.0).sum()  # or x.sum(where=x > 0)\n"
    )
    not_flagged = (
        "`jnp.where(mask, a, b)` and reductions with `where=`; integer indices and index arrays, traced or "
        "not (`x[i]`, `x[idx]`); static masks (NumPy arrays, static arguments); masks jaxlint cannot show "
        "to be traced booleans; subscripts of Python lists and tuples, NumPy arrays and shapes; code "
        "outside traced functions; functions under `grad` alone, whose tracers carry values."
    )
    verify = "`--verify` traces the function and expects `NonConcreteBooleanIndexError` at this line."
    fixable = True
    fix_safety = (
        "Unsafe: `x.at[mask].set(v)` becomes `jnp.where(mask, v, x)`. That is the same update when `mask` "
        "has the shape of `x` and `v` is a scalar or has that shape too; a mask over the leading axes only, "
        "or `v` holding just the selected values, broadcasts differently, so review each fix. Reads "
        "(`x[mask]`) have no automatic fix: the right replacement depends on what the code does next."
    )

    def __init__(self, facts, reporter) -> None:
        super().__init__(facts, reporter)
        self._set_calls: dict[int, cst.Call] = {}  # `x.at[m]` -> its `x.at[m].set(v)` call

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (isinstance(func, cst.Attribute) and func.attr.value == "set" and isinstance(func.value, cst.Subscript)
                and len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star):
            self._set_calls[id(func.value)] = node

    def _where(self, node: cst.Subscript, mask: cst.BaseExpression, base: cst.BaseExpression) -> FixPlan | None:
        call = self._set_calls.get(id(node))
        spelled = self.spell("jax.numpy.where")
        if call is None or len(node.slice) != 1 or spelled is None:
            return None
        name, imports = spelled
        new = (f"{name}(", mask, ", ", call.args[0].value, ", ", base, ")")
        return FixPlan(f"use `{name}(mask, value, array)`", ((call, new),), UNSAFE, imports)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        base, update = _indexed(node)
        if not _maybe_array(self, base):
            return
        for element in node.slice:
            if not isinstance(element.slice, cst.Index):
                continue
            mask = element.slice.value
            value = self.facts.value_of(mask)
            if not (value.boolean and value.staged):
                continue
            if update:
                fix = f"`jnp.where({code(mask)}, new_values, {code(base)})` instead of `.at[...]`"
            else:
                fix = (f"`jnp.where({code(mask)}, {code(base)}, 0)`, a reduction with "
                       f"`where={code(mask)}`, or `jnp.nonzero({code(mask)}, size=k)`")
            self.report(node, lambda line_of: (
                f"indexing with a traced boolean mask raises NonConcreteBooleanIndexError (the result size "
                f"depends on the data): `{code(mask)}` is traced ({value.describe(code(mask), line_of)}); "
                f"use {fix}"
            ), self._where(node, mask, base) if update else None)
            return


class DataDependentSize(Rule):
    code = "JAX403"
    name = "data-dependent-size"
    summary = "A function whose output size depends on traced data, called without `size=`"
    what_it_does = (
        "Flags, inside a jitted (or vmapped, lax-body) function, calls whose output size depends on the "
        "values of a traced argument: one-argument `jnp.where(c)`, `jnp.nonzero`, `x.nonzero()`, "
        "`jnp.argwhere`, `jnp.flatnonzero`, `jnp.unique` (and `unique_values`, `unique_counts`, "
        "`unique_inverse`, `unique_all`), `jnp.union1d`, `intersect1d`, `setdiff1d`, `setxor1d`, "
        "`jnp.extract` and `jnp.compress` (traced condition), `jnp.bincount` without `length=`, and "
        "`jnp.repeat` (or `x.repeat`) with `repeats` computed from traced data and no "
        "`total_repeat_length=`."
    )
    why_bad = (
        "XLA needs every output shape at compile time, and these outputs have as many elements as the "
        "data dictates. JAX raises `ConcretizationTypeError` and points at the `size=` argument (or "
        "`length=`, `total_repeat_length=`) that fixes the output size, padding with `fill_value`."
    )
    example = (
        "@jax.jit\n"
        "def positive_indices(x):\n"
        "    return jnp.nonzero(x > 0)[0]\n"
    )
    use_instead = (
        "@jax.jit\n"
        "def positive_indices(x):\n"
        "    # at most x.shape[0] indices; the rest filled with -1\n"
        "    return jnp.nonzero(x > 0, size=x.shape[0], fill_value=-1)[0]\n"
    )
    not_flagged = (
        "Calls that give `size=` (`length=` for `bincount`, `total_repeat_length=` for `repeat`), "
        "three-argument `jnp.where(c, a, b)`, data that is static or unknown, `jnp.compress`/`extract` "
        "whose condition is static, a traced argument used as the count of `jnp.repeat` (JAX401), code "
        "outside traced functions, and functions under `grad` alone."
    )
    verify = "`--verify` traces the function and expects `ConcretizationTypeError` at this line."

    def visit_Call(self, node: cst.Call) -> None:
        arguments = _arguments(node)
        if arguments is None:
            return
        positional, keywords = arguments
        qualified = self.names.qualified(node.func)
        data: list[cst.BaseExpression] = []
        if qualified in _DATA_DEPENDENT:
            positions, size = _DATA_DEPENDENT[qualified]
            one_arg_where = len(positional) == 1 and not keywords.keys() & {"x", "y"}
            if size not in keywords and (qualified != "jax.numpy.where" or one_arg_where):
                data = [positional[i] for i in positions if i < len(positional)]
        elif _is_call_to(self, node, "nonzero") and "size" not in keywords:
            size, data = "size", [node.func.value]
        for operand in data:
            value = self.facts.value_of(operand)
            if value.staged:
                fix = ("pass `length=` (the number of bins)" if size == "length" else
                       "pass `size=` with an upper bound (`fill_value=` pads the rest)")
                if qualified == "jax.numpy.where":
                    fix += ", or use the three-argument `jnp.where(cond, x, y)`"
                self._report(node, fix, operand, value)
                return
        repeats = _repeats(self, node)
        if repeats is not None and not repeats[1].container:
            self._report(node, "pass `total_repeat_length=` with the total output length", *repeats)

    def _report(self, node: cst.Call, fix: str, operand: cst.BaseExpression, value: Value) -> None:
        self.report(node, lambda line_of: (
            f"the output size of `{code(node.func)}` depends on traced data, which raises "
            f"ConcretizationTypeError: `{code(operand)}` is traced ({value.describe(code(operand), line_of)}); "
            f"{fix}"
        ))


class TracedSliceBounds(Rule):
    code = "JAX404"
    name = "traced-slice-bounds"
    summary = "A slice `x[i:j]` with a traced start, stop or step"
    what_it_does = (
        "Flags `x[i:j]`, `x[i:]`, `x[:j]`, `x[::s]` and `x.at[i:j]` where a bound is traced, inside a "
        "jitted (or vmapped, lax-body) function and the helpers it calls with traced arguments. `x` is a "
        "JAX array, or anything not known to be something else. `x[i:i + 3]` is flagged too: the size is "
        "static but the start is not."
    )
    why_bad = (
        "NumPy-style slices need static bounds: JAX raises `IndexError: Array slice indices must have "
        "static start/stop/step to be used with NumPy indexing syntax`. A window of static size at a "
        "traced position is `lax.dynamic_slice` (`lax.dynamic_update_slice` to write); a prefix of traced "
        "length has no fixed shape and needs a mask instead."
    )
    example = (
        "@jax.jit\n"
        "def window(x, start):\n"
        "    return x[start:start + 8]\n"
    )
    use_instead = (
        "@jax.jit\n"
        "def window(x, start):\n"
        "    return lax.dynamic_slice_in_dim(x, start, 8)\n"
    )
    not_flagged = (
        "A single traced index (`x[i]`, a dynamic index JAX supports), bounds computed from shapes "
        "(`x[: x.shape[0] // 2]`), static arguments, literals, slices of Python lists and tuples, NumPy "
        "arrays and shapes, code outside traced functions and functions under `grad` alone."
    )
    verify = "`--verify` traces the function and expects the `IndexError` at this line."

    def visit_Subscript(self, node: cst.Subscript) -> None:
        base, update = _indexed(node)
        if not _maybe_array(self, base):
            return
        for axis, element in enumerate(node.slice):
            bounds = element.slice
            if not isinstance(bounds, cst.Slice):
                continue
            for bound in (bounds.lower, bounds.upper, bounds.step):
                if bound is None:
                    continue
                value = self.facts.value_of(bound)
                if value.staged:
                    fix = self._fix(node, base, axis, bounds, update, _static_hint(self, value, bound, False))
                    self.report(node, lambda line_of: (
                        f"slice bounds must be static, this raises IndexError: `{code(bound)}` is traced "
                        f"({value.describe(code(bound), line_of)}); {fix}"
                    ))
                    return

    def _fix(self, node: cst.Subscript, base: cst.BaseExpression, axis: int, bounds: cst.Slice,
             update: bool, hint: str | None) -> str:
        otherwise = ", or keep the full shape and mask with `jnp.where`" + (f"; or {hint}" if hint else "")
        if update:
            return f"use `lax.dynamic_update_slice` for a window of static size at a traced start{otherwise}"
        start, stop = bounds.lower, bounds.upper
        alone = all(_whole_axis(e.slice) for i, e in enumerate(node.slice) if i != axis)
        if (alone and bounds.step is None and start is not None and isinstance(stop, cst.BinaryOperation)
                and isinstance(stop.operator, cst.Add) and stop.left.deep_equals(start)):
            size = self.facts.value_of(stop.right)
            if not size.staged:
                where = f", axis={axis}" if axis else ""
                return f"use `lax.dynamic_slice_in_dim({code(base)}, {code(start)}, {code(stop.right)}{where})`"
        return f"use `lax.dynamic_slice_in_dim` for a window of static size at a traced start{otherwise}"
