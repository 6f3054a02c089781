"""The conformance vectors under data/agui/streams: every stream reaches its expected verdict."""

import json
import pathlib

import pytest

from agentproto.agui import RULES, STAGE_RULES, lint_source

STREAMS = pathlib.Path(__file__).resolve().parents[2] / "data" / "agui" / "streams"
EXPECTS = sorted(STREAMS.glob("*/*.expect.json"))


def _stream_for(expect_path: pathlib.Path) -> pathlib.Path:
    stem = expect_path.name[: -len(".expect.json")]
    [stream] = [p for p in expect_path.parent.glob(stem + ".*") if p != expect_path]
    return stream


@pytest.fixture(scope="module", params=EXPECTS, ids=lambda p: f"{p.parent.name}/{p.name[:-12]}")
def vector(request):
    expect = json.loads(request.param.read_text(encoding="utf-8"))
    stream = _stream_for(request.param)
    return request.param.parent.name, expect, lint_source(stream.read_bytes())


def test_there_are_enough_vectors_to_teach_from():
    assert len(EXPECTS) >= 60
    assert {p.parent.name for p in EXPECTS} == {"valid", "invalid"}


def test_every_rule_has_an_invalid_vector():
    rules = {json.loads(p.read_text())["error"]["rule"] for p in STREAMS.glob("invalid/*.expect.json")}
    not_reachable_from_a_stream = {
        "decode.sse",  # misuse of the decoder API
        "input.unreadable",  # covered by the CLI tests
        "apply.untransformed-chunk",  # only reachable by skipping expansion
        "guard.path-not-allowed",  # guard rails are off by default
        "guard.resync-needed",
    }
    assert set(RULES) | (set(STAGE_RULES) - not_reachable_from_a_stream) <= rules


def test_a_valid_stream_is_accepted_and_an_invalid_one_rejected(vector):
    kind, expect, report = vector
    assert report.ok is (kind == "valid")
    assert report.verdict == expect["verdict"]


def test_the_first_violation_is_the_expected_one(vector):
    _, expect, report = vector
    assert report.error == expect["error"]


def test_warnings_state_messages_and_runs_match(vector):
    _, expect, report = vector
    assert len(report.warnings) == expect["warnings"]
    assert report.state == expect["state"]
    assert report.messages == expect["messages"]
    assert report.runs == expect["runs"]


def test_a_truncated_stream_is_never_reported_as_success(vector):
    _, expect, report = vector
    if report.error is not None and report.error["rule"].startswith("run.truncated"):
        assert report.runs[-1]["outcome"] == "truncated"
