"""A clone of the repository passes its tests with nothing beside it: tests, CI and benchmarks read
only files inside the repository (their data is in tests/data/)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema

from test_outputs import SARIF_SCHEMA

ROOT = Path(__file__).resolve().parents[1]
# `Path(__file__).resolve().parents[N]` from a file one folder below the root leaves it when N >= 2;
# a path into a sibling of the repository, or an absolute path into this machine's folders.
_OUTSIDE = re.compile(r"parents\[([2-9])\]|\.\./shared|['\"]/(?:work|home|root|opt)/")


def test_tests_ci_and_benchmarks_name_no_path_outside_the_repository() -> None:
    files = [*(ROOT / "tests").glob("*.py"), *(ROOT / "benchmarks").glob("*.py"), *(ROOT / ".ci").iterdir()]
    offenders = [f"{path.relative_to(ROOT)}:{row}: {line.strip()}"
                 for path in files if path.name != Path(__file__).name
                 for row, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if _OUTSIDE.search(line)]
    assert offenders == []


def test_the_sarif_schema_is_the_oasis_one_inside_the_repository() -> None:
    assert SARIF_SCHEMA.is_relative_to(ROOT / "tests" / "data")
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    assert schema["$id"] == "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json"
    assert schema["properties"]["version"]["enum"] == ["2.1.0"]
    jsonschema.validators.validator_for(schema).check_schema(schema)
