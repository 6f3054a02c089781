"""The JSON-RPC binding: envelope checks, service parameters and every error code (spec §9)."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from agentproto.a2a.agents import ConformanceAgent, EchoAgent, TravelDeskAgent
from agentproto.a2a.jsonrpc import JSONRPCDispatcher, requested_version
from agentproto.a2a.types import AgentCapabilities, AgentExtension
from tests.a2a.a2a_helpers import V1, call, error_code, msg, rpc

pytestmark = pytest.mark.anyio


@pytest.fixture
def dispatcher(make_service):
    return JSONRPCDispatcher(make_service("conformance"))


async def test_a_success_response_echoes_the_request_id(dispatcher):
    for rid in (7, "req-7"):
        out = await dispatcher.dispatch(
            rpc("SendMessage", {"message": msg(message_id="tck-complete-task-1")}, id=rid), V1
        )
        assert out["jsonrpc"] == "2.0" and out["id"] == rid
        assert out["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


async def test_a_body_that_is_not_json_is_a_parse_error_with_null_id(dispatcher):
    out = await dispatcher.dispatch(b'{"jsonrpc": "2.0", "id": 1, "method": ', V1)
    assert error_code(out) == -32700 and out["id"] is None


@pytest.mark.parametrize(
    "body, why",
    [
        ([rpc("GetTask", {"id": "x"})], "Batch"),
        ({"jsonrpc": "1.0", "id": 1, "method": "GetTask"}, "jsonrpc"),
        ({"id": 1, "method": "GetTask"}, "jsonrpc"),
        ({"jsonrpc": "2.0", "id": True, "method": "GetTask"}, "'id'"),
        ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "GetTask"}, "'id'"),
        ({"jsonrpc": "2.0", "id": 1}, "'method'"),
        ("just a string", "object"),
    ],
)
async def test_a_malformed_envelope_is_an_invalid_request(dispatcher, body, why):
    out = await dispatcher.dispatch(json.dumps(body), V1)
    assert error_code(out) == -32600 and why in out["error"]["message"]


async def test_an_unknown_method_is_method_not_found(dispatcher):
    out = await call(dispatcher, "tasks/archive")
    assert error_code(out) == -32601
    assert out["error"]["data"][0]["metadata"] == {"method": "tasks/archive"}


async def test_a_v03_method_name_gets_a_hint_towards_its_v10_name(dispatcher):
    out = await call(dispatcher, "message/send", {"message": msg()})
    assert error_code(out) == -32601 and "'SendMessage'" in out["error"]["message"]


async def test_params_that_do_not_parse_are_invalid_params_with_field_violations(dispatcher):
    out = await call(
        dispatcher,
        "SendMessage",
        {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "a", "url": "b"}]}},
    )
    assert error_code(out) == -32602
    bad_request = out["error"]["data"][1]
    assert bad_request["@type"] == "type.googleapis.com/google.rpc.BadRequest"
    assert bad_request["fieldViolations"][0]["field"] == "params.message.parts.0"
    assert "got text and url" in bad_request["fieldViolations"][0]["description"]


async def test_params_must_be_an_object(dispatcher):
    out = await dispatcher.dispatch({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": ["t-1"]}, V1)
    assert error_code(out) == -32602


# --- A2A-Version (spec §3.6) ------------------------------------------------------------------


async def test_a_request_without_a2a_version_means_03_and_is_refused(dispatcher):
    out = await call(dispatcher, "GetTask", {"id": "x"}, headers={})
    assert error_code(out) == -32009
    assert out["error"]["data"][0]["metadata"] == {"requestedVersion": "0.3", "supportedVersions": "1.0"}


@pytest.mark.parametrize("version", ["0.3", "2.0", "1.1", "banana", ""])
async def test_an_unsupported_version_is_version_not_supported(dispatcher, version):
    out = await call(dispatcher, "GetTask", {"id": "x"}, headers={"A2A-Version": version})
    assert error_code(out) == -32009


@pytest.mark.parametrize(
    "headers",
    [{"A2A-Version": "1.0"}, {"a2a-version": "1.0"}, {"A2A-Version": "1.0.7"}, {"A2A-VERSION": " 1.0 "}],
)
async def test_version_10_is_accepted_case_insensitively_and_patch_is_ignored(dispatcher, headers):
    out = await call(dispatcher, "GetTask", {"id": "x"}, headers=headers)
    assert error_code(out) == -32001  # got past the version check


async def test_the_version_may_come_as_a_query_parameter(dispatcher):
    out = await dispatcher.dispatch(rpc("GetTask", {"id": "x"}), {}, query={"A2A-Version": "1.0"})
    assert error_code(out) == -32001


def test_requested_version_prefers_the_header_over_the_query():
    assert requested_version({"A2A-Version": "1.0"}, {"A2A-Version": "0.3"}) == "1.0"
    assert requested_version({}, {}) == "0.3"


# --- each A2A error, provoked through the binding ---------------------------------------------


async def test_task_not_found(dispatcher):
    out = await call(dispatcher, "GetTask", {"id": "nope"})
    assert error_code(out) == -32001
    assert out["error"]["data"][0]["metadata"] == {"taskId": "nope"}


async def test_task_not_cancelable(dispatcher):
    done = await call(dispatcher, "SendMessage", {"message": msg(message_id="tck-complete-task")})
    out = await call(dispatcher, "CancelTask", {"id": done["result"]["task"]["id"]})
    assert error_code(out) == -32002


async def test_push_notification_not_supported(make_service):
    echo = JSONRPCDispatcher(make_service(EchoAgent()))  # pushNotifications absent
    out = await call(echo, "ListTaskPushNotificationConfigs", {"taskId": "x"})
    assert error_code(out) == -32003


async def test_unsupported_operation_for_a_message_to_a_terminal_task(dispatcher):
    done = await call(dispatcher, "SendMessage", {"message": msg(message_id="tck-complete-task")})
    task = done["result"]["task"]
    out = await call(
        dispatcher,
        "SendMessage",
        {"message": msg(message_id="m-2", taskId=task["id"], contextId=task["contextId"])},
    )
    assert error_code(out) == -32004 and "terminal" in out["error"]["message"]


async def test_unsupported_operation_for_streaming_without_the_capability(make_service):
    @dataclass
    class NoStreaming(EchoAgent):
        def card(self, url):
            card = super().card(url)
            card.capabilities = AgentCapabilities(streaming=False)
            return card

    d = JSONRPCDispatcher(make_service(NoStreaming()))
    out = await call(d, "SendStreamingMessage", {"message": msg()})
    assert error_code(out) == -32004 and "streaming" in out["error"]["message"]


async def test_content_type_not_supported(make_service):
    travel = JSONRPCDispatcher(make_service(TravelDeskAgent()))  # accepts text/plain only
    out = await call(
        travel,
        "SendMessage",
        {
            "message": {
                "messageId": "m",
                "role": "ROLE_USER",
                "parts": [{"raw": "JVBERi0=", "mediaType": "application/pdf"}],
            }
        },
    )
    assert error_code(out) == -32005
    assert out["error"]["data"][0]["metadata"] == {"mediaType": "application/pdf"}


async def test_invalid_agent_response_when_the_agent_produces_nothing(make_service):
    @dataclass
    class Silent(EchoAgent):
        async def run(self, ctx):
            return
            yield  # pragma: no cover - makes this an async generator

    out = await call(JSONRPCDispatcher(make_service(Silent())), "SendMessage", {"message": msg()})
    assert error_code(out) == -32006


async def test_extended_card_not_declared_is_unsupported(dispatcher):
    out = await call(dispatcher, "GetExtendedAgentCard")
    assert error_code(out) == -32004


async def test_extended_card_declared_but_not_configured(make_service):
    @dataclass
    class Declares(ConformanceAgent):
        def card(self, url):
            card = super().card(url)
            card.capabilities.extended_agent_card = True
            return card

    out = await call(JSONRPCDispatcher(make_service(Declares())), "GetExtendedAgentCard")
    assert error_code(out) == -32007


async def test_extended_card_when_configured(make_service):
    out = await call(JSONRPCDispatcher(make_service(TravelDeskAgent())), "GetExtendedAgentCard")
    assert "corporate_rates" in [s["id"] for s in out["result"]["skills"]]


async def test_extension_support_required(make_service):
    uri = "https://example.com/ext/audit/v1"

    @dataclass
    class NeedsExtension(EchoAgent):
        def card(self, url):
            card = super().card(url)
            card.capabilities.extensions = [AgentExtension(uri=uri, required=True)]
            return card

    d = JSONRPCDispatcher(make_service(NeedsExtension()))
    out = await call(d, "SendMessage", {"message": msg()})
    assert error_code(out) == -32008
    ok = await call(
        d, "SendMessage", {"message": msg()}, headers={**V1, "A2A-Extensions": f"urn:other, {uri}"}
    )
    assert "result" in ok


async def test_internal_error_when_the_agent_crashes_before_answering(make_service):
    @dataclass
    class Crashes(EchoAgent):
        async def run(self, ctx):
            raise RuntimeError("disk on fire")
            yield  # pragma: no cover

    out = await call(JSONRPCDispatcher(make_service(Crashes())), "SendMessage", {"message": msg()})
    assert error_code(out) == -32603 and "disk on fire" in out["error"]["message"]


async def test_a_role_agent_message_from_a_client_is_invalid_params(dispatcher):
    out = await call(
        dispatcher,
        "SendMessage",
        {"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}},
    )
    assert error_code(out) == -32602


# --- streaming frames ------------------------------------------------------------------------


async def test_every_stream_frame_is_a_complete_jsonrpc_response(dispatcher):
    out = await call(dispatcher, "SendStreamingMessage", {"message": msg(message_id="tck-stream-chunked-1")})
    frames = out["frames"]
    assert all(f["jsonrpc"] == "2.0" and f["id"] == 1 and "result" in f for f in frames)
    kinds = [next(iter(f["result"])) for f in frames]
    assert kinds == [
        "task",
        "statusUpdate",
        "artifactUpdate",
        "artifactUpdate",
        "artifactUpdate",
        "statusUpdate",
    ]


async def test_an_error_before_the_stream_starts_is_a_plain_response(dispatcher):
    out = await dispatcher.dispatch(rpc("SubscribeToTask", {"id": "nope"}), V1)
    assert isinstance(out, dict) and error_code(out) == -32001


async def test_delete_push_config_returns_an_empty_result(dispatcher):
    created = await call(dispatcher, "SendMessage", {"message": msg(message_id="tck-input-required")})
    task_id = created["result"]["task"]["id"]
    out = await call(dispatcher, "DeleteTaskPushNotificationConfig", {"taskId": task_id, "id": "x"})
    assert out["result"] == {}
