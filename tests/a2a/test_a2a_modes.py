"""The four ways to wait, modelled on virtual time from the agent's own updates."""

from __future__ import annotations

import math

import pytest

from agentproto.a2a.states import TaskState

S = TaskState


# --------------------------------------------------------------------------- ways to wait

TRIP = "Plan my trip to Sanya from 2026-04-08 to 2026-04-12"


def schedule(step_ms: int = 2000):
    from agentproto.a2a.agents import TravelDeskAgent
    from agentproto.a2a.modes import agent_schedule

    return agent_schedule(TravelDeskAgent(step_ms=step_ms), TRIP)


def test_agent_schedule_reads_the_agents_own_updates_on_virtual_time():
    s = schedule(2000)
    assert [x.kind for x in s].count("status") == 5
    assert s[0].label.startswith("working") and s[-1].label.startswith("completed")
    times = [x.at_ms for x in s]
    assert times == sorted(times) and times[-1] == 8000


def test_agent_schedule_refuses_agents_without_a_finite_schedule():
    from agentproto.a2a.agents import ConformanceAgent
    from agentproto.a2a.modes import agent_schedule

    with pytest.raises(ValueError, match="canceled"):
        agent_schedule(ConformanceAgent(), "x", message_id="tck-cancel-1")


def test_agent_schedule_refuses_an_agent_that_awaits_real_io():
    import asyncio

    from agentproto.a2a.agents import Status
    from agentproto.a2a.modes import agent_schedule

    class Sleepy:
        async def run(self, ctx):
            await asyncio.sleep(0)
            yield Status.of(S.COMPLETED)

    with pytest.raises(TypeError, match="sans-I/O"):
        agent_schedule(Sleepy(), "x")


def test_a_greeting_schedules_one_direct_message():
    from agentproto.a2a.agents import TravelDeskAgent
    from agentproto.a2a.modes import agent_schedule

    assert [x.kind for x in agent_schedule(TravelDeskAgent(), "hello")] == ["message"]


def test_streaming_and_push_see_every_update_blocking_sees_one():
    from agentproto.a2a.modes import model_modes

    r = {m.mode: m for m in model_modes(schedule(), poll_ms=1000, latency_ms=50)}
    assert len(r["streaming"].seen) == len(r["push"].seen) == r["streaming"].total == 11
    assert len(r["blocking"].seen) == 1 and r["blocking"].missed == 10
    assert r["push"].posts == 11 and r["streaming"].posts == 0
    assert r["blocking"].first_update_ms == r["blocking"].done_ms == 8100
    assert r["streaming"].first_update_ms == 100


def test_polling_is_late_by_up_to_one_interval_and_pays_one_request_per_poll():
    from agentproto.a2a.modes import model_modes

    for poll in (250, 1000, 3000):
        r = {m.mode: m for m in model_modes(schedule(), poll_ms=poll, latency_ms=50)}
        late = r["polling"].done_ms - r["streaming"].done_ms
        assert 0 <= late <= poll + 100
        # polls leave at 2·50 + k·poll ms; the first one leaving at or after 8000 ms settles it
        assert r["polling"].requests == 1 + math.ceil((8000 - 100) / poll)


def test_faster_polling_costs_more_requests_and_misses_fewer_updates():
    from agentproto.a2a.modes import model_modes

    slow = {m.mode: m for m in model_modes(schedule(), poll_ms=2000)}["polling"]
    fast = {m.mode: m for m in model_modes(schedule(), poll_ms=250)}["polling"]
    assert fast.requests > slow.requests
    assert fast.missed <= slow.missed and slow.missed > 0


def test_latency_delays_every_mode_by_a_round_trip():
    from agentproto.a2a.modes import model_modes

    near = {m.mode: m for m in model_modes(schedule(), latency_ms=0)}
    far = {m.mode: m for m in model_modes(schedule(), latency_ms=200)}
    for mode in ("blocking", "streaming", "push"):
        assert far[mode].done_ms - near[mode].done_ms == 400


def test_a_poll_interval_must_be_positive():
    from agentproto.a2a.modes import model_modes

    with pytest.raises(ValueError, match="positive"):
        model_modes(schedule(), poll_ms=0)


def test_the_model_settles_at_an_interrupt_not_only_at_a_terminal_state():
    from agentproto.a2a.agents import TravelDeskAgent
    from agentproto.a2a.modes import agent_schedule, model_modes

    asks = agent_schedule(TravelDeskAgent(step_ms=1000), "Plan my trip to Sanya")
    assert asks[-1].label.startswith("input-required") and asks[-1].settles
    blocking = model_modes(asks, latency_ms=0)[0]
    assert blocking.mode == "blocking" and blocking.done_ms == asks[-1].at_ms


def test_the_modelling_needs_no_event_loop_and_no_network():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "for m in ('asyncio', 'httpx', 'starlette', 'uvicorn'):\n"
        "    sys.modules[m] = None\n"
        "from agentproto.a2a.agents import TravelDeskAgent\n"
        "from agentproto.a2a.modes import agent_schedule, model_modes\n"
        "s = agent_schedule(TravelDeskAgent(), 'Trip to Sanya 2026-04-08 to 2026-04-12')\n"
        "print(len(model_modes(s)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "4"
