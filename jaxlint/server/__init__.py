"""`jaxlint server`: a language server over stdio (diagnostics, quick fixes, noqa, hover, notebooks).

pygls is an optional dependency (the `server` extra): importing this package never needs it, so the
command can say how to install it instead of failing with a traceback.
"""

from __future__ import annotations

import argparse
import sys

INSTALL_HINT = "`jaxlint server` needs pygls: pip install 'pygls>=2,<3' (the 'server' extra of jax-sharpbits)"
EXIT_ERROR = 2


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="jaxlint server",
        description="Run jaxlint as a language server on stdin/stdout (for editors: see docs/editors.md).",
    )
    # Editors' generic LSP clients often pass --stdio; it is the only transport, so it changes nothing.
    parser.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    parser.parse_args(argv)
    try:
        import pygls  # noqa: F401
    except ImportError:
        print(f"jaxlint: error: {INSTALL_HINT}", file=sys.stderr)
        return EXIT_ERROR
    from jaxlint.server.protocol import serve

    serve()
    return 0
