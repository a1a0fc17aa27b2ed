"""gymnax, as data (checked with gymnax 1.0.1 on jax 0.10.2).

Its spaces draw a sample from the key given to them: `env.action_space(params).sample(key)` with one key at every
step takes the same action at every step."""

from __future__ import annotations

# Objects whose methods draw from the key given to them: the class, then each method with the key's (position,
# keyword).
KEY_DRAWING_METHODS = {
    f"gymnax.environments.spaces.{space}": {"sample": (0, "key")} for space in ("Discrete", "Box", "Dict", "Tuple")
}
