"""Notebook 13's lab can be driven from code exactly as a learner drives it."""

from __future__ import annotations

from agentproto.orchestration.scheduler_view import SchedulingLab


def test_moving_the_sliders_and_clicking_run_reruns_the_simulation():
    lab = SchedulingLab(duration=120.0, auto=False)
    before = lab.summary_text
    assert "FIFO:" in before and "priority + aging:" in before and bytes(lab.image.value).startswith(b"\x89PNG")
    lab.rate.value = 0.4
    lab.priority["report"].value = 5
    lab.run_button.click()
    assert lab.summary_text != before
    assert "at 0.40/s" in lab.summary_text and "report=5" in lab.summary_text
    assert "priority 5:" in lab.summary_text  # reports are now the most urgent level


def test_sliders_redraw_on_their_own_when_auto_is_on():
    lab = SchedulingLab(duration=60.0)
    runs = lab.runs
    lab.priority["complaint"].value = 4
    assert lab.runs == runs + 1 and "complaint=4" in lab.summary_text


def test_the_gantt_policy_choice_changes_the_picture_not_the_numbers():
    lab = SchedulingLab(duration=60.0, auto=False)
    text, png = lab.summary_text, lab.image.value
    lab.gantt_policy.value = "FIFO"
    lab.run_button.click()
    assert lab.summary_text == text and bytes(lab.image.value) != bytes(png)


def test_the_lab_displays_as_a_widget_with_a_short_stable_text_form():
    bundle = SchedulingLab(duration=30.0, auto=False)._repr_mimebundle_()
    assert bundle["text/plain"] == "SchedulingLab: Scheduling lab — same requests, three policies"
    assert "application/vnd.jupyter.widget-view+json" in bundle
