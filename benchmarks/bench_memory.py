"""Benchmark: resident memory per open AG-UI run and per live A2A task, and its growth with history.

Every measurement runs in a fresh process, so that one figure's garbage never pads another's:
a fork of a server process that has imported the kit (:data:`PRELOAD`; ``multiprocessing``'s
``forkserver``), so a measurement costs its work, not the imports. A child builds the
server-side objects, takes a reading, creates ``n`` items (open runs, live tasks, consumers) or
a history of ``n`` items, takes another reading, and returns both (``--child SCENARIO N METRIC``
runs one in a new interpreter, for a look by hand). Two meters, never mixed in one process:

* **rss** — ``VmRSS`` of ``/proc/self/status`` (Linux): everything the process holds, SQLite's
  pages and the allocator's slack included. ``bytes_per_item`` is ``(RSS(N) − RSS(0)) / N``
  across the children (``RSS(0)``: the same child with nothing created), and the slope
  between the two largest points;
* **heap** — ``tracemalloc`` started right after the first reading: bytes held by Python
  objects only (not SQLite's own memory, not the allocator's slack), exact and repeatable.
  A full run measures it at each scenario's largest point; ``--quick`` measures only it, at
  small points (so a smoke test can check figures that do not move with the machine's load).

``best`` is the RSS slope where RSS was measured (the heap figure otherwise). Wall time moves
with the machine's load; the children's CPU time (``children_cpu_s``) is reported next to it.

Scenarios (an *item* is what ``n`` counts):

===========================  ==================================================================
``agui_open_runs``           open runs on the AG-UI routes (``agui_routes`` over an in-memory
                             ``ThreadStore``), driven as ASGI requests with their SSE response
                             open, each run paused after ``RUN_STARTED``
``agui_thread_history``      one open run on a thread whose stored history has ``n`` messages
                             (the store's copy, then the run's own copy of the thread)
``agui_run_events``          one run (``RunDriver`` + ``ThreadStore``) that has emitted ``n``
                             events and has not finished: its event list, its view, its log
``agui_consumers``           ``Pipeline`` consumers, each mid-run (a message half streamed)
``agui_consumer_history``    one ``Pipeline`` fed ``n`` events of a run that has not finished
``a2a_live_tasks_*``         WORKING tasks of an ``A2AService`` (agent still running), on an
                             in-memory or a file SQLite ``TaskStore``; default limits, 200 tasks
                             per tenant (the per-caller quota)
``a2a_task_history_*``       one live task whose history has ``n`` messages (stored, then
                             continued by a follow-up: the service holds the task in memory)
===========================  ==================================================================

The ``limits`` section multiplies each figure by the limit that bounds its count (or says
that none does). No socket is opened: the ASGI requests are driven in-process (so uvicorn's own per-connection
objects are not counted).

    python benchmarks/bench_memory.py            # every point, both meters: ~30 s of CPU
    python benchmarks/bench_memory.py --quick    # small points, the heap meter only: a few s
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import json
import multiprocessing
import os
import pathlib
import resource
import shlex
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # allow running from a checkout without installing
    sys.path.insert(0, str(ROOT))

HERE = ROOT / "benchmarks"
if str(HERE) not in sys.path:  # run_all's machine and versions blocks live next to this file
    sys.path.insert(0, str(HERE))

from run_all import load_average, machine, versions  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "memory.json"
#: One history message's text: a sentence of a chat, about 100 characters.
TEXT = "the agent answers the user with a sentence of about one hundred characters, as chats do; turn "

# ---------------------------------------------------------------------------------- meters


def rss_bytes() -> int | None:
    """Resident set size of this process (Linux ``VmRSS``), or None where there is no /proc."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


class Probe:
    """Readings of one child at named points; ``heap`` traces Python allocations from the first."""

    def __init__(self, metric: str) -> None:
        self.metric = metric
        self.readings: dict[str, int | None] = {}
        #: With ``heap``, at ``after``: the source files that allocated the most of what is held.
        self.top: list[dict[str, Any]] | None = None

    def __call__(self, label: str) -> None:
        gc.collect()
        if self.metric == "heap":
            if not tracemalloc.is_tracing():
                tracemalloc.start()
            self.readings[label] = tracemalloc.get_traced_memory()[0]
            if label == "after":
                stats = tracemalloc.take_snapshot().statistics("filename")
                self.top = [
                    {"file": _short_path(st.traceback[0].filename), "bytes": st.size, "blocks": st.count}
                    for st in stats[:8]
                ]
        else:
            self.readings[label] = rss_bytes()


def _short_path(filename: str) -> str:
    """``…/site-packages/pydantic/main.py`` as ``pydantic/main.py``; the kit's files from its root."""
    path = pathlib.Path(filename)
    for marker in ("site-packages", "lib"):
        if marker in path.parts:
            return "/".join(path.parts[len(path.parts) - path.parts[::-1].index(marker) :])
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return filename


# ---------------------------------------------------------------------------------- AG-UI


def _turn_events(turn: int) -> list[dict[str, Any]]:
    """One agent turn of the benchmark mix: a streamed reply, a tool call, its result, a state
    change (18 events)."""
    mid, cid = f"msg-{turn}", f"call-{turn}"
    out: list[dict[str, Any]] = [{"type": "TEXT_MESSAGE_START", "messageId": mid, "role": "assistant"}]
    out += [
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": f"word{i} of {turn} "} for i in range(10)
    ]
    out.append({"type": "TEXT_MESSAGE_END", "messageId": mid})
    out.append(
        {"type": "TOOL_CALL_START", "toolCallId": cid, "toolCallName": "search", "parentMessageId": mid}
    )
    out.append({"type": "TOOL_CALL_ARGS", "toolCallId": cid, "delta": '{"query": "agent '})
    out.append({"type": "TOOL_CALL_ARGS", "toolCallId": cid, "delta": f'protocols {turn}"}}'})
    out.append({"type": "TOOL_CALL_END", "toolCallId": cid})
    out.append(
        {"type": "TOOL_CALL_RESULT", "messageId": f"tool-{turn}", "toolCallId": cid, "content": "5 hits"}
    )
    out.append({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/todos/-", "value": turn}]})
    return out


def run_events(n: int, thread_id: str = "thread-1", run_id: str = "run-1") -> list[dict[str, Any]]:
    """The first ``n`` events of a run that has not finished (no RUN_FINISHED)."""
    events: list[dict[str, Any]] = [
        {"type": "RUN_STARTED", "threadId": thread_id, "runId": run_id},
        {"type": "STATE_SNAPSHOT", "snapshot": {"todos": []}},
    ]
    turn = 0
    while len(events) < n:
        turn += 1
        events += _turn_events(turn)
    return events[:n]


def history_messages(n: int) -> list[dict[str, Any]]:
    """``n`` AG-UI wire messages, user and assistant in turn."""
    roles = ("user", "assistant")
    return [{"id": f"m-{i}", "role": roles[i % 2], "content": f"{TEXT}{i}"} for i in range(n)]


def _run_input(thread_id: str, run_id: str, message_id: str) -> bytes:
    body = {
        "threadId": thread_id,
        "runId": run_id,
        "state": {},
        "messages": [{"id": message_id, "role": "user", "content": "plan a trip to Sanya"}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }
    return json.dumps(body).encode()


def _hold_agent(ctx: Any) -> Iterator[Any]:
    """An agent that starts a run and keeps streaming: with the server's ``pace_s`` at an hour
    its run stays open after its first event."""
    from agentproto.agui import events as ev

    yield ev.RunStartedEvent(thread_id=ctx.thread_id, run_id=ctx.run_id)
    yield ev.TextMessageStartEvent(message_id=f"{ctx.run_id}-reply", role="assistant")
    yield ev.RunFinishedEvent(thread_id=ctx.thread_id, run_id=ctx.run_id)


async def _open_runs(app: Any, inputs: list[bytes]) -> list[asyncio.Task[None]]:
    """POST each input to ``/ag-ui/agent`` as an ASGI request and return once every response has
    sent its first event; the requests stay open (their client never disconnects)."""
    started = 0
    all_started = asyncio.Event()
    hold = asyncio.Event()  # never set while we measure: the clients stay connected
    statuses: list[int] = []

    def request(body: bytes) -> tuple[Callable[[], Any], Callable[[dict[str, Any]], Any]]:
        sent = False
        first = True

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await hold.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            nonlocal started, first
            if message["type"] == "http.response.start":
                statuses.append(message["status"])
            elif message["type"] == "http.response.body" and message.get("body") and first:
                first = False
                started += 1
                if started == len(inputs):
                    all_started.set()

        return receive, send

    tasks = []
    for body in inputs:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/ag-ui/agent",
            "raw_path": b"/ag-ui/agent",
            "query_string": b"",
            "root_path": "",
            "headers": [
                (b"host", b"127.0.0.1"),
                (b"content-type", b"application/json"),
                (b"accept", b"text/event-stream"),
                (b"content-length", str(len(body)).encode()),
            ],
            "client": ("127.0.0.1", 40000),
            "server": ("127.0.0.1", 8000),
        }
        receive, send = request(body)
        tasks.append(asyncio.create_task(app(scope, receive, send)))
    if inputs:
        await asyncio.wait_for(all_started.wait(), 60)
    if any(s != 200 for s in statuses):
        raise SystemExit(f"a run was refused: statuses {sorted(set(statuses))}")
    return tasks


def _agui_app(store: Any, **options: Any) -> Any:
    from starlette.applications import Starlette

    from agentproto.agui.server import agui_routes

    return Starlette(routes=agui_routes(store, _hold_agent, pace_s=3600.0, heartbeat_s=3600.0, **options))


def scenario_agui_open_runs(n: int, probe: Probe) -> dict[str, Any]:
    from agentproto.agui._threadstore import ThreadStore

    async def main() -> dict[str, Any]:
        store = ThreadStore(":memory:")
        app = _agui_app(store)
        await _open_runs(app, [_run_input("warm-up", "warm-up", "warm-up")])  # first-call costs
        inputs = [_run_input(f"thread-{i}", f"run-{i}", f"user-{i}") for i in range(n)]
        probe("before")
        tasks = await _open_runs(app, inputs)
        probe("after")
        return {"open_requests": len(tasks)}

    return asyncio.run(main())


def scenario_agui_thread_history(n: int, probe: Probe) -> dict[str, Any]:
    from agentproto.agui._threadstore import ThreadStore

    async def main() -> dict[str, Any]:
        store = ThreadStore(":memory:")
        # the cap on a thread lifted past n: this measures what each message costs (the limits
        # section multiplies it by the cap)
        app = _agui_app(store, max_thread_messages=n + 1)
        await _open_runs(app, [_run_input("warm-up", "warm-up", "warm-up")])
        messages = history_messages(n)
        item_bytes = len(json.dumps(messages, separators=(",", ":"))) / max(1, n)
        probe("before")  # ``messages`` stays alive to the end: the deltas are the store's and the run's
        store.ensure_thread("long-thread", state={})
        store.append_messages("long-thread", messages)
        probe("stored")
        await _open_runs(app, [_run_input("long-thread", "run-on-history", "user-new")])
        probe("after")
        return {"json_bytes_per_item": round(item_bytes, 1)}

    return asyncio.run(main())


def scenario_agui_run_events(n: int, probe: Probe) -> dict[str, Any]:
    from agentproto.agui import events as ev
    from agentproto.agui._threadstore import ThreadStore
    from agentproto.agui.interrupts import ResumePlan
    from agentproto.agui.parse import parse_event, parse_run_agent_input
    from agentproto.agui.runner import RunContext, RunDriver
    from agentproto.clock import FakeClock, IdFactory

    wire = run_events(n + 1)
    events = [e for e in (parse_event(w).event for w in wire) if e is not None]
    item_bytes = len(json.dumps(wire[1:], separators=(",", ":"))) / max(1, n)

    def driver(thread_id: str) -> RunDriver:
        run_input, _ = parse_run_agent_input(json.loads(_run_input(thread_id, "run-1", "user-1")))
        store.ensure_thread(thread_id, state={})
        store.start_run(thread_id, "run-1", kind="new")
        context = RunContext.start(
            run_input, ResumePlan("new", thread_id), clock=FakeClock(), ids=IdFactory("id"), state={}
        )

        def agent(ctx: RunContext) -> Iterator[ev.BaseEvent]:
            yield from (
                e.model_copy(update={"thread_id": thread_id}) if i == 0 else e for i, e in enumerate(events)
            )
            yield ev.RunFinishedEvent(thread_id=thread_id, run_id="run-1")

        return RunDriver(agent, context, store)

    store = ThreadStore(":memory:")
    warm = iter(driver("warm-up"))
    for _ in range(min(len(events), 40)):
        next(warm)
    probe("before")
    open_run = driver("thread-1")
    stream = iter(open_run)
    fed = sum(1 for _ in itertools.islice(stream, len(events) - 1))  # all but the first: counted
    probe("after")
    if open_run.finished or fed != len(events) - 1:
        raise SystemExit("the benchmark run ended early")
    return {"json_bytes_per_item": round(item_bytes, 1)}


def _sse(events: list[dict[str, Any]]) -> bytes:
    return b"".join(b"data: " + json.dumps(e, separators=(",", ":")).encode() + b"\n\n" for e in events)


def scenario_agui_consumers(n: int, probe: Probe) -> dict[str, Any]:
    from agentproto.agui import Pipeline

    prefix = _sse(run_events(8))  # RUN_STARTED, STATE_SNAPSHOT, a reply half streamed
    Pipeline().feed_bytes(prefix, collect=False)
    probe("before")
    consumers = []
    for _ in range(n):
        pipeline = Pipeline()
        pipeline.feed_bytes(prefix, collect=False)
        consumers.append(pipeline)
    probe("after")
    if any(p.error is not None for p in consumers):
        raise SystemExit("a consumer rejected the benchmark stream")
    return {"events_fed_each": 8}


def scenario_agui_consumer_history(n: int, probe: Probe) -> dict[str, Any]:
    from agentproto.agui import Pipeline

    data = _sse(run_events(n + 1))
    head = data.index(b"\n\n") + 2  # RUN_STARTED: part of the fixed cost, not the history
    item_bytes = (len(data) - head) / max(1, n)
    Pipeline().feed_bytes(_sse(run_events(40)), collect=False)
    pipeline = Pipeline()
    pipeline.feed_bytes(data[:head], collect=False)
    probe("before")
    for i in range(head, len(data), 65536):
        pipeline.feed_bytes(data[i : i + 65536], collect=False)
    probe("after")
    if pipeline.error is not None:
        raise SystemExit(f"the consumer rejected the benchmark stream: {pipeline.error}")
    return {"sse_bytes_per_item": round(item_bytes, 1)}


# ---------------------------------------------------------------------------------- A2A


def _hold_a2a_agent() -> Any:
    from agentproto.a2a.agents import EchoAgent, Status, Wait
    from agentproto.a2a.states import TaskState

    class HoldAgent(EchoAgent):
        """Moves its task to WORKING and keeps working until canceled."""

        name = "hold"

        async def run(self, ctx: Any) -> Any:
            yield Status.of(TaskState.WORKING)
            yield Wait(None)

    return HoldAgent()


def _task_store(kind: str, directory: str) -> Any:
    from agentproto.a2a import TaskStore

    return TaskStore(":memory:" if kind == "memory" else os.path.join(directory, "tasks.db"))


async def _all_working(service: Any, ids: list[str]) -> None:
    from agentproto.a2a.states import TaskState

    for _ in range(10_000):
        if all(service.tasks.live[i].state == TaskState.WORKING for i in ids):
            return
        await asyncio.sleep(0)
    raise SystemExit("the tasks did not reach WORKING")


def _send(service: Any, text: str, *, tenant: str = "", task_id: str = "") -> Any:
    from agentproto.a2a.types import SendMessageRequest

    message: dict[str, Any] = {"messageId": f"user-{text}", "role": "ROLE_USER", "parts": [{"text": text}]}
    if task_id:
        message["taskId"] = task_id
    req = {"tenant": tenant, "message": message, "configuration": {"returnImmediately": True}}
    return service.send_message(SendMessageRequest.model_validate(req))


def _a2a_live_tasks(kind: str) -> Callable[[int, Probe], dict[str, Any]]:
    def scenario(n: int, probe: Probe) -> dict[str, Any]:
        from agentproto.a2a import A2AService
        from agentproto.a2a._service_streams import MAX_OPEN_TASKS_PER_CALLER

        async def main(directory: str) -> dict[str, Any]:
            service = A2AService(_hold_a2a_agent(), store=_task_store(kind, directory))
            warm = await _send(service, "warm-up", tenant="warm-up")
            await _all_working(service, [warm.id])
            probe("before")
            ids = []
            for i in range(n):  # default limits: a new tenant for every quota's worth of tasks
                task = await _send(service, f"task-{i}", tenant=f"tenant-{i // MAX_OPEN_TASKS_PER_CALLER}")
                ids.append(task.id)
            await _all_working(service, ids)
            probe("after")
            live = len(service.tasks.live) - 1
            await service.aclose()
            return {"live_tasks": live, "tasks_per_tenant": MAX_OPEN_TASKS_PER_CALLER}

        with tempfile.TemporaryDirectory(prefix="bench-memory-") as directory:
            return asyncio.run(main(directory))

    return scenario


def _a2a_task_history(kind: str) -> Callable[[int, Probe], dict[str, Any]]:
    def scenario(n: int, probe: Probe) -> dict[str, Any]:
        from agentproto.a2a import A2AService, ServiceLimits
        from agentproto.a2a.states import TaskState
        from agentproto.a2a.types import Message, Task, TaskStatus

        async def main(directory: str) -> dict[str, Any]:
            # the cap on a task's history lifted past n: this measures what each message costs
            # (the limits section multiplies it by the cap)
            service = A2AService(
                _hold_a2a_agent(),
                store=_task_store(kind, directory),
                limits=ServiceLimits(max_task_history=n + 1),
            )
            warm = await _send(service, "warm-up", tenant="warm-up")
            await _all_working(service, [warm.id])
            roles = ("ROLE_USER", "ROLE_AGENT")
            history = [
                Message.model_validate(
                    {
                        "messageId": f"m-{i}",
                        "role": roles[i % 2],
                        "taskId": "long-task",
                        "contextId": "ctx-long",
                        "parts": [{"text": f"{TEXT}{i}"}],
                    }
                )
                for i in range(n)
            ]
            item_bytes = sum(len(m.model_dump_json(by_alias=True, exclude_defaults=True)) for m in history)
            task = Task(
                id="long-task",
                context_id="ctx-long",
                status=TaskStatus(state=TaskState.INPUT_REQUIRED),
                history=history,
            )
            probe("before")  # ``task`` stays alive to the end: the service loads its own copy
            service.store.save(task, status_ms=service.clock.now_ms())
            probe("stored")
            await _send(service, "follow-up", task_id="long-task")  # the service loads it, continues it
            await _all_working(service, ["long-task"])
            probe("after")
            held = len(service.tasks.live["long-task"].task.history)
            if service.tasks.live["long-task"].task is task:
                raise SystemExit("the service should hold its own copy of the task")
            await service.aclose()
            return {"json_bytes_per_item": round(item_bytes / max(1, n), 1), "history_held": held}

        with tempfile.TemporaryDirectory(prefix="bench-memory-") as directory:
            return asyncio.run(main(directory))

    return scenario


# ---------------------------------------------------------------------------------- the plan

#: The two meters (see the module docstring).
METERS = ("rss", "heap")

#: name -> (child function, item, what it measures, full points, quick points)
SCENARIOS: dict[
    str, tuple[Callable[[int, Probe], dict[str, Any]], str, str, tuple[int, ...], tuple[int, ...]]
] = {
    "agui_open_runs": (
        scenario_agui_open_runs,
        "open run",
        "AG-UI routes + in-memory ThreadStore: open runs, SSE response open, paused after RUN_STARTED",
        (0, 100, 500),
        (50,),
    ),
    "agui_thread_history": (
        scenario_agui_thread_history,
        "thread message",
        "one open run on a thread with n stored messages (~100-char texts)",
        (10, 100, 1000, 10_000),
        (10, 1000),
    ),
    "agui_run_events": (
        scenario_agui_run_events,
        "run event",
        "RunDriver + in-memory ThreadStore: one unfinished run that emitted n events",
        (10, 100, 1000, 10_000),
        (10, 1000),
    ),
    "agui_consumers": (
        scenario_agui_consumers,
        "open consumer",
        "Pipeline consumers, each mid-run (8 events fed)",
        (0, 100, 1000),
        (200,),
    ),
    "agui_consumer_history": (
        scenario_agui_consumer_history,
        "run event",
        "one Pipeline fed n events of an unfinished run (collect=False)",
        (10, 100, 1000, 10_000),
        (10, 1000),
    ),
    "a2a_live_tasks_memory": (
        _a2a_live_tasks("memory"),
        "live task",
        "A2AService, in-memory TaskStore: WORKING tasks whose agent is still running",
        (0, 100, 1000),
        (200,),
    ),
    "a2a_live_tasks_sqlite": (
        _a2a_live_tasks("sqlite"),
        "live task",
        "A2AService, file SQLite TaskStore: WORKING tasks whose agent is still running",
        (0, 100, 1000),
        (200,),
    ),
    "a2a_task_history_memory": (
        _a2a_task_history("memory"),
        "history message",
        "A2AService, in-memory TaskStore: one live task with n history messages (~100-char texts)",
        (10, 100, 1000, 10_000),
        (10, 1000),
    ),
    "a2a_task_history_sqlite": (
        _a2a_task_history("sqlite"),
        "history message",
        "A2AService, file SQLite TaskStore: one live task with n history messages (~100-char texts)",
        (10, 100, 1000, 10_000),
        (10, 1000),
    ),
}


def child(name: str, n: int, metric: str) -> dict[str, Any]:
    """Run one scenario at ``n`` in this process and return its readings (with ``heap``, also
    where the bytes held at the end were allocated, by source file)."""
    probe = Probe(metric)
    extra = SCENARIOS[name][0](n, probe)
    out = {"scenario": name, "n": n, "metric": metric, "readings": probe.readings, **extra}
    if probe.top is not None:
        out["heap_top_files"] = probe.top
    usage = resource.getrusage(resource.RUSAGE_SELF)
    out["cpu_s"] = round(usage.ru_utime + usage.ru_stime, 3)
    return out


#: What every child needs, imported once by the fork server: each child is a fresh fork of it.
PRELOAD = (
    "agentproto.agui",
    "agentproto.agui.server",
    "agentproto.agui._threadstore",
    "agentproto.agui.runner",
    "agentproto.a2a",
    "agentproto.a2a.service",
    "starlette.applications",
    "sse_starlette.sse",
)


def _pool(jobs: int) -> ProcessPoolExecutor:
    """Children ``jobs`` at a time, each a new process (forked from a server that has imported
    :data:`PRELOAD`, so that a child costs its work, not the imports); spawned elsewhere."""
    ctx: Any
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(list(PRELOAD))
    else:  # pragma: no cover - Windows
        ctx = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(max_workers=max(1, jobs), mp_context=ctx, max_tasks_per_child=1)


def _delta(readings: dict[str, int | None], start: str, end: str) -> int | None:
    a, b = readings.get(start), readings.get(end)
    return None if a is None or b is None else b - a


def _per_item(points: list[dict[str, Any]]) -> dict[str, Any]:
    """One meter's per-item figures from its points (sorted by ``n``)."""
    out: dict[str, Any] = {}
    largest = points[-1]
    if largest["delta"] is not None and largest["n"]:
        out["in_process"] = round(largest["delta"] / largest["n"])
    zero = next((p for p in points if p["n"] == 0), None)
    if zero is not None and zero["after"] is not None and largest["n"]:
        # (RSS(N) − RSS(0)) / N across fresh processes, for each N
        out["across_processes"] = {
            str(p["n"]): round((p["after"] - zero["after"]) / p["n"]) for p in points if p["n"] and p["after"]
        }
    if len(points) >= 2:
        a, b = points[-2], points[-1]
        for key, label in (("delta", "slope"), ("delta_store", "slope_store"), ("delta_run", "slope_run")):
            if a.get(key) is not None and b.get(key) is not None:
                out[label] = round((b[key] - a[key]) / (b["n"] - a["n"]))
    elif largest["n"]:
        for key, label in (("delta_store", "in_process_store"), ("delta_run", "in_process_run")):
            if largest.get(key) is not None:
                out[label] = round(largest[key] / largest["n"])
    return out


def summarise(name: str, results: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-item figures of one scenario from its children's readings, meter by meter."""
    _, item, what, _, _ = SCENARIOS[name]
    out: dict[str, Any] = {"what": what, "item": item, "points": {}, "bytes_per_item": {}}
    for r in results:
        out.update(
            {k: v for k, v in r.items() if k.endswith("_per_item") or k in ("live_tasks", "history_held")}
        )
        if "heap_top_files" in r:
            out["heap_top_files"] = r["heap_top_files"]
    for meter in METERS:
        mine = sorted((r for r in results if r["metric"] == meter), key=lambda r: r["n"])
        if not mine:
            continue
        points = []
        for r in mine:
            readings = r["readings"]
            point = {
                "n": r["n"],
                "before": readings["before"],
                "after": readings["after"],
                "delta": _delta(readings, "before", "after"),
            }
            if "stored" in readings:
                point["delta_store"] = _delta(readings, "before", "stored")
                point["delta_run"] = _delta(readings, "stored", "after")
            points.append(point)
        out["points"][meter] = points
        out["bytes_per_item"][meter] = _per_item(points)
    # The headline: a slope (fixed costs cancel) where there are two points, else the one delta;
    # RSS where it was measured, the Python heap otherwise.
    for meter in METERS:
        figures = out["bytes_per_item"].get(meter, {})
        best = figures.get("slope", figures.get("in_process"))
        if best is not None:
            out["bytes_per_item"]["best"], out["bytes_per_item"]["best_meter"] = best, meter
            break
    return out


def limits_section(s: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Each figure times the limit that bounds its count, where one does."""
    from agentproto.a2a._service_streams import MAX_OPEN_TASKS, MAX_OPEN_TASKS_PER_CALLER, MAX_TASK_HISTORY
    from agentproto.agui.server import MAX_ACTIVE_RUNS, MAX_THREAD_MESSAGES
    from agentproto.limits import MAX_BODY_BYTES, ConnectionLimits

    connections = ConnectionLimits()

    def per(name: str) -> int | None:
        figure = s[name]["bytes_per_item"].get("best") if name in s else None
        return None if figure is None else int(figure)

    def row(what: str, name: str, limit: str, value: int | None, bound: str) -> dict[str, Any]:
        b = per(name)
        worst = None if b is None or value is None else b * value
        return {
            "what": what,
            "scenario": name,
            "bytes_per_item": b,
            "limit": limit,
            "limit_value": value,
            "worst_case_bytes": worst,
            "bound": bound,
        }

    return [
        row(
            "open AG-UI runs",
            "agui_open_runs",
            "agui_routes(max_active_runs=) (MAX_ACTIVE_RUNS)",
            MAX_ACTIVE_RUNS,
            "runs executing at once, connected or not (a disconnect is not a cancel): the next is "
            f"refused 429 too_many_runs; serve also caps connections at {connections.limit_concurrency:,}",
        ),
        row(
            "messages of one AG-UI thread (held again by each open run on it)",
            "agui_thread_history",
            "agui_routes(max_thread_messages=) (MAX_THREAD_MESSAGES)",
            MAX_THREAD_MESSAGES,
            f"per thread: a run whose new messages pass it is refused (409 thread_full); the agent's "
            f"own messages may pass it by one run; each request ≤ {MAX_BODY_BYTES:,} body bytes",
        ),
        row(
            "events of one open AG-UI run (its view of the thread, its event log)",
            "agui_run_events",
            "none",
            None,
            "no limit on events per run: the agent decides",
        ),
        row(
            "AG-UI consumers (Pipeline)",
            "agui_consumers",
            "none (client side)",
            None,
            "one per stream the application opens",
        ),
        row(
            "events fed to one consumer",
            "agui_consumer_history",
            "none (client side)",
            None,
            "grows with the run's messages and state (collect=False keeps no events)",
        ),
        row(
            "live A2A tasks per caller scope (in-memory store)",
            "a2a_live_tasks_memory",
            "ServiceLimits.max_open_tasks_per_caller",
            MAX_OPEN_TASKS_PER_CALLER,
            "per (tenant, subject); the tenant is the request's, so one caller can open that many in "
            f"every tenant string it sends, up to ServiceLimits.max_open_tasks = {MAX_OPEN_TASKS:,} in all",
        ),
        row(
            "live A2A tasks per caller scope (SQLite file store)",
            "a2a_live_tasks_sqlite",
            "ServiceLimits.max_open_tasks_per_caller",
            MAX_OPEN_TASKS_PER_CALLER,
            "as above",
        ),
        row(
            "history messages of one live A2A task (in-memory store)",
            "a2a_task_history_memory",
            "ServiceLimits.max_task_history",
            MAX_TASK_HISTORY,
            "per task: a follow-up to a full task is refused (-32602); the agent's answer to the last "
            "one accepted may pass it by one turn; each message ≤ 1 MB body",
        ),
        row(
            "history messages of one live A2A task (SQLite file store)",
            "a2a_task_history_sqlite",
            "ServiceLimits.max_task_history",
            MAX_TASK_HISTORY,
            "as above",
        ),
    ]


def run(
    quick: bool = False, write: bool = True, out: pathlib.Path = RESULTS, jobs: int = 2, command: str = ""
) -> dict[str, Any]:
    """Spawn every child (``jobs`` at a time), summarise, and by default write the results."""
    started = time.monotonic()
    plan: list[tuple[str, int, str]] = []
    for name, (_, _, _, points, quick_points) in SCENARIOS.items():
        if quick:  # tracemalloc's figures are exact, so a smoke run can check them
            plan += [(name, n, "heap") for n in quick_points]
        else:
            plan += [(name, n, "rss") for n in points]
            plan.append((name, points[-1], "heap"))
    with _pool(jobs) as pool:
        futures = [pool.submit(child, *p) for p in plan]
        results = [f.result(timeout=120) for f in futures]
    scenarios: dict[str, dict[str, Any]] = {}
    for name in SCENARIOS:
        scenarios[name] = summarise(name, [r for r in results if r["scenario"] == name])
    result = {
        "benchmark": "memory",
        "command": command or shlex.join([sys.executable, *sys.argv]),
        "quick": quick,
        "machine": machine() | {"load_before": load_average()},
        "versions": versions(),
        "meters": {
            "rss": "VmRSS from /proc/self/status: all resident memory (SQLite pages, allocator slack)",
            "heap": "tracemalloc, started after the first reading: Python objects only (no SQLite memory)",
            "rss_in_process": "(RSS after − RSS before) / n in one child",
            "rss_across_processes": "(RSS(N) − RSS(0)) / N, each N a fresh child",
            "rss_slope": "(Δ at the largest n − Δ at the next) / (difference in n): fixed costs cancel",
            "best": "rss_slope where there are two points, else rss_in_process",
        },
        "children": len(plan),
        "children_cpu_s": round(sum(r["cpu_s"] for r in results), 1),
        "agui": {k: v for k, v in scenarios.items() if k.startswith("agui_")},
        "a2a": {k: v for k, v in scenarios.items() if k.startswith("a2a_")},
        "limits": limits_section(scenarios),
        "seconds": round(time.monotonic() - started, 1),
    }
    if write:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


def _kib(b: float | None) -> str:
    return "-" if b is None else f"{b / 1024:,.2f} KiB"


def print_result(r: dict[str, Any]) -> None:
    kind = "quick: small points, heap meter only" if r["quick"] else "full"
    print(
        f"memory benchmark ({kind}; {r['children']} child processes, {r['seconds']} s wall, "
        f"{r['children_cpu_s']} s CPU in the children)"
    )
    print(f"{'scenario':<26}{'item':<17}{'rss/item':>12}{'heap/item':>12}  wire bytes/item")
    for section in ("agui", "a2a"):
        for name, s in r[section].items():
            b = s["bytes_per_item"]
            rss, heap = b.get("rss", {}), b.get("heap", {})
            wire = s.get("json_bytes_per_item", s.get("sse_bytes_per_item"))
            print(
                f"{name:<26}{s['item']:<17}{_kib(rss.get('slope', rss.get('in_process'))):>12}"
                f"{_kib(heap.get('slope', heap.get('in_process'))):>12}  {'' if wire is None else wire}"
            )
    print("worst cases the limits allow:")
    for row in r["limits"]:
        worst = row["worst_case_bytes"]
        shown = "no bound" if worst is None else f"{worst / 2**20:,.1f} MiB"
        print(f"  {row['what']}: {shown} ({row['limit']} = {row['limit_value']}; {row['bound']})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="small points, the heap meter only (exact: for smoke tests)"
    )
    parser.add_argument(
        "--jobs", type=int, default=2, help="children at a time (memory, not time, is measured)"
    )
    parser.add_argument("--no-write", action="store_true", help="do not write the JSON results")
    parser.add_argument("--out", type=pathlib.Path, default=RESULTS, help="where to write JSON")
    parser.add_argument("--child", nargs=3, metavar=("SCENARIO", "N", "METRIC"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        name, n, metric = args.child
        print(json.dumps(child(name, int(n), metric)))
        return 0
    r = run(args.quick, write=not args.no_write, out=args.out, jobs=args.jobs)
    print_result(r)
    if not args.no_write:
        print(f"results written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
