"""`agentproto lint` as a user runs it: exit codes 0 (conformant), 1 (not), 2 (unreadable).

Three tests start a real subprocess (``python -m agentproto lint``) on a file and on stdin;
the rest call the same entry point in-process, which is faster and sees the same code.
"""

import io
import json
import pathlib
import subprocess
import sys

import pytest

from agentproto.cli import main

STREAMS = pathlib.Path(__file__).resolve().parents[2] / "data" / "agui" / "streams"


def subprocess_lint(*args, stdin: bytes | None = None):
    proc = subprocess.run([sys.executable, "-m", "agentproto", "lint", *args], input=stdin,
                          capture_output=True, timeout=120)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def lint(capsys, monkeypatch, *args, stdin: bytes | None = None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main(["lint", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- as a user runs it ---------------------------------------------------------------------

def test_a_violation_in_a_file_exits_1_and_names_event_type_rule_message_and_fix():
    code, out, _ = subprocess_lint(str(STREAMS / "invalid" / "finish-with-open-tool-call.jsonl"))
    assert code == 1
    assert "NOT CONFORMANT at event 2 (RUN_FINISHED)" in out
    assert "rule:    run.open-at-finish" in out
    assert "message: Cannot send 'RUN_FINISHED' while tool calls are still active: c1" in out
    assert "fix:     Close every message" in out


def test_a_conformant_stream_on_stdin_exits_0():
    data = (STREAMS / "valid" / "sse-with-comments-and-crlf.sse").read_bytes()
    code, out, _ = subprocess_lint("-", stdin=data)
    assert code == 0 and out.startswith("<stdin>: conformant")


def test_a_missing_file_exits_2():
    code, _, err = subprocess_lint("/nonexistent/capture.sse")
    assert code == 2 and "cannot read" in err


# -- the same entry point, in-process --------------------------------------------------------

def test_a_conformant_file_exits_0(capsys, monkeypatch):
    code, out, _ = lint(capsys, monkeypatch, str(STREAMS / "valid" / "tool-call-result.jsonl"))
    assert code == 0 and "conformant" in out


def test_json_output_is_one_object_with_the_contract_keys(capsys, monkeypatch):
    code, out, _ = lint(capsys, monkeypatch, "--json",
                        str(STREAMS / "invalid" / "truncated-run.jsonl"))
    report = json.loads(out)
    assert code == 1
    assert set(report) == {"outcome", "error", "warnings", "state", "messages", "runs"}
    assert report["error"] == {
        "event": None, "type": None, "rule": "run.truncated",
        "message": "The stream ended without 'RUN_FINISHED' or 'RUN_ERROR'. The run was "
                   "started but never terminated, so its result is incomplete."}
    assert report["runs"][0]["outcome"] == "truncated"


@pytest.mark.parametrize("fmt, code", [("sse", 1), ("jsonl", 0), ("auto", 0)])
def test_format_can_be_forced(capsys, monkeypatch, fmt, code):
    # A JSON-lines capture read as SSE has no data: lines, hence no run at all.
    path = str(STREAMS / "valid" / "minimal-run.jsonl")
    assert lint(capsys, monkeypatch, "--format", fmt, path)[0] == code


def test_stdin_json_array_is_accepted(capsys, monkeypatch):
    events = [{"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
              {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}]
    code, out, _ = lint(capsys, monkeypatch, "-", stdin=json.dumps(events).encode())
    assert code == 0


def test_bytes_that_are_not_utf8_exit_2(capsys, monkeypatch):
    code, out, _ = lint(capsys, monkeypatch, "-", stdin=b"data: \xff\xfe\n\n")
    assert code == 2 and "UNREADABLE" in out


def test_a_broken_json_array_exits_2(capsys, monkeypatch):
    assert lint(capsys, monkeypatch, "-", stdin=b'[{"type": "RUN_STARTED"')[0] == 2


def test_a_run_error_is_conformant_and_says_the_run_failed(capsys, monkeypatch):
    code, out, _ = lint(capsys, monkeypatch,
                        str(STREAMS / "valid" / "run-error-is-a-valid-stream.jsonl"))
    assert code == 0 and "run-1: failed" in out


def test_warnings_are_listed_with_event_and_path(capsys, monkeypatch):
    code, out, _ = lint(capsys, monkeypatch,
                        str(STREAMS / "valid" / "unknown-field-stripped.jsonl"))
    assert code == 0 and "event 4 /priority: unknown field 'priority' stripped" in out
