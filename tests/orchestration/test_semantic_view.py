"""Notebook 16's lab can be driven from code exactly as a learner drives it."""

from __future__ import annotations

from agentproto.orchestration.semantic_view import SemanticLab


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
    lab.calibration.value = 0.0
    assert lab.runs == runs + 1 and "calibration 0.00" in lab.summary_text
