"""The discrete-event engine every simulation runs on."""

from __future__ import annotations

import pytest

from agentproto.orchestration.engine import Simulation


def test_entries_fire_in_time_order_and_move_the_clock():
    sim = Simulation()
    seen = []
    sim.schedule(2.0, lambda: seen.append(("b", sim.now)))
    sim.schedule(1.0, lambda: seen.append(("a", sim.now)))
    assert sim.run() == 2.0
    assert seen == [("a", 1.0), ("b", 2.0)] and sim.fired == 2


def test_ties_fire_in_the_order_they_were_scheduled():
    sim = Simulation()
    seen = []
    for name in "xyz":
        sim.at(5.0, lambda n=name: seen.append(n))
    sim.run()
    assert seen == ["x", "y", "z"]


def test_callbacks_can_schedule_more_work_including_at_the_same_instant():
    sim = Simulation()
    seen = []
    sim.at(1.0, lambda: (seen.append("first"), sim.schedule(0.0, lambda: seen.append("same instant"))))
    sim.at(1.0, lambda: seen.append("second"))
    sim.run()
    assert seen == ["first", "second", "same instant"]


def test_a_cancelled_entry_never_fires_and_is_not_pending():
    sim = Simulation()
    seen = []
    entry = sim.schedule(1.0, lambda: seen.append("cancelled"))
    sim.schedule(2.0, lambda: seen.append("kept"))
    assert sim.pending == 2
    entry.cancel()
    assert sim.pending == 1 and sim.peek() == 2.0
    sim.run()
    assert seen == ["kept"]


def test_run_until_stops_before_later_entries_and_advances_to_the_horizon():
    sim = Simulation()
    seen = []
    sim.at(1.0, lambda: seen.append(1))
    sim.at(10.0, lambda: seen.append(10))
    assert sim.run(until=5.0) == 5.0 and seen == [1] and sim.pending == 1
    assert sim.run() == 10.0 and seen == [1, 10]


def test_scheduling_in_the_past_is_refused():
    sim = Simulation(start=3.0)
    with pytest.raises(ValueError, match="past"):
        sim.schedule(-1.0, lambda: None)
    with pytest.raises(ValueError):
        sim.at(2.0, lambda: None)


def test_a_model_that_never_stops_is_caught():
    sim = Simulation()

    def again() -> None:
        sim.schedule(1.0, again)

    sim.schedule(0.0, again)
    with pytest.raises(RuntimeError, match="did not settle"):
        sim.run(max_events=100)


def test_the_same_seed_gives_the_same_randomness():
    assert [Simulation(seed=4).rng.random() for _ in range(2)] == [Simulation(seed=4).rng.random()] * 2
    assert Simulation(seed=4).rng.random() != Simulation(seed=5).rng.random()
