"""Notebook 19's cost lab, driven from code."""

from __future__ import annotations

from matplotlib.figure import Figure

from agentproto.course.hitl import HitlLab, plot_cost_curve, plot_review_load
from agentproto.orchestration.hitl import CostModel, cost_curve, review_queue, sample_confidences


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
    text = lab._repr_mimebundle_()["text/plain"]
    assert text == "HitlLab: When should a human step in? — the cost of asking"


# -- the static figures ----------------------------------------------------------------------------
def test_the_cost_plot_marks_the_sweet_spot_and_the_chosen_threshold():
    curve = cost_curve(sample_confidences(500, seed=1))
    ax = plot_cost_curve(curve, Figure().subplots(), threshold=0.5)
    best_t, best = curve.sweet_spot()
    (dot,) = ax.collections
    assert tuple(dot.get_offsets()[0]) == (best_t, best)
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels == ["errors slipping through", "human minutes", "total", "your threshold 0.50"]


def test_the_review_load_plot_shows_waits_and_the_offered_load():
    stats = [review_queue(t, minutes=120, seed=0) for t in (0.6, 0.9)]
    ax = plot_review_load(stats, Figure().subplots())
    mean, p95 = ax.get_lines()
    assert list(mean.get_ydata()) == [s.mean_wait for s in stats]
    assert list(p95.get_ydata()) == [s.p95_wait for s in stats]
    assert len(ax.figure.axes) == 2  # the offered load on a twin axis
    (load, capacity) = ax.figure.axes[1].get_lines()
    assert load.get_label() == "offered load (%)"
    assert list(load.get_ydata()) == [100 * s.offered_load for s in stats]
