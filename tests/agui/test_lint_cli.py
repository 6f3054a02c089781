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
    proc = subprocess.run(
        [sys.executable, "-m", "agentproto", "lint", *args], input=stdin, capture_output=True, timeout=120
    )
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
    assert "rejected at event #2 (RUN_FINISHED)" in out
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
    code, out, _ = lint(capsys, monkeypatch, "--json", str(STREAMS / "invalid" / "truncated-run.jsonl"))
    report = json.loads(out)
    assert code == 1
    assert set(report) == {"verdict", "error", "warnings", "state", "messages", "runs"}
    assert report["error"] == {
        "event": None,
        "type": None,
        "rule": "run.truncated",
        "message": "The stream ended without 'RUN_FINISHED' or 'RUN_ERROR'. The run was "
        "started but never terminated, so its result is incomplete.",
        "fix": "End every run with RUN_FINISHED or RUN_ERROR; a dropped connection leaves the run "
        "truncated, never a success.",
    }
    assert report["runs"][0]["outcome"] == "truncated"


@pytest.mark.parametrize("fmt, code", [("sse", 1), ("jsonl", 0), ("auto", 0)])
def test_format_can_be_forced(capsys, monkeypatch, fmt, code):
    # A JSON-lines capture read as SSE has no data: lines, hence no run at all.
    path = str(STREAMS / "valid" / "minimal-run.jsonl")
    assert lint(capsys, monkeypatch, "--format", fmt, path)[0] == code


def test_stdin_json_array_is_accepted(capsys, monkeypatch):
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    code, out, _ = lint(capsys, monkeypatch, "-", stdin=json.dumps(events).encode())
    assert code == 0


def test_bytes_that_are_not_utf8_exit_2(capsys, monkeypatch):
    code, out, _ = lint(capsys, monkeypatch, "-", stdin=b"data: \xff\xfe\n\n")
    assert code == 2 and "UNREADABLE" in out


def test_a_broken_json_array_exits_2(capsys, monkeypatch):
    assert lint(capsys, monkeypatch, "-", stdin=b'[{"type": "RUN_STARTED"')[0] == 2


def test_a_run_error_is_conformant_and_says_the_run_failed(capsys, monkeypatch):
    code, out, _ = lint(capsys, monkeypatch, str(STREAMS / "valid" / "run-error-is-a-valid-stream.jsonl"))
    assert code == 0 and "run-1: failed" in out


def test_warnings_are_listed_with_event_and_path(capsys, monkeypatch):
    code, out, _ = lint(capsys, monkeypatch, str(STREAMS / "valid" / "unknown-field-stripped.jsonl"))
    assert code == 0 and "event #4 /priority: unknown field 'priority' stripped" in out


# -- event numbering: one convention, from 0 in arrival order --------------------------------


def test_the_human_report_and_json_number_the_failing_event_alike(capsys, monkeypatch):
    path = str(STREAMS / "invalid" / "finish-with-open-tool-call.jsonl")
    _, out, _ = lint(capsys, monkeypatch, path)
    _, js, _ = lint(capsys, monkeypatch, "--json", path)
    index = json.loads(js)["error"]["event"]
    lines = pathlib.Path(path).read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[index])["type"] == "RUN_FINISHED"  # index 0 = the first line
    assert f"at event #{index} (RUN_FINISHED)" in out


def test_help_states_the_numbering_convention_and_the_exit_codes(capsys):
    with pytest.raises(SystemExit) as info:
        main(["lint", "--help"])
    assert info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "numbered from 0 in arrival order" in text and '"event #5" is the event at index 5' in text
    assert "0 conformant" in text and "1 not conformant" in text and "2 unreadable" in text


# -- large captures: the human report summarises the runs, --json keeps them all -------------


def many_runs(tmp_path, n, interrupted=()):
    events = []
    for i in range(n):
        events.append({"type": "RUN_STARTED", "threadId": "t", "runId": f"r-{i}"})
        finished = {"type": "RUN_FINISHED", "threadId": "t", "runId": f"r-{i}"}
        if i in interrupted:
            finished["outcome"] = {
                "type": "interrupt",
                "interrupts": [{"id": f"i-{i}", "reason": "confirmation"}],
            }
        events.append(finished)
    path = tmp_path / "capture.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in events) + "\n", encoding="utf-8")
    return str(path)


def test_600_runs_are_summarised_by_outcome_in_the_human_report(capsys, monkeypatch, tmp_path):
    path = many_runs(tmp_path, 600, interrupted=(17, 233))
    code, out, _ = lint(capsys, monkeypatch, path)
    assert code == 0
    assert "1200 events, 600 runs: 598 success, 2 interrupt (r-17, r-233), 0 warning(s)" in out
    assert "r-599" not in out and len(out) < 300


def test_600_runs_all_stay_in_the_json_report(capsys, monkeypatch, tmp_path):
    path = many_runs(tmp_path, 600, interrupted=(17, 233))
    code, out, _ = lint(capsys, monkeypatch, "--json", path)
    runs = json.loads(out)["runs"]
    assert code == 0 and len(runs) == 600
    assert [r["runId"] for r in runs if r["outcome"] == "interrupt"] == ["r-17", "r-233"]


def test_a_few_runs_are_still_named_one_by_one(capsys, monkeypatch, tmp_path):
    code, out, _ = lint(capsys, monkeypatch, many_runs(tmp_path, 2, interrupted=(1,)))
    assert code == 0 and "runs: r-0: success, r-1: interrupt" in out


def test_the_summary_names_only_the_first_runs_of_an_outcome():
    from agentproto.agui._lint import summarize_runs

    runs = [{"runId": f"r-{i}", "outcome": "failed" if i % 2 else "success"} for i in range(10)]
    assert summarize_runs(runs) == "10 runs: 5 failed (r-1, r-3, r-5, … 2 more), 5 success"
    assert summarize_runs([]) == "runs: none"


def test_arguments_after_the_end_are_told_apart_from_a_call_never_opened(capsys, monkeypatch):
    _, after, _ = lint(capsys, monkeypatch, str(STREAMS / "invalid" / "tool-args-after-end.jsonl"))
    _, never, _ = lint(capsys, monkeypatch, str(STREAMS / "invalid" / "tool-args-unopened.jsonl"))
    assert "rule:    tool.args-after-end" in after and "has already ended" in after
    assert "fix:     Stream every TOOL_CALL_ARGS of a call before its TOOL_CALL_END." in after
    assert "TOOL_CALL_START" not in after.split("fix:")[1]  # not "open it with START": it was
    assert "rule:    tool.args-unopened" in never and "fix:     Open the call with TOOL_CALL_START" in never


def test_the_fix_travels_in_the_json_report_too(capsys, monkeypatch):
    _, out, _ = lint(capsys, monkeypatch, "--json", str(STREAMS / "invalid" / "tool-args-after-end.jsonl"))
    error = json.loads(out)["error"]
    assert error["rule"] == "tool.args-after-end"
    assert error["fix"] == "Stream every TOOL_CALL_ARGS of a call before its TOOL_CALL_END."
