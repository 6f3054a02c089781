"""Notebook 15's lab can be driven from code exactly as a learner drives it."""

from __future__ import annotations

from agentproto.orchestration.plans_view import PlansLab


def test_a_world_with_no_disruption_stays_on_plan_a():
    lab = PlansLab(trials=40, auto=False)
    lab.sold_out.value, lab.hotel_full.value, lab.peak.value = 0.0, 0.0, 0.0
    lab.run_button.click()
    assert lab.summary_text.startswith(f"world #{lab.world.value}: event-driven A → completed")
    assert "static → completed" in lab.summary_text
    assert "static 100%, event-driven 100%" in lab.summary_text


def test_a_sold_out_world_sends_the_event_driven_run_further_down_the_book():
    lab = PlansLab(trials=40, auto=False)
    lab.sold_out.value, lab.hotel_full.value, lab.peak.value = 1.0, 0.0, 0.0
    lab.run_button.click()
    assert "event-driven A → B → C → input-required" in lab.summary_text
    assert "static → failed" in lab.summary_text and "static 0%" in lab.summary_text


def test_the_world_slider_redraws_by_itself_and_is_reproducible():
    lab = PlansLab(trials=20)
    first = lab.summary_text
    lab.world.value = 7
    assert lab.summary_text.startswith("world #7") and lab.runs == 2
    lab.world.value = 1
    assert lab.summary_text == first


def test_each_distinct_path_is_drawn_once_and_reused():
    lab = PlansLab(trials=10, auto=False)
    lab.sold_out.value, lab.peak.value, lab.hotel_full.value = 0.0, 0.0, 0.0
    lab.run_button.click()
    pictures = dict(lab._pictures)
    lab.world.value = 9  # a different world with the same (trivial) path
    lab.run_button.click()
    assert lab._pictures == pictures and "data:image/png;base64," in lab.svg
