"""raises: "IndexError: Array slice indices must have static start/stop/step" when I average each sequence"""
import jax
import jax.numpy as jnp


@jax.jit
def sequence_means(batch):
    tokens, lengths = batch["tokens"], batch["lengths"]
    return jnp.stack([tokens[i, :lengths[i]].mean() for i in range(tokens.shape[0])])


if __name__ == "__main__":
    batch = {"tokens": jnp.arange(10.0).reshape(2, 5), "lengths": jnp.array([3, 5])}
    print(sequence_means(batch))
