"""Notebook 19's cost lab, driven from code."""

from __future__ import annotations

from agentproto.orchestration.hitl import CostModel
from agentproto.orchestration.hitl_view import HitlLab


def test_moving_the_threshold_updates_the_summary():
    lab = HitlLab()
    lab.threshold.value = 0.5
    assert lab.summary_text.startswith("threshold 0.50:")
    assert "<svg" in lab.chart.value and "your threshold 0.50" in lab.chart.value


def test_jump_to_sweet_spot_moves_the_slider_to_the_cheapest_threshold():
    lab = HitlLab()
    lab.sweet_button.click()
    expected = round(CostModel().break_even_confidence(), 2)  # 0.81 for the defaults
    assert abs(lab.threshold.value - expected) <= 0.01
    assert f"sweet spot: ask below {lab.threshold.value:.2f}" in lab.summary_text


def test_dearer_errors_move_the_sweet_spot_up():
    lab = HitlLab()
    lab.sweet_button.click()
    cheap = lab.threshold.value
    lab.cost_per_error.value = 200
    lab.sweet_button.click()
    assert lab.threshold.value > cheap


def test_the_run_button_redraws_and_the_text_form_is_stable():
    lab = HitlLab()
    before = lab.runs
    lab.run_button.click()
    assert lab.runs == before + 1
    assert lab._repr_mimebundle_()["text/plain"] == "HitlLab: When should a human step in? — the cost of asking"
