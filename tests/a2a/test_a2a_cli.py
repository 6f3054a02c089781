"""``agentproto a2a send`` / ``card``: output and exit codes."""

from __future__ import annotations

import json

import pytest

from agentproto.cli import main


def test_send_prints_the_resulting_task_as_json(travel, capsys):
    assert main(["a2a", "send", "--url", travel, "Plan my trip to Sanya"]) == 0
    task = json.loads(capsys.readouterr().out)
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert (
        main(
            [
                "a2a",
                "send",
                "--url",
                travel,
                "--task-id",
                task["id"],
                "--history-length",
                "0",
                "2026-04-08 to 2026-04-12",
            ]
        )
        == 0
    )
    done = json.loads(capsys.readouterr().out)
    assert done["status"]["state"] == "TASK_STATE_COMPLETED" and "history" not in done


def test_send_accepts_the_jsonrpc_endpoint_as_url(travel, capsys):
    assert main(["a2a", "send", "--url", travel + "/a2a", "hello"]) == 0
    assert json.loads(capsys.readouterr().out)["role"] == "ROLE_AGENT"  # a direct message


def test_no_wait_returns_the_task_as_created(travel, capsys):
    assert main(["a2a", "send", "--url", travel, "--no-wait", "Trip to Tokyo"]) == 0
    assert json.loads(capsys.readouterr().out)["status"]["state"] == "TASK_STATE_SUBMITTED"


def test_stream_prints_one_event_per_line(travel, capsys):
    assert main(["a2a", "send", "--url", travel, "--stream", "Trip to Beijing 2026-09-01 2026-09-03"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert next(iter(lines[0])) == "task"
    assert lines[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_a_protocol_error_exits_1_with_the_code_on_stderr(travel, capsys):
    assert main(["a2a", "send", "--url", travel, "--task-id", "ghost", "hi"]) == 1
    assert "error -32001" in capsys.readouterr().err


def test_an_unreachable_agent_exits_2(capsys):
    assert main(["a2a", "send", "--url", "http://127.0.0.1:9", "hi"]) == 2
    assert "cannot reach" in capsys.readouterr().err


def test_bad_usage_exits_2(capsys):
    assert main(["a2a", "send", "--url", "ftp://x", "hi"]) == 2
    with pytest.raises(SystemExit) as info:
        main(["a2a", "send", "hi"])  # --url is required
    assert info.value.code == 2
    assert main(["a2a"]) == 2


def test_card_prints_the_agent_card(travel, capsys):
    assert main(["a2a", "card", "--url", travel]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "Travel Desk"
