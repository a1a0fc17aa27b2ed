"""Methods and constructors across modules: a jitted function of one module that builds another module's
class (`Normalizer(mean, std)`), calls a method of it (`norm.normalize(x)`) or one through the class
(`Stats.moments(x)`) makes that code traced, and learns what it returns.

fixtures/project/nets/ holds the package, its expected findings inline (test_project.py checks the
whole project folder); fixtures/analysis/methods.py the same within one module."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import write
from jaxlint import project
from jaxlint.analysis.interface import Applied, IncomingTracer, Exported, Imported, Interface, Outgoing
from jaxlint.checks import ALL_RULES
from jaxlint.connected import connected
from jaxlint.lint import LintOptions, lint_module, lint_source
from test_project import ROOT, check, found

NETS = ROOT / "fixtures" / "project" / "nets"
RULES = frozenset(rule.code for rule in ALL_RULES if rule.default_enabled)


@pytest.mark.slow
def test_the_module_of_the_classes_alone_gets_the_findings_of_the_folder_run() -> None:
    layers = "fixtures/project/nets/layers.py"
    check(found(ROOT, layers), [layers])
    train = "fixtures/project/nets/train.py"
    check(found(ROOT, train), [train])


def interface_of(path: Path, imported: Imported) -> Interface:
    """The module's interface in the project's second phase, told `imported` by the other modules."""
    source = path.read_text("utf-8")
    return lint_module(source, str(path), LintOptions(RULES), project.context(str(path), imported))[1]


def test_methods_are_summarised_by_class_and_method_name() -> None:
    traced = [IncomingTracer(0, "train_step", "jax.jit", True, "train.py:11")]
    through_instance = [IncomingTracer(0, "train_step", "jax.jit", True, "train.py:13", True)]
    imported = Imported({"Stats.moments": tuple(traced), "Stats.zscore": tuple(traced), "Stats.count": tuple(traced),
                         "Normalizer.normalize": tuple(through_instance)})
    returns = interface_of(NETS / "layers.py", imported).returns
    # Through an instance `self` is filled; a classmethod's `cls` is filled by every call, so it is left out.
    assert returns["Normalizer.normalize"] == Exported(("self", "x"), ("x",), "array", False, None, True)
    # A tuple on every path: each place follows `x` too (its mean and its variance, arrays of it).
    assert returns["Stats.moments"] == Exported(
        ("x",), ("x",), None, True, None, False, items=((("x",), "array", False), (("x",), "array", False))
    )
    assert returns["Stats.zscore"] == Exported(
        ("x",), ("x",), None, True, None, False, items=((("x",), "array", False), (("x",), "array", False))
    )
    # `x.shape[0]` is a Python int: nothing a caller needs (an unknown call gives the same).
    assert "Stats.count" not in returns


def test_a_traced_caller_tells_which_methods_and_classes_it_calls_with_tracers() -> None:
    moments = Exported(("x",), ("x",), None, True)
    imported = Imported(returns={"nets.layers.Stats.moments": moments})
    calls = {(call.target, call.positional, call.instance)
             for call in interface_of(NETS / "train.py", imported).calls}
    assert calls == {
        ("nets.layers.Stats.moments", (0,), False),
        ("nets.Normalizer", (0, 1), False),  # the class itself: its `__init__` gets the statistics
        ("nets.Normalizer.normalize", (0,), True),
        ("nets.layers.Stats.zscore", (0,), False),
        ("nets.layers.Stats.count", (0,), False),
    }


def test_methods_are_found_through_the_packages_that_re_export_their_class() -> None:
    callee = Interface(returns={"Normalizer.normalize": Exported(("self", "x"), ("x",), "array", False, None, True)},
                       classes=("Normalizer",))
    package = Interface(reexports={"Normalizer": "nets.layers.Normalizer"})
    caller = Interface(
        calls=(Outgoing("nets.Normalizer.normalize", "step", "jax.jit", True, "train.py:3", (0,), (), True),
               # `tx = make_optimizer(lr)` then `tx.update(g)`: a function's result, not an instance of a class.
               Outgoing("nets.layers.make_optimizer.update", "step", "jax.jit", True, "train.py:4", (0,), (), True)),
        uses=("nets.Normalizer.normalize",),
    )
    facts = project.imported_facts({"nets": package, "nets.layers": callee, "nets.train": caller})
    assert facts["nets.layers"].entries == {
        "Normalizer.normalize": (IncomingTracer(0, "step", "jax.jit", True, "train.py:3", True),)}
    assert facts["nets.train"].returns == {"nets.Normalizer.normalize": callee.returns["Normalizer.normalize"]}


def test_a_module_that_only_calls_a_static_method_is_connected_to_its_class(tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "ops.py", "class Stats:\n    @staticmethod\n    def mean(x):\n        return x\n")
    write(tmp_path / "pkg" / "steps.py", "from pkg.ops import Stats\n\n\ndef step(x):\n    return Stats.mean(x)\n")
    write(tmp_path / "pkg" / "other.py", "def unrelated():\n    return 1\n")
    modules = {name: tmp_path / "pkg" / f"{name.split('.')[-1]}.py" for name in ("pkg.ops", "pkg.steps", "pkg.other")}
    modules["pkg"] = tmp_path / "pkg" / "__init__.py"
    assert connected({"pkg.ops"}, modules) == {"pkg.ops", "pkg.steps"}


def test_a_method_called_only_with_static_values_across_modules_stays_silent(tmp_path: Path) -> None:
    write(tmp_path / "app" / "__init__.py", "")
    write(tmp_path / "app" / "shapes.py", (
        "import jax.numpy as jnp\n\n\n"
        "class Padder:\n"
        "    def __init__(self, width):\n"
        "        if width > 8:\n"
        "            width = 8\n"
        "        self.width = width\n\n"
        "    def pad(self, x):\n"
        "        return jnp.pad(x, self.width)\n\n"
        "    def report(self, n):\n"
        "        print('padding', n)\n"
    ))
    write(tmp_path / "app" / "run.py", (
        "import jax\n\n"
        "from app.shapes import Padder\n\n\n"
        "@jax.jit\n"
        "def step(x):\n"
        "    padder = Padder(4)\n"
        "    padder.report(3)\n"
        "    y = padder.pad(x)\n"
        "    print(y)\n"
        "    return y\n"
    ))
    findings = found(tmp_path, "app")
    # `width` and `n` get Python ints: silent. `pad` returns what it computes from a tracer.
    assert [(f["filename"], f["location"]["row"], f["code"]) for f in findings] == [("app/run.py", 11, "JAX306")]
    assert "returned by `padder.pad` from a traced argument" in findings[0]["message"]


POLICY = (
    "from functools import partial\n\n"
    "import jax\n"
    "import jax.numpy as jnp\n\n\n"
    "class Policy:\n"
    "    def temperature(self, x):\n"
    "        return jnp.std(x)\n\n"
    "    @partial(jax.jit, static_argnums=0)\n"
    "    def act(self, x):\n"
    "        t = self.temperature(x)\n"
    "        if t > 1.0:\n"
    "            x = x / t\n"
    "        return x\n"
)
SUBCLASSES = {
    "plain Python": "from .policy import Policy\n\n\nclass Greedy(Policy):\n    def temperature(self, x):\n"
                    "        return 1.0\n",
    "with jax": "import jax.numpy as jnp\n\nfrom .policy import Policy\n\n\nclass Greedy(Policy):\n"
                "    temperature = staticmethod(lambda x: jnp.float32(1.0))\n",
}


@pytest.mark.slow
def test_self_method_calls_are_not_followed_when_a_subclass_in_another_module_overrides_them(
        tmp_path: Path) -> None:
    write(tmp_path / "agents" / "__init__.py", "")
    write(tmp_path / "agents" / "policy.py", POLICY)
    alone = found(tmp_path, "agents")
    # For a `Policy`, `temperature` gives a tracer: the `if` raises.
    assert [(f["filename"], f["location"]["row"], f["code"]) for f in alone] == [("agents/policy.py", 14, "JAX301")]
    for kind, source in SUBCLASSES.items():
        write(tmp_path / "agents" / "greedy.py", source)
        # For a `Greedy`, it may be a constant: not followed, from the folder or from the base's file alone.
        assert found(tmp_path, "agents") == [], kind
        assert found(tmp_path, "agents/policy.py") == [], kind


def test_the_method_facts_of_an_interface_survive_the_cache() -> None:
    interface = Interface(
        returns={"Scaler.apply": Exported(("self", "x"), ("x",), "array", False, None, True)},
        calls=(Outgoing("pkg.model.Scaler.apply", "step", "jax.jit", True, "train.py:3", (0,), (), True),),
        overrides={"pkg.base.Policy": ("temperature",)},
        read_self_calls=("Policy.temperature", "Model.head"),
        classes=("Scaler",),
        extends={"Greedy": ("pkg.base.Policy", ("act",))},
        applications=(Applied("pkg.heads.Head.normalized", "jax.vmap", False, "batch.py:8", instance=True),),
    )
    assert Interface.from_json(json.loads(json.dumps(interface.to_json()))) == interface


AGENTS = ROOT / "fixtures" / "project" / "agents"


@pytest.mark.slow
def test_each_module_of_the_agents_package_alone_gets_the_findings_of_the_folder_run() -> None:
    for name in ("base", "heads", "greedy", "run", "batch"):
        path = f"fixtures/project/agents/{name}.py"
        check(found(ROOT, path), [path])


@pytest.mark.slow
def test_each_module_of_the_kernels_package_alone_gets_the_findings_of_the_folder_run() -> None:
    # A receiver's class from every construction in the project, or from a default no call passes (tinygp#85,
    # cosmopower-jax#16); a construction or a call in another module leaves it unknown.
    for name in ("quasisep", "gp", "regression", "fit", "emulator", "spectra", "compare"):
        path = f"fixtures/project/kernels/{name}.py"
        check(found(ROOT, path), [path])


def test_a_class_whose_methods_may_be_another_modules_says_which_and_what_it_binds_on_the_way() -> None:
    traced = Imported({"Sharp.act": (IncomingTracer(0, "step", "jax.jit", True, "run.py:11", True),)})
    extends = interface_of(AGENTS / "greedy.py", traced).extends  # (a module without jax: analysed when traced)
    # `Agent` derives from nothing; `Greedy` and `Sharp` end in `Policy`, re-exported by the package.
    assert extends == {"Greedy": ("agents.Policy", ("act",)), "Sharp": ("agents.Policy", ("act",))}


def test_a_call_of_an_inherited_method_reaches_the_module_that_defines_it() -> None:
    base = Interface(classes=("Policy",))
    package = Interface(reexports={"Policy": "agents.base.Policy"})
    greedy = Interface(classes=("Greedy", "Sharp"), extends={"Sharp": ("agents.Policy", ("act", "head"))})
    run = Interface(calls=(
        Outgoing("agents.greedy.Sharp.entropy", "step", "jax.jit", True, "run.py:13", (0,), (), True),
        Outgoing("agents.greedy.Sharp.act", "step", "jax.jit", True, "run.py:11", (0,), (), True),
        Outgoing("agents.greedy.Sharp.head", "step", "jax.jit", True, "run.py:12", (0,), (), True),
    ))
    facts = project.imported_facts({"agents": package, "agents.base": base, "agents.greedy": greedy,
                                    "agents.run": run})
    assert facts["agents.base"].entries == {"Policy.entropy": (IncomingTracer(0, "step", "jax.jit", True, "run.py:13", True),)}
    # What the subclasses bind on the way (a method, an attribute of `self`) is theirs.
    assert set(facts["agents.greedy"].entries) == {"Sharp.act", "Sharp.head"}


@pytest.mark.slow
def test_a_subclass_in_another_module_that_sets_the_attribute_stops_it_being_followed(tmp_path: Path) -> None:
    write(tmp_path / "app" / "__init__.py", "")
    write(tmp_path / "app" / "heads.py", (AGENTS / "heads.py").read_text("utf-8"))
    write(tmp_path / "app" / "model.py", (
        "from app.heads import Head\n\n\n"
        "class Model:\n"
        "    def __init__(self):\n"
        "        self.head = Head(4)\n\n"
        "    def predict(self, x):\n"
        "        return self.head.apply(x)\n"
    ))
    run = "import jax\n\nfrom app.model import Model\n\n\n{}@jax.jit\ndef forward(x):\n    return {}().predict(x)\n"
    write(tmp_path / "app" / "run.py", run.format("", "Model"))
    for path in ("app", "app/heads.py"):
        assert [(f["filename"], f["location"]["row"], f["code"]) for f in found(tmp_path, path)] == [
            ("app/heads.py", 11, "JAX301")], path
    # A subclass whose `head` is something else: `self.head` in `Model.predict` may be either (this one runs).
    subclass = ("class Clamp:\n    def apply(self, x):\n        return x.clip(0)\n\n\n"
                "class Plain(Model):\n    def __init__(self):\n        self.head = Clamp()\n\n\n")
    write(tmp_path / "app" / "run.py", run.format(subclass, "Plain"))
    for path in ("app", "app/heads.py", "app/model.py", "app/run.py"):
        assert found(tmp_path, path) == [], path


def test_a_method_transformed_through_an_instance_is_traced_in_its_module_with_self_bound() -> None:
    applied = interface_of(AGENTS / "batch.py", Imported()).applications
    assert [(a.target, a.transform, a.bound, a.instance) for a in applied] == [
        ("agents.heads.Head.normalized", "jax.vmap", 0, True)]
    facts = project.imported_facts({"agents.heads": Interface(classes=("Head",)),
                                    "agents.batch": Interface(applications=applied)})
    assert facts["agents.heads"].applied == {"Head.normalized": applied}
    # `self` is bound: the transform's first argument is `row`, the parameter after it.
    findings = found(ROOT, "fixtures/project/agents/heads.py")
    assert ["`row` is a traced argument of `normalized`, transformed by `jax.vmap`" in f["message"]
            for f in findings if f["location"]["row"] == 16] == [True]


CONFIGURED = (
    "import jax\n"
    "import jax.numpy as jnp\n\n\n"
    "class Head:\n"
    "    def apply(self, x):\n"
    "        if jnp.any(x < 0):\n"
    "            x = jnp.abs(x)\n"
    "        return x\n\n\n"
    "class Identity:\n"
    "    def apply(self, x):\n"
    "        return x\n\n\n"
    "class Model:\n"
    "    def __init__(self):\n"
    "        self.stage = Head()\n\n"
    "    def configure(self, name, value):\n"
    "        {}\n\n"
    "    def predict(self, x):\n"
    "        return self.stage.apply(x)\n\n\n"
    "@jax.jit\n"
    "def forward(x):\n"
    "    model = Model()\n"
    "    model.configure('stage', Identity())\n"
    "    return model.predict(x)\n"
)


def test_an_attribute_of_self_set_by_name_somewhere_is_not_followed() -> None:
    """`setattr` with a name the analysis cannot read, or an item of `__dict__`, may set `self.stage` to anything
    (here an `Identity`, whose `apply` is fine under jit); a `setattr` of another attribute changes nothing."""
    def lint(body: str) -> list[tuple[int, str]]:
        findings = lint_source(CONFIGURED.format(body), "model.py", LintOptions(RULES))
        return [(f.row, f.code) for f in findings]

    assert lint("self.mode = value") == [(7, "JAX301")]
    assert lint("setattr(self, 'mode', value)") == [(7, "JAX301")]
    for body in ("setattr(self, name, value)", "self.__dict__[name] = value", "self.__dict__.update({name: value})",
                 "vars(self).update({name: value})", "object.__setattr__(self, name, value)",
                 "setattr(self, 'stage', value)", "self.stage = value"):
        assert lint(body) == [], body
