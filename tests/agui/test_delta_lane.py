"""The pipeline's delta lane changes nothing but the speed.

``Pipeline._run`` takes text deltas, tool-call argument fragments and id-less text chunks
without building their models when nobody will see the events (``collect=False``, no
``on_event``, no middleware). Collecting the events switches the lane off, so every stream
here is fed both ways and must give the same report — verdict, error (rule, message, event
number), warnings, state, messages, runs — and the same bookkeeping.
"""

from __future__ import annotations

import json
import pathlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentproto.agui import Pipeline

STREAMS = pathlib.Path(__file__).resolve().parents[2] / "data" / "agui" / "streams"
START = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
FINISH = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def compact(*events: object) -> bytes:
    """SSE frames as producers write them (compact, ``type`` first): the lane's input."""
    return b"".join(b"data: " + json.dumps(e, separators=(",", ":")).encode() + b"\n\n" for e in events)


def both_ways(data: bytes, *, split: int = 0, fmt: str = "sse") -> tuple[dict, dict]:
    """Feed *data* with the lane (collect=False) and without it (collect=True)."""
    results = []
    for collect in (False, True):
        p = Pipeline(format=fmt)
        step = split or len(data) or 1
        for i in range(0, len(data), step):
            p.feed_bytes(data[i : i + step], collect=collect)
        report = p.finish()
        results.append(
            {
                "report": report.to_dict(),
                "events": report.events,
                "pending": report.pending_interrupts,
                "verifier_count": p.verifier._count,
                "reducer_index": p.reducer._index,
                "expander": {k: (v.kind, v.id, v.owner) for k, v in p.expander.pending.items()},
                "discarded": [(d.kind, d.id) for d in p.expander.discarded],
            }
        )
    return results[0], results[1]


def assert_same(data: bytes, **kw: object) -> dict:
    lane, general = both_ways(data, **kw)  # type: ignore[arg-type]
    assert lane == general
    return lane


def test_the_lane_takes_deltas_args_and_chunks_and_changes_nothing():
    data = compact(
        START,
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        *({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": w} for w in ("a", "", "b")),
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "parentMessageId": "m"},
        *({"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": d} for d in ('{"q"', ":1}")),
        {"type": "TOOL_CALL_END", "toolCallId": "c"},
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "k", "delta": "x"},
        *({"type": "TEXT_MESSAGE_CHUNK", "delta": w} for w in ("y", "", "z")),
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "late"},  # m is closed: fatal
        FINISH,
    )
    for split in (0, 1, 7, 64):
        out = assert_same(data, split=split)
    assert out["report"]["error"]["rule"] == "text.content-unopened"
    messages = {m["id"]: m for m in out["report"]["messages"]}
    assert messages["m"]["content"] == "ab"
    assert messages["m"]["toolCalls"][0]["function"]["arguments"] == '{"q":1}'
    assert messages["k"]["content"] == "xyz"


@pytest.mark.parametrize(
    "events",
    [
        # content for a message never started; for one the reducer knows but the run closed
        [START, {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a"}, FINISH],
        # arguments after the call ended, and for an unknown call
        [
            START,
            {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
            {"type": "TOOL_CALL_END", "toolCallId": "c"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "x"},
            FINISH,
        ],
        [START, {"type": "TOOL_CALL_ARGS", "toolCallId": "nope", "delta": "x"}, FINISH],
        # before any run (the verifier is not ACTIVE)
        [{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a"}],
        # shapes the lane must leave alone: a tag, an extra field, a null, a non-string delta
        [
            START,
            {"type": "TEXT_MESSAGE_START", "messageId": "m"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a", "subagentRunId": "s"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "b", "extra": 1},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": None},
            FINISH,
        ],
        [
            START,
            {"type": "TEXT_MESSAGE_START", "messageId": "m"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": 5},
            FINISH,
        ],
        [
            START,
            {"type": "TEXT_MESSAGE_START", "messageId": "m"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a", "timestamp": 1},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "b", "metadata": {"k": 1}},
            {"type": "TEXT_MESSAGE_END", "messageId": "m"},
            FINISH,
        ],
        # chunks: none open (missing id), a subagent's lane, a reasoning lane, a closed message
        [START, {"type": "TEXT_MESSAGE_CHUNK", "delta": "a"}, FINISH],
        [
            START,
            {"type": "SUBAGENT_STARTED", "subagentRunId": "s", "name": "n"},
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "k", "delta": "a", "subagentRunId": "s"},
            {"type": "TEXT_MESSAGE_CHUNK", "delta": "b"},
            {"type": "SUBAGENT_FINISHED", "subagentRunId": "s"},
            FINISH,
        ],
        [
            START,
            {"type": "REASONING_MESSAGE_CHUNK", "messageId": "r", "delta": "a"},
            {"type": "TEXT_MESSAGE_CHUNK", "delta": "b"},
            FINISH,
        ],
        [
            START,
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "k", "delta": "a"},
            {"type": "TEXT_MESSAGE_END", "messageId": "k"},
            {"type": "TEXT_MESSAGE_CHUNK", "delta": "b"},
            FINISH,
        ],
        # a snapshot replaces the conversation while deltas are buffered
        [
            START,
            {"type": "TEXT_MESSAGE_START", "messageId": "m"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a"},
            {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "m", "role": "assistant", "content": "z"}]},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "b"},
            {"type": "TEXT_MESSAGE_END", "messageId": "m"},
            FINISH,
        ],
        # a second run on the stream
        [
            START,
            {"type": "TEXT_MESSAGE_START", "messageId": "m"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a"},
            {"type": "TEXT_MESSAGE_END", "messageId": "m"},
            FINISH,
            {**START, "runId": "r2"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "b"},
        ],
    ],
)
def test_every_case_the_lane_must_refuse_or_share_reports_the_same(events):
    assert_same(compact(*events))
    assert_same(compact(*events), split=5)


def test_payloads_that_only_look_like_lane_input_take_the_general_path():
    head = compact(START, {"type": "TEXT_MESSAGE_START", "messageId": "m"})
    for payload in (
        b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a"',  # not JSON
        b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a","delta":"b"}',  # repeated key
        b'{"type":"TEXT_MESSAGE_CONTENT","type":"TOOL_CALL_ARGS","toolCallId":"m","delta":"a"}',
        b'{"type":"TEXT_MESSAGE_CONTENT","messageId":["m"],"delta":"a"}',
        b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\\ud800"}',  # a lone surrogate
        b'{"type":"TEXT_MESSAGE_CHUNK","delta":"a"} ',
        b'{"type":"TOOL_CALL_ARGS","toolCallId":"m","delta":{"a":1}}',
        b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"null"}',  # the careful path's cue
        b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":null}',  # a null read as absent
    ):
        assert_same(head + b"data: " + payload + b"\n\n" + compact(FINISH))


@pytest.mark.parametrize("path", sorted(p for p in STREAMS.glob("*/*") if not p.name.endswith(".json")))
def test_every_conformance_vector_lints_the_same_both_ways(path):
    data = path.read_bytes()
    fmt = "sse" if path.suffix == ".sse" else "jsonl"
    assert_same(data, fmt=fmt)
    if fmt == "jsonl":  # the same events as compact SSE frames reach the lane
        try:
            lines = [json.loads(x) for x in data.decode("utf-8").splitlines() if x.strip()]
        except ValueError:  # a vector of broken input: fed as it is above
            return
        assert_same(compact(*lines))


_IDS = st.sampled_from(["m", "n"])
_EVENT = st.one_of(
    st.builds(lambda i: {"type": "TEXT_MESSAGE_START", "messageId": i}, _IDS),
    st.builds(
        lambda i, d: {"type": "TEXT_MESSAGE_CONTENT", "messageId": i, "delta": d}, _IDS, st.text(max_size=3)
    ),
    st.builds(lambda i: {"type": "TEXT_MESSAGE_END", "messageId": i}, _IDS),
    st.builds(lambda i: {"type": "TOOL_CALL_START", "toolCallId": i, "toolCallName": "f"}, _IDS),
    st.builds(
        lambda i, d: {"type": "TOOL_CALL_ARGS", "toolCallId": i, "delta": d}, _IDS, st.text(max_size=3)
    ),
    st.builds(lambda i: {"type": "TOOL_CALL_END", "toolCallId": i}, _IDS),
    st.builds(
        lambda i, d: {"type": "TEXT_MESSAGE_CHUNK", "messageId": i, "delta": d}, _IDS, st.text(max_size=3)
    ),
    st.builds(lambda d: {"type": "TEXT_MESSAGE_CHUNK", "delta": d}, st.text(max_size=3)),
    st.builds(lambda i: {"type": "REASONING_MESSAGE_CHUNK", "messageId": i, "delta": "r"}, _IDS),
    st.just({"type": "CUSTOM", "name": "c", "value": 1}),
    st.just({"type": "MESSAGES_SNAPSHOT", "messages": []}),
    st.just(FINISH),
    st.just(START),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_EVENT, max_size=14), st.integers(min_value=0, max_value=40))
def test_random_streams_report_the_same_both_ways(events, split):
    assert_same(compact(START, *events), split=split)


def test_the_lane_really_takes_the_deltas(monkeypatch):
    """Without this, every test above could pass with the lane never taken."""
    data = compact(
        START,
        {"type": "TEXT_MESSAGE_START", "messageId": "m"},
        *({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a"} for _ in range(10)),
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        FINISH,
    )
    calls = {False: 0, True: 0}
    for collect in (False, True):
        p = Pipeline()
        parse = p.parser.fast

        def counting(obj, parse=parse, collect=collect):
            calls[collect] += 1
            return parse(obj)

        monkeypatch.setattr(p.parser, "fast", counting)
        p.feed_bytes(data, collect=collect)
        assert p.finish().messages[0]["content"] == "a" * 10
    assert calls == {False: 4, True: 14}
