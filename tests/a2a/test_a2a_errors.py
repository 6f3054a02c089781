"""Every A2A error: JSON-RPC code, ErrorInfo reason, wire shape (spec §3.3.2, §5.4, §9.5)."""

from __future__ import annotations

import pytest

from agentproto.a2a import errors as E

#: (class, JSON-RPC code, ErrorInfo reason) — spec §5.4 and the JSON-RPC 2.0 standard codes.
VECTORS = [
    (E.JSONParseError, -32700, "JSON_PARSE"),
    (E.InvalidRequestError, -32600, "INVALID_REQUEST"),
    (E.MethodNotFoundError, -32601, "METHOD_NOT_FOUND"),
    (E.InvalidParamsError, -32602, "INVALID_PARAMS"),
    (E.InternalError, -32603, "INTERNAL"),
    (E.TaskNotFoundError, -32001, "TASK_NOT_FOUND"),
    (E.TaskNotCancelableError, -32002, "TASK_NOT_CANCELABLE"),
    (E.PushNotificationNotSupportedError, -32003, "PUSH_NOTIFICATION_NOT_SUPPORTED"),
    (E.UnsupportedOperationError, -32004, "UNSUPPORTED_OPERATION"),
    (E.ContentTypeNotSupportedError, -32005, "CONTENT_TYPE_NOT_SUPPORTED"),
    (E.InvalidAgentResponseError, -32006, "INVALID_AGENT_RESPONSE"),
    (E.ExtendedAgentCardNotConfiguredError, -32007, "EXTENDED_AGENT_CARD_NOT_CONFIGURED"),
    (E.ExtensionSupportRequiredError, -32008, "EXTENSION_SUPPORT_REQUIRED"),
    (E.VersionNotSupportedError, -32009, "VERSION_NOT_SUPPORTED"),
]


def test_every_code_has_exactly_one_class():
    assert sorted(E.ERRORS_BY_CODE) == sorted(code for _, code, _ in VECTORS)


@pytest.mark.parametrize("cls, code, reason", VECTORS)
def test_error_wire_shape_carries_error_info_first(cls, code, reason):
    response = cls(metadata={"taskId": "t-1"}).response("req-7")
    assert response["jsonrpc"] == "2.0" and response["id"] == "req-7"
    error = response["error"]
    assert error["code"] == code and error["message"] == cls.default_message
    assert error["data"][0] == {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": reason,
        "domain": "a2a-protocol.org",
        "metadata": {"taskId": "t-1"},
    }


@pytest.mark.parametrize("cls, code, reason", VECTORS)
def test_a_wire_error_comes_back_as_the_same_class(cls, code, reason):
    original = cls("boom", metadata={"k": "v"})
    back = E.error_from_wire(original.to_jsonrpc())
    assert type(back) is cls and back.code == code
    assert back.message == "boom" and back.metadata == {"k": "v"}


def test_a2a_codes_sit_in_the_reserved_range():
    assert all(-32099 <= c <= -32001 for c in E.ERRORS_BY_CODE if c > -32100)


def test_error_info_metadata_values_are_strings():
    # google.rpc.ErrorInfo.metadata is map<string, string>.
    assert E.TaskNotFoundError(metadata={"n": 3, "ok": True}).metadata == {"n": "3", "ok": "True"}


def test_field_violations_become_a_bad_request_detail():
    data = E.InvalidParamsError(violations=[("message.parts", "at least one part")]).details()
    assert data[1] == {
        "@type": "type.googleapis.com/google.rpc.BadRequest",
        "fieldViolations": [{"field": "message.parts", "description": "at least one part"}],
    }


def test_an_unknown_code_is_kept_verbatim():
    back = E.error_from_wire({"code": -32050, "message": "custom", "data": [{"x": 1}]})
    assert isinstance(back, E.UnknownA2AError) and back.code == -32050
    assert back.details() == [{"x": 1}]


def test_protocol_errors_share_a_base_class():
    assert issubclass(E.InvalidParamsError, E.JSONRPCProtocolError)
    assert not issubclass(E.TaskNotFoundError, E.JSONRPCProtocolError)
    assert all(issubclass(c, E.A2AError) for c in E.ERRORS_BY_CODE.values())
