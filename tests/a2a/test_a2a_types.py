"""ProtoJSON shape of the A2A objects (a2a.proto, ADR-001, spec §5.6–5.7)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agentproto.a2a.types import (
    AgentCapabilities,
    AgentCard,
    Artifact,
    ListTasksRequest,
    ListTasksResponse,
    Message,
    Part,
    Role,
    SecurityScheme,
    SendMessageRequest,
    StreamResponse,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    data_part,
    file_part,
    text_part,
    url_part,
    user_message,
)


def test_field_names_are_camel_case_and_enums_travel_as_names():
    m = Message(message_id="m1", context_id="c1", role=Role.USER, parts=[text_part("hi")])
    assert m.to_wire() == {
        "messageId": "m1",
        "contextId": "c1",
        "role": "ROLE_USER",
        "parts": [{"text": "hi"}],
    }


def test_fields_at_their_default_value_are_omitted():
    ev = TaskArtifactUpdateEvent(
        task_id="t", context_id="c", artifact=Artifact(artifact_id="a", parts=[text_part("x")])
    )
    assert ev.to_wire() == {
        "taskId": "t",
        "contextId": "c",
        "artifact": {"artifactId": "a", "parts": [{"text": "x"}]},
    }


def test_an_explicitly_set_optional_field_is_kept_even_at_its_default():
    # proto3 `optional bool streaming`: presence is tracked, so false is not "absent".
    assert AgentCapabilities(streaming=False).to_wire() == {"streaming": False}
    assert AgentCapabilities().to_wire() == {}


def test_both_wire_and_python_names_are_accepted():
    a = Message.from_wire({"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "x"}]})
    b = Message(message_id="m", role=Role.AGENT, parts=[Part(text="x")])
    assert a == b


@pytest.mark.parametrize(
    "number, state",
    [
        (1, TaskState.SUBMITTED),
        (3, TaskState.COMPLETED),
        (5, TaskState.CANCELED),
        (8, TaskState.AUTH_REQUIRED),
    ],
)
def test_enums_also_parse_from_their_proto_numbers(number, state):
    assert TaskStatus.from_wire({"state": number}).state is state


def test_v03_lowercase_state_is_rejected():
    with pytest.raises(ValidationError):
        TaskStatus.from_wire({"state": "completed"})


def test_unspecified_state_is_not_a_valid_task_status():
    with pytest.raises(ValidationError, match="TASK_STATE_UNSPECIFIED"):
        TaskStatus(state=TaskState.UNSPECIFIED)


def test_unknown_fields_are_ignored():
    m = Message.from_wire(
        {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}], "futureField": {"a": 1}}
    )
    assert "futureField" not in m.to_wire()


@pytest.mark.parametrize(
    "part",
    [
        {"text": "hi"},
        {"raw": "aGVsbG8=", "filename": "h.txt", "mediaType": "text/plain"},
        {"url": "https://x/doc.pdf", "mediaType": "application/pdf"},
        {"data": {"k": "v"}, "mediaType": "application/json"},
        {"data": [1, 2, 3]},
        {"text": ""},
    ],
)
def test_a_part_with_exactly_one_content_round_trips(part):
    assert Part.from_wire(part).to_wire() == part


def test_a_part_with_two_contents_is_rejected_naming_both():
    with pytest.raises(ValidationError, match="got text and url"):
        Part.from_wire({"text": "a", "url": "https://x"})


def test_a_part_with_no_content_is_rejected():
    with pytest.raises(ValidationError, match="got none"):
        Part.from_wire({"mediaType": "text/plain"})


def test_a_v03_file_part_is_rejected_with_the_v10_shape_in_the_message():
    with pytest.raises(ValidationError, match="'raw'"):
        Part.from_wire({"kind": "file", "file": {"bytes": "aGk=", "name": "a.txt"}})


def test_a_v03_kind_on_a_text_part_is_ignored():
    assert Part.from_wire({"kind": "text", "text": "hi"}).to_wire() == {"text": "hi"}


def test_raw_bytes_are_base64_and_both_alphabets_decode():
    p = file_part(b"\xfb\xff", filename="b.bin")
    assert p.raw == "+/8=" and p.raw_bytes == b"\xfb\xff"
    assert Part(raw="-_8").raw_bytes == b"\xfb\xff"  # URL-safe, no padding


def test_raw_that_is_not_base64_is_rejected():
    with pytest.raises(ValidationError, match="base64"):
        Part(raw="not base64!")


def test_part_helpers_build_the_documented_shapes():
    assert data_part({"a": 1}).to_wire() == {"data": {"a": 1}, "mediaType": "application/json"}
    assert url_part("https://x/y", filename="y").to_wire() == {"url": "https://x/y", "filename": "y"}
    assert data_part({"a": 1}).kind == "data"


def test_a_message_needs_at_least_one_part_and_a_role():
    with pytest.raises(ValidationError):
        Message(message_id="m", role=Role.USER, parts=[])
    with pytest.raises(ValidationError, match="ROLE_USER or ROLE_AGENT"):
        Message(message_id="m", role=Role.UNSPECIFIED, parts=[text_part("x")])


def test_timestamps_must_be_rfc3339_with_a_zone():
    TaskStatus(state=TaskState.WORKING, timestamp="2026-01-01T00:00:00.000Z")
    with pytest.raises(ValidationError, match="time zone"):
        TaskStatus(state=TaskState.WORKING, timestamp="2026-01-01T00:00:00")
    with pytest.raises(ValidationError, match="RFC 3339"):
        ListTasksRequest(status_timestamp_after="yesterday")


def test_stream_response_carries_exactly_one_payload():
    task = Task(id="t", status=TaskStatus(state=TaskState.SUBMITTED))
    assert StreamResponse.wrap(task).to_wire() == {
        "task": {"id": "t", "status": {"state": "TASK_STATE_SUBMITTED"}}
    }
    assert StreamResponse(task=task).kind == "task"
    with pytest.raises(ValidationError, match="got none"):
        StreamResponse()
    with pytest.raises(ValidationError, match="got task and message"):
        StreamResponse(task=task, message=user_message("x", message_id="m"))


def test_list_tasks_response_keeps_its_required_fields_even_when_empty():
    wire = ListTasksResponse(tasks=[], next_page_token="", page_size=50, total_size=0).to_wire()
    assert wire == {"tasks": [], "nextPageToken": "", "pageSize": 50, "totalSize": 0}


def test_agent_card_keeps_required_lists_and_finds_its_jsonrpc_interface():
    card = AgentCard.from_wire(
        {
            "name": "n",
            "description": "d",
            "version": "1",
            "supportedInterfaces": [
                {"url": "https://a/grpc", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
                {"url": "https://a/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            ],
            "capabilities": {},
            "defaultInputModes": [],
            "defaultOutputModes": [],
            "skills": [],
        }
    )
    wire = card.to_wire()
    assert wire["skills"] == [] and wire["defaultInputModes"] == []
    assert card.interface().url == "https://a/rpc"
    assert card.interface(version="0.3") is None


def test_security_scheme_is_a_oneof():
    ok = SecurityScheme.from_wire({"httpAuthSecurityScheme": {"scheme": "Bearer"}})
    assert ok.to_wire() == {"httpAuthSecurityScheme": {"scheme": "Bearer"}}
    with pytest.raises(ValidationError, match="SecurityScheme.scheme is a oneof"):
        SecurityScheme.from_wire({})


def test_send_message_request_parses_the_spec_example():
    req = SendMessageRequest.from_wire(
        {
            "message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]},
            "configuration": {"returnImmediately": True, "historyLength": 0},
        }
    )
    assert req.configuration.return_immediately is True
    assert req.configuration.history_length == 0
    assert req.to_wire()["configuration"] == {"historyLength": 0, "returnImmediately": True}
