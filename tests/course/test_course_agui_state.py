"""Notebook 05's lossy channel and drift lab (agentproto.course.agui_state)."""

from __future__ import annotations

import pytest

from agentproto.agui import EventType, lint_source
from agentproto.course.agui_runs import around_run
from agentproto.course.agui_state import (
    VERSION_KEY,
    DriftLab,
    drift,
    lossy_channel,
    order_state_stream,
    simulate_drift,
    truth_states,
)


def test_the_producer_stream_is_a_snapshot_then_numbered_deltas():
    events = order_state_stream(20, seed=1)
    assert events[0].type is EventType.STATE_SNAPSHOT
    assert [e.metadata[VERSION_KEY] for e in events] == list(range(21))
    report = lint_source(around_run(*events))
    assert report.ok and report.warnings == []
    assert report.state == truth_states(events)[-1]


def test_a_perfect_channel_delivers_everything_in_order():
    events = order_state_stream(20)
    deliveries = lossy_channel(events)
    assert [d.event for d in deliveries] == events[1:]
    run = simulate_drift(events, deliveries)
    assert set(run.drift) == {0} and run.warnings == []


def test_the_channel_is_seeded():
    events = order_state_stream(30)
    a = lossy_channel(events, drop=0.3, reorder=0.2, seed=5)
    b = lossy_channel(events, drop=0.3, reorder=0.2, seed=5)
    assert [d.fate for d in a] == [d.fate for d in b]
    assert {d.fate for d in lossy_channel(events, drop=1.0)} == {"dropped"}


def test_a_lost_append_drifts_forever_without_a_guard_and_heals_with_one():
    events = order_state_stream(60)
    deliveries = lossy_channel(events, drop=0.15, seed=3)
    assert deliveries[-1].fate == "delivered"
    plain = simulate_drift(events, deliveries)
    guarded = simulate_drift(events, deliveries, guard=True)
    assert plain.final_drift > 0
    assert guarded.final_drift == 0
    assert guarded.resyncs and guarded.snapshots == len(guarded.resyncs)
    assert guarded.slots_out_of_sync < plain.slots_out_of_sync


def test_periodic_snapshots_also_repair_the_unguarded_consumer():
    events = order_state_stream(60)
    deliveries = lossy_channel(events, drop=0.15, seed=3)
    run = simulate_drift(events, deliveries, snapshot_every=10)
    assert all(run.drift[k - 1] == 0 for k in (10, 20, 30, 40, 50, 60))
    assert run.snapshots == 6 and run.snapshot_bytes > 0


def test_drift_counts_patch_operations():
    assert drift({"a": 1}, {"a": 1}) == 0
    assert drift({"a": 1, "b": [1]}, {"a": 2, "b": [1, 2]}) == 2


def test_the_drift_lab_redraws_when_a_slider_moves():
    lab = DriftLab(drop=0.0, reorder=0.0)
    assert set(lab.plain.drift) == {0}
    runs_before = lab.runs
    lab.drop.value = 0.2
    assert lab.runs == runs_before + 1
    assert "dropped" in lab.summary_text and lab.svg.startswith("<svg")
    assert lab.plain.final_drift >= lab.guarded.final_drift
    lab.snapshot_every.value = 5
    assert lab.plain.snapshots > 0


@pytest.mark.parametrize("kwargs", [{"drop": 1.5}, {"drop": -0.1}, {"reorder": 2.0}])
def test_a_probability_outside_zero_to_one_is_refused(kwargs):
    with pytest.raises(ValueError, match="probabilities"):
        lossy_channel(order_state_stream(5), **kwargs)


def test_a_negative_snapshot_interval_is_refused():
    events = order_state_stream(5)
    with pytest.raises(ValueError, match="snapshot_every"):
        simulate_drift(events, lossy_channel(events), snapshot_every=-1)
