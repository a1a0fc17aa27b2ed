"""silent: "I keep the activations in a list for plotting" (UnexpectedTracerError later)"""
import jax
import jax.numpy as jnp

activations = []


@jax.jit
def layer(x):
    h = jnp.tanh(x)
    activations.append(h)
    return h


layer(jnp.ones(3))
