"""Idempotency keys, singleton tasks and the TTL result cache."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentproto.a2a.states import TaskState
from agentproto.orchestration.dedup import (
    ClientPolicy,
    Decision,
    FaultRates,
    IdempotencyStore,
    KeyReuseError,
    Request,
    Service,
    TTLCache,
    cache_analytic,
    cache_experiment,
    fingerprint,
    payments_through_cache,
    run_dedup,
    ttl_sweep,
)
from agentproto.orchestration.engine import Simulation

NOISY = FaultRates(lost_response=0.25, lost_request=0.05, double_click=0.15, replay=0.1)


# -- the store --------------------------------------------------------------------------------
def test_first_copy_executes_a_running_duplicate_attaches_and_a_late_one_replays():
    store = IdempotencyStore()
    first = store.admit("k", "fp", now=0.0, task_id="task-1")
    assert first.decision is Decision.EXECUTE and first.entry.state is TaskState.WORKING
    during = store.admit("k", "fp", now=0.2, task_id="task-2")
    assert during.decision is Decision.ATTACH and during.entry.task_id == "task-1"  # singleton task
    store.complete("k", "receipt", now=0.5)
    after = store.admit("k", "fp", now=3.0, task_id="task-3")
    assert after.decision is Decision.REPLAY
    assert (after.entry.task_id, after.entry.state, after.entry.result) == (
        "task-1",
        TaskState.COMPLETED,
        "receipt",
    )


def test_a_key_reused_with_different_parameters_is_refused_and_the_original_is_kept():
    store = IdempotencyStore()
    store.admit("k", fingerprint("charge", {"amount": 10}), now=0.0, task_id="task-1")
    store.complete("k", "receipt", now=1.0)
    with pytest.raises(KeyReuseError) as err:
        store.admit("k", fingerprint("charge", {"amount": 99}), now=2.0, task_id="task-2")
    assert err.value.rule == "idempotency-key-reused" and "new key" in str(err.value)
    assert store.entries["k"].result == "receipt"


def test_fingerprints_ignore_parameter_order_but_not_values():
    assert fingerprint("charge", {"a": 1, "b": 2}) == fingerprint("charge", {"b": 2, "a": 1})
    assert fingerprint("charge", {"a": 1}) != fingerprint("refund", {"a": 1})
    assert fingerprint("charge", {"a": 1}) != fingerprint("charge", {"a": 2})


def test_a_released_reservation_lets_a_retry_execute():
    store = IdempotencyStore()
    store.admit("k", "fp", now=0.0, task_id="task-1")
    store.release("k")  # failed before charging: retrying is safe
    assert store.admit("k", "fp", now=1.0, task_id="task-2").decision is Decision.EXECUTE


def test_a_key_is_forgotten_after_its_retention_time():
    store = IdempotencyStore(ttl=30.0)
    store.admit("k", "fp", now=0.0, task_id="task-1")
    store.complete("k", "receipt", now=1.0)
    assert store.admit("k", "fp", now=30.9, task_id="task-2").decision is Decision.REPLAY
    assert store.admit("k", "fp", now=31.0, task_id="task-3").decision is Decision.EXECUTE


def test_record_after_mode_lets_overlapping_copies_both_execute():
    store = IdempotencyStore(mode="record-after")
    assert store.admit("k", "fp", now=0.0, task_id="task-1").decision is Decision.EXECUTE
    assert store.admit("k", "fp", now=0.1, task_id="task-2").decision is Decision.EXECUTE  # the race
    store.complete("k", "r1", now=0.5, task_id="task-1")
    assert store.admit("k", "fp", now=0.7, task_id="task-3").decision is Decision.REPLAY


@pytest.mark.parametrize("kwargs", [dict(ttl=0.0), dict(mode="maybe")])
def test_store_settings_are_validated(kwargs):
    with pytest.raises(ValueError):
        IdempotencyStore(**kwargs)


# -- the service and the fault-injection runs ---------------------------------------------------
def deliver_all(store: IdempotencyStore | None, copies: list[tuple[float, int]], processing: float = 0.5):
    sim = Simulation(seed=0)
    service = Service(sim, store=store, processing=processing)
    answers: list[tuple[int, str]] = []
    for t, intent in copies:
        req = Request("charge", {"amount": 10, "intent": intent}, f"key-{intent}", f"pay-{intent}")
        sim.at(
            t, lambda r=req, i=intent: service.receive(r, lambda resp, i=i: answers.append((i, resp.task_id)))
        )
    sim.run()
    return service, answers


def test_without_a_store_every_copy_charges_again():
    service, _ = deliver_all(None, [(0.0, 1), (0.1, 1), (5.0, 1)])
    assert service.effects_per_intent()["pay-1"] == 3


def test_a_double_click_during_processing_joins_the_running_task_and_gets_its_answer():
    service, answers = deliver_all(IdempotencyStore(), [(0.0, 1), (0.1, 1)])
    assert service.effects_per_intent()["pay-1"] == 1
    assert answers == [(1, "task-1"), (1, "task-1")]
    assert service.answers == {"executed": 1, "attached": 1}


def test_a_reused_key_for_a_different_payment_is_refused_not_charged():
    sim = Simulation()
    service = Service(sim, store=IdempotencyStore())
    service.receive(Request("charge", {"amount": 10}, "k", "pay-1"), lambda r: None)
    service.receive(Request("charge", {"amount": 99}, "k", "pay-2"), lambda r: None)
    sim.run()
    assert [e.intent for e in service.effects] == ["pay-1"] and service.answers["refused"] == 1


@pytest.mark.parametrize(
    "faults", [FaultRates(), NOISY, FaultRates(lost_response=0.5, replay=0.3), FaultRates(double_click=0.6)]
)
def test_with_reserved_keys_every_payment_is_charged_exactly_once(faults):
    report = run_dedup(120, faults, seed=3)
    assert report.duplicate_effects == 0
    assert report.exactly_once == report.intents - report.missing
    assert report.effects == report.exactly_once


def test_with_no_faults_both_designs_charge_exactly_once():
    for idempotent in (False, True):
        report = run_dedup(50, FaultRates(), idempotent=idempotent)
        assert (report.effects, report.duplicate_effects, report.missing) == (50, 0, 0)


def test_without_idempotency_retries_double_clicks_and_replays_charge_again():
    assert run_dedup(120, NOISY, idempotent=False, seed=3).duplicate_effects > 0


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(client=ClientPolicy(key_scope="attempt")),  # a fresh key per send
        dict(store_mode="record-after"),  # key recorded after the charge
        dict(key_ttl=10.0),  # key forgotten before replays arrive
    ],
)
def test_each_broken_design_lets_duplicates_through(kwargs):
    faults = FaultRates(lost_response=0.3, double_click=0.3, replay=0.3)
    assert run_dedup(150, faults, seed=5, **kwargs).duplicate_effects > 0


def test_runs_are_reproducible():
    assert run_dedup(80, NOISY, seed=9) == run_dedup(80, NOISY, seed=9)


def test_fault_rates_must_be_probabilities():
    with pytest.raises(ValueError, match="probability"):
        FaultRates(replay=1.5)


@settings(max_examples=150, deadline=None)
@given(
    copies=st.lists(
        st.tuples(st.floats(0, 10, allow_nan=False).map(lambda x: round(x, 1)), st.integers(0, 3)),
        min_size=1,
        max_size=25,
    ),
    processing=st.sampled_from([0.1, 0.5, 2.0, 7.0]),
)
def test_the_idempotent_path_never_double_counts_under_any_interleaving(copies, processing):
    service, answers = deliver_all(IdempotencyStore(), copies, processing)
    per_intent = service.effects_per_intent()
    assert set(per_intent) == {f"pay-{i}" for _, i in copies}
    assert set(per_intent.values()) == {1}
    assert len(answers) == len(copies)  # every copy is answered, by the one task of its intent
    assert all(len({t for i2, t in answers if i2 == i}) == 1 for i in {i for _, i in copies})


# -- the result cache ---------------------------------------------------------------------------
def test_the_seed_cache_story_ten_minutes_then_a_fresh_query():
    cache = TTLCache(ttl=600)
    key = ("PEK", "SYX", "2024-04-08")
    assert not cache.get(key, now=0).hit
    cache.put(key, "flights", now=3)  # the 3 s backend call
    assert cache.get(key, now=3.01).hit and cache.get(key, now=300).value == "flights"
    assert not cache.get(key, now=603).hit
    assert (cache.hits, cache.misses) == (2, 2) and cache.hit_rate == 0.5


def test_ttl_zero_caches_nothing_and_an_unchanging_world_is_never_stale():
    assert cache_experiment(0.0, duration=600).hit_rate == 0.0
    frozen = cache_experiment(600.0, change_rate=0.0, duration=600)
    assert frozen.stale_rate == 0.0 and frozen.hit_rate > 0.5


def test_longer_ttls_raise_both_hit_rate_and_staleness():
    reports = ttl_sweep([10, 60, 300, 1200], duration=1800)
    hits = [r.hit_rate for r in reports]
    stale = [r.stale_rate for r in reports]
    assert hits == sorted(hits) and stale == sorted(stale)
    assert reports[-1].backend_calls < reports[0].backend_calls


@pytest.mark.parametrize("ttl", [30.0, 300.0, 1200.0])
def test_simulated_hit_and_stale_rates_match_the_closed_form(ttl):
    sim = cache_experiment(ttl, duration=20_000, change_rate=1 / 120, seed=2)
    hit, stale = cache_analytic(ttl, change_rate=1 / 120)
    assert sim.hit_rate == pytest.approx(hit, abs=0.01)
    assert sim.stale_rate == pytest.approx(stale, abs=0.03)


def test_single_key_hit_rate_formula_by_hand():
    # one key at 1 query/s with a 9 s TTL: each miss is followed by 9 hits on average → 90 %
    hit, stale = cache_analytic(9.0, query_rate=1.0, change_rate=0.0, keys=1)
    assert hit == pytest.approx(0.9) and stale == 0.0
    assert math.isclose(cache_analytic(0.0)[0], 0.0)


def test_a_result_cache_in_front_of_payments_swallows_a_second_real_purchase():
    two_coffees = [(0.0, "alice", 4), (120.0, "alice", 4), (130.0, "bob", 4), (900.0, "alice", 4)]
    assert payments_through_cache(two_coffees, ttl=600) == [True, False, True, True]
    assert payments_through_cache(two_coffees, ttl=0) == [True, True, True, True]
