"""`jaxlint --verify`: the dynamic mode. run.py drives it in the parent; only the processes it starts
(worker.py, observe.py, pytest_plugin.py) import jax and the user's code."""
