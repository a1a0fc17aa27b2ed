"""JAX202 key-reuse-in-loop: A PRNG key from outside a loop consumed in every iteration without being split."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.calls import argument
from jaxlint.checks.randomness._kept_keys import kept_by_object, replace_in_method
from jaxlint.checks.randomness._common import one_default_key
from jaxlint.checks.base import Rule, code
from jaxlint.model.functions import PERMUTATION, SELECTING_SAMPLERS
from jaxlint.model.keys import FIT_USES


class KeyReuseInLoop(Rule):
    code = "JAX202"
    name = "key-reuse-in-loop"
    summary = "A PRNG key from outside a loop consumed in every iteration without being split"
    what_it_does = (
        "Flags a key bound outside a `for`/`while` loop or a comprehension, or a key a `lax.scan`, "
        "`fori_loop`, `while_loop` or `lax.map` body takes from its enclosing scope, when it is consumed "
        "inside and never rebound there. A name a sampler draws from holds a key whatever it is called and "
        "wherever it came from (a dict entry, a pytree field, a carry): jax raises on anything else. A tree map "
        "(`jax.tree.map(f, tree)`) is a loop over the leaves: a key `f` draws from as it is outside `f` is "
        "flagged when the tree is known to have two leaves or more (a display of two entries or more, or a "
        "value the analysis knows: the pytree every call gives a traced parameter). So is `jax.vmap` (and "
        "`jax.pmap`): a loop over the lanes of a batch. A key the call gives where `in_axes` is `None` "
        "(`jax.vmap(add_noise, in_axes=(0, None))(xs, key)`), or one the mapped function reads from outside, is "
        "the same key in every lane, and a draw from it gives every example the same noise or dropout mask. "
        "A method that draws from a key "
        "its object keeps (`self.key`, stored by `__init__` and assigned nowhere else in the class's module) "
        "consumes that key at every call: `agent.act(obs)` in a loop draws the same noise at every step; so does "
        "a function called without the key its parameter's default makes (`def add_noise(x, key=jax.random.key(0))`: "
        "the default is made once, when the def runs). A key "
        "made in a Python loop's body from values the loop never changes (`jax.random.PRNGKey(42)` written "
        "there, `fold_in(base, step)` with `step` never advanced) is the same key in every iteration, as if "
        "made before the loop."
    )
    why_bad = (
        "Each iteration gives the sampler the same key, so each iteration draws the same numbers: the "
        "'random' dropout mask, noise or minibatch is identical every step. Nothing fails."
    )
    example = (
        "key = jax.random.key(0)\n"
        "for step in range(num_steps):\n"
        "    noise = jax.random.normal(key, x.shape)\n"
        "    x = update(x, noise)\n"
    )
    use_instead = (
        "key = jax.random.key(0)\n"
        "for step in range(num_steps):\n"
        "    key, subkey = jax.random.split(key)\n"
        "    noise = jax.random.normal(subkey, x.shape)\n"
        "    x = update(x, noise)\n\n\n"
        "# or derive one key per step:\n"
        "for step in range(num_steps):\n"
        "    noise = jax.random.normal(jax.random.fold_in(key, step), x.shape)\n"
    )
    not_flagged = (
        "Keys rebound inside the loop (`key, sub = split(key)`), `fold_in(key, i)` per step, loop variables "
        "over a split (`for k in jax.random.split(key, n)`), keys a `vmap` maps (a split of one key per lane) or "
        "that its function folds a mapped index into (`fold_in(key, i)`), keys carried through `lax.scan` as part of the "
        "carry or the scanned operands; a tree map over one array, over a tree whose leaves are not known (a "
        "parameter no call shows), or whose function takes its key as a leaf of a second tree of split keys; "
        "the first iterable of a comprehension (evaluated once); "
        "`jax.random.permutation(key, a)` of each array `a` a loop goes through (`[permutation(key, a) for a in "
        "arrays]`: every array is shuffled the same way, which keeps inputs and labels paired), or of each leaf "
        "a tree map runs on (`jax.tree.map(lambda x: jax.random.permutation(key, x), (inputs, labels))`, "
        "`x[permutation(key, n)]`); a draw whose "
        "values nobody reads (`keys = split(key, n)` only fed to jitted or vmapped functions whose results "
        "are dropped or only waited for, as a timing loop does); a draw under a test that holds in one "
        "iteration only (`for n in [0, 1]: if n == 1: y = dropout(y, key)`, over a range or a literal list of "
        "distinct values: the loop runs in Python while jax traces), or under a test of the loop's target over values "
        "the code does not show (`for task in args.tasks: if task == 0: fit(key)`: that a task comes twice is no "
        "fact); a fit (numpyro's `MCMC.run`, `SVI.run`) of "
        "something each iteration changes (`MCMC(NUTS(model)).run(key, x)` for each model of a comparison, or for "
        "each dataset): the models of a comparison fitted from one seed, on purpose; test files."
    )
    verify = "`--verify` traces with typed keys under `jax.debug_key_reuse(True)` and expects `KeyReuseError`."

    def __init__(self, facts, reporter) -> None:
        super().__init__(facts, reporter)
        self._per_leaf: set[int] = set()  # the draws told as drawn on every leaf (of a function mapped twice: once)

    def visit_Call(self, node: cst.Call) -> None:
        keys = self.facts.keys
        if self.facts.in_test_file or keys.unread(node):
            return
        per_leaf = keys.drawn_per_leaf(node)
        for expr, ref, by in per_leaf:
            if id(expr) not in self._per_leaf and keys.prior_use(ref) is None:
                self._per_leaf.add(id(expr))
                self.report(expr, _per_leaf_message(ref, by, node, self.names.qualified(node.func) or code(node.func)))
        per_lane = keys.drawn_per_lane(node)
        for expr, ref, by, transform in per_lane:
            if keys.prior_use(ref) is None:
                self.report(expr, _per_lane_message(ref, by, transform))
        told = {id(expr) for expr, *_ in (*per_leaf, *per_lane)}
        for expr, ref, by in keys.uses(node):
            if id(expr) in told:
                continue
            if by in FIT_USES and self._fits_another(node, expr):
                continue  # `MCMC(NUTS(model)).run(key)` for each model of a comparison: one seed for every fit
            if keys.prior_use(ref) is None and keys.reused_by_loop(ref) and not self._aligned_shuffle(node):
                if (default := keys.key_default(ref)) is not None:
                    self.report(
                        expr,
                        lambda line_of, by=by, default=default: (  # type: ignore[misc]
                            f"{one_default_key(default, line_of)}, and `{by}` draws from it in every "
                            f"iteration, so every iteration draws the same numbers: pass each call its own key"
                        ),
                    )
                    continue
                if keys.made_each_iteration(ref):
                    self.report(expr, _made_each_iteration(f"`{ref}` is", by))
                    continue
                advice = (
                    replace_in_method(ref)
                    if kept_by_object(ref)
                    else f"split it inside the loop (`{ref}, subkey = jax.random.split({ref})`) or use "
                    f"`jax.random.fold_in({ref}, i)`"
                )
                self.report(
                    expr,
                    f"`{ref}` comes from outside the loop and `{by}` consumes it in every iteration, so every "
                    f"iteration draws the same numbers: {advice}",
                )
        made = keys.same_key_made_here(node)
        if made is not None and made[1] in FIT_USES and self._fits_another(node, made[0]):
            return
        if made is not None and not self._aligned_shuffle(node):
            self.report(made[0], _made_each_iteration(f"`{code(made[0])}` is the same key", made[1]))

    def _fits_another(self, call: cst.Call, key: cst.BaseExpression) -> bool:
        """Whether a fit in a loop fits something the iteration changes: its sampler made from the loop's target
        (`mcmc = MCMC(NUTS(model))` in `for model in models`), or another argument read from it (`obs=data`)."""
        varies = self.facts.keys.varies_per_iteration
        owner = call.func.value if type(call.func) is cst.Attribute else None
        if type(owner) is cst.Name and (found := self.facts.binding(owner)) is not None:
            owner = found[0] if isinstance(found[0], cst.BaseExpression) else None
        return (owner is not None and varies(owner)) or any(
            arg.value is not key and varies(arg.value) for arg in call.args
        )

    def _aligned_shuffle(self, call: cst.Call) -> bool:
        """`[permutation(key, a) for a in arrays]`: one key, a different array each iteration. Each array is
        shuffled the same way, on purpose: inputs and labels stay paired."""
        if self.names.qualified(call.func) != PERMUTATION:
            return False
        array = argument(call, *SELECTING_SAMPLERS[PERMUTATION])
        return array is not None and self.facts.keys.varies_per_iteration(array)


def _made_each_iteration(subject: str, by: str) -> str:
    return (
        f"{subject} made in every iteration from values the loop never changes, so `{by}` draws the same numbers in "
        "every iteration: derive the key from the loop's counter (`jax.random.fold_in(key, i)`) or split a key the "
        "loop carries"
    )


def _per_lane_message(ref: str, by: str, transform: str) -> str:
    return (
        f"`{ref}` is not mapped by `{transform}` and `{by}` draws from it in every lane, so every lane of the batch "
        f"draws the same numbers: split it into one key per lane (`jax.random.split({ref}, n)`) and map over those"
    )


def _per_leaf_message(ref: str, by: str, tree_map: cst.Call, name: str):
    return lambda line_of: (
        f"`{ref}` comes from outside the function `{name}` at line {line_of(tree_map)} runs on every leaf, and `{by}` "
        f"consumes it on each, so every leaf draws the same numbers: split it into one key per leaf "
        f"(`jax.random.split({ref}, len(leaves))`) and map over those keys as a second tree"
    )
