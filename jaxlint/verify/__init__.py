"""`jaxlint --verify`: the dynamic mode. run.py drives it; only worker.py (in its own process) imports jax."""
