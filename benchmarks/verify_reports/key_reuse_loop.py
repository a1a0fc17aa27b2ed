"""silent: "all my samples are identical" """
import jax

key = jax.random.PRNGKey(42)
samples = []
for _ in range(3):
    samples.append(jax.random.normal(key, (2,)))
print(samples)
