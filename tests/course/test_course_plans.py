"""Notebook 15's lab can be driven from code exactly as a learner drives it; its static figures."""

from __future__ import annotations

import networkx as nx
from matplotlib.figure import Figure

from agentproto.course.plans import PlansLab, draw_plan_graph, plan_graph, plot_success_rates
from agentproto.orchestration.plans import TripWorld, load_trip_plans, plan_edges, run_plan


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


# -- the static figures ----------------------------------------------------------------------------
def test_the_plan_graph_has_one_edge_per_handler_plus_completion_and_failure():
    book = load_trip_plans()
    g = plan_graph(book)
    assert {"A", "B", "C", "COMPLETED", "FAILED", "ASK HUMAN"} <= set(g.nodes)
    assert g.number_of_edges() == len(plan_edges(book))
    events = {(u, v, d["event"]) for u, v, d in g.edges(data=True)}
    assert ("A", "B", "flight_not_found") in events
    assert ("B", "C", "all_dates_full (ask)") in events
    assert ("C", "ASK HUMAN", "no_route") in events
    assert nx.has_path(g, "A", "C")


def test_the_drawn_path_names_the_plans_a_run_visited():
    book = load_trip_plans()
    week = TripWorld(sold_out=frozenset(("Beijing", d) for d in range(-3, 4)))
    ax = draw_plan_graph(book, run_plan(book, week, approve=lambda _h, _p: True), Figure().subplots())
    assert ax.get_title() == "Path taken: A → B → C → completed"
    assert draw_plan_graph(book, ax=Figure().subplots()).get_title() == "Plan book"


def test_the_success_plot_draws_exact_curves_only_with_a_model():
    sweep = {"static plan": [1.0, 0.0], "event-driven plans": [1.0, 0.5]}
    ax = plot_success_rates([0.0, 1.0], sweep, Figure().subplots())
    assert [line.get_label() for line in ax.get_lines()] == [
        "static plan (simulated)",
        "event-driven plans (simulated)",
    ]
    ax = plot_success_rates([0.0, 1.0], sweep, Figure().subplots(), model={"hotel_full": 0.1})
    assert len(ax.get_lines()) == 4 and ax.get_lines()[0].get_label() == "static plan (exact)"
