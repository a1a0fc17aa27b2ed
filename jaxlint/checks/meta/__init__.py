"""Rules about the input itself rather than the code in it: reported by lint.py, not by visitors.

JAX01x: findings only `--verify` makes, from tracing with real jax. No visitors: the static pass never
runs them; they are rules so that selection, noqa, the docs and SARIF know them."""
