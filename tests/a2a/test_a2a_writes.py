"""When the service writes a task: once per request whose agent answers at once, and always
before the outside world hears of it (an answer, a stream event, a listing, a wait)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

from agentproto.a2a._taskstore import TaskStore
from agentproto.a2a.agents import EchoAgent, Status
from agentproto.a2a.jsonrpc import ANONYMOUS
from agentproto.a2a.states import TaskState
from agentproto.a2a.types import (
    GetTaskRequest,
    ListTasksRequest,
    Message,
    SendMessageConfiguration,
    SendMessageRequest,
    user_message,
)

pytestmark = pytest.mark.anyio
S = TaskState


class SpyStore(TaskStore):
    """A task store that counts its task writes and the SQL statements it runs."""

    def __init__(self) -> None:
        super().__init__()
        self.saves = 0
        self.statements = 0
        with self.store.transaction() as db:
            db.set_trace_callback(self._count)

    def _count(self, _sql: str) -> None:
        self.statements += 1

    def save(self, *args, **kw) -> None:  # type: ignore[no-untyped-def]
        self.saves += 1
        super().save(*args, **kw)


def send_req(message_id: str = "m-1", **config) -> SendMessageRequest:  # type: ignore[no-untyped-def]
    m = user_message("hi", message_id=message_id)
    return SendMessageRequest(message=m, configuration=SendMessageConfiguration(**config) if config else None)


def context_claimed(store: TaskStore, context_id: str) -> bool:
    sql = "SELECT 1 FROM a2a_contexts WHERE tenant = '' AND owner = ? AND context_id = ?"
    with store.store.transaction() as db:
        return db.execute(sql, (ANONYMOUS.owner, context_id)).fetchone() is not None


async def test_a_blocking_send_whose_agent_answers_at_once_writes_its_task_once(make_service):
    store = SpyStore()
    svc = make_service(EchoAgent(), store=store)
    await svc.send_message(send_req("m-0"))  # the caller's first task: its quota is counted
    store.saves = store.statements = 0
    task = await svc.send_message(send_req())
    assert task.status.state is S.COMPLETED
    # SUBMITTED → artifact → COMPLETED: one save, one transaction (BEGIN, context, task,
    # transitions, COMMIT)
    assert store.saves == 1
    assert store.statements <= 6
    stored = store.load(task.id)
    assert stored == task
    assert [t.target for t in store.transitions(task.id)] == [S.SUBMITTED, S.COMPLETED]
    assert context_claimed(store, task.context_id)


async def test_a_task_answered_at_once_is_stored_when_the_answer_comes(make_service):
    store = SpyStore()
    svc = make_service("conformance", store=store)
    task = await svc.send_message(send_req("tck-cancel-1", return_immediately=True))
    assert store.load(task.id).status.state is S.SUBMITTED
    assert context_claimed(store, task.context_id)
    await asyncio.sleep(0)  # the agent moves to WORKING and waits: stored as it waits
    assert store.load(task.id).status.state is S.WORKING


async def test_every_stream_event_is_stored_before_the_client_gets_it(make_service):
    store = SpyStore()
    svc = make_service("conformance", store=store)
    stream = await svc.send_streaming_message(send_req("tck-stream-basic-1"))
    seen = []
    async for event in stream:
        task_id = event.task.id if event.task else (event.status_update or event.artifact_update).task_id
        stored = store.load(task_id)  # as the event says, or later: the agent goes on meanwhile
        if event.status_update is not None:
            assert event.status_update.status.state in [t.target for t in store.transitions(task_id)]
        if event.artifact_update is not None:
            assert [a.artifact_id for a in stored.artifacts] == [event.artifact_update.artifact.artifact_id]
        seen.append(stored.status.state)
    assert seen[-1] is S.COMPLETED


async def test_a_task_whose_agent_is_busy_is_stored_when_a_client_asks(make_service):
    """An agent awaiting something else (not a ``Wait``): the task's changes are in memory
    only until someone looks — GetTask and ListTasks both see them, the store too."""
    gate = asyncio.Event()

    @dataclass
    class Busy(EchoAgent):
        async def run(self, ctx):  # type: ignore[no-untyped-def]
            yield Status.of(S.WORKING)
            await gate.wait()
            yield Status.of(S.COMPLETED)

    store = SpyStore()
    svc = make_service(Busy(), store=store)
    task = await svc.send_message(send_req(return_immediately=True))
    await asyncio.sleep(0)
    got = await svc.get_task(GetTaskRequest(id=task.id))
    assert got.status.state is S.WORKING and store.load(task.id).status.state is S.WORKING
    listed = await svc.list_tasks(ListTasksRequest())
    assert [t.status.state for t in listed.tasks] == [S.WORKING]
    gate.set()
    for _ in range(3):
        await asyncio.sleep(0)
    assert store.load(task.id).status.state is S.COMPLETED


async def test_a_direct_message_claims_its_context(make_service):
    store = SpyStore()
    svc = make_service("conformance", store=store)
    out = await svc.send_message(send_req("tck-message-response-1"))
    assert isinstance(out, Message) and context_claimed(store, out.context_id)
    assert store.saves == 0
