"""Hypothesis fuzzing of each consumer stage on its own: only documented errors come out.

``test_fuzz.py`` fuzzes the SSE decoder, the limits, the run-input parser, the resume
validator and JSON-RPC dispatch directly, and the whole pipeline through ``lint_source``. Here
the stages inside the pipeline are driven one by one with events built to collide — a few
message, tool-call and run ids, patches on a few paths — so that the event parser, the chunk
expander, the verifier and the state reducer each see sequences the pipeline's earlier stages
would have stopped. Each stage may raise only its :class:`~agentproto.agui.errors.AGUIError`
family (the parser: malformed events and undecodable text); anything else is a bug.
``AGENTPROTO_SOAK=1`` runs many more examples.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentproto.agui import EventType
from agentproto.agui.chunks import ChunkExpander
from agentproto.agui.errors import AGUIError, DecodeError, MalformedEventError, PatchError
from agentproto.agui.parse import parse_event
from agentproto.agui.state import StateReducer
from agentproto.agui.verify import Verifier
from tests.reliability.sizes import size

FAST = settings(max_examples=size(150, 4000), deadline=None, suppress_health_check=[HealthCheck.too_slow])

text = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=12)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | text,
    lambda kids: (
        st.lists(kids, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "c"]) | text, kids, max_size=3)
    ),
    max_leaves=12,
)
paths = st.sampled_from(["", "/a", "/a/0", "/a/-", "/b", "/b/c", "/~1x", "/a/9", "a"])
patch_op = st.fixed_dictionaries(
    {"op": st.sampled_from(["add", "remove", "replace", "move", "copy", "test", "bogus"]), "path": paths},
    optional={"value": json_values, "from": paths},
)
#: Field values drawn from small pools, so that ids repeat and events interact.
FIELDS = {
    "threadId": st.sampled_from(["th", "th-2"]),
    "runId": st.sampled_from(["r1", "r2"]),
    "parentRunId": st.sampled_from(["r1", "r2"]),
    "messageId": st.sampled_from(["m1", "m2"]),
    "toolCallId": st.sampled_from(["t1", "t2"]),
    "toolCallName": st.sampled_from(["refund", "lookup"]),
    "parentMessageId": st.sampled_from(["m1", "m2"]),
    "role": st.sampled_from(["assistant", "user", "reasoning", "tool", "developer"]),
    "delta": st.one_of(text, st.lists(patch_op, max_size=3)),
    "content": text,
    "snapshot": json_values,
    "stepName": st.sampled_from(["plan", "act"]),
    "name": st.sampled_from(["plan", "agentproto.x", "x"]),
    "value": json_values,
    "message": text,
    "messages": st.lists(
        st.fixed_dictionaries(
            {"id": st.sampled_from(["m1", "m2"]), "role": st.sampled_from(["user", "assistant"])}
        ),
        max_size=2,
    ),
    "outcome": st.one_of(
        st.just({"type": "success"}),
        st.fixed_dictionaries(
            {
                "type": st.just("interrupt"),
                "interrupts": st.lists(
                    st.fixed_dictionaries({"id": st.just("i1"), "reason": st.just("tool_call")}), max_size=2
                ),
            }
        ),
        json_values,
    ),
    "subagentRunId": st.sampled_from(["s1", "s2"]),
    "activityType": st.just("PLAN"),
    "patch": st.lists(patch_op, max_size=3),
    "encryptedValue": text,
    "entityId": st.sampled_from(["m1", "t1"]),
    "subtype": st.sampled_from(["message", "tool-call"]),
}
TYPES = [t.value for t in EventType] + ["NOT_A_TYPE"]
wire_events = st.fixed_dictionaries(
    {"type": st.sampled_from(TYPES)}, optional={name: strategy for name, strategy in FIELDS.items()}
)


RUN_STARTED = {"type": "RUN_STARTED", "threadId": "th", "runId": "r1"}


def parsed(wires: list[dict]) -> list:
    """The events of ``wires`` that parse (malformed ones are the parser's business)."""
    out = []
    for i, wire in enumerate(wires):
        try:
            result = parse_event(wire, index=i)
        except (MalformedEventError, PatchError, DecodeError):
            continue
        if result.event is not None:
            out.append(result.event)
    return out


@FAST
@given(st.one_of(wire_events, json_values, text.map(json.dumps), st.binary(max_size=80)))
def test_the_event_parser_only_raises_malformed_or_decode_errors(value):
    try:
        parse_event(value if isinstance(value, (dict, str, bytes)) else json.dumps(value))
    except (MalformedEventError, PatchError, DecodeError):
        pass


@FAST
@given(st.lists(wire_events, max_size=14))
def test_the_chunk_expander_only_raises_chunk_errors(wires):
    expander = ChunkExpander()
    try:
        for i, event in enumerate(parsed(wires)):
            expander.feed(event, index=i)
    except AGUIError:
        pass


@FAST
@given(st.lists(wire_events, max_size=14))
def test_the_verifier_only_raises_verification_errors(wires):
    verifier = Verifier()
    try:  # a run is open first, so the rules past the start are reached
        for i, event in enumerate(parsed([RUN_STARTED, *wires])):
            verifier.feed(event, index=i)
    except AGUIError:
        pass


@FAST
@given(json_values, st.lists(wire_events, max_size=14))
def test_the_state_reducer_warns_or_raises_only_agui_errors(initial, wires):
    try:
        reducer = StateReducer(state=initial if isinstance(initial, (dict, list)) else None)
    except AGUIError:
        return
    for i, event in enumerate(parsed(wires)):
        try:
            warnings = reducer.apply(event, index=i)
        except AGUIError:
            continue  # fatal for this event; the reducer's state must still be readable
        assert isinstance(warnings, list)
    json.dumps(reducer.state)  # whatever it holds is still JSON
