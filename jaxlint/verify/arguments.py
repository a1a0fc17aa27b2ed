"""Arguments to trace a function with, read from its module's source (no jax here): its annotations
(`jax.Array`, jaxtyping's `Float[Array, "b n"]`, `int`...) and the calls to it whose arguments are
literals or arrays built from literals (`step(params, jnp.zeros((4, 3)), 5)`).

Both are written in the JSON forms of a recorded signature (observe.abstract), plus two forms only an
annotation gives: `{"scalar": "int"}` (a Python scalar: a value when the parameter is static, else a
scalar array) and `{"unshaped": dtype}` (an array of unknown shape: the worker tries several). The
worker builds them; dtypes are numpy's names, which it canonicalizes (float64 is float32 without x64).
"""
# No `from __future__ import annotations`: this module's `annotations` function would hide it from mypy.

import ast
from typing import Any

Form = dict[str, Any]

# Annotations that say "an array" without a shape (the last part of the dotted name).
ARRAY_TYPES = frozenset({"Array", "ndarray", "ArrayLike", "ArrayDevice", "ArrayNumpy", "Numeric"})
KEY_TYPES = frozenset({"PRNGKey", "PRNGKeyArray", "KeyArray"})
SCALAR_TYPES = frozenset({"int", "float", "bool"})
# jaxtyping's dtype markers: `Float[Array, "b n"]`.
JAXTYPING_DTYPES = {
    "Float": "float32",
    "Float16": "float16",
    "Float32": "float32",
    "Float64": "float64",
    "BFloat16": "bfloat16",
    "Inexact": "float32",
    "Real": "float32",
    "Num": "float32",
    "Shaped": "float32",
    "Int": "int32",
    "Integer": "int32",
    "Int8": "int8",
    "Int16": "int16",
    "Int32": "int32",
    "Int64": "int64",
    "UInt": "uint32",
    "UInt8": "uint8",
    "UInt16": "uint16",
    "UInt32": "uint32",
    "UInt64": "uint64",
    "Bool": "bool",
    "Complex": "complex64",
    "Complex64": "complex64",
    "Complex128": "complex128",
}
JAXTYPING_KEY = "Key"
# Sizes given to a jaxtyping dimension named by a symbol, in order of first use in a function: distinct,
# so that mixing up two dimensions shows, and none 1, which broadcasts.
SYMBOL_SIZES = (4, 6, 8, 10, 12, 14, 16, 18)

# Calls that build an array from literals: full name -> (index of the shape argument, default dtype).
# numpy's default dtypes are 64-bit; the worker canonicalizes them as jax does with its arrays.
SHAPED_MAKERS = {
    **{f"jax.numpy.{name}": (0, "float32") for name in ("zeros", "ones", "empty", "full")},
    **{f"numpy.{name}": (0, "float64") for name in ("zeros", "ones", "empty", "full")},
    **{f"jax.random.{name}": (1, "float32") for name in ("normal", "uniform", "truncated_normal")},
    "jax.random.randint": (1, "int32"),
}
KEY_MAKERS = frozenset({"jax.random.PRNGKey", "jax.random.key"})
LITERAL_MAKERS = frozenset({"jax.numpy.array", "jax.numpy.asarray", "numpy.array", "numpy.asarray"})
RANGE_MAKERS = {"jax.numpy.arange": "32", "numpy.arange": "64"}
DTYPE_NAMES = frozenset(
    {
        "float16",
        "bfloat16",
        "float32",
        "float64",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "bool",
        "complex64",
        "complex128",
    }
)
BUILTIN_DTYPES = {"float": "float64", "int": "int64", "bool": "bool", "bool_": "bool", "complex": "complex128"}
CALLS_PER_FUNCTION = 3


def dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = dotted(node.value)
        return head and f"{head}.{node.attr}"
    return None


class Aliases:
    """The module's import aliases: `jnp.zeros` -> `jax.numpy.zeros`."""

    def __init__(self, imports: list[ast.Import | ast.ImportFrom]) -> None:
        self.names: dict[str, str] = {}
        for node in imports:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self.names[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0]
                    )
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    self.names[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def full(self, node: ast.AST) -> str | None:
        name = dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        full = self.names.get(head, head)
        return f"{full}.{rest}" if rest else full


# -- annotations


class Dims:
    """The sizes of one function's symbolic dimensions, shared by all its parameters."""

    def __init__(self) -> None:
        self.sizes: dict[str, int] = {}

    def shape(self, text: str) -> list[int] | None:
        shape = []
        for token in text.split():
            name = token.lstrip("#_*")
            if token == "..." or token.startswith("*"):
                continue  # any number of dimensions: none
            if name.isdigit():
                shape.append(int(name))
            elif not name:  # `_`: any size, its own
                shape.append(self.size(f"_{len(self.sizes)}"))
            elif name.isidentifier():
                shape.append(self.size(name))
            else:
                return None  # `n+1` and other expressions: no shape is built
        return shape

    def size(self, name: str) -> int:
        if name not in self.sizes:
            self.sizes[name] = SYMBOL_SIZES[len(self.sizes) % len(SYMBOL_SIZES)]
        return self.sizes[name]


def annotation_form(node: ast.AST | None, dims: Dims) -> Form | None:
    """The form of an argument an annotation describes, or None when it says too little."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a quoted annotation
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # `X | None`
        sides = [
            side for side in (node.left, node.right) if not (isinstance(side, ast.Constant) and side.value is None)
        ]
        return annotation_form(sides[0], dims) if len(sides) == 1 else None
    if isinstance(node, ast.Subscript):
        return _subscript_form(node, dims)
    name = dotted(node) if node is not None else None
    last = name.rpartition(".")[2] if name else ""
    if last in SCALAR_TYPES:
        return {"scalar": last}
    if last in ARRAY_TYPES:
        return {"unshaped": "float32"}
    if last in KEY_TYPES:
        return {"key": []}
    return None


def _subscript_form(node: ast.Subscript, dims: Dims) -> Form | None:
    kind = (dotted(node.value) or "").rpartition(".")[2]
    items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    if kind == "Optional" and len(items) == 1:
        return annotation_form(items[0], dims)
    if kind in ("tuple", "Tuple"):
        if any(isinstance(item, ast.Constant) and item.value is Ellipsis for item in items):
            return None  # any length
        forms = [annotation_form(item, dims) for item in items]
        return {"tuple": forms} if all(f is not None for f in forms) else None
    if (
        (kind in JAXTYPING_DTYPES or kind == JAXTYPING_KEY)
        and len(items) == 2
        and isinstance(items[1], ast.Constant)
        and isinstance(items[1].value, str)
    ):
        shape = dims.shape(items[1].value)
        if shape is None:
            return None
        return {"key": shape} if kind == JAXTYPING_KEY else {"array": [shape, JAXTYPING_DTYPES[kind]]}
    return None


def annotations(node: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, Form]:
    """parameter -> form, for the parameters whose annotation says enough."""
    dims, found = Dims(), {}
    args = node.args
    for param in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        form = annotation_form(param.annotation, dims)
        if form is not None:
            found[param.arg] = form
    return found


# -- call sites

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _own_nodes(root: ast.AST) -> list[ast.AST]:
    """The nodes of a scope, not those of the functions and classes defined in it (in no set order)."""
    found, stack = [], list(ast.iter_child_nodes(root))
    while stack:
        node = stack.pop()
        found.append(node)
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))
    return found


class Scope:
    """The names a scope binds once, to something built from literals."""

    def __init__(self, root: ast.AST, nodes: list[ast.AST], aliases: Aliases, outer: "Scope | None" = None) -> None:
        self.aliases, self.outer = aliases, outer
        self.bound: dict[str, ast.AST | None] = {}  # None: bound more than once, or not by `name = ...`
        if isinstance(root, (ast.FunctionDef, ast.AsyncFunctionDef)):
            every = (*root.args.posonlyargs, *root.args.args, *root.args.kwonlyargs, root.args.vararg, root.args.kwarg)
            self.bound.update((param.arg, None) for param in every if param is not None)  # the caller's values
        for node in nodes:
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.NamedExpr))
                else [node.optional_vars]
                if isinstance(node, ast.withitem) and node.optional_vars
                else []
            )
            named = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler)
            others = (
                [node.name]
                if isinstance(node, named) and node.name
                else [a.asname or a.name.split(".")[0] for a in node.names]
                if isinstance(node, (ast.Import, ast.ImportFrom))
                else []
            )
            self.bound.update((name, None) for name in others)  # bound to something else than literals
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) and len(targets) == 1 else None
            for target in targets:
                for name in (n.id for n in ast.walk(target) if isinstance(n, ast.Name)):
                    single = isinstance(target, ast.Name) and value is not None and name not in self.bound
                    self.bound[name] = value if single else None
        self.resolving: set[str] = set()

    def name(self, name: str) -> Form | None:
        if name not in self.bound:
            return self.outer.name(name) if self.outer else None
        value = self.bound[name]
        if value is None or name in self.resolving:
            return None
        self.resolving.add(name)
        try:
            return self.form(value)
        finally:
            self.resolving.discard(name)

    def form(self, node: ast.AST) -> Form | None:
        """The form of an argument built from literals, or None."""
        if isinstance(node, ast.Constant) and (node.value is None or type(node.value) in (bool, int, float, str)):
            return {"value": node.value}
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self.form(node.operand)
            value = inner.get("value") if inner else None
            return {"value": -value} if type(value) is int or type(value) is float else None
        if isinstance(node, (ast.Tuple, ast.List)):
            forms = [self.form(item) for item in node.elts]
            kind = "tuple" if isinstance(node, ast.Tuple) else "list"
            return {kind: forms} if all(f is not None for f in forms) else None
        if isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
            if len(keys) != len(node.keys):
                return None
            entries = {key: self.form(v) for key, v in zip(keys, node.values)}
            return {"dict": entries} if all(f is not None for f in entries.values()) else None
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.Call):
            return self._made(node)
        return None

    def _made(self, call: ast.Call) -> Form | None:
        if isinstance(call.func, ast.Attribute) and call.func.attr in ("astype", "reshape") and call.args:
            inner = self.form(call.func.value)
            if not (inner and "array" in inner):
                return None
            shape, dtype = inner["array"]
            if call.func.attr == "astype":
                dtype = self.dtype(call.args[0]) if len(call.args) == 1 else None
                return {"array": [shape, dtype]} if dtype else None
            new = self.shape(call.args[0] if len(call.args) == 1 else ast.Tuple(elts=call.args))
            shape = reshaped(shape, new) if new is not None else None
            return {"array": [shape, dtype]} if shape is not None else None
        name = self.aliases.full(call.func)
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        keywords = {k.arg: k.value for k in call.keywords}
        dtype = self.dtype(keywords["dtype"]) if "dtype" in keywords else ""
        if dtype is None:
            return None
        if name in KEY_MAKERS:
            return {"key": []}
        if name in SHAPED_MAKERS:
            index, default = SHAPED_MAKERS[name]
            given = call.args[index] if len(call.args) > index else keywords.get("shape")
            shape = self.shape(given) if given is not None else [] if name.startswith("jax.random") else None
            return {"array": [shape, dtype or default]} if shape is not None else None
        if name in RANGE_MAKERS:
            return self._range(call, dtype, RANGE_MAKERS[name])
        if name in LITERAL_MAKERS and len(call.args) == 1:
            return self._literal_array(call.args[0], dtype, "32" if name.startswith("jax") else "64")
        return None

    def shape(self, node: ast.AST) -> list[int] | None:
        form = self.form(node)
        if form and "value" in form and type(form["value"]) is int:
            return [form["value"]]
        items: Any = form and (form.get("tuple") or form.get("list"))
        if items is not None and all(type(i.get("value")) is int for i in items):
            return [i["value"] for i in items]
        return [] if form in ({"tuple": []}, {"list": []}) else None

    def dtype(self, node: ast.AST) -> str | None:
        text = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else dotted(node)
        last = text.rpartition(".")[2] if text else ""
        if isinstance(node, ast.Name) and last in BUILTIN_DTYPES:
            return BUILTIN_DTYPES[last]
        if last == "bool_":
            return "bool"
        return last if last in DTYPE_NAMES else None

    def _range(self, call: ast.Call, dtype: str, bits: str) -> Form | None:
        bounds = [self.form(a) for a in call.args]
        values: list[Any] = [b.get("value") if b else None for b in bounds]
        if not 1 <= len(values) <= 3 or not all(type(v) in (int, float) for v in values):
            return None
        start, stop, step = (0, values[0], 1) if len(values) == 1 else (*values, 1)[:3]
        length = max(0, -(-(stop - start) // step)) if step else 0
        kind = "int" if all(type(v) is int for v in values) else "float"
        return {"array": [[int(length)], dtype or kind + bits]}

    def _literal_array(self, node: ast.AST, dtype: str, bits: str) -> Form | None:
        form = self.form(node)
        shape, leaves = _nested(form)
        if shape is None:
            return None
        kinds = {type(v) for v in leaves}
        if not kinds <= {bool, int, float}:
            return None
        kind = "float" if float in kinds or not kinds else "int" if int in kinds else "bool"
        return {"array": [shape, dtype or (kind + bits if kind != "bool" else "bool")]}


def reshaped(shape: list[int], new: list[int]) -> list[int] | None:
    """`new` with its one -1 worked out, when it holds as many elements as `shape`."""
    size = 1
    for dim in shape:
        size *= dim
    known = 1
    for dim in new:
        known *= dim if dim != -1 else 1
    if new.count(-1) > 1 or known == 0:
        return None
    result = [size // known if dim == -1 else dim for dim in new]
    total = 1
    for dim in result:
        total *= dim
    return result if total == size else None


def _nested(form: Form | None) -> tuple[list[int] | None, list[Any]]:
    """The shape and leaves of a nested list of numbers (a ragged one has no shape)."""
    if form is None:
        return None, []
    if "value" in form:
        return [], [form["value"]]
    items = form.get("list", form.get("tuple"))
    if items is None:
        return None, []
    if not items:
        return [0], []
    parts = [_nested(item) for item in items]
    shapes = {tuple(s) if s is not None else None for s, _ in parts}
    if None in shapes or len(shapes) > 1:
        return None, []
    return [len(items), *(parts[0][0] or [])], [leaf for _, leaves in parts for leaf in leaves]


def call_sites(tree: ast.Module, names: set[str]) -> dict[str, list[dict[str, Any]]]:
    """name -> the calls of that module-level name whose arguments are all built from literals, as
    `{"line", "args", "kwargs"}` (the first few per name in the source)."""
    imports: list[ast.Import | ast.ImportFrom] = []
    wanted: dict[ast.AST, list[ast.Call]] = {}  # scope (the module or a function) -> the calls of `names` in it
    stack: list[tuple[ast.AST, ast.AST | None]] = [(tree, tree)]
    while stack:  # one walk: most files have no call worth reading
        node, scope = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                imports.append(child)
            elif (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Name)
                and child.func.id in names
                and scope is not None
                and not any(isinstance(a, ast.Starred) for a in child.args)
                and all(k.arg is not None for k in child.keywords)
            ):
                wanted.setdefault(scope, []).append(child)
            inner = (
                child
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
                else None
                if isinstance(child, (ast.Lambda, ast.ClassDef))
                else scope
            )
            stack.append((child, inner))
    if not wanted:
        return {}
    aliases = Aliases(imports)
    found: dict[str, list[dict[str, Any]]] = {}
    module = Scope(tree, _own_nodes(tree), aliases)
    for root, calls in wanted.items():
        reader = module if root is tree else Scope(root, _own_nodes(root), aliases, module)
        for node in calls:
            assert isinstance(node.func, ast.Name)  # as gathered above
            args = [reader.form(a) for a in node.args]
            kwargs = {k.arg: reader.form(k.value) for k in node.keywords}
            if all(f is not None for f in (*args, *kwargs.values())):
                found.setdefault(node.func.id, []).append({"line": node.lineno, "args": args, "kwargs": kwargs})
    return {name: sorted(calls, key=lambda call: call["line"])[:CALLS_PER_FUNCTION] for name, calls in found.items()}


def module_names(tree: ast.Module) -> set[str]:
    """The names the module binds at its top level to functions or values (what a call site may call)."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names
