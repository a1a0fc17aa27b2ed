"""Each rule's code, name and default, for the command line: reading this never imports the rule
classes and libcst, so a run that finds every file in the cache never does.

Generated from the rule classes by `python -m jaxlint.catalog`: do not edit.
"""


def rule_url(docs_url: str | None, code: str) -> str | None:
    """A rule's page from the `docs-url` setting (a template with `{code}`); None without one: jaxlint
    has no published pages, so it never invents a link."""
    return None if docs_url is None else docs_url.replace("{code}", code)


# (code, name, on by default)
RULES = (
    ("JAX001", "syntax-error", True),
    ("JAX002", "unused-noqa", False),
    ("JAX003", "unreadable-file", True),
    ("JAX101", "in-place-update", True),
    ("JAX102", "discarded-functional-update", True),
    ("JAX103", "augmented-assign-not-in-place", True),
    ("JAX104", "missing-at", True),
    ("JAX201", "prng-key-reuse", True),
    ("JAX202", "key-reuse-in-loop", True),
    ("JAX203", "constant-key-in-traced", True),
    ("JAX204", "stateful-rng-in-traced", True),
    ("JAX205", "legacy-prng-key", False),
    ("JAX206", "categorical-of-probabilities", True),
    ("JAX207", "number-array-as-key", True),
    ("JAX301", "python-control-flow-on-tracer", True),
    ("JAX302", "python-logic-on-tracer", True),
    ("JAX303", "tracer-concretization", True),
    ("JAX304", "tracer-as-python-index", True),
    ("JAX305", "numpy-on-tracer", True),
    ("JAX306", "print-in-traced", True),
    ("JAX307", "debug-print-fstring", True),
    ("JAX308", "tracer-leak", True),
    ("JAX309", "iterator-in-traced-loop", True),
    ("JAX310", "log-in-traced", False),
    ("JAX401", "traced-shape", True),
    ("JAX402", "boolean-mask-index", True),
    ("JAX403", "data-dependent-size", True),
    ("JAX404", "traced-slice-bounds", True),
    ("JAX405", "sequence-index", True),
    ("JAX501", "jit-recreated", True),
    ("JAX502", "unhashable-static-arg", True),
    ("JAX503", "jit-method-self", True),
    ("JAX504", "donated-buffer-reuse", True),
    ("JAX505", "timing-without-sync", True),
    ("JAX506", "stale-global-capture", True),
    ("JAX507", "donate-by-keyword", True),
    ("JAX508", "state-mutation-in-traced", True),
    ("JAX509", "print-at-trace-time", False),
    ("JAX510", "static-arg-recreated", True),
    ("JAX511", "shape-changes-in-loop", True),
    ("JAX512", "non-array-jit-argument", True),
    ("JAX513", "jit-spec-not-in-signature", True),
    ("JAX514", "stale-attribute-capture", True),
    ("JAX601", "grad-non-scalar", True),
    ("JAX602", "grad-integer-input", True),
    ("JAX603", "vmap-in-axes-arity", True),
    ("JAX604", "reverse-mode-while-loop", True),
    ("JAX605", "where-nan-gradient", True),
    ("JAX606", "zero-gradient", True),
    ("JAX701", "float64-without-x64", True),
    ("JAX702", "non-array-input", True),
    ("JAX703", "lax-mixed-dtypes", True),
    ("JAX704", "unexpected-keyword", True),
    ("JAX801", "removed-api", True),
    ("JAX802", "deprecated-api", True),
    ("JAX010", "verify-trace-error", True),
    ("JAX011", "verify-tracer-leak", True),
    ("JAX012", "verify-key-reuse", True),
    ("JAX013", "verify-recompile", True),
)
