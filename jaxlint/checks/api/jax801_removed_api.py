"""JAX801 removed-api: An API that jax has removed: the code fails with AttributeError or ImportError."""

from __future__ import annotations

from jaxlint.checks.api._common import ApiUses


class RemovedApi(ApiUses):
    code = "JAX801"
    name = "removed-api"
    status = "removed"
    summary = "An API that jax has removed: the code fails with AttributeError or ImportError"
    what_it_does = (
        "Flags every use of a JAX API that the target jax version no longer has: `jax.tree_map`, "
        "`jax.tree_multimap`, `jax.ops.index_update`, `jax.numpy.DeviceArray`, `jax.experimental.stax`, "
        "`from jax.config import config`, `jnp.product` and every other public name a jax release since "
        "0.2.0 removed (jaxlint/data/removed_apis.toml, generated from the source of every release by "
        "scripts/removed_apis.py), through any spelling: attribute access (`jax.tree_map`, `jnp.round_`), "
        "aliases (`import jax as j; j.tree_map`), `import a.b as c`, `from a import b`, submodules "
        "(`jax.experimental.host_callback.call`), annotations (`x: jnp.DeviceArray`) and "
        '`getattr(jax, "tree_map")` with a literal name. Removed methods and attributes of arrays '
        "(`x.device_buffer`, `x.device_buffers`, `x.to_py()`, `x.split(...)`, `x.layout`) are flagged where "
        "jaxlint knows `x` is a jax array: a `jnp.*` result, an argument of a traced function, a `jax.Array` "
        "annotation. A keyword a function took in older releases and no longer takes (`jnp.clip(x, a_min=0)`, "
        "`jnp.reshape(x, newshape=s)`, `jnp.percentile(x, q, interpolation=...)`, `jnp.absolute(x=v)`; the `keyword` "
        "rows of the same table, read from each release's def of the function) is flagged where it is given. "
        "The target is `target-jax-version` in "
        "`[tool.jaxlint]` (or `--target-version`), else the lowest jax the project's dependencies allow "
        '(`jax>=0.4.20,<0.5`: 0.4.20) in `pyproject.toml` (`[project]` or poetry\'s `jax = "^0.3.10"`) '
        "and `requirements*.txt`, else the newest release jaxlint knows. The message names the "
        "version that removed it and the replacement. In an annotation that `from __future__ import "
        "annotations` leaves unevaluated, the message says what fails: not the program, but "
        "`typing.get_type_hints` and the documentation tools that evaluate annotations."
    )
    why_bad = (
        "Upgrading jax turns these into `AttributeError` or `ImportError`, often at import time, so that "
        "nothing in the module runs. They are the most common reason code written for an older jax breaks."
    )
    example = (
        "import jax\n"
        "import jax.numpy as jnp\n"
        "from jax.experimental import stax\n\n"
        "def scale(tree, x: jnp.DeviceArray):\n"
        "    y = jax.ops.index_update(x, 0, 1.0)\n"
        "    return jax.tree_map(lambda leaf: leaf * jnp.product(y), tree)\n"
    )
    use_instead = (
        "import jax\n"
        "import jax.numpy as jnp\n"
        "from jax.example_libraries import stax\n\n"
        "def scale(tree, x: jax.Array):\n"
        "    y = x.at[0].set(1.0)\n"
        "    return jax.tree.map(lambda leaf: leaf * jnp.prod(y), tree)\n"
    )
    not_flagged = (
        "The replacements (`jax.tree.map`, `jax.tree_util.tree_map`), your own functions that happen to "
        "share a name (`def tree_map(...)`), names jaxlint cannot trace to an import of jax, and "
        "compatibility code: inside a `try` whose `except` catches `ImportError` or `AttributeError`, "
        'under an `if` that tests `hasattr(...)` or a version, or `getattr(jax, "name", default)`. A '
        "module whose name now means something else is flagged only where an import names it as a module "
        "(`jax.config.update(...)` is fine, `from jax.config import config` is not). APIs removed after the "
        "target version are reported by JAX802 while still deprecated there, and not at all before that. "
        "An attribute such as `obj.device_buffer` or `obj.to_py()` on an object jaxlint does not know to be "
        "a jax array, and array methods that still exist (`x.copy_to_host_async()`, `x.device`, "
        "`x.block_until_ready()`)."
    )
    fix_safety = (
        "Safe where the replacement is a pure rename: `jax.tree_map` -> `jax.tree.map`, "
        "`tree_multimap` -> `jax.tree_util.tree_map`, `DeviceArray` -> `jax.Array`, `jax.experimental.stax` "
        "-> `jax.example_libraries.stax`, `jnp.product` -> `jnp.prod` and the like, keeping your spelling "
        "(`jnp.round_` -> `jnp.round`); an import is rewritten so that the name it binds keeps working "
        "(`from jax import tree_map` -> `from jax.tree import map as tree_map`); `import jax` is added once "
        "when the replacement needs it. `jax.ops.index_update(x, idx, v)` becomes `x.at[idx].set(v)` (and "
        "`index_add`/`mul`/`min`/`max` become `.add`/`.multiply`/`.min`/`.max`, `jax.ops.index[i, :]` "
        "becomes `i, :`), parenthesising `x` when needed; a by-name import of those functions is removed "
        "once every use has been rewritten. "
        "APIs whose replacement behaves differently (`jax.random.shuffle`, `jax.experimental.maps`, "
        "`host_callback`, `jax.device_put_sharded`…) get no fix: the message names the replacement. "
        "Of the array attributes only `x.layout` -> `x.format` is a rename; `x.device_buffer` -> "
        "`x.addressable_data(0)`, `x.to_py()` -> `numpy.asarray(x)` and the others are named, not rewritten. "
        "A removed keyword is renamed where its replacement does the same (`a_min=` -> `min=`, `newshape=` -> "
        "`shape=`, `interpolation=` -> `method=`); one jax now takes by position only is named, not moved."
    )
    verify = (
        "`--verify` confirms it when importing the module on the installed jax fails with the `AttributeError`/"
        "`ImportError` at this line, or when the installed jax has no such name; a removed keyword, when a run of "
        "the call raises `TypeError: ... got an unexpected keyword argument` at this line."
    )
