"""raises: "TracerBoolConversionError when I jit my activation function" """
import jax


def leaky_relu(x, slope=0.01):
    if x > 0:
        return x
    return slope * x


print(jax.jit(leaky_relu)(3.0))
