"""optax, as data (checked with optax 0.2.8 on jax 0.10.2): the calls that build a `GradientTransformation`, a
NamedTuple of closures made anew by each call, so two of them are never equal and a static argument given a
new one misses jit's cache."""

from __future__ import annotations

OPTIMIZER_FACTORIES = frozenset(
    "optax." + name
    for name in (
        "adabelief adafactor adagrad adam adamax adamaxw adamw amsgrad chain clip clip_by_global_norm fromage lamb "
        "lars lion nadam nadamw noisy_sgd novograd radam rmsprop scale scale_by_adam scale_by_schedule sgd sm3 yogi"
    ).split()
)
