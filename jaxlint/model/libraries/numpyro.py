"""numpyro, as data (checked with numpyro 0.22.0 on jax 0.10.2).

Its samplers and `Predictive` run the model under `jit`/`lax.map` with the model's arguments closed over: an
argument stays what the caller gave (a Python int stays one), but every array computed inside, and every
sample drawn, is a tracer (`if x.sum() > 0` and `if w > 0` raise TracerBoolConversionError). `SVI(...).update`
runs the model eagerly unless the caller jits it, so `SVI` is not here."""

from __future__ import annotations

from jaxlint.model.transform_spec import CLOSURE, TransformSpec

_SAMPLER = TransformSpec(CLOSURE, staged=True, positional_options=("kinetic_fn", "step_size"), function_keyword="model")
_KERNELS = ("NUTS", "HMC")
_OTHER_KERNELS = ("SA", "BarkerMH")

TRANSFORMS = {
    **{f"numpyro.infer.{kernel}": _SAMPLER for kernel in (*_KERNELS, *_OTHER_KERNELS)},
    **{f"numpyro.infer.hmc.{kernel}": _SAMPLER for kernel in _KERNELS},
    "numpyro.infer.Predictive": TransformSpec(
        CLOSURE, staged=True, positional_options=("posterior_samples",), function_keyword="model"
    ),
}
# Calls that give one array, but given an observation (position, keyword): then they give it back.
ARRAY_FUNCTIONS = {"numpyro.sample": (2, "obs")}
# Objects whose methods draw from the key given to them (they split it): the class, then each method with the
# key's (position, keyword). `mcmc.run(key, ...)` then `Predictive(...)(key, ...)` reuses the key.
KEY_DRAWING_METHODS = {
    "numpyro.infer.MCMC": {"run": (0, "rng_key"), "warmup": (0, "rng_key")},
    "numpyro.infer.SVI": {"run": (0, "rng_key"), "init": (0, "rng_key")},
    "numpyro.infer.Predictive": {"__call__": (0, "rng_key")},
    # An autoguide's posterior samples are drawn from the key (AutoDelta's are its point estimates, and
    # AutoGuideList's are what its parts draw).
    **{
        f"numpyro.infer.autoguide.{guide}": {"sample_posterior": (0, "rng_key")}
        for guide in (
            "AutoNormal",
            "AutoDiagonalNormal",
            "AutoMultivariateNormal",
            "AutoLowRankMultivariateNormal",
            "AutoBatchedMultivariateNormal",
            "AutoBatchedLowRankMultivariateNormal",
            "AutoLaplaceApproximation",
            "AutoIAFNormal",
            "AutoBNAFNormal",
            "AutoDAIS",
            "AutoSemiDAIS",
            "AutoSurrogateLikelihoodDAIS",
        )
    },
}
# Fits: a whole inference from one key, whose result (the samples, the optimised guide) is one experiment's. Fits of
# the models of a comparison from one seed are common random numbers, on purpose; what draws from the fit's key
# besides (its data, its predictive) is not.
FITS = frozenset({"numpyro.infer.MCMC.run", "numpyro.infer.SVI.run"})
# Families of classes whose methods draw from the key given to them, by the prefix of the class's qualified name:
# every distribution's `sample(key, sample_shape=())` (and `sample_with_intermediates`) draws from its key.
KEY_DRAWING_METHOD_FAMILIES = {
    "numpyro.distributions.": {"sample": (0, "key"), "sample_with_intermediates": (0, "key")},
}
# Distributions given by unnormalised log-probabilities: the logits' (position, keyword), no position when only a
# keyword gives them (`Categorical(probs=None, logits=None)`).
LOGITS_SAMPLERS = {
    "numpyro.distributions.Categorical": (None, "logits"),
    "numpyro.distributions.CategoricalLogits": (0, "logits"),
}
