"""silent, fixed: split in the loop."""
import jax

key = jax.random.PRNGKey(42)
samples = []
for _ in range(3):
    key, subkey = jax.random.split(key)
    samples.append(jax.random.normal(subkey, (2,)))
print(samples)
