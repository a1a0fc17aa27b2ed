"""silent: "weights and biases are correlated" """
import jax


def init(key, n_in, n_out):
    w = jax.random.normal(key, (n_in, n_out))
    b = jax.random.normal(key, (n_out,))
    return w, b


params = init(jax.random.PRNGKey(0), 4, 2)
