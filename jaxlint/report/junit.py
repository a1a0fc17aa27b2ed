"""JUnit XML, which CI systems (GitLab, Jenkins, Azure) show as test results: one test suite, a failing
test case per finding, an erroring one per internal error, and one passing case when all is clean."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from jaxlint.report.text import location, summary
from jaxlint.results import RunResult


def render(result: RunResult) -> str:
    failures, errors = len(result.diagnostics), len(result.internal_errors)
    tests = max(failures + errors, 1)
    counts = {"tests": str(tests), "failures": str(failures), "errors": str(errors)}
    suites = ET.Element("testsuites", {"name": "jaxlint", **counts})
    suite = ET.SubElement(suites, "testsuite", {"name": "jaxlint", "skipped": "0", **counts})
    for d in result.diagnostics:
        where = {"file": d.filename} if d.cell is not None else {"file": d.filename, "line": str(d.row)}
        case = ET.SubElement(suite, "testcase", {"name": f"{d.code} {location(d)}", "classname": d.filename, **where})
        failure = ET.SubElement(case, "failure", message=d.message, type=d.code)
        failure.text = f"{location(d)}: {d.code} {d.message}"
    for message in result.internal_errors:
        case = ET.SubElement(suite, "testcase", name="internal error", classname="jaxlint")
        ET.SubElement(case, "error", message=message.splitlines()[0], type="internal error").text = message
    if tests > failures + errors:
        ET.SubElement(suite, "testcase", name=summary(result).strip(), classname="jaxlint")
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
