"""JAX201 prng-key-reuse: One PRNG key consumed twice: identical or correlated random draws."""

from __future__ import annotations

from typing import cast

import libcst as cst

from jaxlint.analysis.bindings import mentioned_names, parameter_names
from jaxlint.analysis.calls import argument
from jaxlint.analysis.keys import Use
from jaxlint.analysis.names import Names
from jaxlint.analysis.values import Kind
from jaxlint.checks.randomness._kept_keys import kept_by_object, replace_in_method
from jaxlint.checks.base import Rule, code
from jaxlint.checks.randomness._common import is_int_literal, one_default_key
from jaxlint.model.functions import JAX, SELECTING_SAMPLERS
from jaxlint.model.keys import FIT_USES, PARAMETER_INITIALISERS, SPLIT
from jaxlint.traversal import in_order


def _split_first(ref: str) -> str:
    if "[" in ref and not ref.endswith(("']", '"]')):  # (`rngs['dropout']`: a dict's entry, split as a key)
        return f"use another item of the split for each draw (`{ref.split('[')[0]}[i]`)"
    if kept_by_object(ref):
        return replace_in_method(ref)
    return f"split it first: `{ref}, subkey = jax.random.split({ref})` and use `subkey`"


def _back(prior: Use) -> str:
    if prior.returned:
        return f", in `{prior.returned}`, which returns it"
    return ", which hands it back as it got it" if prior.back else ""


class PrngKeyReuse(Rule):
    code = "JAX201"
    name = "prng-key-reuse"
    summary = "One PRNG key consumed twice: identical or correlated random draws"
    what_it_does = (
        "Follows each PRNG key through a function (and at module level): variables bound to "
        "`jax.random.key/PRNGKey/split/fold_in/wrap_key_data/clone`, parameters that a call in the module "
        "passes a key (whatever their name: `k`, `state`), any name a `jax.random` function draws from "
        "(jax raises on anything but a key), parameters named like keys "
        "(`key`, `rng`, `prng_key`, `*_key`, `*_rng`; see `key-names`), the items `keys[0]`, `keys[1]` of a "
        "split, and `self.<key>` in a method. A key is followed wherever it goes: into a dict with literal "
        'keys (`keys = {"init": rng}` then `keys["init"]`), a tuple or list and out by unpacking, another '
        "name, and views of one key (`key[None][0]`, `jnp.squeeze(key)`). A key made from values "
        "(`k = fold_in(rng, step)`, `key(seed)`) is the same key when it is made again from the same unchanged "
        "values, under any name; a property that splits the stored key at each read gives a new one each time. "
        "Flags a key consumed a second time, "
        "on some path, with no rebinding in between. Every `jax.random` sampler and `split` consume their key; "
        "so does a function of the same module that consumes its key parameter (directly or through its "
        "callees), at each call; a key such a function hands back as it got it (`return x + noise, key`) is the "
        "spent key (`x, key = step(x, key)` twice, or in a loop, draws the same numbers each time; kept on `self`, "
        "`self.key` of `x, self.key = self.step(x, self.key)`, it is the key the object's next call draws from "
        "again); one that draws from a key one hop away: a nested def or lambda from a key of "
        'the function around it, a function from the entry of a dict argument (`rngs["dropout"]` of '
        '`rngs={"dropout": key}`, or a dict the caller keeps: `run(meta)` twice for a `run` that splits '
        '`meta["key"]` and never stores the new key there), a method from a key its object keeps (`self.key` that `__init__` stored and '
        "nothing else in the class's module assigns: `agent.act(x)` twice draws the same bits, until the agent is "
        "handed to code of another module, which may store another key), a module-level function from a module "
        "variable it or the module-level functions it calls draw from (a jitted step whose dropout helper reads "
        "the module's `rng`: the same mask at every call), a function from the key default of a parameter a call "
        "leaves out (`def augment(x, key=jax.random.key(0))`: the default is made once, when the def runs, so "
        "`augment(a)` and `augment(b)` draw the same numbers; not where the call's arguments rule the draw out, "
        "`if train:` of a call leaving `train=False`, and for another module's function only a draw under no "
        "test of its parameters); "
        "a flax Module's `init(key, x)` and `apply(variables, x, rngs={\"dropout\": key})` (a TrainState's "
        "`apply_fn` too, and any library function given a dict of keys as `rngs=`) draw from keys `fold_in` derives from the key: two of them with one key repeat the "
        "same parameters or dropout masks, while a `split` or a sampler after one is fine, as after `fold_in`; "
        "a key given to the branches of `lax.cond`/`lax.switch` is consumed once, since "
        "one branch runs; a key in a lax loop's initial carry (`fori_loop(0, n, body, (x, key))`, `scan(body, key, "
        'xs)`, a dict carry `{"key": key}`) is consumed by the loop when its body consumes that place of the carry. '
        "In a loop, a key the body draws from before binding it again is the one the previous "
        "iteration left: consumed twice when that iteration consumed it after binding it (`key, sub = "
        "split(key)`, then a draw from `key` instead of `sub`); so is a key a lax loop body hands on in its "
        "carry after drawing from it (`return (x, key), y` after `uniform(key)`): the next iteration splits it."
    )
    why_bad = (
        "JAX's random numbers are a pure function of the key: the same key gives the same numbers. Two "
        "samplers given one key return identical (or, for different distributions, correlated) values, and "
        "using a key after splitting it correlates the parent with its children. JAX does not warn, unless "
        "typed keys and `jax_debug_key_reuse` are used at run time."
    )
    example = (
        "key = jax.random.key(0)\n"
        "w = jax.random.normal(key, (3, 3))\n"
        "b = jax.random.normal(key, (3,))  # the same numbers as w's first row\n"
    )
    use_instead = (
        "key = jax.random.key(0)\n"
        "w_key, b_key = jax.random.split(key)\n"
        "w = jax.random.normal(w_key, (3, 3))\n"
        "b = jax.random.normal(b_key, (3,))\n"
    )
    not_flagged = (
        "A key consumed once in each branch of an `if`/`else`, or under tests of one unchanged name against "
        'different literals (`if name == "a":` ... `if name == "b":`, disjoint `in` sets), which never both run; `key, sub = jax.random.split(key)` before each '
        "use; `jax.random.fold_in(key, i)`, which derives a new key without consuming `key`; in a notebook, a "
        "key used once in each of several cells (each cell restarts an experiment from the notebook's key; "
        "reuse within one cell is flagged), and a notebook's own function given the notebook's key twice in "
        "a cell (each run is its own experiment: the same simulation at two settings); distinct items of "
        "one split (`keys[0]`, `keys[1]`); one key given to `jax.random.permutation` or `jax.random.choice` for two "
        "different arrays with the same other arguments (`permutation(key, x)`, `permutation(key, y)`): they "
        "select the same places of both, the idiom for shuffling inputs and labels together (two counts are "
        "two populations, and flagged: `choice(key, len(pos), (m,))`, `choice(key, len(neg), (m,))`); one key given to "
        "the same function of the project for other arrays with the same other arguments (`features(key, x, 64)`, `features(key, y, 64)`, or "
        "`permute(key, s_ctx, s_test)`, `permute(key, f_ctx, f_test)`): "
        "one random map applied to both, as random-feature kernels need (two calls that differ in a size or a "
        "shape, `init_layer(key, 3, 8)`, `init_layer(key, 8, 1)`, are still flagged); a model's parameters made again "
        "with the same key and inputs for a target network (`params=q.init(key, obs)`, then "
        "`target_params=q.init(key, obs)`, or a name with `target` in it): RL's target networks start as an exact "
        "copy, on purpose (twin critics made so are still flagged); a literal seed written again (`PRNGKey(0)` for the "
        "data and again for the noise): as often on purpose as not (a benchmark's inputs, a demo, a book's cells); "
        "one split written twice, each indexed at another "
        "place (`split(seed)[0]`, then `split(seed)[1]`): the same keys, a different one for each draw; two fits (numpyro's `MCMC.run`, `SVI.run`) from one "
        "key, the models of a comparison fitted from one seed on purpose (a fit's key given to its predictive or "
        "its data is still flagged); a first draw bound "
        "to a name that nothing reads before a `return` holding the second (`theta = uniform(key)`, then "
        "`if n == 1: return uniform(key)`), or before a statement holding the second that binds that name again "
        "without reading it (`p = normal(key)`, then `if clip: p = clip(normal(key), 0, 1)`): on that path the first is "
        "dropped, so the two never meet; a first "
        "draw bound to names that are all bound again before anything reads them (`eval_keys = split(key, 4)` "
        "before a loop that does `key, *eval_keys = split(key, 5)` and only then evaluates; at module level, "
        "bound again in the same block), or a helper's `jax.random` call whose results the helper never reads "
        "(`key_a, key_b = split(key)` with neither used): its numbers are never seen (the draw after it is then the "
        "first that counts: two draws after an unread split are flagged); a helper that draws only "
        "to fill in a parameter the call gives a value (`if inds is None: inds = permutation(key, n)` of "
        "`permute(key, x, inds)`): whether it draws is that value's; the alternatives of `lax.select`/`select_n`/`jnp.where` (each "
        "element comes from one of them); two draws in a loop body one of which nobody reads (a warm-up "
        "run of a jitted function before the timed one); keys passed to functions of other modules (jaxlint cannot see "
        "whether they consume them); a key rebound by an unknown call. Test files (`test_*.py`, `*_test.py`, "
        "`conftest.py`, files under `tests/`), where reusing a key is how a test reproduces the same draws "
        "to compare two computations."
    )
    verify = "`--verify` traces with typed keys under `jax.debug_key_reuse(True)` and expects `KeyReuseError`."

    def __init__(self, facts, reporter) -> None:
        super().__init__(facts, reporter)
        self._reported: set[int] = set()  # the key arguments reported: a loop's next iteration tells no more
        self._orders: dict[int, list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]]] = {}  # by the scope's id
        # (key, a first draw nobody sees) -> the draw after it that counts in its place
        self._stand_ins: dict[tuple[str, int], Use] = {}

    def leave_Call(self, node: cst.Call) -> None:
        """Asked when the call is left: Python evaluates its arguments first (`lax.cond(uniform(key) < p, lambda _:
        randint(key, ...), ...)` draws from `key` before the branch does), and the key analysis records the call's
        own draws after the rules have seen it."""
        if self.facts.in_test_file:
            return
        keys = self.facts.keys
        seen: dict[str, str] = {}
        for expr, ref, by in keys.uses(node):
            prior = keys.prior_use(ref, expr)
            if prior is not None and (ref, id(prior.node)) in self._stand_ins:
                prior = self._stand_ins[(ref, id(prior.node))]  # the first draw whose numbers are seen
            if prior is not None and keys.unread(node):
                continue  # one of the two draws is never read: a warm-up run before a timed one
            if prior is not None and (
                isinstance(prior.node, cst.Call) and keys.unread(prior.node) or self._rebound_before_read(prior.node)
            ):
                # the first draw's numbers are never seen (a warm-up run, `keys = split(key, n)` bound again before
                # any read, `w_key, b_key = split(key)` never read): this one counts in its place for the draws after
                self._stand_ins.setdefault((ref, id(prior.node)), Use(node, by))
                continue
            if (
                prior is not None
                and _paired_selection(prior.node, node, self.names, self.facts.value_of)
                and not self._selects_from_first(prior.node, node)
            ):
                continue  # `permutation(key, x)`, `permutation(key, y)`: two arrays shuffled together
            if prior is not None and self._same_transform_of_two_arrays(prior.node, node):
                continue  # `features(key, x)`, `features(key, y)`: one random map applied to both
            if prior is not None and by in FIT_USES and prior.by in FIT_USES:
                continue  # `mcmc_a.run(key, x)`, `mcmc_b.run(key, x)`: the models of a comparison fitted from one seed
            if prior is not None and self._other_half(prior.node, node):
                continue  # `split(seed)[0]` and `split(seed)[1]`: one split written twice, a half for each
            if prior is not None and self._target_copy(prior.node, node):
                continue  # `params=q.init(key, obs)`, `target_params=q.init(key, obs)`: a copy, on purpose
            if prior is not None and self._dropped_before_return(prior.node, node):
                continue  # `theta = uniform(key)`, then `if n == 1: return uniform(key)`: never combined
            if prior is not None and (made := keys.made_from_values(ref)) is not None:
                self._reported.add(id(expr))
                self.report(
                    expr,
                    lambda line_of, ref=ref, by=by, prior=prior, made=made: (  # type: ignore[misc]  # (as below)
                        f"`{ref}` is `{made}` made again from the same values, which `{prior.by}` already consumed "
                        f"at line {line_of(prior.node)}; `{by}` {_reuse(by, prior.by)}: make distinct keys "
                        f"(`jax.random.split`, or `fold_in` of different data)"
                    ),
                )
            elif prior is not None and (default := keys.key_default(ref)) is not None:
                self._reported.add(id(expr))
                self.report(
                    expr,
                    lambda line_of, by=by, prior=prior, default=default: (  # type: ignore[misc]
                        f"{one_default_key(default, line_of)}: `{prior.by}` drew from it at line "
                        f"{line_of(prior.node)}, and `{by}` {_reuse(by, prior.by)}: pass each call its own key"
                    ),
                )
            elif prior is not None:
                self._reported.add(id(expr))
                self.report(
                    expr,
                    lambda line_of, ref=ref, by=by, prior=prior: (  # type: ignore[misc]  # mypy cannot infer a lambda whose extra parameters have defaults
                        f"`{ref}` was already consumed by `{prior.by}` at line {line_of(prior.node)}{_back(prior)}; "
                        f"`{by}` {_reuse(by, prior.by)}: {_split_first(ref)}"
                    ),
                )
            elif ref in seen and not keys.folded_apart(expr):  # (one key for two streams of a flax Module's call)
                self.report(
                    expr, (f"`{ref}` is consumed twice by this call (`{seen[ref]}` and `{by}`): {_split_first(ref)}")
                )
            seen[ref] = by

    def leave_Assign(self, node: cst.Assign) -> None:
        if self.facts.in_test_file:
            return
        for place, ref, use in self.facts.keys.spent_stores(node):
            self.report(
                place,
                lambda line_of, place=place, ref=ref, use=use: (  # type: ignore[misc]  # (as in visit_Call)
                    f"`{code(place)}` gets back `{ref}` after `{use.by}` consumed it at line {line_of(use.node)} (it "
                    f"hands the key back as it got it): the next draw from `{code(place)}` repeats those numbers; "
                    "store a key the call splits off instead"
                ),
            )

    def leave_For(self, node: cst.CSTNode) -> None:
        if self.facts.in_test_file:
            return
        keys = self.facts.keys
        for expr, ref, by, prior in keys.consumed_again(node):
            if id(expr) in self._reported or isinstance(prior.node, cst.Call) and keys.unread(prior.node):
                continue  # told already (an inner loop's), or the previous iteration's draw is never read
            self._reported.add(id(expr))
            self.report(
                expr,
                lambda line_of, ref=ref, by=by, prior=prior: (  # type: ignore[misc]  # (as in visit_Call)
                    f"`{ref}` was already consumed by `{prior.by}` at line {line_of(prior.node)} in the previous "
                    f"iteration{_back(prior)}; `{by}` {_reuse(by, prior.by)}: draw from a key split off it, and keep `{ref}` "
                    "only for the next split"
                ),
            )

    leave_While = leave_FunctionDef = leave_For

    def _same_transform_of_two_arrays(self, first: cst.CSTNode, second: cst.Call) -> bool:
        """Two calls of one function of the project that differ only in arrays they are given
        (`_gaussian_kernel(rng, x, rank)`, `_gaussian_kernel(rng, y, rank)`; `permute(rng, s_ctx, s_test)`,
        `permute(rng, f_ctx, f_test)`): the same random map applied to other arrays, on purpose (random features
        must be shared for `k(x) @ k(y).T` to approximate a kernel; one permutation keeps locations and values
        paired). Not for jax.random's samplers (`normal(key, shape_a)`, `normal(key, shape_b)` draw the same bits)."""
        qualified = self.names.qualified(second.func)
        if not isinstance(first, cst.Call) or qualified is not None and qualified.startswith(JAX):
            return False
        if code(first.func, 10_000) != code(second.func, 10_000) or _keywords(first) != _keywords(second):
            return False
        differing = [
            (a.value, b.value)
            for a, b in zip(first.args, second.args)
            if code(a.value, 10_000) != code(b.value, 10_000)
        ]
        if not differing or any(self._result_of(first, given) for _, given in differing):
            return False  # `y = jitter(x, key)` then `jitter(y, key)`: one map applied twice, the same noise again
        # Arrays, as they are here; the first call's may be bound to what it gave since (`s, t = permute(key, s, t)`).
        return all(
            type(before) is cst.Name
            and (self._result_of(first, before) or self.facts.value_of(before).kind in (Kind.ARRAY, Kind.TRACED))
            and type(now) is cst.Name
            and self.facts.value_of(now).kind in (Kind.ARRAY, Kind.TRACED)
            for before, now in differing
        )

    def _other_half(self, first: cst.CSTNode, second: cst.Call) -> bool:
        """Two equal splits of one key, each indexed at a different literal place (`split(seed)[0]`, then
        `split(seed)[1]`): split is a pure function, so both give the same keys, and each draw takes another one."""
        if not (
            isinstance(first, cst.Call)
            and self.names.qualified(second.func) == SPLIT
            and code(first, 10_000) == code(second, 10_000)
        ):
            return False
        places = {
            id(node): _literal_index(ancestors[-1], node) if ancestors else None
            for node, ancestors in self._scope_in_order()
            if node is first or node is second
        }
        one, other = places.get(id(first)), places.get(id(second))
        return one is not None and other is not None and one != other

    def _target_copy(self, first: cst.CSTNode, second: cst.Call) -> bool:
        """A model's parameters made again with the same key and inputs for a target network (`params=q.init(key,
        obs)`, then `target_params=q.init(key, obs)`): RL's target networks start as an exact copy of the online one,
        on purpose (CleanRL's DQN, DDPG, TD3, SAC). Two online networks made so (twin critics) are still flagged."""
        func = second.func
        if not (
            type(func) is cst.Attribute
            and func.attr.value in PARAMETER_INITIALISERS
            and isinstance(first, cst.Call)
            and code(first, 10_000) == code(second, 10_000)
        ):
            return False
        order = self._scope_in_order()
        return any(_for_target(ancestors) for node, ancestors in order if node is first or node is second)

    def _result_of(self, call: cst.CSTNode, name: cst.BaseExpression) -> bool:
        """Whether `name` is bound to what `call` gives, or to a part of it (`name = call`, `name, other = call`)."""
        return type(name) is cst.Name and any(
            type(node) is cst.Assign
            and node.value is call
            and any(bound.value == name.value for t in node.targets for bound in _target_name_nodes(t.target))
            for node, _ in self._function_in_order() or ()
        )

    def _function_in_order(self) -> list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] | None:
        """Everything in the body of the function around this point, in source order (`in_order`)."""
        function = next((n for n in reversed(self.facts.chain) if isinstance(n, cst.FunctionDef)), None)
        return None if function is None else self._in_order(function.body)

    def _scope_in_order(self) -> list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]]:
        """The same for the module when this point is at module level (a script, a notebook)."""
        order = self._function_in_order()
        return order if order is not None else self._in_order(self.facts.chain[0])

    def _in_order(self, node: cst.CSTNode) -> list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]]:
        if id(node) not in self._orders:  # (asked at each key used again: walked once)
            self._orders[id(node)] = list(in_order(node))
        return self._orders[id(node)]

    def _dropped_before_return(self, first: cst.CSTNode, second: cst.Call) -> bool:
        """Whether the first draw is bound to a name that nothing reads from there to the statement holding the
        second, which drops it: a `return`, or a binding of that name that does not read it (`p = normal(key)`, then
        `if clip: p = clip(normal(key), 0, 1)`), with no loop around either: wherever both run, the first draw's
        numbers are dropped unseen."""
        order = self._function_in_order()
        if order is None:
            return False
        where = {id(node): (index, ancestors) for index, (node, ancestors) in enumerate(order)}
        if id(first) not in where or id(second) not in where:
            return False
        (_, first_around), (_, second_around) = where[id(first)], where[id(second)]
        if any(isinstance(n, _LOOPS) for n in (*first_around, *second_around)):
            return False
        bound = next((n for n in reversed(first_around) if isinstance(n, cst.SimpleStatementLine)), None)
        ending = next((n for n in reversed(second_around) if isinstance(n, cst.SimpleStatementLine)), None)
        if bound is None or ending is None or len(ending.body) != 1:
            return False
        name = _assigned_name(bound)
        if name is None:
            return False
        start, end = where[id(bound)][0], where[id(ending)][0]
        if isinstance(ending.body[0], cst.Return):
            end += sum(1 for _ in in_order(ending))  # (the return must not read it either)
        elif _assigned_name(ending) != name or name in mentioned_names(cast(cst.Assign, ending.body[0]).value):
            return False
        after_bound = start + sum(1 for _ in in_order(bound))
        return start < end and not any(
            isinstance(node, cst.Name) and node.value == name for node, _ in order[after_bound:end]
        )

    def _selects_from_first(self, first: cst.CSTNode, second: cst.Call) -> bool:
        """Whether the second selection's array is made from what the first one gave (`a = permutation(k, x)`,
        then `permutation(k, concatenate((a, y)))`): the same places again of an array already shuffled, not two
        arrays kept in step (SocialJax's spawn positions, first look round 74)."""
        qualified = self.names.qualified(second.func)
        if qualified not in SELECTING_SAMPLERS:
            return False
        array = argument(second, *SELECTING_SAMPLERS[qualified])
        drawn = self._assigned_from(first)
        if array is None or drawn is None:
            return False
        given = {name.value for target in drawn[2].targets for name in _target_name_nodes(target.target)}
        read = set(mentioned_names(array))
        if type(array) is cst.Name:
            found = self.facts.binding(array)
            if found is not None and isinstance(found[0], cst.BaseExpression):
                read |= mentioned_names(found[0])
        return bool(read & given)

    def _assigned_from(self, first: cst.CSTNode) -> tuple[int, cst.SimpleStatementLine, cst.Assign] | None:
        """The statement `name = <first>` that binds what the first draw gives (its place in the scope's order, its
        line, the assignment), when the draw is all that the assignment's value is."""
        order = self._scope_in_order()
        start = next((index for index, (node, _) in enumerate(order) if node is first), None)
        if start is None:
            return None
        line = next((n for n in reversed(order[start][1]) if isinstance(n, cst.SimpleStatementLine)), None)
        statement = line.body[0] if line is not None and len(line.body) == 1 else None
        if line is None or not (isinstance(statement, cst.Assign) and statement.value is first):
            return None
        return start, line, statement

    def _rebound_before_read(self, first: cst.CSTNode) -> bool:
        """Whether the first draw is bound to names (`keys = split(key, n)`) that are each bound again before
        any read of them: in a block around the read, above it (Mava's trainers split an evaluation key once
        before their loop, then split it again in the loop before the evaluation uses it). Its numbers are
        never seen, so drawing from the same key again repeats nothing anyone sees."""
        order = self._scope_in_order()
        found = self._assigned_from(first)
        if found is None:
            return False
        start, assign, statement = found
        if any(isinstance(n, _LOOPS) for n in order[start][1]):
            return False  # (in a loop, the next iteration may read what this one drew)
        drawn = {id(name): name.value for target in statement.targets for name in _target_name_nodes(target.target)}
        # later bindings, by name: the nodes around their lines, and the line
        stores: dict[str, list[tuple[cst.CSTNode, ...]]] = {}
        # A module's globals are what it exports: there each must be bound again in the draw's own block.
        around = order[start][1]
        unbound = set(drawn.values()) if self._function_in_order() is None else set()
        for node, ancestors in order[start + 1 :]:
            if type(node) is not cst.Name or node.value not in drawn.values() or id(node) in drawn:
                continue
            if _shadowed(node.value, ancestors):
                continue  # a parameter of a lambda or def inside (`lambda x, _: ...`), or a read of one
            block = _binding_block(node, ancestors)
            if block is not None:
                stores.setdefault(node.value, []).append(block)
                if block[:-1] == around[: around.index(assign)]:
                    unbound.discard(node.value)
            elif not any(
                len(block) < len(ancestors)
                and all(a is b for a, b in zip(block, ancestors))
                and ancestors[len(block)] is not line
                for *block, line in stores.get(node.value, ())
            ):
                return False  # a read the first draw may reach (the binding's own line reads first)
        return bool(drawn) and not unbound


def _literal_index(parent: cst.CSTNode, value: cst.CSTNode) -> int | None:
    """The place `value[i]` takes, when `parent` indexes `value` with a non-negative integer written there."""
    if type(parent) is not cst.Subscript or parent.value is not value or len(parent.slice) != 1:
        return None
    index = parent.slice[0].slice
    return int(index.value.value, 0) if type(index) is cst.Index and type(index.value) is cst.Integer else None


def _for_target(ancestors: tuple[cst.CSTNode, ...]) -> bool:
    """Whether what a call gives (or an item or attribute of it) goes to a target network: a keyword argument or an
    assigned name that says so (`target_params=`, `qf1_target = `)."""
    for node in reversed(ancestors):
        if type(node) is cst.Arg:
            return node.keyword is not None and _TARGET in node.keyword.value.lower()
        if type(node) is cst.Assign:
            return any(_TARGET in code(target.target, 200).lower() for target in node.targets)
        if type(node) not in (cst.Subscript, cst.SubscriptElement, cst.Index, cst.Attribute):
            return False
    return False


_TARGET = "target"


def _assigned_name(line: cst.SimpleStatementLine) -> str | None:
    """The one name a line binds, when it is `name = value` and nothing else."""
    assign = line.body[0] if len(line.body) == 1 else None
    if isinstance(assign, cst.Assign) and len(assign.targets) == 1 and type(assign.targets[0].target) is cst.Name:
        return assign.targets[0].target.value
    return None


def _binding_block(name: cst.Name, ancestors: tuple[cst.CSTNode, ...]) -> tuple[cst.CSTNode, ...] | None:
    """For a name an assignment binds, the nodes around the assignment's line (its block and what encloses
    it) and the line itself, last; None for a name read."""
    for index in range(len(ancestors) - 1, -1, -1):
        node = ancestors[index]
        if type(node) is cst.AssignTarget:
            if not any(bound is name for bound in _target_name_nodes(node.target)):
                return None
            line = next(i for i in range(index, -1, -1) if type(ancestors[i]) is cst.SimpleStatementLine)
            return ancestors[: line + 1]
        if isinstance(node, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            return None
    return None


def _shadowed(name: str, ancestors: tuple[cst.CSTNode, ...]) -> bool:
    """Whether a nested lambda or def around this point has a parameter `name`: there it is another variable."""
    return any(
        type(around) in (cst.Lambda, cst.FunctionDef)
        and name in parameter_names(cast("cst.Lambda | cst.FunctionDef", around).params)
        for around in ancestors
    )


def _target_name_nodes(target: cst.BaseExpression) -> list[cst.Name]:
    """The Name nodes an assignment target binds (`a`, `a, *b`, `(a, b)`), not those it reads (`a[i]`, `a.b`)."""
    if type(target) is cst.Name:
        return [target]
    if type(target) is cst.StarredElement:
        return _target_name_nodes(target.value)
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _target_name_nodes(element.value)]
    return []


_LOOPS = (cst.For, cst.While, cst.BaseComp, cst.Lambda)


def _paired_selection(first: cst.CSTNode, second: cst.Call, names: Names, value_of) -> bool:
    """Two calls of one selecting sampler (`SELECTING_SAMPLERS`) that differ only in the array they
    select from: the same places of two arrays, on purpose (`permutation(key, len(x))` and `permutation(key, x)`
    too: one order). Not two counts (`choice(key, len(pos), (m,))`, `choice(key, neg.shape[0], (m,))`: indices into
    two populations, drawn from the same bits)."""
    qualified = names.qualified(second.func)
    if (
        qualified not in SELECTING_SAMPLERS
        or not isinstance(first, cst.Call)
        or names.qualified(first.func) != qualified
    ):
        return False
    position, keyword = SELECTING_SAMPLERS[qualified]
    one, other = (argument(call, position, keyword) for call in (first, second))
    if (
        one is None
        or other is None
        or is_int_literal(one)
        or is_int_literal(other)
        or _count(one, value_of)
        and _count(other, value_of)
        or code(one, 10_000) == code(other, 10_000)
    ):
        return False
    return _other_arguments(first, one) == _other_arguments(second, other)


def _count(expr: cst.BaseExpression, value_of) -> bool:
    """A number of items rather than an array: a Python int the analysis knows, `len(x)`, `x.shape[i]`, `x.size`."""
    if value_of(expr).number == "int":
        return True
    if type(expr) is cst.Call and type(expr.func) is cst.Name and expr.func.value == "len":
        return True
    if type(expr) is cst.Subscript and type(expr.value) is cst.Attribute and expr.value.attr.value == "shape":
        return True
    return type(expr) is cst.Attribute and expr.attr.value == "size"


def _keywords(call: cst.Call) -> list[str | None]:
    """Each argument's keyword, None for a positional one."""
    return [arg.keyword.value if arg.keyword else None for arg in call.args]


def _other_arguments(call: cst.Call, array: cst.BaseExpression) -> list[tuple[str | None, str]]:
    """The arguments of `call` other than `array`, as (keyword, source text)."""
    return [
        (arg.keyword.value if arg.keyword else None, code(arg.value, 10_000))
        for arg in call.args
        if arg.value is not array
    ]


def _reuse(by: str, before: str) -> str:
    """What a second use of one key does. Two draws get the same random bits; with a split on either
    side (jax 0.10's partitionable threefry) the bits differ, but both come from the one key."""
    if "split" in (by.rsplit(".", 1)[-1], before.rsplit(".", 1)[-1]):
        return "draws from the same key again (correlated randomness: jax's key-reuse checker rejects it)"
    return "gets the same random bits"
