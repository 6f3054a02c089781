"""tools/run_tck.py: its verdict on a TCK run (the TCK itself runs outside make test; see the tool)."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

TOOL = pathlib.Path(__file__).resolve().parents[2] / "tools" / "run_tck.py"


@pytest.fixture(scope="module")
def tck():
    spec = importlib.util.spec_from_file_location("run_tck", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REQS = "tests.compatibility.core_operations.test_requirements"
CODES = "tests.compatibility.grpc.test_status_codes.TestGrpcStatusCodes"
JUNIT = f"""<?xml version="1.0"?><testsuites><testsuite>
<testcase classname="{REQS}" name="test_must_requirement[CORE-SEND-001-grpc]"/>
<testcase classname="{REQS}" name="test_must_requirement[CORE-SEND-003-grpc]"><failure/></testcase>
<testcase classname="{CODES}" name="test_version_not_supported_returns_unimplemented"><failure/></testcase>
<testcase classname="tests.compatibility.jsonrpc.test_x" name="test_y"><skipped/></testcase>
</testsuite></testsuites>"""


def test_junit_counts_and_failure_names(tck, tmp_path):
    junit = tmp_path / "grpc-must.xml"
    junit.write_text(JUNIT)
    assert tck.count(junit) == {"passed": 1, "failed": 2, "skipped": 1}
    assert tck.failures(junit) == [
        "test_requirements::test_must_requirement[CORE-SEND-003-grpc]",
        "TestGrpcStatusCodes::test_version_not_supported_returns_unimplemented",
    ]


def test_disputed_failures_are_printed_with_their_reason_and_do_not_fail_the_run(tck, tmp_path, capsys):
    junit = tmp_path / "grpc-must.xml"
    junit.write_text(JUNIT)
    rows = [("grpc", "must", tck.count(junit), tck.failures(junit))]
    assert tck.report(rows, full=False) == 0
    out = capsys.readouterr().out
    assert "33.3% as run, 100.0% without the disputed tests" in out
    assert out.count("DISPUTED grpc must") == 2
    assert "FAILED_PRECONDITION" in out and "expected_error" in out


def test_any_other_failure_fails_the_run(tck, capsys):
    rows = [("jsonrpc", "must", {"passed": 5, "failed": 1, "skipped": 0}, ["test_x::test_new_rule"])]
    assert tck.report(rows, full=False) == 1
    assert "FAILED jsonrpc must: test_x::test_new_rule" in capsys.readouterr().out


def test_a_full_run_names_disputes_that_no_longer_fail(tck, capsys):
    rows = [
        (t, lv, {"passed": 3, "failed": 0, "skipped": 0}, []) for t in tck.TRANSPORTS for lv in tck.LEVELS
    ]
    assert tck.report(rows, full=True) == 0
    assert capsys.readouterr().out.count("STALE dispute") == len(tck.DISPUTED)
