"""Per-caller and per-task resource limits of the A2A service (findings F3, F4).

Stream caps (per caller, per task), a subscription's first Task without the whole history, a
bounded queue per subscriber (a consumer that falls behind is dropped), a maximum stream
lifetime, eviction of idle interrupted tasks from memory, a quota of open tasks per caller, a
cap on one task's history, and ListTasks answers with a small default history and a size cap
that shortens the page.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from agentproto.a2a._service_streams import (
    LIST_DEFAULT_HISTORY_LENGTH,
    MAX_STREAMS_PER_CALLER,
    MAX_STREAMS_PER_TASK,
    ServiceLimits,
)
from agentproto.a2a.errors import UnsupportedOperationError
from agentproto.a2a.jsonrpc import CallerScope, ResourceExhaustedError
from agentproto.a2a.states import TaskState
from agentproto.a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    SendMessageConfiguration,
    SendMessageRequest,
    SubscribeToTaskRequest,
    user_message,
)

pytestmark = pytest.mark.anyio
S = TaskState


def send_req(text: str = "hi", message_id: str = "tck-multi-turn-1", *, task_id: str = "", **config):
    m = user_message(text, message_id=message_id, task_id=task_id)
    return SendMessageRequest(message=m, configuration=SendMessageConfiguration(**config) if config else None)


async def interrupted(svc, n: int = 1, text: str = "hi", scope: CallerScope | None = None) -> list[str]:
    """``n`` tasks left in INPUT_REQUIRED (a multi-turn conversation waiting for the user)."""
    ids = []
    for i in range(n):
        args = (send_req(text, f"tck-multi-turn-{i}"),) + ((scope,) if scope else ())
        task = await svc.send_message(*args)
        assert task.status.state is S.INPUT_REQUIRED
        ids.append(task.id)
    return ids


def test_the_defaults_are_the_documented_ones():
    assert (MAX_STREAMS_PER_CALLER, MAX_STREAMS_PER_TASK) == (32, 8)
    assert LIST_DEFAULT_HISTORY_LENGTH == 1


# --- F3: stream caps ---------------------------------------------------------------------------


async def test_streams_on_one_task_are_capped_with_resource_exhausted(make_service):
    svc = make_service()
    (tid,) = await interrupted(svc)
    streams = [await svc.subscribe(SubscribeToTaskRequest(id=tid)) for _ in range(MAX_STREAMS_PER_TASK)]
    with pytest.raises(ResourceExhaustedError) as info:
        await svc.subscribe(SubscribeToTaskRequest(id=tid))
    assert info.value.code == -32603 and info.value.reason == "RESOURCE_EXHAUSTED"
    assert info.value.http_status == 429 and info.value.metadata["limit"] == "streamsPerTask"
    await streams[0].aclose()  # closing one makes room for one
    again = await svc.subscribe(SubscribeToTaskRequest(id=tid))
    for s in [*streams[1:], again]:
        await s.aclose()


async def test_streams_of_one_caller_are_capped_across_tasks(make_service):
    svc = make_service(limits=ServiceLimits(max_streams_per_caller=3))
    alice = CallerScope("", "alice")
    ids = await interrupted(svc, 4, scope=alice)
    streams = [await svc.subscribe(SubscribeToTaskRequest(id=t), alice) for t in ids[:3]]
    with pytest.raises(ResourceExhaustedError) as info:
        await svc.subscribe(SubscribeToTaskRequest(id=ids[3]), alice)
    assert info.value.metadata["limit"] == "streamsPerCaller"
    with pytest.raises(ResourceExhaustedError):  # SendStreamingMessage counts too
        await svc.send_streaming_message(send_req(message_id="tck-complete-task-x"), alice)
    # another caller is not affected by alice's streams
    bob = CallerScope("", "bob")
    (bobs,) = await interrupted(svc, 1, scope=bob)
    await (await svc.subscribe(SubscribeToTaskRequest(id=bobs), bob)).aclose()
    for s in streams:
        await s.aclose()
    assert svc.tasks.streams_of == {}


async def test_a_stream_never_iterated_is_released_on_aclose(make_service):
    svc = make_service(limits=ServiceLimits(max_streams_per_task=1))
    (tid,) = await interrupted(svc)
    for _ in range(3):  # would be refused the second time if the first leaked
        stream = await svc.subscribe(SubscribeToTaskRequest(id=tid))
        await stream.aclose()


async def test_a_subscriptions_first_task_carries_no_history(make_service):
    svc = make_service()
    (tid,) = await interrupted(svc, text="x" * 50_000)
    stream = await svc.subscribe(SubscribeToTaskRequest(id=tid))
    first = await anext(stream)
    await stream.aclose()
    assert first.task.id == tid and first.task.status.state is S.INPUT_REQUIRED
    assert "history" not in first.task.to_wire()
    full = await svc.get_task(GetTaskRequest(id=tid))  # the history is still there to read
    assert len(full.history) == 2


async def test_a_consumer_that_falls_behind_is_dropped(make_service):
    svc = make_service(limits=ServiceLimits(max_queued_events=3))
    (tid,) = await interrupted(svc)
    slow = await svc.subscribe(SubscribeToTaskRequest(id=tid))
    await anext(slow)  # the Task; then it reads nothing more
    for i in range(5):  # each follow-up publishes at least one status update
        await svc.send_message(send_req(f"more {i}", f"m-{i}", task_id=tid))
    with pytest.raises(ResourceExhaustedError) as info:
        async for _ in slow:
            pass
    assert info.value.metadata["limit"] == "queuedEvents"
    live = svc.tasks.live.get(tid)
    assert live is None or not live.subscribers  # its queue is gone


async def test_a_stream_ends_at_its_maximum_lifetime(make_service):
    svc = make_service(limits=ServiceLimits(max_stream_seconds=0.05))
    (tid,) = await interrupted(svc)
    stream = await svc.subscribe(SubscribeToTaskRequest(id=tid))
    events = await asyncio.wait_for(_all(stream), 5)
    assert [e.task.id for e in events] == [tid]  # the Task, then a clean end
    assert svc.tasks.streams_of == {}


async def _all(stream):
    return [e async for e in stream]


# --- F4: memory, quotas, ListTasks -------------------------------------------------------------


async def test_idle_interrupted_tasks_leave_memory_and_come_back_from_the_store(make_service):
    svc = make_service()
    ids = await interrupted(svc, 3)
    assert not any(t in svc.tasks.live for t in ids)
    got = await svc.get_task(GetTaskRequest(id=ids[0]))
    assert got.status.state is S.INPUT_REQUIRED and len(got.history) == 2
    done = await svc.send_message(send_req("done", "m-done", task_id=ids[0]))
    assert done.status.state is S.COMPLETED and len(done.history) == 4
    canceled = await svc.cancel_task(CancelTaskRequest(id=ids[1]))
    assert canceled.status.state is S.CANCELED
    assert svc.tasks.live == {}


async def test_open_tasks_per_caller_are_capped(make_service):
    svc = make_service(limits=ServiceLimits(max_open_tasks_per_caller=2))
    ids = await interrupted(svc, 2)
    with pytest.raises(ResourceExhaustedError) as info:
        await svc.send_message(send_req(message_id="tck-multi-turn-9"))
    assert info.value.metadata["limit"] == "openTasksPerCaller"
    # a task that ends at once still needs a slot to start, so it is refused too; a direct
    # message makes no task and is still answered
    reply = await svc.send_message(send_req(message_id="tck-message-response-1"))
    assert reply.parts
    await svc.cancel_task(CancelTaskRequest(id=ids[0]))  # frees one
    assert (await svc.send_message(send_req(message_id="tck-multi-turn-8"))).status.state is S.INPUT_REQUIRED
    other = CallerScope("", "bob")  # per caller
    assert (
        await svc.send_message(send_req(message_id="tck-multi-turn-7"), other)
    ).status.state is S.INPUT_REQUIRED


async def test_the_open_task_count_is_read_back_from_the_store(make_service, tmp_path):
    from agentproto.a2a._taskstore import TaskStore

    db = str(tmp_path / "t.sqlite3")
    first = make_service(store=TaskStore(db))
    await interrupted(first, 2)
    again = make_service(store=TaskStore(db), limits=ServiceLimits(max_open_tasks_per_caller=2))
    with pytest.raises(ResourceExhaustedError):
        await again.send_message(send_req(message_id="tck-multi-turn-9"))


async def test_open_tasks_are_capped_server_wide_whatever_tenant_a_caller_names(make_service, tmp_path):
    from agentproto.a2a._taskstore import TaskStore

    db = str(tmp_path / "t.sqlite3")
    limits = ServiceLimits(max_open_tasks_per_caller=2, max_open_tasks=3)
    svc = make_service(store=TaskStore(db), limits=limits)
    ids = await interrupted(svc, 2)  # the anonymous caller in the default tenant: its quota is full
    other_tenant = CallerScope("t2", None)  # the same caller, naming another tenant
    task = await svc.send_message(send_req(message_id="tck-multi-turn-7"), other_tenant)
    assert task.status.state is S.INPUT_REQUIRED
    with pytest.raises(ResourceExhaustedError) as info:  # three open tasks: the server's cap
        await svc.send_message(send_req(message_id="tck-multi-turn-6"), CallerScope("t3", None))
    assert info.value.metadata == {"limit": "openTasks", "max": "3", "retryAfterSeconds": "5"}
    await svc.cancel_task(CancelTaskRequest(id=ids[0]))  # frees one, for anyone
    later = await svc.send_message(send_req(message_id="tck-multi-turn-5"), CallerScope("t3", None))
    assert later.status.state is S.INPUT_REQUIRED
    # a restarted server counts the open tasks its store already holds
    again = make_service(store=TaskStore(db), limits=ServiceLimits(max_open_tasks=3))
    with pytest.raises(ResourceExhaustedError):
        await again.send_message(send_req(message_id="tck-multi-turn-4"), CallerScope("t4", None))


async def test_a_follow_up_to_a_task_whose_history_is_full_is_refused_and_changes_nothing(
    make_service, tmp_path
):
    from agentproto.a2a._taskstore import TaskStore

    db = str(tmp_path / "t.sqlite3")
    svc = make_service(store=TaskStore(db), limits=ServiceLimits(max_task_history=6))
    (tid,) = await interrupted(svc)  # the user's message and the agent's question: 2
    for i in range(2):  # each turn adds the user's message and the agent's answer: 4, 6
        task = await svc.send_message(send_req("more", f"m-{i}", task_id=tid))
        assert task.status.state is S.INPUT_REQUIRED
    assert len(task.history) == 6
    with pytest.raises(UnsupportedOperationError) as info:  # as for an ended task (§3.1.1)
        await svc.send_message(send_req("done", "m-full", task_id=tid))
    assert info.value.code == -32004 and info.value.http_status == 400
    assert info.value.metadata == {"taskId": tid, "limit": "taskHistory", "max": "6"}
    assert task.context_id in info.value.message  # where to go on: a new task in that context
    kept = await svc.get_task(GetTaskRequest(id=tid))
    assert kept.status.state is S.INPUT_REQUIRED and len(kept.history) == 6
    # the count is the stored history's: a restarted server refuses it too
    again = make_service(store=TaskStore(db), limits=ServiceLimits(max_task_history=6))
    with pytest.raises(UnsupportedOperationError):
        await again.send_message(send_req("done", "m-full-2", task_id=tid))
    fresh = user_message("hi", message_id="tck-multi-turn-new", context_id=task.context_id)
    assert (await again.send_message(SendMessageRequest(message=fresh))).status.state is S.INPUT_REQUIRED


async def test_list_tasks_returns_a_small_default_history(make_service):
    svc = make_service()
    (tid,) = await interrupted(svc)
    await svc.send_message(send_req("more", "m-1", task_id=tid))
    (task,) = (await svc.list_tasks(ListTasksRequest())).tasks
    assert len(task.history) == LIST_DEFAULT_HISTORY_LENGTH
    (full,) = (await svc.list_tasks(ListTasksRequest(history_length=100))).tasks
    assert len(full.history) == 4  # an explicit historyLength is honoured


async def test_a_big_list_answer_is_cut_short_with_a_next_page_token(make_service):
    svc = make_service(limits=ServiceLimits(max_list_response_bytes=25_000))
    ids = await interrupted(svc, 6, text="y" * 10_000)
    seen: list[str] = []
    token = ""
    pages = 0
    while True:
        page = await svc.list_tasks(ListTasksRequest(history_length=5, page_size=100, page_token=token))
        size = sum(len(json.dumps(t.to_wire())) for t in page.tasks)
        assert page.tasks and (size <= 25_000 or len(page.tasks) == 1)
        seen += [t.id for t in page.tasks]
        pages += 1
        token = page.next_page_token
        if not token:
            break
        assert pages < 10
    assert pages > 1
    assert sorted(seen) == sorted(ids) and len(seen) == len(set(seen))
