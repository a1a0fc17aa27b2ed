"""Regenerate jaxlint/data/jax_keywords.txt: the keywords each jax.numpy (jax.nn, jax.random, jax.lax) function and jax.Array method takes.

Run by hand with the jax the table is for (0.10.2), never in CI or the tests, given older jax releases (wheels or
source archives, as `pip download --no-deps jax==0.4.1 -d DIR` fetches them), which it reads without importing:

    python scripts/jax_keywords.py DIR > jaxlint/data/jax_keywords.txt

A function is listed with the parameters it takes by keyword (`inspect.signature`), together with those of
NumPy's function of the same name and those any def of that name (or `_name`) in an older release's
`jax/_src/numpy/` took: code written against an older jax took their names (`newshape`, `where(condition=...)`),
so only a keyword none of them takes is a certain `TypeError` in every release (`dim=`, `keepdim=`, `shifts=`:
PyTorch's). A `jax.lax` function is read against every def of its name anywhere in an older release's `jax/_src/`
(lax's modules moved between releases). A function that takes `**kwargs`, or whose NumPy twin's signature cannot be read (a ufunc), is left out:
any keyword may be right. An array method is listed under `jax.Array.<name>`, against NumPy's function of that name
less its array parameter.
"""

from __future__ import annotations

import ast
import inspect
import sys
import tarfile
import zipfile
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

_KEYWORD = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def _keywords(function, skip_first: bool = False) -> list[str] | None:
    """The names `function` takes by keyword; None when it takes any (`**kwargs`) or has no readable signature."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    if skip_first and parameters and parameters[0].kind is not inspect.Parameter.VAR_POSITIONAL:
        parameters = parameters[1:]
    return [p.name for p in parameters if p.kind in _KEYWORD]


def _older(folder: Path, wanted: str) -> dict[str, set[str]]:
    """By def name (less a leading `_`): every parameter name any def of that name in the modules of the releases in
    `folder` whose path starts with `wanted` (`jax/_src/numpy/`) takes."""
    found: dict[str, set[str]] = {}
    for release in sorted(folder.iterdir()):
        for source in _sources(release, wanted):
            try:
                tree = ast.parse(source)
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    arguments = node.args
                    names = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
                    found.setdefault(node.name.lstrip("_"), set()).update(names)
    return found


def _sources(release: Path, wanted: str) -> list[str]:
    """The text of each module of a release whose path starts with `wanted`."""
    if release.suffix == ".whl":
        with zipfile.ZipFile(release) as archive:
            return [archive.read(n).decode() for n in archive.namelist() if n.startswith(wanted) and n.endswith(".py")]
    with tarfile.open(release) as archive:
        return [
            archive.extractfile(member).read().decode()  # type: ignore[union-attr]
            for member in archive.getmembers()
            if f"/{wanted}" in member.name and member.name.endswith(".py") and member.isfile()
        ]


def _row(name: str, own, twin, older: dict[str, set[str]], skip_first: bool = False) -> str | None:
    taken = _keywords(own)
    if taken is None:
        return None
    taken = taken + sorted(older.get(name.rpartition(".")[2], ()))
    if twin is not None:
        numpy_taken = _keywords(twin, skip_first)
        if numpy_taken is None:
            return None
        taken = taken + numpy_taken
    return " ".join([name, *sorted(set(taken))])


def main() -> None:
    releases = Path(sys.argv[1])
    older_numpy = _older(releases, "jax/_src/numpy/")
    print(f"# Keywords each function takes: jax {jax.__version__} with NumPy {np.__version__}'s same-named function")
    print("# and any older release's def of that name (scripts/jax_keywords.py). One function a line: its qualified")
    print("# name, then the keywords.")
    for module, numpy_module, prefix, older in (
        (jnp, np, "jax.numpy", older_numpy),
        (jnp.linalg, np.linalg, "jax.numpy.linalg", older_numpy),
        (jnp.fft, np.fft, "jax.numpy.fft", older_numpy),
        (jax.nn, None, "jax.nn", _older(releases, "jax/_src/nn/")),
        (jax.random, None, "jax.random", _older(releases, "jax/_src/random.py")),
        (jax.lax, None, "jax.lax", _older(releases, "jax/_src/")),
    ):
        for name in sorted(dir(module)):
            own = getattr(module, name)
            if name.startswith("_") or not callable(own) or inspect.isclass(own) or inspect.ismodule(own):
                continue
            twin = getattr(numpy_module, name, None) if numpy_module is not None else None
            row = _row(f"{prefix}.{name}", own, twin if callable(twin) else None, older)
            if row is not None:
                print(row)
    array = jnp.ones(1)
    for name in sorted(dir(array)):
        if name.startswith("_"):
            continue
        try:
            own = getattr(array, name)
        except Exception:  # noqa: BLE001 (a property that raises on this array)
            continue
        twin = getattr(np, name, None)
        if callable(own) and callable(twin):
            row = _row(f"jax.Array.{name}", own, twin, older_numpy, skip_first=True)
            if row is not None:
                print(row)


if __name__ == "__main__":
    main()
