"""Feedback loops (seed 004 §13): execute → observe → compare → correct."""

from __future__ import annotations

import pytest

from agentproto.orchestration.feedback import (
    Drift,
    FeedbackError,
    Loop,
    compare_loops,
    gain_sweep,
    loop_length_sweep,
    run_loop,
)

STEP_NOW = Drift(ramp=0.0, step=6.0, step_at=0.0, noise=0.0)  # the world jumps by 6 at once, no noise


def corrections_at(trace, minutes):
    est = dict(zip(trace.times, trace.estimate))
    return [est[m] for m in minutes]


# -- hand-checked runs ---------------------------------------------------------------------------
def test_a_full_gain_loop_without_latency_corrects_in_one_step():
    tr = run_loop(STEP_NOW, Loop(period=1, gain=1.0, latency=0), horizon=30)
    assert tr.tracking[:3] == [6.0, 0.0, 0.0]
    assert tr.corrections == [(1.0, 6.0)]
    assert tr.recovery_time() == 1.0 and tr.verdict == "settles"


def test_a_half_gain_loop_halves_the_error_every_loop():
    tr = run_loop(STEP_NOW, Loop(period=1, gain=0.5, latency=0), horizon=10)
    assert tr.tracking[:5] == [6.0, 3.0, 1.5, 0.75, 0.375]


def test_a_naive_loop_with_latency_double_counts_and_overshoots():
    # Outcomes of minute t arrive at t + 2, after that minute's check. The check at 3 sees
    # minute 0's error (6) and corrects to 6; the check at 4 sees minute 1's error — made under
    # the old estimate 0 — and corrects *again* to 12; then 18: the loop overshoots.
    naive = run_loop(STEP_NOW, Loop(period=1, gain=1.0, latency=2), horizon=12)
    assert corrections_at(naive, [0, 1, 2, 3, 4, 5]) == [0.0, 0.0, 0.0, 6.0, 12.0, 18.0]
    assert naive.overshoot() >= 2.0 and naive.verdict in ("oscillates", "diverges")


def test_compensating_compares_each_outcome_with_the_estimate_that_produced_it():
    comp = run_loop(STEP_NOW, Loop(period=1, gain=1.0, latency=2, compensate=True), horizon=12)
    assert corrections_at(comp, [0, 1, 2, 3, 4, 5]) == [0.0, 0.0, 0.0, 6.0, 6.0, 6.0]
    assert comp.overshoot() == 0.0 and comp.verdict == "settles"


def test_without_a_loop_the_error_is_the_drift_itself():
    tr = run_loop(Drift(noise=0.0), None)
    assert tr.tracking == tr.offset and tr.corrections == [] and tr.verdict == "no feedback"
    assert tr.offset[100] == pytest.approx(0.02 * 100) and tr.offset[150] == pytest.approx(0.02 * 150 + 6)
    assert tr.recovery_time() is None


def test_the_same_seed_gives_every_loop_the_same_world_and_noise():
    a, b = compare_loops([None, Loop()], Drift(walk=0.1))
    assert a.offset == b.offset
    assert [x - y for x, y in zip(a.error, a.tracking)] == pytest.approx(
        [x - y for x, y in zip(b.error, b.tracking)]
    )
    assert run_loop(seed=3).error == run_loop(seed=3).error


def test_feedback_beats_no_feedback_under_drift():
    open_loop, closed = compare_loops([None, Loop()])
    assert closed.mean_abs_error() < open_loop.mean_abs_error() / 2
    assert closed.recovery_time() is not None


def test_a_deadband_ignores_errors_the_size_of_noise():
    plain = run_loop(Drift(ramp=0, step=0, step_at=None), Loop(period=2))
    banded = run_loop(Drift(ramp=0, step=0, step_at=None), Loop(period=2, deadband=1.0))
    assert len(banded.corrections) < len(plain.corrections) / 3


@pytest.mark.parametrize(
    "bad", [dict(period=0), dict(period=-1), dict(gain=0), dict(latency=-1), dict(deadband=-0.5)]
)
def test_a_loop_out_of_range_is_a_typed_error(bad):
    with pytest.raises(FeedbackError):
        Loop(**bad)


def test_a_drift_with_negative_noise_is_a_typed_error():
    with pytest.raises(FeedbackError):
        Drift(noise=-1)
    with pytest.raises(FeedbackError):
        run_loop(horizon=0)


# -- sweeps ------------------------------------------------------------------------------------------
def test_shorter_is_better_only_while_the_loop_stays_stable():
    naive = {r.value: r for r in loop_length_sweep([1, 5, 40], seeds=3)}
    assert naive[1].diverged == 1.0  # a 1-minute loop with 5 minutes of latency blows up
    assert naive[5].mean_abs_error < naive[40].mean_abs_error
    comp = {r.value: r for r in loop_length_sweep([1, 5, 40], loop=Loop(compensate=True), seeds=3)}
    assert comp[1].diverged == 0.0
    assert comp[1].mean_abs_error < comp[5].mean_abs_error < comp[40].mean_abs_error
    assert comp[1].recovery < comp[5].recovery


def test_too_much_gain_for_the_delay_diverges():
    rows = {r.value: r for r in gain_sweep([0.5, 1.9], loop=Loop(period=5, latency=5), seeds=3)}
    assert rows[0.5].diverged == 0.0 and rows[1.9].diverged == 1.0
