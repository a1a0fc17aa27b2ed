"""dm-pix, as data (checked with dm-pix 0.4.4 on jax 0.10.2): its random augmentations draw from the key they are
given first, as `jax.random` samplers do (`random_flip_left_right` flips where `jax.random.bernoulli(key, p)` says)."""

from __future__ import annotations

_AUGMENTATIONS = (
    "elastic_deformation",
    "random_brightness",
    "random_contrast",
    "random_crop",
    "random_flip_left_right",
    "random_flip_up_down",
    "random_gamma",
    "random_hue",
    "random_saturation",
)
# Functions drawing from the key given by (position, keyword).
SAMPLERS = {f"dm_pix.{name}": (0, "key") for name in _AUGMENTATIONS}
