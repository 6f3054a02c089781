"""`agentproto lint` as a user runs it: a subprocess, files and stdin, exit codes 0/1/2."""

import json
import pathlib
import subprocess
import sys

import pytest

STREAMS = pathlib.Path(__file__).resolve().parents[2] / "data" / "agui" / "streams"


def lint(*args, stdin: bytes | None = None):
    proc = subprocess.run([sys.executable, "-m", "agentproto", "lint", *args], input=stdin,
                          capture_output=True, timeout=60)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def test_a_conformant_file_exits_0():
    code, out, _ = lint(str(STREAMS / "valid" / "tool-call-result.jsonl"))
    assert code == 0 and "conformant" in out


def test_a_violation_exits_1_and_names_event_type_rule_message_and_fix():
    code, out, _ = lint(str(STREAMS / "invalid" / "finish-with-open-tool-call.jsonl"))
    assert code == 1
    assert "NOT CONFORMANT at event 2 (RUN_FINISHED)" in out
    assert "rule:    run.open-at-finish" in out
    assert "Cannot send 'RUN_FINISHED' while tool calls are still active: c1" in out
    assert "fix:" in out


def test_json_output_is_one_object_with_the_contract_keys(tmp_path):
    code, out, _ = lint("--json", str(STREAMS / "invalid" / "truncated-run.jsonl"))
    report = json.loads(out)
    assert code == 1
    assert set(report) == {"outcome", "error", "warnings", "state", "messages", "runs"}
    assert report["error"]["rule"] == "run.truncated"
    assert report["runs"][0]["outcome"] == "truncated"


def test_stdin_is_read_with_a_dash():
    data = (STREAMS / "valid" / "sse-with-comments-and-crlf.sse").read_bytes()
    code, out, _ = lint("-", stdin=data)
    assert code == 0 and out.startswith("<stdin>: conformant")


@pytest.mark.parametrize("fmt, code", [("sse", 1), ("jsonl", 0)])
def test_format_can_be_forced(fmt, code):
    # A JSON-lines capture read as SSE has no data: lines, hence no run at all.
    assert lint("--format", fmt, str(STREAMS / "valid" / "minimal-run.jsonl"))[0] == code


def test_a_missing_file_exits_2():
    code, _, err = lint("/nonexistent/capture.sse")
    assert code == 2 and "cannot read" in err


def test_bytes_that_are_not_utf8_exit_2():
    code, out, _ = lint("-", stdin=b"data: \xff\xfe\n\n")
    assert code == 2 and "UNREADABLE" in out


def test_a_broken_json_array_exits_2():
    assert lint("-", stdin=b'[{"type": "RUN_STARTED"')[0] == 2


def test_warnings_are_listed_with_event_and_path():
    code, out, _ = lint(str(STREAMS / "valid" / "unknown-field-stripped.jsonl"))
    assert code == 0 and "event 4 /priority: unknown field 'priority' stripped" in out
