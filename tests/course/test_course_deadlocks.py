"""Notebook 18's pictures: the step widget driven from code the way a learner drives it, and
the static wait-for graph and sweep plots."""

from __future__ import annotations

import pytest
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure

from agentproto.a2a.states import TaskState
from agentproto.course.deadlocks import (
    DeadlockExplorer,
    circle_layout,
    frame_svg,
    plot_sweep,
    plot_timeout_ttl_tradeoff,
    plot_wait_for_graph,
)
from agentproto.course.plots import PALETTE
from agentproto.orchestration.deadlock import simulate, sweep, ttl_tradeoff
from agentproto.orchestration.waitgraph import load_plan

PLANS = {"travel": load_plan("deadlock_travel"), "hidden": load_plan("deadlock_travel_hidden")}


def test_stepping_forward_shows_the_deadlock_forming():
    ex = DeadlockExplorer(PLANS)
    assert "step 1 of" in ex.stepper.view.value
    for _ in range(4):
        ex.stepper.next_button.click()
    assert "deadlock: hotel → flights → hotel (undetected)" in ex.stepper.view.value
    assert "never recovered" in ex.summary.value


def test_choosing_a_strategy_reruns_and_restarts_at_step_one():
    ex = DeadlockExplorer(PLANS)
    ex.stepper.next_button.click()
    ex.strategy.value = "timeout"
    assert ex.stepper.index == 0
    ex.stepper.slider.value = ex.stepper.slider.max
    assert "CANCELED: hotel ended canceled" in ex.stepper.view.value
    assert "recovered after 120 s by timeout exit" in ex.summary.value


def test_escalation_on_the_hidden_plan_ends_with_everything_completed():
    ex = DeadlockExplorer(PLANS, strategy="detection+escalation")
    ex.plan.value = "hidden"
    ex.stepper.slider.value = ex.stepper.slider.max
    assert "4/4 tasks completed" in ex.summary.value
    ex.stepper.reset_button.click()
    assert "step 1 of" in ex.stepper.view.value


@pytest.mark.parametrize("strategy", ["none", "timeout", "detection", "detection+escalation"])
def test_every_frame_draws_an_svg_with_one_circle_per_task(strategy):
    plan = PLANS["hidden"]
    for frame in simulate(plan, strategy).frames:
        svg = frame_svg(plan, frame)
        assert svg.startswith("<svg") and svg.count("<circle") == len(plan.tasks)


def test_the_text_form_is_short_and_stable():
    bundle = DeadlockExplorer(PLANS)._repr_mimebundle_()
    assert bundle["text/plain"] == "DeadlockExplorer: Deadlock explorer"


# -- the static pictures ---------------------------------------------------------------------------
def test_a_sweep_plots_three_labelled_panels():
    fig = plot_sweep(sweep([0.1, 0.3], runs=10), Figure(figsize=(12, 3.8)))
    assert [ax.get_ylabel() for ax in fig.axes[:3]] == [
        "runs with a deadlock (%)",
        "mean seconds from cycle to recovery",
        "tasks completed (%)",
    ]
    assert [line.get_label() for line in fig.axes[0].get_lines()][-1] == "plans with a cycle"


def test_the_ttl_tradeoff_puts_spurious_exits_and_recovery_on_two_axes():
    rows = ttl_tradeoff([5, 80], runs=10)
    ax = plot_timeout_ttl_tradeoff(rows, Figure().subplots())
    (killed,) = ax.get_lines()
    assert list(killed.get_xdata()) == [5.0, 80.0]
    assert list(killed.get_ydata()) == [r["spurious_exits"] for r in rows]
    assert ax.get_ylabel() == "spurious exits per run" and len(ax.figure.axes) == 2  # the twin axis


def test_the_wait_for_graph_marks_the_cycle_in_red_and_colours_tasks_by_state():
    plan = PLANS["travel"]
    cycle = ("flights", "hotel")
    ax = plot_wait_for_graph(
        plan, cycle=cycle, states={"weather": TaskState.COMPLETED}, ax=Figure().subplots()
    )
    red = [p for p in ax.patches if p.get_edgecolor()[:3] == pytest.approx(to_rgb(PALETTE["bad"]))]
    assert len(red) == 2 == len(cycle)  # flights → hotel and hotel → flights, nothing else
    assert len(ax.patches) == len(plan.edges())
    labels = sorted(t.get_text() for t in ax.texts if t.get_text() in plan.tasks)
    assert labels == sorted(plan.tasks)


def test_a_plain_graph_draws_too_and_the_layout_puts_the_first_task_on_top():
    ax = plot_wait_for_graph({"a": ["b"], "b": []}, ax=Figure().subplots(), title="two tasks")
    assert ax.get_title() == "two tasks" and len(ax.patches) == 1
    pos = circle_layout(["a", "b", "c", "d"])
    assert pos["a"] == pytest.approx((0.0, 1.0)) and pos["b"] == pytest.approx((1.0, 0.0))
