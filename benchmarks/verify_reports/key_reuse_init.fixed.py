"""silent, fixed: one key each."""
import jax


def init(key, n_in, n_out):
    w_key, b_key = jax.random.split(key)
    w = jax.random.normal(w_key, (n_in, n_out))
    b = jax.random.normal(b_key, (n_out,))
    return w, b


params = init(jax.random.PRNGKey(0), 4, 2)
