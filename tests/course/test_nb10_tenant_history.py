"""Notebook 10 §9 and notebook 11 §12: tenant, GetTask's historyLength, the end of a stream
without ``final``, and the two REST verbs of SubscribeToTask — on every binding.

Each test drives the library calls the notebooks make and holds what they claim about the kit,
so a change in where a binding carries the tenant, in the history default or in the REST routes
breaks a test before it silently changes the lesson.
"""

from __future__ import annotations

import json

import httpx
import pytest

pytest.importorskip("grpc")

from tests.course.test_course_a2a_bindings import on_every_binding


def tenant_agent(tenant: str = "acme"):
    """The conformance agent with ``tenant`` on every interface of its card (notebook 10's TenantDesk)."""
    from agentproto.a2a.agents import ConformanceAgent

    class TenantDesk(ConformanceAgent):
        def card(self, url):
            card = super().card(url)
            interfaces = [i.model_copy(update={"tenant": tenant}) for i in card.supported_interfaces]
            return card.model_copy(update={"supported_interfaces": interfaces})

    return TenantDesk()


def base_url(client) -> str:
    """The server's base URL, from the JSON-RPC interface of the card (``<base>/a2a``)."""
    jsonrpc = next(i for i in client.card.supported_interfaces if i.protocol_binding == "JSONRPC")
    return jsonrpc.url.removesuffix("/a2a")


def rest_url(client) -> str:
    return next(i.url for i in client.card.supported_interfaces if i.protocol_binding == "HTTP+JSON")


def tenant_sent(name: str, wire) -> str:
    """Where the last request of ``name`` carried its tenant."""
    last = wire.taps[name].last
    if name == "grpc":
        return next((ln.strip() for ln in last.request.splitlines() if ln.startswith("tenant:")), "")
    if name == "jsonrpc":
        return str(json.loads(last.request_body)["params"].get("tenant", ""))
    return f"{last.method} {last.target}"


def test_the_cards_tenant_travels_in_each_bindings_own_place():
    from agentproto.a2a.types import user_message

    async def send(name, client, wire):
        task = await client.send(user_message("go", message_id=f"tck-complete-task-{name}"), history_length=0)
        return task.status.state.short, client.card.supported_interfaces, tenant_sent(name, wire)

    out = on_every_binding(send, agent=tenant_agent())
    assert {state for state, _, _ in out.values()} == {"completed"}
    assert all(i.tenant == "acme" for i in out["jsonrpc"][1])  # with_bindings copies it to REST and gRPC
    assert out["jsonrpc"][2] == "acme"  # params.tenant
    assert out["rest"][2] == "POST /a2a/rest/acme/message:send"  # the /{tenant}/ path prefix
    assert out["grpc"][2] == 'tenant: "acme"'  # the request message's field


def test_another_tenant_or_none_is_answered_not_found_and_lists_nothing():
    from agentproto.a2a import TaskNotFoundError
    from agentproto.a2a.client_bindings import connect
    from agentproto.a2a.types import user_message

    async def isolate(name, client, wire):
        task = await client.send(
            user_message("go", message_id=f"tck-input-required-{name}"), history_length=0
        )
        seen = {}
        for tenant in ("", "globex"):
            other = await connect(base_url(client), binding=name, tenant=tenant)
            try:
                with pytest.raises(TaskNotFoundError):
                    await other.get_task(task.id)
                seen[tenant] = len((await other.list_tasks()).tasks)
            finally:
                await other.aclose()
        mine = await client.get_task(task.id, history_length=0)
        return seen, mine.status.state.short

    out = on_every_binding(isolate, agent=tenant_agent())
    for seen, state in out.values():
        assert seen == {"": 0, "globex": 0} and state == "input-required"


def test_get_task_history_length_absent_zero_fewer_and_more_on_every_binding():
    from agentproto.a2a.types import user_message

    async def history(name, client, wire):
        task = await client.send(user_message("start", message_id=f"tck-multi-turn-{name}"), history_length=0)
        for answer in ("more", "still more"):
            await client.send(answer, task_id=task.id, history_length=0)
        seen = {}
        for asked in (None, 0, 2, 100):
            got = await client.get_task(task.id, history_length=asked)
            last = wire.taps[name].last
            if name == "grpc":
                on_wire = "history {" in last.responses[-1]
                sent = "history_length:" in last.request
            else:
                body = last.json()
                on_wire = "history" in (body["result"] if name == "jsonrpc" else body)
                sent = "historyLength" in (last.target if name == "rest" else last.request_body.decode())
            seen[asked] = ([m.text for m in got.history], on_wire, sent)
        return seen

    out = on_every_binding(history, agent=tenant_agent())
    for seen in out.values():
        everything = seen[None][0]
        assert len(everything) == 6 and seen[None][2] is False  # absent is absent; the kit's default: all
        assert seen[0] == ([], False, True)  # 0 is sent (proto3 `optional`) and omits the field
        assert seen[2][0] == everything[-2:] and seen[2][0][0] == "still more"
        assert seen[100][0] == everything  # never more than there is, nor than asked


def test_a_stream_ends_without_a_final_flag_on_every_binding():
    from agentproto.a2a.types import user_message
    from agentproto.course.a2a_bindings import collect

    async def stream(name, client, wire):
        events = await collect(client.stream(user_message("go", message_id=f"tck-stream-basic-{name}")))
        last = wire.taps[name].last
        if name == "grpc":
            raw = last.responses[-1]
        else:
            frame = last.sse_data()[-1]
            raw = json.dumps(frame["result"] if name == "jsonrpc" else frame)
        return events[-1].status_update.status.state.short, "final" in raw, wire.status(name)

    out = on_every_binding(stream)
    assert {state for state, _, _ in out.values()} == {"completed"}
    assert not any(has_final for _, has_final, _ in out.values())
    assert out["grpc"][2] == "OK" and out["rest"][2] == out["jsonrpc"][2] == "HTTP 200"


def test_v03_habits_a_method_name_is_minus_32601_a_kind_event_is_refused_final_is_dropped():
    from pydantic import ValidationError

    from agentproto.a2a import StreamResponse

    async def old_call(name, client, wire):
        if name != "jsonrpc":
            return None
        call = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {}}
        async with httpx.AsyncClient(headers={"A2A-Version": "1.0"}) as http:
            return (await http.post(client.url, json=call)).json()["error"]

    error = on_every_binding(old_call)["jsonrpc"]
    assert error["code"] == -32601 and "SendMessage" in error["message"]
    with pytest.raises(ValidationError):
        StreamResponse.model_validate(
            {"kind": "status-update", "taskId": "t", "contextId": "c", "final": True}
        )
    kept = StreamResponse.model_validate(
        {
            "statusUpdate": {
                "taskId": "t",
                "contextId": "c",
                "final": True,
                "status": {"state": "TASK_STATE_WORKING"},
            }
        }
    )
    assert sorted(kept.status_update.to_wire()) == ["contextId", "status", "taskId"]


@pytest.mark.parametrize("prefix", ["", "/acme"])
def test_rest_subscribe_answers_post_and_get_and_refuses_put(prefix):
    from agentproto.a2a.types import user_message

    async def verbs(name, client, wire):
        if name != "rest":
            return None
        task = await client.send(
            user_message("hold", message_id="tck-input-required-verbs"), history_length=0
        )
        seen = {}
        async with httpx.AsyncClient(headers={"A2A-Version": "1.0"}) as http:
            for verb in ("POST", "GET", "PUT"):
                url = f"{rest_url(client)}{prefix}/tasks/{task.id}:subscribe"
                async with http.stream(verb, url) as reply:
                    first = None
                    if reply.headers.get("content-type", "").startswith("text/event-stream"):
                        async for line in reply.aiter_lines():
                            if line.startswith("data:"):
                                first = json.loads(line[5:])
                                break
                    seen[verb] = (reply.status_code, first)
        return task.id, seen

    agent = tenant_agent() if prefix else "conformance"
    task_id, seen = on_every_binding(verbs, agent=agent)["rest"]
    for verb in ("POST", "GET"):
        status, first = seen[verb]
        assert status == 200 and first["task"]["id"] == task_id
        assert first["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert seen["PUT"][0] == 405


def test_the_kits_rest_client_subscribes_with_post():
    from agentproto.a2a.types import user_message
    from agentproto.course.a2a_bindings import second_subscriber, states_seen

    async def subscribe(name, client, wire):
        if name != "rest":
            return None
        task = await client.send(user_message("hold", message_id="tck-input-required-sub"), history_length=0)
        seen, _ = await second_subscriber(
            client, task.id, lambda: wire.clients["jsonrpc"].send("done", task_id=task.id)
        )
        last = wire.taps["rest"].last
        return last.method, last.target, task.id, states_seen(seen)

    method, target, task_id, states = on_every_binding(subscribe)["rest"]
    assert method == "POST" and target.endswith(f"/tasks/{task_id}:subscribe")
    assert states[0] == "Task: input-required" and states[-1] == "completed"


def test_a_rest_tenant_named_like_a_route_is_read_as_get_task():
    """Notebook 10's pitfall: ``GET /tasks/tasks`` fits both GetTask(id="tasks") and ListTasks in
    tenant ``tasks`` (the proto's two bindings overlap); this kit reads it as the GetTask."""
    from agentproto.a2a._rest import match_route

    def read(path):
        route = match_route("GET", path)
        return route.operation, route.tenant, route.task_id

    assert read("tasks/tasks") == ("GetTask", "", "tasks")
    assert read("acme/tasks") == ("ListTasks", "acme", "")
    assert read("acme/tasks/t1") == ("GetTask", "acme", "t1")
