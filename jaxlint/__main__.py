from jaxlint.cli import console

console()
