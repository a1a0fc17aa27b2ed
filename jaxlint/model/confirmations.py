"""What confirms a finding when the code runs, by rule: the exceptions jax raises for it, and what the observers of
a run see (a tracer printed, a value frozen into a trace). `--verify` looks for these in its runs; a notebook's saved
outputs are runs too (notebook_outputs.py)."""

# code -> the (class name, message fragment) pairs that confirm it; "" matches any message.
EXPECTED: dict[str, tuple[tuple[str, str], ...]] = {
    "JAX101": (("TypeError", "immutable"),),
    "JAX104": (("AttributeError", "has no attribute"),),
    "JAX201": (("KeyReuseError", ""),),
    "JAX202": (("KeyReuseError", ""),),
    "JAX207": (("TypeError", "invalid PRNG key data"),),
    "JAX301": (("TracerBoolConversionError", ""),),
    "JAX302": (("TracerBoolConversionError", ""),),
    "JAX303": (
        ("ConcretizationTypeError", ""),
        ("TracerIntegerConversionError", ""),
        ("ValueError", "Non-hashable static arguments"),
    ),
    "JAX304": (
        ("TracerIntegerConversionError", ""),
        ("TracerArrayConversionError", ""),
        ("ConcretizationTypeError", ""),
    ),
    "JAX305": (
        ("TracerArrayConversionError", ""),
        ("ConcretizationTypeError", ""),
        ("TracerIntegerConversionError", ""),
        ("TypeError", "weak reference"),
    ),
    "JAX309": (("TypeError", "is not a valid JAX type"),),
    "JAX401": (("TypeError", "Shapes must be"), ("ConcretizationTypeError", ""), ("TracerIntegerConversionError", "")),
    "JAX402": (("NonConcreteBooleanIndexError", ""),),
    "JAX403": (("ConcretizationTypeError", ""),),
    "JAX404": (("IndexError", "Slice entries must be static"),),
    "JAX405": (("TypeError", "non-tuple sequence"), ("TypeError", "as an abstract array")),
    "JAX502": (("ValueError", "Non-hashable static arguments"),),
    "JAX512": (("TypeError", "as an abstract array"),),
    "JAX513": (("ValueError", "Jitted function has"),),
    "JAX704": (("TypeError", "unexpected keyword argument"),),
    # jax.debug.print formats its string with str.format: braces from a formatted pytree fail there.
    "JAX307": (("KeyError", ""), ("IndexError", "Replacement index"), ("ValueError", "format")),
    "JAX801": (("AttributeError", "jax"), ("ImportError", "jax"), ("TypeError", "unexpected keyword argument")),
}
# Confirmed by what the observers saw (observe.py's event kinds) rather than by an exception.
OBSERVED = {
    "print": ("JAX306", "JAX509"),
    "log": ("JAX310",),
    "debug-print": ("JAX307",),
    "host-state": ("JAX204", "JAX203"),
}
