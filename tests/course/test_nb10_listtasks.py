"""Notebook 10 §7–§8: ListTasks, CancelTask and SubscribeToTask on every binding.

What the notebook claims about the kit is held here against the library, so a change in the
REST query names, the paging end signal or the error mapping breaks a test before it silently
changes the lesson.
"""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("grpc")

BINDINGS = ("jsonrpc", "rest", "grpc")


def _run(scenario):
    """Five tasks (three completed with an artifact in ``trip``, two working elsewhere), then
    ``scenario(wire, clock)`` on a conformance server with all three bindings."""
    from agentproto.a2a import TaskState, create_a2a_app, user_message
    from agentproto.clock import FakeClock, IdFactory
    from agentproto.course.a2a_bindings import connect_tapped
    from agentproto.server import RunningServer

    clock = FakeClock()
    app = create_a2a_app(agent="conformance", clock=clock, ids=IdFactory("job"), grpc=True)

    async def run():
        with RunningServer(app) as server:
            wire = await connect_tapped(server.url, BINDINGS, ids_prefix="t")
            rpc = wire.clients["jsonrpc"]
            try:
                for n in range(3):
                    await rpc.send(user_message("x", message_id=f"tck-artifact-text-{n}", context_id="trip"))
                    clock.advance(1_000)
                for ctx in ("report", "audit"):
                    started = await rpc.send(
                        user_message("x", message_id=f"tck-cancel-{ctx}", context_id=ctx),
                        return_immediately=True,
                    )
                    while (await rpc.get_task(started.id)).status.state is not TaskState.WORKING:
                        await asyncio.sleep(0.01)
                    clock.advance(1_000)
                return await scenario(wire, clock)
            finally:
                await wire.aclose()

    return asyncio.run(run())


def test_listing_by_context_is_the_same_on_every_binding_newest_first_without_artifacts():
    async def scenario(wire, clock):
        seen = {}
        for name, client in wire.clients.items():
            page = await client.list_tasks(context_id="trip", page_size=10, history_length=3)
            seen[name] = page
        rest_target = wire.taps["rest"].last.target
        rest_tasks = wire.taps["rest"].last.json()["tasks"]
        return seen, rest_target, rest_tasks

    seen, target, listed = _run(scenario)
    ids = [t.id for t in seen["jsonrpc"].tasks]
    assert len(ids) == 3 and all([t.id for t in p.tasks] == ids for p in seen.values())
    stamps = [t.status.timestamp for t in seen["grpc"].tasks]
    assert stamps == sorted(stamps, reverse=True)
    assert all(p.next_page_token == "" and p.page_size == 10 and p.total_size == 3 for p in seen.values())
    assert target.endswith("/tasks?contextId=trip&pageSize=10&historyLength=3")
    assert all("artifacts" not in t for t in listed)


def test_status_filter_paging_to_an_empty_token_and_timestamp_filter():
    from agentproto.a2a import TaskState

    async def scenario(wire, clock):
        client = wire.clients["grpc"]
        working = await wire.clients["rest"].list_tasks(status=TaskState.WORKING, page_size=20)
        status_target = wire.taps["rest"].last.target
        pages, token = [], ""
        while True:
            page = await client.list_tasks(page_size=2, page_token=token)
            pages.append([t.id for t in page.tasks])
            token = page.next_page_token
            if not token:
                break
        everything = await client.list_tasks()
        since = everything.tasks[1].status.timestamp
        recent = await wire.clients["rest"].list_tasks(status_timestamp_after=since)
        with_art = await wire.clients["rest"].list_tasks(context_id="trip", include_artifacts=True)
        return working, status_target, pages, everything, recent, with_art

    working, status_target, pages, everything, recent, with_art = _run(scenario)
    assert {t.context_id for t in working.tasks} == {"report", "audit"}
    assert "status=TASK_STATE_WORKING" in status_target
    assert [i for p in pages for i in p] == [t.id for t in everything.tasks] and len(pages) == 3
    assert [t.id for t in recent.tasks] == [t.id for t in everything.tasks[:2]]
    assert all(a.name == "text" for t in with_art.tasks for a in t.artifacts) and with_art.tasks[0].artifacts


def test_invalid_page_size_and_terminal_cancel_map_per_binding():
    from agentproto.a2a import InvalidParamsError, TaskNotCancelableError, UnsupportedOperationError
    from agentproto.course.a2a_bindings import collect, expect_error_async

    async def scenario(wire, clock):
        invalid, cancel = {}, {}
        finished = (await wire.clients["jsonrpc"].list_tasks()).tasks[-1]
        for name, client in wire.clients.items():
            await expect_error_async(client.list_tasks, page_size=150, error=InvalidParamsError, quiet=True)
            invalid[name] = wire.status(name)
            await expect_error_async(
                client.cancel_task, finished.id, error=TaskNotCancelableError, quiet=True
            )
            cancel[name] = wire.status(name)
        details = wire.taps["rest"].last.json()["error"]["details"]
        await expect_error_async(
            collect, wire.clients["grpc"].subscribe(finished.id), error=UnsupportedOperationError, quiet=True
        )
        return invalid, cancel, details, wire.status("grpc")

    invalid, cancel, details, subscribe_status = _run(scenario)
    assert invalid == {
        "jsonrpc": "HTTP 200, error.code -32602",
        "rest": "HTTP 400",
        "grpc": "INVALID_ARGUMENT",
    }
    assert cancel == {
        "jsonrpc": "HTTP 200, error.code -32002",
        "rest": "HTTP 400",
        "grpc": "FAILED_PRECONDITION",
    }
    assert {"reason": "TASK_NOT_CANCELABLE", "domain": "a2a-protocol.org"}.items() <= next(
        d for d in details if d["@type"].endswith("ErrorInfo")
    ).items()
    assert subscribe_status == "FAILED_PRECONDITION"
