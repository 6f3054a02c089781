"""Notebook 16's lab can be driven from code exactly as a learner drives it."""

from __future__ import annotations

import pytest
from matplotlib.figure import Figure

from agentproto.course.semantic import SemanticLab, plot_accuracy_vs_hops, plot_threshold_tradeoff
from agentproto.orchestration.semantic import ChainConfig, threshold_sweep


def test_the_default_lab_reproduces_the_seed_65_6_percent():
    lab = SemanticLab(trials=500, auto=False)
    assert lab.summary_text.startswith("p=0.90, n=4: bare chain 65.6%")
    assert lab.svg.count("<svg") == 2


def test_moving_p_n_and_threshold_changes_the_summary():
    lab = SemanticLab(trials=500, auto=False)
    lab.p.value, lab.n.value, lab.threshold.value = 0.8, 6, 0.0
    lab.run_button.click()
    assert "p=0.80, n=6: bare chain 26.2%" in lab.summary_text
    assert "0.00 escalations" in lab.summary_text  # threshold 0: nobody is ever asked
    lab.threshold.value = 1.0
    lab.run_button.click()
    assert "6.00 escalations" in lab.summary_text  # every hop asks


def test_the_threshold_slider_redraws_by_itself():
    lab = SemanticLab(trials=300)
    runs = lab.runs
    lab.discrimination.value = 0.0
    assert lab.runs == runs + 1 and "discrimination 0.00" in lab.summary_text


# -- the static figures ----------------------------------------------------------------------------
def test_accuracy_vs_hops_draws_p_to_the_n_and_optionally_the_envelope():
    ax = plot_accuracy_vs_hops(0.9, 4, Figure().subplots())
    (bare,) = ax.get_lines()
    assert list(bare.get_ydata()) == pytest.approx([0.9, 0.81, 0.729, 0.6561])
    assert [t.get_text() for t in ax.texts] == ["90.0%", "81.0%", "72.9%", "65.6%"]  # the seed's numbers
    ax = plot_accuracy_vs_hops(0.9, 4, Figure().subplots(), realign=0.5, simulated=[0.9, 0.8])
    assert [line.get_label() for line in ax.get_lines()] == [
        "no envelope: 0.9ⁿ",
        "envelope, re-align 50%",
        "Monte Carlo",
    ]


def test_the_threshold_plot_puts_accuracy_and_escalations_on_two_axes():
    sweep = threshold_sweep(ChainConfig(envelope=True), [0.0, 0.5, 1.0], trials=200)
    ax = plot_threshold_tradeoff(sweep, Figure().subplots())
    (acc,) = ax.get_lines()
    assert list(acc.get_xdata()) == [0.0, 0.5, 1.0]
    assert list(acc.get_ydata()) == [o.accuracy for o in sweep]
    assert len(ax.figure.axes) == 2
