"""Feedback loops (seed 004 §13): execute → observe → compare → correct."""

from __future__ import annotations

import pytest

from agentproto.orchestration.feedback import (
    ROUTER_DESIGNS,
    Drift,
    FeedbackError,
    Loop,
    RouterWorld,
    compare_loops,
    compare_router_designs,
    gain_sweep,
    loop_length_sweep,
    route_and_learn,
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


# -- a loop that learns from its own outputs -------------------------------------------------------


def test_a_router_trained_on_its_own_accepted_answers_locks_in_its_first_favourite():
    tr = route_and_learn("own outputs")
    assert tr.share("B") == 0.0 and tr.judged[1] == 0
    assert tr.starved("B") == len(tr.routed)
    # acceptance inflates the favourite: true 0.62, accepted about 0.62 + 0.38 * 0.3
    assert tr.estimate("A") > RouterWorld().quality[0] + 0.05


def test_delayed_ground_truth_corrects_the_numbers_but_not_the_lock_in():
    tr = route_and_learn("delayed truth")
    assert abs(tr.estimate("A") - 0.62) < 0.05
    assert tr.share("B") == 0.0


def test_exploration_and_held_out_labels_both_find_the_better_agent():
    for design in ("explore", "held-out labels"):
        tr = route_and_learn(design)
        assert tr.share("B", last=1000) > 0.9
        assert tr.estimate("B") > tr.estimate("A")
    held = route_and_learn("held-out labels")
    assert abs(held.estimate("B") - 0.80) < 0.08  # human labels: correctness, not acceptance


def test_every_design_sees_the_same_queries_and_runs_are_reproducible():
    a, b = compare_router_designs(), compare_router_designs()
    assert list(a) == list(ROUTER_DESIGNS)
    assert all(a[d].routed == b[d].routed and a[d].estimates == b[d].estimates for d in a)
    assert route_and_learn("explore", seed=1).routed != route_and_learn("explore", seed=2).routed


def test_without_a_head_start_and_with_equal_agents_nothing_is_starved_by_exploration():
    tr = route_and_learn("explore", RouterWorld(quality=(0.7, 0.7), head_start=False), explore=0.2, n=500)
    assert tr.judged[0] > 0 and tr.judged[1] > 0
    assert len(tr.rolling_share("A", 50)) == 500 and 0.0 <= min(tr.rolling_share("A", 50))


@pytest.mark.parametrize(
    "call",
    [
        lambda: route_and_learn("bandit"),
        lambda: route_and_learn("explore", explore=1.5),
        lambda: route_and_learn("own outputs", n=0),
        lambda: RouterWorld(quality=(1.2, 0.5)),
    ],
)
def test_bad_router_settings_are_refused(call):
    with pytest.raises(FeedbackError):
        call()
