"""Task lifecycle behaviour of the service: blocking, streaming, resume, cancel, history, paging."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

from agentproto.a2a._taskstore import TaskStore
from agentproto.a2a.agents import EchoAgent, Status, Wait, make_agent
from agentproto.a2a.errors import (
    InvalidParamsError,
    TaskNotCancelableError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from agentproto.a2a.service import A2AService, media_type_accepted
from agentproto.a2a.states import TaskState
from agentproto.a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    Message,
    SendMessageConfiguration,
    SendMessageRequest,
    SubscribeToTaskRequest,
    Task,
    user_message,
)
from agentproto.clock import FakeClock, IdFactory, iso_utc

pytestmark = pytest.mark.anyio
S = TaskState


def send_req(
    text: str = "hi", message_id: str = "m-1", *, task_id: str = "", context_id: str = "", **config
) -> SendMessageRequest:
    m = user_message(text, message_id=message_id, task_id=task_id, context_id=context_id)
    return SendMessageRequest(message=m, configuration=SendMessageConfiguration(**config) if config else None)


async def events_of(stream) -> list:
    return [e async for e in stream]


# --- blocking, non-blocking, direct messages ------------------------------------------------


async def test_blocking_send_waits_for_a_terminal_state(make_service):
    svc = make_service("conformance")
    task = await svc.send_message(send_req(message_id="tck-delayed-complete-1"))
    assert task.status.state is S.COMPLETED
    assert task.status.message.text == "Done after delay"


async def test_blocking_send_returns_at_an_interrupted_state(make_service):
    svc = make_service("travel")
    task = await svc.send_message(send_req("Plan my trip to Sanya"))
    assert task.status.state is S.INPUT_REQUIRED
    assert "come back" in task.status.message.text


async def test_return_immediately_gives_back_the_task_as_created(make_service):
    svc = make_service("conformance")
    task = await svc.send_message(send_req(message_id="tck-delayed-complete-1", return_immediately=True))
    assert task.status.state is S.SUBMITTED
    await asyncio.sleep(0.01)  # the run goes on in the background
    assert (await svc.get_task(GetTaskRequest(id=task.id))).status.state is S.COMPLETED


async def test_an_agent_may_answer_with_a_direct_message_and_no_task(make_service):
    svc = make_service("conformance")
    out = await svc.send_message(send_req(message_id="tck-message-response-1"))
    assert isinstance(out, Message) and out.text == "Direct message response"
    assert out.context_id and not out.task_id
    assert (await svc.list_tasks(ListTasksRequest())).total_size == 0


async def test_the_server_generates_a_context_id_or_keeps_the_clients(make_service):
    svc = make_service("conformance")
    generated = await svc.send_message(send_req(message_id="tck-complete-task"))
    given = await svc.send_message(send_req(message_id="tck-complete-task-2", context_id="c-9"))
    assert generated.context_id == "id-1" and given.context_id == "c-9"


# --- resuming interrupted tasks (spec §3.4) ------------------------------------------------


async def test_an_interrupted_task_resumes_with_a_message_carrying_its_task_id(make_service):
    svc = make_service("travel")
    first = await svc.send_message(send_req("Trip to Tokyo"))
    done = await svc.send_message(send_req("2026-04-08 to 2026-04-12", "m-2", task_id=first.id))
    assert done.id == first.id and done.status.state is S.COMPLETED
    assert done.context_id == first.context_id  # inferred from the task
    assert [a.artifact_id for a in done.artifacts] == ["itinerary", "trip"]
    assert done.artifacts[0].text.startswith("Trip to Tokyo, 2026-04-08 → 2026-04-12.")


async def test_a_resume_with_another_context_id_is_rejected(make_service):
    svc = make_service("travel")
    first = await svc.send_message(send_req("Trip to Tokyo"))
    with pytest.raises(InvalidParamsError, match="does not match"):
        await svc.send_message(
            send_req("2026-04-08 2026-04-09", "m-2", task_id=first.id, context_id="someone-else")
        )


async def test_a_message_naming_an_unknown_task_is_task_not_found(make_service):
    with pytest.raises(TaskNotFoundError):
        await make_service().send_message(send_req(task_id="ghost"))


async def test_a_message_to_a_terminal_task_is_unsupported(make_service):
    svc = make_service("conformance")
    done = await svc.send_message(send_req(message_id="tck-complete-task"))
    with pytest.raises(UnsupportedOperationError):
        await svc.send_message(send_req("again", "m-2", task_id=done.id))


async def test_a_message_while_the_agent_is_still_running_is_refused(make_service):
    svc = make_service("conformance")
    task = await svc.send_message(send_req(message_id="tck-cancel-1", return_immediately=True))
    await asyncio.sleep(0)
    with pytest.raises(UnsupportedOperationError, match="still running"):
        await svc.send_message(send_req("more", "m-2", task_id=task.id))
    await svc.aclose()


async def test_multi_turn_stays_interrupted_until_done(make_service):
    svc = make_service("conformance")
    t = await svc.send_message(send_req(message_id="tck-multi-turn-1"))
    t = await svc.send_message(send_req("more", "m-2", task_id=t.id))
    assert t.status.state is S.INPUT_REQUIRED
    t = await svc.send_message(send_req("done", "m-3", task_id=t.id))
    assert t.status.state is S.COMPLETED
    states = [tr.target for tr in svc.timeline(t.id)]
    assert states == [S.SUBMITTED, S.INPUT_REQUIRED, S.INPUT_REQUIRED, S.COMPLETED]


# --- history length (spec §3.2.4) -------------------------------------------------------------


@pytest.mark.parametrize("length, expected", [(None, 4), (0, 0), (1, 1), (3, 3), (99, 4)])
async def test_history_length_caps_the_history_returned(make_service, length, expected):
    svc = make_service("conformance")
    t = await svc.send_message(send_req(message_id="tck-input-required"))
    t = await svc.send_message(send_req("ok", "m-2", task_id=t.id))
    assert [m.role.value for m in t.history] == ["ROLE_USER", "ROLE_AGENT", "ROLE_USER", "ROLE_AGENT"]
    got = await svc.get_task(GetTaskRequest(id=t.id, history_length=length))
    assert len(got.history) == expected
    if length == 0:
        assert "history" not in got.to_wire()
    if length:
        assert got.history[-1] == t.history[-1]  # the most recent ones


async def test_a_negative_history_length_is_invalid(make_service):
    svc = make_service()
    t = await svc.send_message(send_req(message_id="tck-complete-task"))
    with pytest.raises(InvalidParamsError):
        await svc.get_task(GetTaskRequest(id=t.id, history_length=-1))


# --- ListTasks (spec §3.1.4) -----------------------------------------------------------------


async def make_tasks(
    svc: A2AService, clock: FakeClock, n: int, prefix: str = "tck-complete-task", context_id: str = ""
) -> list[Task]:
    out = []
    for i in range(n):
        clock.advance(1000)
        out.append(await svc.send_message(send_req(message_id=f"{prefix}-{i}", context_id=context_id)))
    return out


async def test_list_tasks_pages_newest_first_until_an_empty_token(make_service, clock):
    svc = make_service()
    made = await make_tasks(svc, clock, 5)
    seen, token, pages = [], "", 0
    while True:
        page = await svc.list_tasks(ListTasksRequest(page_size=2, page_token=token))
        assert page.total_size == 5 and page.page_size == 2
        seen += [t.id for t in page.tasks]
        pages += 1
        token = page.next_page_token
        if not token:
            break
    assert pages == 3
    assert seen == [t.id for t in reversed(made)]


async def test_list_tasks_filters_by_context_status_and_time(make_service, clock):
    svc = make_service()
    await make_tasks(svc, clock, 2, context_id="ctx-a")
    cutoff = clock.now_ms()
    await make_tasks(svc, clock, 1, prefix="tck-input-required", context_id="ctx-b")
    assert (await svc.list_tasks(ListTasksRequest(context_id="ctx-a"))).total_size == 2
    only = await svc.list_tasks(ListTasksRequest(status=S.INPUT_REQUIRED))
    assert [t.context_id for t in only.tasks] == ["ctx-b"]
    after = await svc.list_tasks(ListTasksRequest(status_timestamp_after=iso_utc(cutoff + 1)))
    assert after.total_size == 1


async def test_list_tasks_drops_the_artifacts_key_unless_asked(make_service, clock):
    svc = make_service()
    await make_tasks(svc, clock, 1, prefix="tck-artifact-text")
    plain = (await svc.list_tasks(ListTasksRequest())).to_wire()["tasks"][0]
    assert "artifacts" not in plain
    full = await svc.list_tasks(ListTasksRequest(include_artifacts=True))
    assert full.tasks[0].artifacts[0].text == "Generated text content"


@pytest.mark.parametrize("size", [0, 101, -5])
async def test_list_tasks_page_size_must_be_1_to_100(make_service, size):
    with pytest.raises(InvalidParamsError, match="pageSize"):
        await make_service().list_tasks(ListTasksRequest(page_size=size))


async def test_list_tasks_rejects_a_token_it_did_not_issue(make_service):
    with pytest.raises(InvalidParamsError, match="pageToken"):
        await make_service().list_tasks(ListTasksRequest(page_token="%%%"))


# --- streaming order and closing (spec §3.1.2, §3.5.2) ------------------------------------


async def test_a_stream_starts_with_the_task_and_ends_at_the_terminal_state(make_service):
    svc = make_service("conformance")
    events = await events_of(await svc.send_streaming_message(send_req(message_id="tck-stream-basic")))
    assert [e.kind for e in events] == ["task", "statusUpdate", "artifactUpdate", "statusUpdate"]
    assert events[0].task.status.state is S.SUBMITTED
    assert events[-1].status_update.status.state is S.COMPLETED


async def test_a_direct_message_stream_is_exactly_one_message(make_service):
    events = await events_of(
        await make_service().send_streaming_message(send_req(message_id="tck-message-response"))
    )
    assert [e.kind for e in events] == ["message"]


async def test_a_stream_closes_at_input_required_and_the_answer_opens_a_new_one(make_service):
    svc = make_service("travel")
    first = await events_of(await svc.send_streaming_message(send_req("Trip to Paris")))
    assert first[-1].status_update.status.state is S.INPUT_REQUIRED
    task_id = first[0].task.id
    second = await events_of(
        await svc.send_streaming_message(send_req("2026-06-01 to 2026-06-03", "m-2", task_id=task_id))
    )
    assert second[0].task.status.state is S.INPUT_REQUIRED  # the task as it was
    assert second[-1].status_update.status.state is S.COMPLETED
    chunks = [
        e.artifact_update
        for e in second
        if e.artifact_update and e.artifact_update.artifact.artifact_id == "itinerary"
    ]
    assert not chunks[0].append and all(c.append for c in chunks[1:])
    assert chunks[-1].last_chunk and not any(c.last_chunk for c in chunks[:-1])


async def test_every_subscriber_sees_the_same_events_in_the_same_order(make_service):
    svc = make_service("travel")
    t = await svc.send_message(send_req("Trip to Sanya"))
    resumed = await svc.send_streaming_message(send_req("2026-04-08 2026-04-10", "m-2", task_id=t.id))
    first = await anext(resumed)
    other = await svc.subscribe(SubscribeToTaskRequest(id=t.id))
    a, b = await asyncio.gather(events_of(resumed), events_of(other))
    assert first.kind == "task"
    assert [e.to_wire() for e in a] == [e.to_wire() for e in b[1:]]  # b starts with its Task


async def test_subscribe_starts_with_the_current_task(make_service):
    svc = make_service("conformance")
    t = await svc.send_message(send_req(message_id="tck-cancel", return_immediately=True))
    await asyncio.sleep(0)
    stream = await svc.subscribe(SubscribeToTaskRequest(id=t.id))
    first = await anext(stream)
    assert first.task.id == t.id and first.task.status.state is S.WORKING
    await svc.cancel_task(CancelTaskRequest(id=t.id))
    rest = await events_of(stream)
    assert rest[-1].status_update.status.state is S.CANCELED


async def test_a_subscription_to_an_interrupted_task_stays_open_until_it_is_terminal(make_service):
    # §3.1.6: the SubscribeToTask stream terminates at a terminal state, so a watcher sees
    # another client answer the INPUT_REQUIRED task and the task complete.
    svc = make_service("conformance")
    t = await svc.send_message(send_req(message_id="tck-input-required"))
    assert t.status.state is S.INPUT_REQUIRED
    stream = await svc.subscribe(SubscribeToTaskRequest(id=t.id))
    first = await anext(stream)
    assert first.task.status.state is S.INPUT_REQUIRED
    answer = await svc.send_message(send_req(message_id="m-2", task_id=t.id, context_id=t.context_id))
    assert answer.status.state is S.COMPLETED
    rest = await asyncio.wait_for(events_of(stream), 5)
    assert rest[-1].status_update.status.state is S.COMPLETED


async def test_subscribe_to_a_terminal_task_is_unsupported(make_service):
    svc = make_service()
    t = await svc.send_message(send_req(message_id="tck-complete-task"))
    with pytest.raises(UnsupportedOperationError):
        await svc.subscribe(SubscribeToTaskRequest(id=t.id))


async def test_an_agent_still_running_in_auth_required_keeps_the_stream_open(make_service):
    @dataclass
    class OutOfBandAuth(EchoAgent):
        async def run(self, ctx):
            yield Status.of(S.AUTH_REQUIRED, "Sign in at https://auth.example/")
            yield Wait(5)  # credentials arrive out of band (spec §7.6)
            yield Status.of(S.WORKING)
            yield Status.of(S.COMPLETED, "signed in")

    svc = make_service(OutOfBandAuth())
    events = await events_of(await svc.send_streaming_message(send_req()))
    states = [e.status_update.status.state for e in events if e.status_update]
    assert states == [S.AUTH_REQUIRED, S.WORKING, S.COMPLETED]


# --- cancel (spec §3.1.5) ---------------------------------------------------------------------


async def test_cancel_stops_a_running_agent(make_service):
    svc = make_service("conformance")
    t = await svc.send_message(send_req(message_id="tck-cancel", return_immediately=True))
    await asyncio.sleep(0)
    canceled = await svc.cancel_task(CancelTaskRequest(id=t.id))
    assert canceled.status.state is S.CANCELED
    assert [tr.target for tr in svc.timeline(t.id)] == [S.SUBMITTED, S.WORKING, S.CANCELED]


async def test_an_interrupted_task_can_be_canceled(make_service):
    svc = make_service("conformance")
    t = await svc.send_message(send_req(message_id="tck-input-required"))
    assert (await svc.cancel_task(CancelTaskRequest(id=t.id))).status.state is S.CANCELED


async def test_a_second_cancel_is_not_cancelable(make_service):
    svc = make_service("conformance")
    t = await svc.send_message(send_req(message_id="tck-input-required"))
    await svc.cancel_task(CancelTaskRequest(id=t.id))
    with pytest.raises(TaskNotCancelableError):
        await svc.cancel_task(CancelTaskRequest(id=t.id))


async def test_cancel_of_an_unknown_task_is_not_found(make_service):
    with pytest.raises(TaskNotFoundError):
        await make_service().cancel_task(CancelTaskRequest(id="ghost"))


# --- misbehaving agents -----------------------------------------------------------------------


async def test_an_illegal_move_by_the_agent_fails_the_task(make_service):
    @dataclass
    class GoesBack(EchoAgent):
        async def run(self, ctx):
            yield Status.of(S.WORKING)
            yield Status.of(S.SUBMITTED)  # not in the table

    t = await make_service(GoesBack()).send_message(send_req())
    assert t.status.state is S.FAILED and "SUBMITTED" in t.status.message.text


async def test_an_agent_that_stops_while_working_fails_the_task(make_service):
    @dataclass
    class Quits(EchoAgent):
        async def run(self, ctx):
            yield Status.of(S.WORKING)

    t = await make_service(Quits()).send_message(send_req())
    assert t.status.state is S.FAILED and "terminal or interrupted" in t.status.message.text


async def test_an_agent_that_raises_midway_fails_the_task(make_service):
    @dataclass
    class Breaks(EchoAgent):
        async def run(self, ctx):
            yield Status.of(S.WORKING)
            raise ValueError("flight API down")

    t = await make_service(Breaks()).send_message(send_req())
    assert t.status.state is S.FAILED and "flight API down" in t.status.message.text


# --- persistence and the conformance agent ----------------------------------------------------


async def test_a_restart_fails_tasks_that_were_running_and_keeps_interrupted_ones(tmp_path):
    db = str(tmp_path / "a2a.db")
    clock = FakeClock()
    svc = A2AService(make_agent("conformance"), store=TaskStore(db), clock=clock, ids=IdFactory("a"))
    running = await svc.send_message(send_req(message_id="tck-cancel", return_immediately=True))
    waiting = await svc.send_message(send_req(message_id="tck-input-required", context_id="c"))
    await asyncio.sleep(0)
    svc.store.close()  # the process dies (no clean shutdown)
    again = A2AService(make_agent("conformance"), store=TaskStore(db), clock=clock, ids=IdFactory("b"))
    assert (await again.get_task(GetTaskRequest(id=running.id))).status.state is S.FAILED
    resumed = await again.send_message(send_req("ok", "m-2", task_id=waiting.id))
    assert resumed.status.state is S.COMPLETED
    assert [t.target for t in again.timeline(waiting.id)] == [S.SUBMITTED, S.INPUT_REQUIRED, S.COMPLETED]
    for task in svc.tasks.live.values():
        if task.run:
            task.run.cancel()


@pytest.mark.parametrize(
    "prefix, state, artifact",
    [
        ("tck-complete-task", S.COMPLETED, None),
        ("tck-delayed-complete", S.COMPLETED, None),
        ("tck-long-running", S.COMPLETED, None),
        ("tck-artifact-text", S.COMPLETED, "text"),
        ("tck-artifact-file", S.COMPLETED, "raw"),
        ("tck-artifact-file-url", S.COMPLETED, "url"),
        ("tck-artifact-data", S.COMPLETED, "data"),
        ("tck-input-required", S.INPUT_REQUIRED, None),
        ("tck-auth-required", S.AUTH_REQUIRED, None),
        ("tck-reject-task", S.REJECTED, None),
        ("tck-task-failure", S.FAILED, None),
        ("tck-multi-turn", S.INPUT_REQUIRED, None),
        ("tck-stream-basic", S.COMPLETED, "text"),
        ("tck-stream-chunked", S.COMPLETED, "text"),
        ("no-prefix", S.COMPLETED, None),
    ],
)
async def test_the_conformance_agent_behaves_as_its_message_id_prefix_says(
    make_service, prefix, state, artifact
):
    t = await make_service("conformance").send_message(send_req("x", f"{prefix}-42"))
    assert t.status.state is state
    if artifact is None:
        assert t.artifacts == []
    else:
        assert t.artifacts[0].parts[0].kind == artifact


async def test_chunked_artifacts_are_reassembled_in_the_task(make_service):
    t = await make_service().send_message(send_req(message_id="tck-stream-chunked"))
    assert t.artifacts[0].text == "chunk one chunk two chunk three"


@pytest.mark.parametrize(
    "media_type, accepted, ok",
    [
        ("text/plain", ["text/plain"], True),
        ("text/plain; charset=utf-8", ["text/plain"], True),
        ("image/png", ["image/*"], True),
        ("image/png", ["*/*"], True),
        ("application/pdf", ["text/plain", "application/json"], False),
    ],
)
def test_media_type_matching(media_type, accepted, ok):
    assert media_type_accepted(media_type, accepted) is ok


async def test_a_cancel_that_lands_while_a_follow_up_is_starting_wins(make_service):
    gate = asyncio.Event()

    @dataclass
    class SlowToAnswer(EchoAgent):
        async def run(self, ctx):
            if ctx.is_follow_up:
                await gate.wait()  # e.g. the agent calls a model before its first update
                yield Status.of(S.COMPLETED)
            else:
                yield Status.of(S.INPUT_REQUIRED, "what else?")

    svc = make_service(SlowToAnswer())
    t = await svc.send_message(send_req())
    follow_up = asyncio.ensure_future(svc.send_message(send_req("more", "m-2", task_id=t.id)))
    await asyncio.sleep(0)
    with pytest.raises(UnsupportedOperationError, match="still running"):
        await svc.send_message(send_req("third", "m-3", task_id=t.id))  # one run at a time
    assert (await svc.cancel_task(CancelTaskRequest(id=t.id))).status.state is S.CANCELED
    gate.set()
    with pytest.raises(UnsupportedOperationError, match="CANCELED meanwhile"):
        await follow_up
    final = await svc.get_task(GetTaskRequest(id=t.id))
    assert final.status.state is S.CANCELED
    assert [m.message_id for m in final.history if m.role.value == "ROLE_USER"] == ["m-1"]
