"""Event-driven plan switching: plans as data, the runner, and static vs event-driven odds."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from agentproto.a2a.states import TaskState
from agentproto.orchestration.plans import (
    TRIP_PLANS,
    PlanBook,
    PlanBookError,
    TripWorld,
    UnknownActionError,
    UnknownPlanError,
    UnknownStepError,
    analytic_success,
    disruption_sweep,
    load_trip_plans,
    plan_edges,
    run_plan,
    success_rate,
)

SCENARIO = Path(__file__).resolve().parents[2] / "agentproto" / "data" / "scenarios" / "plans_trip.json"
YES = lambda _h, _p: True  # noqa: E731 - the user approves every switch


def world(*sold_out: tuple[str, int], hotel_full: float = 0.0) -> TripWorld:
    return TripWorld(sold_out=frozenset(sold_out), hotel_full=hotel_full)


HOME_WEEK = tuple(("Beijing", d) for d in range(-3, 4))


# -- the seed's three plans -------------------------------------------------------------------
def test_no_disruption_completes_plan_a_as_asked():
    run = run_plan(load_trip_plans(), world())
    assert (run.state, run.path, run.transitions) == (TaskState.COMPLETED, ["A"], [])
    assert run.details["flight"] == {"city": "Beijing", "day": 0}
    assert run.finished_at == pytest.approx(3.5)  # 2 s search + 1 s hotel + 0.5 s transfer


def test_no_flights_on_the_date_switches_to_plan_b_and_the_nearest_free_date():
    run = run_plan(load_trip_plans(), world(("Beijing", 0), ("Beijing", -1), ("Beijing", 1)))
    assert run.path == ["A", "B"] and run.state is TaskState.COMPLETED
    assert run.details["flight"] == {"city": "Beijing", "day": -2}  # closest first, earlier on ties
    (tr,) = run.transitions
    assert (tr.source, tr.event, tr.target) == ("A", "flight_not_found", "B")


def test_a_full_week_switches_to_plan_c_and_another_departure_city():
    run = run_plan(load_trip_plans(), world(*HOME_WEEK), approve=YES)
    assert run.path == ["A", "B", "C"] and run.state is TaskState.COMPLETED
    assert run.details["flight"] == {"city": "Tianjin", "day": 0}
    assert [t.event for t in run.transitions] == ["flight_not_found", "all_dates_full"]


def test_changing_the_departure_city_asks_the_user_first_instead_of_drifting_silently():
    run = run_plan(load_trip_plans(), world(*HOME_WEEK))  # nobody to approve
    assert run.state is TaskState.INPUT_REQUIRED and run.path == ["A", "B"]
    assert "asking the user" in run.reason


def test_a_user_who_declines_plan_c_ends_the_run_failed():
    run = run_plan(load_trip_plans(), world(*HOME_WEEK), approve=lambda _h, _p: False)
    assert run.state is TaskState.FAILED and run.reason == "the user declined plan C"


def test_when_plan_c_finds_nothing_a_human_decides():
    everything = HOME_WEEK + (("Tianjin", 0), ("Shijiazhuang", 0))
    run = run_plan(load_trip_plans(), world(*everything), approve=YES)
    assert run.state is TaskState.INPUT_REQUIRED and run.transitions[-1].action == "escalate"


def test_a_full_hotel_is_retried_a_bounded_number_of_times_then_the_run_fails():
    run = run_plan(load_trip_plans(), world(hotel_full=1.0))
    assert run.state is TaskState.FAILED and "after 2 retries" in run.reason
    assert [e["type"] for e in run.log].count("RETRY") == 2


def test_an_injected_cancellation_aborts_the_step_in_progress_and_switches_plans():
    run = run_plan(load_trip_plans(), world(), inject=[(2.5, "flight_cancelled")])
    assert run.path == ["A", "B"] and run.state is TaskState.COMPLETED
    injected = [e for e in run.log if e.get("injected")]
    assert injected == [
        {"type": "EVENT", "t": 2.5, "plan": "A", "event": "flight_cancelled", "injected": True}
    ]
    assert run.finished_at == pytest.approx(2.5 + 3.5)  # plan B from scratch after the event


def test_an_event_nobody_planned_for_fails_with_an_explicit_reason():
    run = run_plan(load_trip_plans(), world(), inject=[(1.0, "volcano_erupts")])
    assert run.state is TaskState.FAILED and run.reason == "no plan for 'volcano_erupts' in plan A"


def test_events_after_the_end_are_ignored():
    run = run_plan(load_trip_plans(), world(), inject=[(10.0, "flight_cancelled")])
    assert run.state is TaskState.COMPLETED and run.path == ["A"]


def test_the_switch_budget_stops_ping_pong_between_plans():
    book = PlanBook.from_dict(
        {
            "start": "A",
            "max_switches": 3,
            "plans": {
                "A": {
                    "steps": ["search_flights"],
                    "on_event": {"flight_not_found": {"action": "switch_plan", "target": "B"}},
                },
                "B": {
                    "steps": ["search_flights"],
                    "on_event": {"flight_not_found": {"action": "switch_plan", "target": "A"}},
                },
            },
        }
    )
    run = run_plan(book, world(("Beijing", 0)))
    assert run.path == ["A", "B", "A", "B"] and run.state is TaskState.FAILED
    assert run.reason == "switch budget of 3 used up"


def test_every_run_reports_a2a_states_only():
    run = run_plan(load_trip_plans(), world(*HOME_WEEK), approve=YES)
    states = [e["state"] for e in run.log if e["type"] == "TASK_STATE"]
    assert states == [TaskState.WORKING.value, TaskState.COMPLETED.value]


# -- plans as data -----------------------------------------------------------------------------
def test_the_scenario_file_is_the_same_book_as_the_module_constant():
    assert json.loads(SCENARIO.read_text(encoding="utf-8")) == TRIP_PLANS
    assert PlanBook.from_json(SCENARIO).to_dict() == load_trip_plans().to_dict()


def test_a_book_round_trips_through_its_dict_form():
    book = load_trip_plans()
    assert PlanBook.from_dict(book.to_dict()) == book


def broken(mutate) -> dict:
    data = copy.deepcopy(TRIP_PLANS)
    mutate(data)
    return data


@pytest.mark.parametrize(
    "data, error, words",
    [
        (
            broken(lambda d: d["plans"]["B"]["on_event"]["all_dates_full"].update(target="D")),
            UnknownPlanError,
            "'D'",
        ),
        (
            broken(lambda d: d["plans"]["A"]["on_event"]["flight_not_found"].update(action="panic")),
            UnknownActionError,
            "panic",
        ),
        (broken(lambda d: d.update(start="Z")), PlanBookError, "start plan"),
        (broken(lambda d: d["plans"]["C"].update(steps=[])), PlanBookError, "no steps"),
        (broken(lambda d: d.update(max_switches=-1)), PlanBookError, "max_switches"),
        (broken(lambda d: d["on_event"]["hotel_full"].update(max=0)), PlanBookError, "max"),
        ({"plans": {}}, PlanBookError, "non-empty"),
    ],
)
def test_malformed_books_are_refused_with_a_typed_error(data, error, words):
    with pytest.raises(error, match=words):
        PlanBook.from_dict(data)


def test_a_plan_with_a_step_the_world_cannot_do_is_refused_before_running():
    book = PlanBook.from_dict(broken(lambda d: d["plans"]["A"]["steps"].append("teleport")))
    with pytest.raises(UnknownStepError) as err:
        run_plan(book, world())
    assert err.value.rule == "unknown-step"


def test_unreachable_plans_are_reported():
    book = PlanBook.from_dict(broken(lambda d: d["plans"].update(D={"steps": ["search_flights"]})))
    assert book.unreachable() == ["D"] and load_trip_plans().unreachable() == []


def test_the_static_version_keeps_plan_a_and_drops_every_handler():
    static = load_trip_plans().static()
    assert list(static.plans) == ["A"] and static.handler("A", "flight_not_found") is None
    assert run_plan(static, world(("Beijing", 0))).state is TaskState.FAILED


# -- the graph -----------------------------------------------------------------------------------
def test_the_plan_graph_has_one_edge_per_handler_plus_completion_and_failure():
    book = load_trip_plans()
    edges = {(e.source, e.target, e.event, e.action) for e in plan_edges(book)}
    assert ("A", "B", "flight_not_found", "switch_plan") in edges
    assert ("B", "C", "all_dates_full (ask)", "switch_plan") in edges
    assert ("C", "ASK HUMAN", "no_route", "escalate") in edges
    assert ("A", "A", "hotel_full (retry ≤2)", "retry") in edges  # a global handler, in every plan
    for name in book.plans:  # every plan can complete, and fails on an event nobody planned for
        assert (name, "COMPLETED", "all steps done", "complete") in edges
        assert (name, "FAILED", "other event", "unhandled") in edges
    handlers = sum(len({**book.on_event, **p.on_event}) for p in book.plans.values())
    assert len(plan_edges(book)) == handlers + 2 * len(book.plans)


# -- the odds --------------------------------------------------------------------------------------
@pytest.mark.parametrize("q, h", [(0.0, 0.0), (1.0, 0.0), (0.5, 0.0), (0.3, 0.2)])
def test_exact_success_by_hand(q, h):
    assert analytic_success(q, hotel_full=h, static=True) == pytest.approx((1 - q) * (1 - h))
    assert analytic_success(q, hotel_full=h) == pytest.approx((1 - q**9) * (1 - h**3))


def test_a_holiday_peak_leaves_only_the_other_cities():
    assert analytic_success(0.5, peak=1.0) == pytest.approx(1 - 0.5**2)
    assert analytic_success(0.5, peak=1.0, static=True) == 0.0


@pytest.mark.parametrize("q, h, peak", [(0.5, 0.0, 0.0), (0.7, 0.3, 0.0), (0.4, 0.1, 0.5)])
def test_monte_carlo_success_matches_the_exact_answer(q, h, peak):
    book = load_trip_plans()
    for b, static in ((book, False), (book.static(), True)):
        rate = success_rate(b, sold_out=q, hotel_full=h, peak=peak, trials=1500, seed=4)
        assert rate == pytest.approx(analytic_success(q, hotel_full=h, peak=peak, static=static), abs=0.04)


def test_event_driven_plans_never_do_worse_than_the_static_plan_in_the_same_worlds():
    sweep = disruption_sweep(load_trip_plans(), [0.0, 0.3, 0.6, 0.9], trials=150, hotel_full=0.1)
    assert all(d >= s for s, d in zip(sweep["static plan"], sweep["event-driven plans"]))


def test_random_worlds_are_reproducible():
    a = TripWorld.random(random.Random(3), sold_out=0.5)
    assert a == TripWorld.random(random.Random(3), sold_out=0.5)


@pytest.mark.parametrize("q, peak", [(0.3, 0.0), (0.8, 0.5), (1.0, 0.0)])
def test_every_run_moves_only_along_the_a2a_task_machine(q, peak):
    from agentproto.a2a.machine import why_refused

    rng = random.Random(11)
    for i in range(60):
        w = TripWorld.random(rng, sold_out=q, hotel_full=0.3, peak=peak)
        for approve in (None, YES):
            run = run_plan(load_trip_plans(), w, seed=i, approve=approve, inject=[(3.0, "flight_cancelled")])
            states = [None] + [TaskState(e["state"]) for e in run.log if e["type"] == "TASK_STATE"]
            for a, b in zip(states, states[1:]):
                assert why_refused(a, b) is None, f"{a} → {b}"
