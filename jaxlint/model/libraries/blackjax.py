"""blackjax: its sampling algorithms (`blackjax.nuts(logdensity, step_size, inverse_mass_matrix)`) and adaptations
(`blackjax.window_adaptation(blackjax.nuts, logdensity)`) are objects whose `step(rng_key, state, ...)` and
`run(rng_key, position, num_steps)` draw from the key they are given (blackjax 1.x)."""

from __future__ import annotations

_SAMPLING_ALGORITHMS = (
    "additive_step_random_walk",
    "adjusted_mclmc",
    "adjusted_mclmc_dynamic",
    "barker_proposal",
    "csgld",
    "dynamic_hmc",
    "elliptical_slice",
    "ghmc",
    "hmc",
    "irmh",
    "mala",
    "marginal_latent_gaussian",
    "mclmc",
    "normal_random_walk",
    "nuts",
    "orbital_hmc",
    "rmh",
    "rmhmc",
    "sghmc",
    "sgld",
    "sgnht",
)
_ADAPTATIONS = ("chees_adaptation", "meads_adaptation", "pathfinder_adaptation", "window_adaptation")

KEY_DRAWING_METHODS = {
    **{f"blackjax.{name}": {"step": (0, "rng_key")} for name in _SAMPLING_ALGORITHMS},
    **{f"blackjax.{name}": {"run": (0, "rng_key")} for name in _ADAPTATIONS},
}
