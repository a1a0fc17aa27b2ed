"""distrax, and the JAX substrate of TensorFlow Probability, as data: their distributions draw from the key given as
`seed` (`pi.sample(seed=key)`, keyword-only in distrax, the second parameter in tfp), as a `jax.random` sampler
does; a key drawn from before is reused there."""

from __future__ import annotations

_SAMPLING = {"sample": (1, "seed"), "sample_and_log_prob": (1, "seed")}

KEY_DRAWING_METHOD_FAMILIES = {
    "distrax.": _SAMPLING,
    "tensorflow_probability.substrates.jax.distributions.": _SAMPLING,
}
