"""The pinned JAX libraries and applications the benchmarks run on, fetched once with `pip download --no-deps`.

Libraries come as wheels: the code users import. Applications come as sdists where PyPI has one,
since sdists also carry the example scripts, notebooks and tests that wheels leave out, and those
are where helpers called under jit, training loops and experiment cells live.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

LIBRARIES = {
    "jax": "0.10.2",
    "flax": "0.12.8",
    "optax": "0.2.8",
    "equinox": "0.13.8",
    "dm-haiku": "0.0.17",
    "chex": "0.1.92",
}

# RL environments and training code, simulators, an LLM trainer, a research model; then probabilistic
# programming, state-space models, a physics engine, evolution strategies, RL baselines, tree search and a
# neuron simulator.
APPLICATIONS = {
    "brax": "0.14.2",            # physics simulator; PPO/SAC/ES training loops
    "jumanji": "1.1.2",          # RL environments, training code, examples, notebooks
    "gymnax": "1.0.1",           # RL environments
    "jaxmarl": "0.2.0",          # multi-agent RL environments and tutorials
    "rejax": "0.1.3",            # RL algorithms, examples, a notebook, cleanRL baselines
    "jax-md": "0.2.29",          # molecular dynamics: examples, notebooks, ML potentials with Pallas kernels
    "craftax": "1.6.1",          # open-world RL environment
    "pgx": "2.6.0",              # board-game RL environments (wheel: no sdist on PyPI)
    "dopamine-rl": "4.1.2",      # RL agents and research labs code
    "jaxsim": "0.9.0",           # robot physics simulator: examples, notebooks
    "levanter": "1.1",           # LLM training
    "recurrentgemma": "1.0.1",   # research model: Pallas kernels, shard_map
    "navix": "0.7.4",            # gridworld RL environments, PPO/DQN agents, examples, notebooks
    "kinetix-env": "3.0.2",      # 2D physics RL environments, level editor, UED samplers
    "evojax": "0.2.17",          # neuroevolution: tasks, policies, ES trainers
    # Added, chosen before their findings were seen, for kinds of application code not covered above
    # (their sdists carry tests and demos; none of them ships notebooks):
    "numpyro": "0.22.0",         # probabilistic programming: distributions, MCMC/SVI inference loops, tests
    "dynamax": "1.0.3",          # state-space models: Kalman filters, HMMs, particle filters, demos, tests
    "mujoco-mjx": "3.17.0",      # MuJoCo XLA: a physics engine written in JAX, its tests
    "evosax": "0.3.2",           # evolution strategies: ask/tell loops over populations, keys per member
    "sbx-rl": "0.28.0",          # Stable-Baselines3 in JAX: flax agents, replay buffers, target networks, tests
    "mctx": "0.0.71",            # Monte-Carlo tree search: tree arrays updated in place, batched search
    "jaxley": "0.14.0",          # neuron simulator: differentiable ODE solvers, parameter fitting, tests
    # Added after a sweep of more packages (their findings were read before adding them: 4 false alarms
    # found there were fixed in the rules first):
    "blackjax": "1.2.5",         # MCMC/SMC samplers: kernels, keys split per step, adaptation loops
    "gpjax": "1.0.0",            # Gaussian processes: docs examples written as scripts, benchmarks
    "ott-jax": "0.6.0",          # optimal transport solvers, random-feature geometries, neural OT
    "flowjax": "19.1.2",         # normalising flows: training loops with shuffling and early stopping
    "qdax": "0.5.0",             # quality-diversity: emitters, repertoires, evolutionary loops
    "penzai": "0.2.5",           # neural-network toolkit: tutorial notebooks
    "kfac-jax": "0.0.8",         # second-order optimiser: curvature estimators, damping calibration
    "jaxdf": "0.3.0",            # differentiable PDE discretisations: example notebooks
    "neural-tangents": "0.6.5",  # infinite-width kernels: examples
    "jax-cosmo": "0.1.0",        # cosmology: interpolation, power spectra, notebooks
}
WHEEL_ONLY = frozenset({"pgx"})

# Code written for Python 3.12 and newer (PEP 695 generics `def f[T](...)`, `class C[T](eqx.Module)`),
# which must parse on the Python that runs jaxlint. The package index reached here has no release of
# these, so each is a pinned commit of its GitHub repository, exported from a local git mirror of it
# (a bare clone at $BENCH_GIT_MIRRORS/OWNER+NAME/repo).
MODERN = {
    "lerax": ("RunnersNum40/lerax", "67006e1a9e1ad5157426c8f4cb562c826549893e"),  # RL on equinox; Python >= 3.13
}


def fetch(cache: Path, names: list[str] | None = None) -> list[Path]:
    """The unpacked source folder of each package (the libraries by default), downloading what is missing."""
    return [fetch_snapshot(cache, name) if name in MODERN else
            fetch_release(cache, name, LIBRARIES.get(name) or APPLICATIONS[name],
                          sdist=name in APPLICATIONS and name not in WHEEL_ONLY)
            for name in names or list(LIBRARIES)]


def fetch_snapshot(cache: Path, name: str) -> Path:
    """The source folder of a MODERN package's pinned commit, exported once from its git mirror."""
    repository, commit = MODERN[name]
    folder = cache / "src" / f"{name}-{commit[:12]}"
    if not folder.is_dir():
        mirror = Path(os.environ.get("BENCH_GIT_MIRRORS", "")) / repository.replace("/", "+") / "repo"
        if "BENCH_GIT_MIRRORS" not in os.environ or not mirror.is_dir():
            sys.exit(f"{name}: not in {cache / 'src'}, and no git mirror of {repository} to export it from "
                     f"(BENCH_GIT_MIRRORS names the folder that holds {mirror.parent.name}/repo)")
        archive = subprocess.run(["git", "--git-dir", str(mirror), "archive", "--format=tar", commit],
                                 check=True, capture_output=True).stdout
        partial = folder.with_name(folder.name + ".partial")
        partial.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(partial, filter="data")
        partial.rename(folder)
    return folder


def fetch_release(cache: Path, name: str, version: str, sdist: bool = False) -> Path:
    """The unpacked source folder of one release of a package, downloading its wheel (or its source
    archive: when `sdist` asks for it, or for old releases without a wheel) when missing."""
    folder = cache / "src" / f"{name}-{version}"
    if not folder.is_dir():
        archive = _download(cache / ("sdists" if sdist else "wheels"), name, version, sdist)
        if archive.name.endswith(".tar.gz"):
            with tarfile.open(archive) as tar:
                tar.extractall(folder, filter="data")
        else:
            with zipfile.ZipFile(archive) as wheel:
                wheel.extractall(folder)
    return folder


def _download(into: Path, name: str, version: str, sdist: bool) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    only = ["--no-binary", ":all:"] if sdist else []
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", *only,
                    "-d", str(into), f"{name}=={version}"], check=True)
    prefix = _normalise(f"{name}-{version}-")  # `jax-0.2.28-py3-...whl` and `jax-0.2.28.tar.gz` alike
    return next(path for path in into.iterdir() if _normalise(path.name).startswith(prefix))


def _normalise(filename: str) -> str:
    """Archive names spell a project `jax-md`, `jax_md` or `Jax.MD`: compare them one way."""
    return re.sub(r"[-_.]+", "_", filename.lower())


def count_lines(files: list[Path]) -> int:
    """Lines of Python: every line of a .py file, every line of a notebook's code cells."""
    return sum(_notebook_lines(path) if path.suffix == ".ipynb" else len(path.read_bytes().splitlines())
               for path in files)


def _notebook_lines(path: Path) -> int:
    try:
        cells = json.loads(path.read_bytes())["cells"]
    except (ValueError, KeyError, TypeError):
        return 0
    return sum(len("".join(cell.get("source", [])).splitlines()) for cell in cells if cell.get("cell_type") == "code")
