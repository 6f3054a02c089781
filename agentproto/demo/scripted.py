"""The refund scenario played without a server: deterministic runs of the demo agent.

The course's running example (order A1024) as plain function calls, for notebooks, tests and
anyone who wants a realistic AG-UI stream to look at. Everything is the real thing: the
:class:`~agentproto.demo.refund_agent.RefundAgent` under the package's
:class:`~agentproto.agui.runner.RunDriver`, inputs parsed by
:func:`~agentproto.agui.parse.parse_run_agent_input`, resumes checked by
:func:`~agentproto.agui.interrupts.validate_resume`. Only the transport is missing, and time
and ids are injected (a :class:`~agentproto.clock.FakeClock` and an
:class:`~agentproto.clock.IdFactory` by default), so two calls give identical events::

    first = refund_run()                     # ends with an interrupt asking for approval
    second = resume_run(first, approved=True)  # answers it: the refund happens
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agentproto.agui.events import PROTOCOL_VERSION, BaseEvent, RunAgentInput, dump_model
from agentproto.agui.parse import parse_run_agent_input
from agentproto.clock import Clock, FakeClock, IdFactory

__all__ = ["REFUND_REQUEST", "refund_input", "refund_run", "resume_run"]

#: What the user asks in the course's running example.
REFUND_REQUEST = "Check order A1024 and refund it if it has shipped."


def refund_input(
    *,
    thread_id: str = "thread-42",
    run_id: str = "run-1",
    messages: Sequence[Any] | None = None,
    state: Any = None,
    resume: Sequence[dict[str, Any]] | None = None,
) -> RunAgentInput:
    """The ``RunAgentInput`` of the refund scenario, with every optional field shown in use.

    Parsed by the package (:func:`~agentproto.agui.parse.parse_run_agent_input`), so a wrong
    value here fails exactly as it would at a server.
    """
    data: dict[str, Any] = {
        "threadId": thread_id,
        "runId": run_id,
        "protocolVersion": PROTOCOL_VERSION,
        "messages": [m if isinstance(m, dict) else dump_model(m) for m in messages]
        if messages is not None
        else [{"id": "msg-user-1", "role": "user", "content": REFUND_REQUEST}],
        "tools": [
            {
                "name": "highlight_order",
                "description": "Highlight an order row in the customer's order list.",
                "parameters": {
                    "type": "object",
                    "properties": {"orderId": {"type": "string"}},
                    "required": ["orderId"],
                },
            }
        ],
        "context": [{"description": "the customer's support tier", "value": "gold"}],
        "state": {} if state is None else state,
        "forwardedProps": {"locale": "en-GB"},
    }
    if resume is not None:
        data["resume"] = list(resume)
    run_input, _ = parse_run_agent_input(data)
    return run_input


def _drive(
    run_input: RunAgentInput, plan: Any, *, clock: Clock, ids: Callable[[], str], tools: Any
) -> list[BaseEvent]:
    # Imported here: the tool provider pulls in the demo's order data.
    from agentproto.agui.runner import RunContext, RunDriver
    from agentproto.demo.refund_agent import RefundAgent
    from agentproto.demo.tools import FakeToolProvider

    # The run starts from the thread as the input shows it (what the server does with its
    # stored thread).
    ctx = RunContext.start(
        run_input,
        plan,
        clock=clock,
        ids=ids,
        state=run_input.state,
        messages=[dump_model(m) for m in run_input.messages],
    )
    provider = tools if tools is not None else FakeToolProvider(clock=clock)
    return list(RunDriver(RefundAgent(provider), ctx).run_to_end())


def refund_run(
    run_input: RunAgentInput | None = None,
    *,
    clock: Clock | None = None,
    ids: Callable[[], str] | None = None,
    tools: Any = None,
) -> list[BaseEvent]:
    """The refund agent's first run, as the events it streams (it ends with an interrupt).

    The real demo agent under the real run driver: it looks order A1024 up with a tool,
    proposes a refund as a second tool call, and finishes with an *interrupt* outcome that
    asks a person to approve — not with a success that merely asks in words. ``tools`` is a
    :class:`~agentproto.demo.tools.ToolProvider` (a fresh fake one by default).
    """
    from agentproto.agui.interrupts import ResumePlan

    run_input = run_input or refund_input()
    return _drive(
        run_input,
        ResumePlan("new", run_input.thread_id),
        clock=clock or FakeClock(),
        ids=ids or IdFactory("id"),
        tools=tools,
    )


def resume_run(
    first: Sequence[BaseEvent],
    *,
    approved: bool = True,
    run_id: str = "run-2",
    first_input: RunAgentInput | None = None,
    clock: Clock | None = None,
    ids: Callable[[], str] | None = None,
    tools: Any = None,
) -> list[BaseEvent]:
    """The run that answers :func:`refund_run`'s interrupt (the full story is notebook 06).

    The consumer's thread after the first run — its input's messages and state plus what the
    stream did to them, computed by the package's consumer
    (:func:`~agentproto.agui.pipeline.lint_source`) — goes into a new ``RunAgentInput`` on the
    same thread with a ``resume`` entry; :func:`~agentproto.agui.interrupts.validate_resume`
    checks it before the run starts. ``ids`` should continue the first run's id factory so
    that ids stay unique on the thread. Raises ``ValueError`` if ``first`` did not end with
    an interrupt.
    """
    from agentproto.agui.events import RunFinishedEvent, RunFinishedInterruptOutcome
    from agentproto.agui.interrupts import ThreadRecord, build_resume, resolved, validate_resume
    from agentproto.agui.pipeline import lint_source

    clock = clock or FakeClock()
    first_input = first_input or refund_input()
    last = first[-1] if first else None
    if not (isinstance(last, RunFinishedEvent) and isinstance(last.outcome, RunFinishedInterruptOutcome)):
        raise ValueError("resume_run needs a first run that ended with an interrupt outcome")
    interrupts = list(last.outcome.interrupts)
    thread = lint_source(
        first, state=first_input.state, messages=[dump_model(m) for m in first_input.messages]
    )
    if not thread.ok:
        raise ValueError(f"the first run is not a conformant stream: {thread.error}")
    entries = build_resume(interrupts, {i.id: resolved({"approved": approved}) for i in interrupts})
    run_input = refund_input(
        thread_id=last.thread_id, run_id=run_id, messages=thread.messages, state=thread.state, resume=entries
    )
    plan = validate_resume(
        ThreadRecord.from_pending(last.thread_id, last.run_id, interrupts), run_input, clock.now_ms()
    )
    return _drive(run_input, plan, clock=clock, ids=ids or IdFactory("id2"), tools=tools)
