"""The event model and the parser's processing model (spec 1.1 basic/processing)."""

import json

import pytest

from agentproto.agui import (
    EVENT_CLASSES,
    CustomEvent,
    DecodeError,
    EventParser,
    EventType,
    MalformedEventError,
    PatchError,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    StateSnapshotEvent,
    TextMessageStartEvent,
    dump_event,
    event_to_json,
    parse_event,
    parse_run_agent_input,
)
from tests.agui.agui_samples import SAMPLES


def parse(obj, **kw):
    if isinstance(obj, dict):
        obj = json.dumps(obj)
    return parse_event(obj, **kw)


def test_there_are_thirty_one_event_types_each_with_a_model():
    assert len(EventType) == 31
    assert set(EVENT_CLASSES) == set(EventType)
    assert set(SAMPLES) == {t.value for t in EventType}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_every_event_type_round_trips_through_json_unchanged(name):
    parsed = parse(SAMPLES[name])
    assert parsed.warnings == []
    assert dump_event(parsed.event) == SAMPLES[name] | (
        {"role": "reasoning"} if name == "REASONING_MESSAGE_START" else {}
    )


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_dict_input_and_text_input_agree(name):
    assert parse_event(SAMPLES[name]).event == parse(SAMPLES[name]).event


def test_models_accept_snake_case_in_python_and_dump_camel_case_on_the_wire():
    event = RunStartedEvent(thread_id="t", run_id="r")
    assert event_to_json(event) == '{"type":"RUN_STARTED","threadId":"t","runId":"r"}'
    assert RunStartedEvent(threadId="t", runId="r") == event


def test_absent_optionals_are_omitted_but_null_as_data_is_kept():
    assert dump_event(StateSnapshotEvent(snapshot=None)) == {"type": "STATE_SNAPSHOT", "snapshot": None}
    assert dump_event(CustomEvent(name="n", value=None))["value"] is None
    assert "role" not in dump_event(TextMessageStartEvent(message_id="m"))
    event = RunFinishedEvent(thread_id="t", run_id="r", result=None)
    assert "result" not in dump_event(event)


def test_unknown_event_type_is_dropped_with_a_warning_not_fatal():
    parsed = parse({"type": "FUTURE_EVENT", "x": 1}, index=7)
    assert parsed.event is None and parsed.dropped
    [warning] = parsed.warnings
    assert warning.event == 7 and warning.path == "/type" and "FUTURE_EVENT" in warning.message


def test_unknown_field_is_stripped_with_a_warning_naming_its_path():
    parsed = parse({"type": "CUSTOM", "name": "n", "value": 1, "future": True})
    assert parsed.event == CustomEvent(name="n", value=1)
    assert [w.path for w in parsed.warnings] == ["/future"]


def test_nested_unknown_field_is_reported_with_its_full_path():
    sample = json.loads(json.dumps(SAMPLES["RUN_FINISHED"]))
    sample["outcome"]["interrupts"][0]["priority"] = "high"
    parsed = parse(sample)
    assert [w.path for w in parsed.warnings] == ["/outcome/interrupts/0/priority"]


def test_snake_case_on_the_wire_is_not_a_spelling_of_the_field():
    with pytest.raises(MalformedEventError) as info:
        parse({"type": "RUN_STARTED", "thread_id": "t", "runId": "r"})
    assert info.value.path == "/threadId" and info.value.rule == "schema.missing-field"


def test_snake_case_warning_suggests_the_wire_spelling():
    parsed = parse({"type": "TEXT_MESSAGE_END", "messageId": "m", "raw_event": {}})
    assert "'rawEvent'" in parsed.warnings[0].message


def test_unknown_outcome_type_is_stripped_so_the_run_reads_as_success():
    parsed = parse({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": {"type": "paused"}})
    assert parsed.event.outcome is None
    assert parsed.warnings[0].path == "/outcome"


def test_unknown_content_part_is_dropped_from_its_list():
    parsed = parse(
        {
            "type": "TOOL_CALL_RESULT",
            "messageId": "t",
            "toolCallId": "c",
            "content": [{"type": "hologram", "x": 1}, {"type": "text", "text": "ok"}],
        }
    )
    assert [p.type for p in parsed.event.content] == ["text"]
    assert parsed.warnings[0].path == "/content/0"


def test_unknown_source_in_a_required_position_removes_the_containing_part():
    parsed = parse(
        {
            "type": "MESSAGES_SNAPSHOT",
            "messages": [
                {
                    "id": "u",
                    "role": "user",
                    "content": [
                        {"type": "image", "source": {"type": "ipfs", "value": "Qm"}},
                        {"type": "text", "text": "see"},
                    ],
                }
            ],
        }
    )
    assert [p.type for p in parsed.event.messages[0].content] == ["text"]


@pytest.mark.parametrize("kind", ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CHUNK"])
def test_an_unknown_text_message_role_is_stripped_and_the_message_kept(kind):
    """basic/processing: a closed set's unrecognised value (its example: a message role) is
    stripped, not fatal; the role is optional, so the field goes and the message stays."""
    parsed = parse({"type": kind, "messageId": "m", "role": "narrator"})
    assert parsed.event.role is None  # absent: the default, assistant
    [warning] = parsed.warnings
    assert (warning.path, "'narrator'" in warning.message) == ("/role", True)


def test_single_value_roles_stay_fatal():
    """A wrong literal is a malformed known value (corpus: reasoning-message-wrong-role-fatal)."""
    wrong = malformed({"type": "REASONING_MESSAGE_START", "messageId": "m", "role": "assistant"})
    assert (wrong.path, wrong.reason) == ("/role", 'Invalid literal value, expected "reasoning"')


def test_unknown_message_role_drops_that_message_only():
    parsed = parse(
        {
            "type": "MESSAGES_SNAPSHOT",
            "messages": [
                {"id": "x", "role": "narrator", "content": "once"},
                {"id": "u", "role": "user", "content": "hi"},
            ],
        }
    )
    assert [m.id for m in parsed.event.messages] == ["u"]


def test_unknown_patch_op_is_dropped_and_the_rest_kept():
    parsed = parse(
        {
            "type": "STATE_DELTA",
            "delta": [
                {"op": "add", "path": "/a", "value": 1},
                {"op": "merge", "path": "/b"},
                {"op": "remove", "path": "/c"},
            ],
        }
    )
    assert [op.op for op in parsed.event.delta] == ["add", "remove"]
    assert parsed.warnings[0].path == "/delta/1"


def test_patch_operations_are_open_objects_and_keep_extra_members():
    parsed = parse(SAMPLES["STATE_DELTA"])
    assert dump_event(parsed.event)["delta"][1] == {"op": "remove", "path": "/b", "value": "leftover"}
    assert parsed.warnings == []


def test_unknown_reasoning_subtype_in_a_required_position_drops_the_event():
    parsed = parse(
        {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "image", "entityId": "e", "encryptedValue": "v"}
    )
    assert parsed.event is None
    assert parsed.warnings[0].path == "/subtype"


def test_metadata_is_open_and_keeps_unknown_members_and_nulls():
    parsed = parse(SAMPLES["TEXT_MESSAGE_END"])
    assert parsed.event.metadata == {"k": None, "n": [1, 2]} and parsed.warnings == []


@pytest.mark.parametrize(
    "obj, path, rule",
    [
        (
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": 5, "delta": "x"},
            "/messageId",
            "schema.invalid-value",
        ),
        ({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m"}, "/delta", "schema.missing-field"),
        (
            {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": []},
            "/outcome",
            "schema.invalid-value",
        ),
        (
            {
                "type": "RUN_FINISHED",
                "threadId": "t",
                "runId": "r",
                "outcome": {"type": "interrupt", "interrupts": []},
            },
            "/outcome/interrupts",
            "schema.invalid-value",
        ),
        ({"type": "RESUME", "x": 1} | {"type": 42}, "/type", "schema.invalid-value"),
        ({"messageId": "m"}, "/type", "schema.missing-field"),
    ],
)
def test_a_known_field_with_an_invalid_value_is_fatal(obj, path, rule):
    with pytest.raises(MalformedEventError) as info:
        parse(obj, index=3)
    assert (info.value.path, info.value.rule, info.value.index) == (path, rule, 3)


@pytest.mark.parametrize("value", ['"15"', "15.0", "true"])
def test_timestamp_is_never_coerced(value):
    raw = '{"type":"STEP_STARTED","stepName":"s","timestamp":' + value + "}"
    with pytest.raises(MalformedEventError) as info:
        parse_event(raw)
    assert info.value.path == "/timestamp"


def test_timestamp_outside_the_json_safe_integer_range_is_rejected():
    with pytest.raises(MalformedEventError):
        parse_event('{"type":"STEP_STARTED","stepName":"s","timestamp":9007199254740992}')


def test_null_for_a_whole_optional_field_is_fatal():
    with pytest.raises(MalformedEventError) as info:
        parse({"type": "TEXT_MESSAGE_START", "messageId": "m", "name": None})
    assert info.value.rule == "schema.null-optional" and info.value.path == "/name"


def test_null_subagent_tag_gets_the_reference_clients_message():
    with pytest.raises(MalformedEventError) as info:
        parse({"type": "TEXT_MESSAGE_END", "messageId": "m", "subagentRunId": None})
    assert str(info.value) == (
        "Cannot send 'TEXT_MESSAGE_END' with 'subagentRunId: null'. "
        "The field is optional \u2014 omit it entirely."
    )


def test_nulls_the_reference_client_tolerates_become_absent_with_one_warning_per_run():
    parser = EventParser()
    parsed = parser.parse(
        json.dumps({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "result": None, "rawEvent": None})
    )
    assert parsed.event == RunFinishedEvent(thread_id="t", run_id="r")
    assert sorted(w.path for w in parsed.warnings) == ["/rawEvent", "/result"]
    again = parser.parse(json.dumps({"type": "STEP_STARTED", "stepName": "s", "rawEvent": None}))
    assert again.warnings == []


def test_malformed_patch_is_a_patch_error():
    with pytest.raises(PatchError) as info:
        parse({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a"}]})
    assert info.value.path == "/delta/0/value"
    with pytest.raises(PatchError):
        parse({"type": "STATE_DELTA", "delta": {"op": "add"}})
    with pytest.raises(PatchError) as info:
        parse(
            {
                "type": "ACTIVITY_DELTA",
                "messageId": "a",
                "activityType": "P",
                "patch": [{"op": "remove", "path": "no-slash"}],
            }
        )
    assert info.value.path == "/patch/0/path"


def test_patch_error_is_a_malformed_event_error():
    assert issubclass(PatchError, MalformedEventError)


def test_text_that_is_not_json_is_a_decode_error():
    with pytest.raises(DecodeError):
        parse_event("{not json")


def test_a_json_value_that_is_not_an_object_is_malformed():
    with pytest.raises(MalformedEventError) as info:
        parse_event("[1, 2]")
    assert (info.value.rule, info.value.path) == ("schema.not-an-object", "")
    assert info.value.message == "malformed event at /: Expected object, received array"


def malformed(obj):
    with pytest.raises(MalformedEventError) as info:
        parse_event(obj)
    return info.value


@pytest.mark.parametrize(
    ("event", "path", "reason"),
    [
        ({"type": "TEXT_MESSAGE_START", "messageId": 42}, "/messageId", "Expected string, received number"),
        (
            {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": ["interrupt"]},
            "/outcome",
            "Expected object, received array",
        ),
        (
            {
                "type": "RUN_FINISHED",
                "threadId": "t",
                "runId": "r",
                "outcome": {"type": "interrupt", "interrupts": {}},
            },
            "/outcome/interrupts",
            "Expected array, received object",
        ),
        (
            {"type": "STEP_STARTED", "stepName": "s", "timestamp": "15"},
            "/timestamp",
            "Expected integer, received string",
        ),
        (
            {"type": "STEP_STARTED", "stepName": "s", "timestamp": 1.5},
            "/timestamp",
            "Expected integer, received float",
        ),
        ({"type": "STEP_STARTED", "stepName": True}, "/stepName", "Expected string, received boolean"),
        (
            {
                "type": "ACTIVITY_SNAPSHOT",
                "messageId": "m",
                "activityType": "P",
                "content": {},
                "replace": "no",
            },
            "/replace",
            "Expected boolean, received string",
        ),
        (
            {"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "c", "content": 5},
            "/content",
            "Expected string | array, received number",
        ),
        ({"type": 5}, "/type", "Expected string, received number"),
    ],
)
def test_a_type_error_names_the_expected_and_the_received_type_at_the_fields_pointer(event, path, reason):
    error = malformed(event)
    assert (error.rule, error.path, error.reason) == ("schema.invalid-value", path, reason)
    assert error.message.endswith(f" at {path}: {reason}")


def test_a_missing_field_is_required_like_the_reference_says():
    error = malformed({"type": "TOOL_CALL_START", "toolCallId": "c"})
    assert (error.rule, error.path, error.reason) == ("schema.missing-field", "/toolCallName", "Required")
    assert error.message == "malformed TOOL_CALL_START at /toolCallName: Required"
    assert malformed({"threadId": "t"}).message == "malformed event at /type: Required"


def test_a_closed_set_of_strings_names_what_it_expected():
    from agentproto.agui.parse import parse_run_agent_input

    entry = {"interruptId": "i", "status": "maybe"}
    with pytest.raises(MalformedEventError) as info:
        parse_run_agent_input({"threadId": "t", "runId": "r", "messages": [], "resume": [entry]})
    assert (info.value.path, info.value.reason) == (
        "/resume/0/status",
        "Invalid enum value. Expected 'resolved' | 'cancelled', received 'maybe'",
    )
    literal = malformed(
        {"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "c", "content": "x", "role": "user"}
    )
    assert (literal.path, literal.reason) == ("/role", 'Invalid literal value, expected "tool"')


def test_retired_thinking_events_are_translated_to_reasoning_with_warnings():
    parser = EventParser()
    kinds, ids = [], []
    for raw in [
        {"type": "THINKING_START", "title": "plan"},
        {"type": "THINKING_TEXT_MESSAGE_START"},
        {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "hm"},
        {"type": "THINKING_TEXT_MESSAGE_END"},
        {"type": "THINKING_END"},
    ]:
        parsed = parser.parse(json.dumps(raw))
        assert any("retired event" in w.message for w in parsed.warnings)
        kinds.append(parsed.event.type.value)
        ids.append(parsed.event.message_id)
    assert kinds == [
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_END",
    ]
    assert ids == ["thinking-1", "thinking-2", "thinking-2", "thinking-2", "thinking-1"]


def test_thinking_title_loss_is_warned():
    parsed = EventParser().parse('{"type":"THINKING_START","title":"plan"}')
    assert any(w.path == "/title" for w in parsed.warnings)


def test_newer_protocol_version_is_served_with_a_warning():
    parsed = parse({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.10"})
    assert parsed.event is not None and parsed.warnings[0].path == "/protocolVersion"
    assert (
        parse({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.0"}).warnings == []
    )
    assert parse({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "v2"}).warnings


def test_interrupt_outcome_needs_at_least_one_interrupt():
    with pytest.raises(ValueError):
        RunFinishedInterruptOutcome(interrupts=[])


def test_run_agent_input_follows_the_same_processing_model():
    value, warnings = parse_run_agent_input(
        {
            "threadId": "t",
            "runId": "r",
            "messages": [],
            "extra": 1,
            "resume": [{"interruptId": "i", "status": "cancelled"}],
        }
    )
    assert value.resume[0].status == "cancelled"
    assert [w.path for w in warnings] == ["/extra"]
    with pytest.raises(MalformedEventError):
        parse_run_agent_input(
            {
                "threadId": "t",
                "runId": "r",
                "messages": [],
                "resume": [{"interruptId": "i", "status": "maybe"}],
            }
        )


def test_encrypted_value_type_from_spec_1_1_is_understood():
    parsed = parse(
        {
            "type": "REASONING_ENCRYPTED_VALUE",
            "subtype": "message",
            "entityId": "r",
            "encryptedValue": "v",
            "encryptedValueType": "anthropic.redacted_thinking",
        }
    )
    assert parsed.warnings == []
    assert parsed.event.encrypted_value_type == "anthropic.redacted_thinking"


def test_a_run_input_in_snake_case_is_refused_with_the_wire_spelling_named():
    from agentproto.agui.errors import MalformedEventError
    from agentproto.agui.parse import parse_run_agent_input

    with pytest.raises(MalformedEventError) as info:
        parse_run_agent_input({"thread_id": "t-1", "runId": "r-1", "messages": []})
    assert info.value.rule == "schema.missing-field"
    assert "the wire spelling is 'threadId'" in str(info.value)
    assert [w.path for w in info.value.warnings] == ["/thread_id"]


def test_reasoning_message_start_requires_its_fixed_role():
    # schema.json (1.1): ReasoningMessageStartEvent lists "role" as required, const "reasoning".
    with pytest.raises(MalformedEventError) as info:
        parse({"type": "REASONING_MESSAGE_START", "messageId": "r1"})
    assert "role" in str(info.value)
    with pytest.raises(MalformedEventError):
        parse({"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "assistant"})
    assert parse({"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"}).warnings == []
