"""Notebook 11 §10.1–§10.2: push-config operations and capability validation on every binding.

What the notebook shows is held here against the library, so a change in the server's error
mapping or in the REST routes breaks a test before it silently changes the lesson.
"""

from __future__ import annotations

import pytest

pytest.importorskip("grpc")

from tests.course.test_course_a2a_bindings import on_every_binding


def _plain_echo():
    """The notebook's agent: the kit's EchoAgent whose card declares no optional capability."""
    from agentproto.a2a import EchoAgent
    from agentproto.a2a.types import AgentCapabilities

    class PlainEcho(EchoAgent):
        def card(self, url):
            return super().card(url).model_copy(update={"capabilities": AgentCapabilities()})

    return PlainEcho()


def test_a_config_is_created_read_listed_deleted_twice_and_then_not_found():
    from agentproto.a2a import TaskNotFoundError, TaskPushNotificationConfig
    from agentproto.a2a.types import user_message

    async def lifecycle(name, client, wire):
        task = await client.send(user_message("open", message_id=f"tck-input-required-{name}"))
        made = await client.create_push_config(
            TaskPushNotificationConfig(task_id=task.id, url="https://hooks.example.com/a2a", token="t")
        )
        routes = [getattr(wire.taps[name].last, "target", wire.taps[name].last.method)]
        assert made.id and made.task_id == task.id
        assert await client.get_push_config(task.id, made.id) == made
        assert [c.id for c in (await client.list_push_configs(task.id)).configs] == [made.id]
        await client.delete_push_config(task.id, made.id)
        await client.delete_push_config(task.id, made.id)  # idempotent (§3.1.10)
        assert (await client.list_push_configs(task.id)).configs == []
        with pytest.raises(TaskNotFoundError):
            await client.get_push_config(task.id, made.id)
        return routes[0], wire.status(name)

    seen = on_every_binding(lifecycle)
    assert seen["jsonrpc"][1] == "HTTP 200, error.code -32001"
    assert seen["rest"][0].endswith("/pushNotificationConfigs") and seen["rest"][1] == "HTTP 404"
    assert seen["grpc"] == ("/lf.a2a.v1.A2AService/CreateTaskPushNotificationConfig", "NOT_FOUND")


def test_an_agent_declaring_no_capabilities_refuses_push_configs_and_streams_per_section_5_4():
    from agentproto.a2a import PushNotificationNotSupportedError, UnsupportedOperationError
    from agentproto.a2a.types import user_message

    async def refusals(name, client, wire):
        task = await client.send(user_message("hi", message_id=f"m-{name}"))
        out = {}
        with pytest.raises(PushNotificationNotSupportedError):
            await client.list_push_configs(task.id)
        out["push"] = wire.status(name)
        with pytest.raises(UnsupportedOperationError):
            async for _ in client.stream(user_message("hi", message_id=f"s-{name}")):
                pass
        out["stream"] = wire.status(name)
        with pytest.raises(UnsupportedOperationError):
            async for _ in client.subscribe(task.id):
                pass
        out["subscribe"] = wire.status(name)
        return out

    seen = on_every_binding(refusals, agent=_plain_echo())
    assert seen["jsonrpc"] == {
        "push": "HTTP 200, error.code -32003",
        "stream": "HTTP 200, error.code -32004",
        "subscribe": "HTTP 200, error.code -32004",
    }
    assert set(seen["rest"].values()) == {"HTTP 400"}
    assert set(seen["grpc"].values()) == {"FAILED_PRECONDITION"}
