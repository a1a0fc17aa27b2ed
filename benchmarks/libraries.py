"""The pinned JAX libraries the benchmarks run on, fetched once with `pip download --no-deps`."""

from __future__ import annotations

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


def fetch(cache: Path, names: list[str] | None = None) -> list[Path]:
    """The unpacked source folder of each library (all of them by default), downloading what is missing."""
    return [fetch_release(cache, name, LIBRARIES[name]) for name in names or list(LIBRARIES)]


def fetch_release(cache: Path, name: str, version: str) -> Path:
    """The unpacked source folder of one release of a package, downloading its wheel (or, for old
    releases without one, its source archive) when missing."""
    wheels, sources = cache / "wheels", cache / "src"
    folder = sources / f"{name}-{version}"
    if not folder.is_dir():
        wheels.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                        "-d", str(wheels), f"{name}=={version}"], check=True)
        prefix = name.replace("-", "_")
        found = next(w for w in wheels.iterdir() if w.name.lower().startswith(f"{prefix}-{version}"))
        if found.name.endswith(".tar.gz"):
            with tarfile.open(found) as archive:
                archive.extractall(folder, filter="data")
        else:
            with zipfile.ZipFile(found) as archive:
                archive.extractall(folder)
    return folder


def count_lines(files: list[Path]) -> int:
    return sum(len(path.read_bytes().splitlines()) for path in files)
