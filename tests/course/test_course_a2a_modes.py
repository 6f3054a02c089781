"""Notebook 11's views: the four modes as text, plot and widget, and measured on loopback."""

from __future__ import annotations

import pytest

TRIP = "Plan my trip to Sanya from 2026-04-08 to 2026-04-12"
PNG = b"\x89PNG"


def schedule(step_ms: int = 2000):
    from agentproto.a2a.agents import TravelDeskAgent
    from agentproto.a2a.modes import agent_schedule

    return agent_schedule(TravelDeskAgent(step_ms=step_ms), TRIP)


def test_summary_table_has_one_row_per_mode():
    from agentproto.a2a.modes import model_modes
    from agentproto.course.a2a_modes import summary_table

    table = summary_table(model_modes(schedule()), unit="s")
    assert [line.split()[0] for line in table.splitlines()[1:]] == list(
        ("blocking", "polling", "streaming", "push")
    )
    assert "11 of 11" in table


def test_the_mode_explorer_recomputes_when_a_slider_moves():
    from agentproto.course.a2a_modes import ModeExplorer

    explorer = ModeExplorer(poll_s=2.0)
    before = explorer.result("polling").requests
    explorer.poll.value = 0.25
    assert explorer.result("polling").requests > before
    explorer.latency.value = 300
    assert explorer.result("streaming").first_update_ms == 600
    explorer.step.value = 1.0
    assert explorer.result("blocking").done_ms == 4000 + 600
    assert bytes(explorer.plot.value).startswith(PNG) and "polling" in explorer.summary.value


def test_plot_modes_draws_both_panels():
    from agentproto.a2a.modes import model_modes
    from agentproto.course.a2a_modes import plot_modes

    fig = plot_modes(model_modes(schedule()), title="t")
    assert len(fig.axes) == 2


def test_measured_modes_on_a_real_server_see_what_the_protocol_promises():
    from agentproto.a2a.agents import TravelDeskAgent
    from agentproto.a2a.push import WebhookRecorder
    from agentproto.a2a.server import create_a2a_app
    from agentproto.course.a2a_modes import measure_modes
    from agentproto.server import running_server

    recorder = WebhookRecorder(expect_token="t0k3n")
    with (
        running_server(
            create_a2a_app(agent=TravelDeskAgent(step_ms=5, chunk_chars=60), allow_loopback_webhooks=True)
        ) as url,
        running_server(recorder.app()) as hook,
    ):
        results = {
            r.mode: r
            for r in measure_modes(
                url,
                TRIP,
                recorder=recorder,
                webhook_url=hook + "/hook",
                token="t0k3n",
                poll_interval_s=0.005,
                warmup=False,
            )
        }
    streamed = [label for _, label in results["streaming"].seen]
    assert streamed[0] == "Task: submitted" and streamed[-1] == "completed"
    assert [label for _, label in results["push"].seen] == streamed
    assert results["push"].posts == len(streamed) == results["blocking"].total
    assert results["blocking"].requests == results["streaming"].requests == 1
    assert results["polling"].requests >= 2
    assert results["polling"].seen[-1][1] == "GetTask: completed"


def test_measure_modes_needs_a_webhook_for_push():
    from agentproto.a2a.server import create_a2a_app
    from agentproto.course.a2a_modes import measure_modes
    from agentproto.server import running_server

    with running_server(create_a2a_app(agent="echo")) as url:
        with pytest.raises(ValueError, match="WebhookRecorder"):
            measure_modes(url, "hi", modes=("push",), warmup=False)


def test_compact_labels_and_wait_until():
    import itertools

    from agentproto.course.a2a_modes import compact_labels, wait_until

    assert compact_labels(["a", "a", "b", "a"]) == "a ×2, b, a"
    counter = itertools.count()
    assert wait_until(lambda: next(counter) >= 3, timeout_s=1, interval_s=0)
    assert not wait_until(lambda: False, timeout_s=0.02, interval_s=0.005)


def test_pushes_for_keeps_only_the_tasks_notifications_and_push_settled_waits_for_the_end():
    from agentproto.a2a.push import ReceivedPush, WebhookRecorder
    from agentproto.course.a2a_modes import push_settled, pushes_for

    def status(task_id, state):
        return {"statusUpdate": {"taskId": task_id, "contextId": "c", "status": {"state": state}}}

    recorder = WebhookRecorder()
    recorder.received += [
        ReceivedPush(1.0, {}, status("t-1", "TASK_STATE_WORKING")),
        ReceivedPush(2.0, {}, status("t-2", "TASK_STATE_COMPLETED")),
    ]
    assert [t for t, _ in pushes_for(recorder, "t-1")] == [1.0]
    assert not push_settled(recorder, "t-1") and push_settled(recorder, "t-2")
    recorder.received.append(ReceivedPush(3.0, {}, status("t-1", "TASK_STATE_INPUT_REQUIRED")))
    assert push_settled(recorder, "t-1")
