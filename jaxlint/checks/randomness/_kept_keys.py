"""How JAX201 and JAX202 tell of a key an object keeps (`agent.key`, drawn by its method `agent.act()`)."""


def kept_by_object(ref: str) -> bool:
    """`agent.key`: an attribute of an object whose method drew from it (a method's own `self.key` is told as any
    key is)."""
    return "." in ref and "[" not in ref and not ref.startswith("self.")


def replace_in_method(ref: str) -> str:
    attribute = ref.rpartition(".")[2]
    return (
        f"the method draws from the key the object keeps and never replaces it; replace it there at each draw "
        f"(`self.{attribute}, subkey = jax.random.split(self.{attribute})`, then draw from `subkey`)"
    )
