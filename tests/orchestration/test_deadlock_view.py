"""Notebook 18's step widget, driven from code the way a learner drives it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentproto.orchestration.deadlock import load_plan, simulate
from agentproto.orchestration.deadlock_view import DeadlockExplorer, frame_svg

SCENARIOS = Path(__file__).resolve().parents[2] / "agentproto" / "data" / "scenarios"
PLANS = {"travel": load_plan(SCENARIOS / "deadlock_travel.json"),
         "hidden": load_plan(SCENARIOS / "deadlock_travel_hidden.json")}


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
