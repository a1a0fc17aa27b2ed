"""What `jaxlint server` costs in an editor: diagnostics latency for a ~1,000-line JAX file against
`flake8 --select JAX` on the same file, and what an edit re-checks.

    python benchmarks/server_bench.py [--cache DIR] [--file PATH] [--repeat N]

The file is the module of the pinned libraries (benchmarks/libraries.py) within 15% of 1,000 lines
that uses jax the most, unless --file names another. flake8 runs as in bench.py: a fresh process, timed by a small
wrapper, the fastest of --repeat runs; it is the flake8 installed beside jaxlint, whose jaxlint plugin
`--select JAX` runs. The server is the real `jaxlint server` subprocess driven over stdio by pygls's
client; each latency is from the notification sent to the diagnostics received for that version. The
file is then checked where it is, in its package, by the server's checking core in this process: what
the first check of a project costs and how many modules an edit checks again.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from bench import measure
from libraries import fetch

TARGET = 0.5  # the server's latency over flake8's wall time, at most
LINES = 1_000


def pick_file(cache: Path) -> Path:
    """The library module (not a test) within 15% of LINES lines that uses jax the most."""
    def uses(path: Path) -> int:
        text = path.read_text(encoding="utf-8")
        return text.count("jax.") + text.count("jnp.")

    files = [path for folder in fetch(cache, ["flax", "optax", "equinox", "dm-haiku", "chex"])
             for path in sorted(folder.rglob("*.py"))
             if not path.stem.endswith("_test") and abs(len(path.read_bytes().splitlines()) - LINES) <= LINES * 0.15]
    return max(files, key=lambda path: (uses(path), str(path)))


class Client:
    """An editor's side: documents opened and changed, and the time each version's diagnostics arrive."""

    def __init__(self) -> None:
        self.lsp = LanguageClient("server-bench", "1")
        self.arrived: dict[tuple[str, int | None], float] = {}
        self.counts: dict[str, int] = {}

        @self.lsp.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            self.arrived[(params.uri, params.version)] = time.perf_counter()
            self.counts[params.uri] = self.counts.get(params.uri, 0) + 1

    async def start(self, root: Path) -> None:
        await self.lsp.start_io(sys.executable, "-m", "jaxlint", "server")
        await self.lsp.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=root.as_uri()))
        self.lsp.initialized(types.InitializedParams())

    async def stop(self) -> None:
        await self.lsp.shutdown_async(None)
        self.lsp.exit(None)
        await self.lsp.stop()

    async def wait(self, uri: str, version: int) -> float:
        while (uri, version) not in self.arrived:
            await asyncio.sleep(0.001)
        return self.arrived[(uri, version)]

    async def open(self, uri: str, text: str) -> float:
        """Seconds from didOpen to the diagnostics."""
        sent = time.perf_counter()
        self.lsp.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri, "python", 1, text)))
        return await self.wait(uri, 1) - sent

    def change(self, uri: str, version: int, text: str) -> float:
        self.lsp.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version, uri),
            [types.TextDocumentContentChangeWholeDocument(text)]))
        return time.perf_counter()

    async def edit(self, uri: str, version: int, text: str) -> float:
        """Seconds from didChange to the diagnostics of that version."""
        sent = self.change(uri, version, text)
        return await self.wait(uri, version) - sent


def cpu_seconds(pid: int) -> float:
    """User and system time of a process so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def edited(text: str, n: int) -> str:
    """The text with one character typed in its middle line (a comment, so the findings stay)."""
    lines = text.split("\n")
    middle = len(lines) // 2
    lines.insert(middle, f"# typed {n}")
    return "\n".join(lines)


async def measure_server(path: Path, text: str, repeat: int) -> dict[str, object]:
    client = Client()
    await client.start(path.parent)
    try:
        warm = path.with_name("warm_up.py").as_uri()
        await client.open(warm, "import jax\n")  # the server has imported the checks: what an editor sees
        uri = path.as_uri()
        opened = await client.open(uri, text)
        edits = [await client.edit(uri, version, edited(text, version)) for version in range(2, 2 + repeat)]
        version = 2 + repeat
        undo = await client.edit(uri, version, edited(text, 2))  # back to a text already checked
        # A file of a configured project that `jaxlint` checked before: the result cache answers.
        project = path.parent / "project"
        project.mkdir()
        (project / "pyproject.toml").write_text("[tool.jaxlint]\n", encoding="utf-8")
        cached = project / path.name
        cached.write_text(text, encoding="utf-8")
        subprocess.run([sys.executable, "-m", "jaxlint", "--quiet", "--exit-zero", str(cached)], check=True,
                       cwd=project, stdout=subprocess.DEVNULL)
        from_cache = await client.open(cached.as_uri(), text)
        # Typing: a keystroke every 50 ms for two seconds; the server checks what it can keep up with.
        other = path.with_name("other.py").as_uri()
        await client.open(other, text.replace("import jax", "import jax  # other", 1))
        pid = client.lsp._server.pid  # the subprocess pygls's client started
        before, other_before = cpu_seconds(pid), client.counts.get(other, 0)
        publishes_before = client.counts[uri]
        keystrokes = 40
        for n in range(keystrokes):
            version += 1
            client.change(uri, version, edited(text, 1000 + n))
            await asyncio.sleep(0.05)
        last = await client.wait(uri, version)
        typing_cpu = cpu_seconds(pid) - before
        return {
            "open": opened, "edits": edits, "undo": undo, "from_cache": from_cache, "keystrokes": keystrokes,
            "typing_cpu": typing_cpu, "typing_publishes": client.counts[uri] - publishes_before,
            "other_rechecked": client.counts.get(other, 0) - other_before, "settled": last,
        }
    finally:
        await client.stop()


def in_process(path: Path, text: str, repeat: int) -> float:
    """The check alone (the server's floor): lint_source in this process, fastest of `repeat`."""
    from jaxlint.config import CommandLine, build_settings
    from jaxlint.lint import LintOptions, lint_source

    settings = build_settings(CommandLine(), cwd=path.parent)
    best = float("inf")
    for n in range(repeat):
        start = time.perf_counter()
        lint_source(edited(text, n), str(path), LintOptions(settings.enabled_for(str(path))))
        best = min(best, time.perf_counter() - start)
    return best


def in_package(source: Path, text: str) -> dict[str, object]:
    """The server's checking core on the file where it is, in its package: the first check of a module
    reads and checks every module of its project once; what an edit checks after that."""
    import jaxlint.server.checking as checking
    from jaxlint import project

    analysed: list[str] = []
    real = checking.check_bytes

    def counted(name, *rest):
        analysed.append(name)
        return real(name, *rest)

    checking.check_bytes = counted
    try:
        checker = checking.Checker(source.parent)
        path = str(source)
        start = time.perf_counter()
        checker.check_text(path, text, with_project=False)
        alone = time.perf_counter() - start
        start = time.perf_counter()
        checker.check_text(path, text)
        whole, first_analyses = time.perf_counter() - start, len(analysed)
        analysed.clear()
        start = time.perf_counter()
        result = checker.check_text(path, edited(text, 1))
        edit, edit_analyses = time.perf_counter() - start, len(analysed)
    finally:
        checking.check_bytes = real
    modules = len(project.importable(project.module_of(path)[0]))
    return {"modules": modules, "alone": alone, "whole": whole, "first_analyses": first_analyses,
            "edit": edit, "edit_analyses": edit_analyses, "others_changed": len(result.changed)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", default=".bench-cache", help="where the libraries' sources are kept")
    parser.add_argument("--file", help="the file to check (default: a library file of about 1,000 lines)")
    parser.add_argument("--repeat", type=int, default=10, help="runs of each measurement")
    args = parser.parse_args(argv)
    source = Path(args.file).resolve() if args.file else pick_file(Path(args.cache).resolve())
    text = source.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)  # no config file here
        path = work / source.name
        path.write_text(text, encoding="utf-8")
        print(f"{source} ({len(text.splitlines())} lines)\n")
        flake8 = measure([sys.executable, "-m", "flake8", "--isolated", "--select", "JAX", "--exit-zero",
                          str(path)], work, args.repeat)
        floor = in_process(path, text, args.repeat)
        server = asyncio.run(measure_server(path, text, args.repeat))
        here = Path.cwd()
        os.chdir(work)  # the working folder's result cache is the server's: an empty one, checks are cold
        try:
            package = in_package(source, text)
        finally:
            os.chdir(here)
    edits = server["edits"]
    fastest, median = min(edits), statistics.median(edits)
    print(f"  {'flake8 --select JAX (fastest)':<42} {flake8.seconds:>8.3f} s")
    print(f"  {'the check alone, in process (fastest)':<42} {floor:>8.3f} s")
    print(f"  {'server: open -> diagnostics':<42} {server['open']:>8.3f} s")
    print(f"  {'server: one edit -> diagnostics (median)':<42} {median:>8.3f} s   (fastest {fastest:.3f} s)")
    print(f"  {'server: undo to a checked text':<42} {server['undo']:>8.3f} s")
    print(f"  {'server: open a file jaxlint checked before':<42} {server['from_cache']:>8.3f} s")
    keystrokes = server["keystrokes"]
    print(f"\ntyping {keystrokes} keystrokes, one every 50 ms:")
    print(f"  server CPU per keystroke                   {server['typing_cpu'] / keystrokes:>8.3f} s")
    print(f"  diagnostics published for the typed file   {server['typing_publishes']:>8} "
          f"(checks of texts still current when they ended)")
    print(f"  another open file re-checked               {server['other_rechecked']:>8} times")
    print(f"\nin its package ({package['modules']} modules), the server's checking core in process:")
    print(f"  first check, the module alone                {package['alone']:>8.3f} s")
    print(f"  first check with its project (once)          {package['whole']:>8.3f} s   "
          f"({package['first_analyses']} module analyses)")
    print(f"  one edit after that                          {package['edit']:>8.3f} s   "
          f"({package['edit_analyses']} module analysed, {package['others_changed']} other modules' findings changed)")
    ratio = median / flake8.seconds
    print(f"\nratio: server edit latency (median) / flake8 = {ratio:.3f}   "
          f"(target <= {TARGET}: {'meets' if ratio <= TARGET else 'MISSES'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
