"""The `jaxlint` command and `python -m jaxlint`."""

import sys
from typing import NoReturn


def main() -> NoReturn:
    from jaxlint.verify.processes import start_early

    start_early(sys.argv[1:])  # with --verify, jax's import starts now, while the linter's own imports run
    from jaxlint.cli import console

    console()


if __name__ == "__main__":
    main()
