"""The semantic gap: p**n, the intent envelope, re-alignment and escalation to a human."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentproto.orchestration.semantic import (
    ENVELOPE_DEFAULTS,
    SEED_ENVELOPE,
    ChainConfig,
    EnvelopeError,
    IntentEnvelope,
    SemanticError,
    accuracy_table,
    chain_accuracy,
    drift_walk,
    envelope_accuracy,
    hops_within,
    required_hop_accuracy,
    simulate_chain,
    threshold_sweep,
    walk_table,
)


# -- the seed's numbers ---------------------------------------------------------------------------
def test_the_seed_table_90_81_72_9_65_6_percent():
    rows = accuracy_table(0.9, range(1, 5))
    assert [n for n, _ in rows] == [1, 2, 3, 4]
    assert [round(a * 100, 1) for _, a in rows] == [90.0, 81.0, 72.9, 65.6]


def test_the_table_extends_beyond_the_seed():
    assert round(chain_accuracy(0.9, 10), 4) == 0.3487
    assert chain_accuracy(0.9, 0) == 1.0


def test_per_hop_accuracies_multiply():
    assert chain_accuracy([0.99, 0.9, 0.8]) == pytest.approx(0.99 * 0.9 * 0.8)
    assert chain_accuracy([]) == 1.0


def test_how_many_hops_a_target_allows_and_what_each_hop_must_reach():
    assert hops_within(0.9, 0.7) == 3  # 72.9 % ≥ 70 % but 65.6 % is not
    assert hops_within(0.9, 0.9) == 1 and hops_within(0.9, 0.95) == 0
    assert hops_within(1.0, 0.99) >= 10**9
    assert required_hop_accuracy(4, 0.9) == pytest.approx(0.9**0.25)
    assert chain_accuracy(required_hop_accuracy(5, 0.8), 5) == pytest.approx(0.8)


@pytest.mark.parametrize(
    "call",
    [
        lambda: chain_accuracy(1.2, 2),
        lambda: chain_accuracy(0.9, -1),
        lambda: chain_accuracy(0.9),
        lambda: chain_accuracy([0.9], 3),
        lambda: required_hop_accuracy(0, 0.9),
        lambda: envelope_accuracy(0.9, 3, realign=2.0),
        lambda: ChainConfig(p=-0.1),
        lambda: ChainConfig(n=0),
        lambda: ChainConfig(envelope=True, threshold=-1.0),
        lambda: ChainConfig(envelope=True, realign=1.5),
        lambda: ChainConfig(envelope=True, human_minutes=-1.0),
    ],
)
def test_meaningless_parameters_are_refused(call):
    with pytest.raises(SemanticError):
        call()


# -- re-alignment ----------------------------------------------------------------------------------
def test_without_realignment_the_envelope_formula_is_p_to_the_n():
    assert envelope_accuracy(0.9, 4, 0.0) == pytest.approx(0.6561)


def test_realignment_by_hand_for_two_hops():
    # a1 = 0.9; a2 = 0.9·0.9 + 0.5·0.9·0.1 = 0.81 + 0.045
    assert envelope_accuracy(0.9, 2, 0.5) == pytest.approx(0.855)


def test_with_realignment_accuracy_levels_off_instead_of_decaying_to_zero():
    p, r = 0.9, 0.5
    floor = r * p / (1 - p + r * p)
    assert envelope_accuracy(p, 200, r) == pytest.approx(floor)
    assert chain_accuracy(p, 200) < 1e-9


@given(p=st.floats(0.0, 1.0), n=st.integers(1, 30), r=st.floats(0.0, 1.0))
def test_realignment_never_hurts(p, n, r):
    assert envelope_accuracy(p, n, r) >= chain_accuracy(p, n) - 1e-12


# -- the Monte Carlo ---------------------------------------------------------------------------------
@pytest.mark.parametrize("p, n", [(0.9, 1), (0.9, 4), (0.8, 6), (0.99, 10)])
def test_a_bare_chain_simulates_to_p_to_the_n(p, n):
    out = simulate_chain(ChainConfig(p=p, n=n), trials=20_000, seed=1)
    assert out.accuracy == pytest.approx(p**n, abs=0.015)
    assert out.escalations_per_request == 0.0


def test_the_envelope_simulates_to_its_exact_formula():
    out = simulate_chain(ChainConfig(p=0.85, n=6, envelope=True, realign=0.4), trials=20_000, seed=2)
    assert out.accuracy == pytest.approx(envelope_accuracy(0.85, 6, 0.4), abs=0.015)
    assert [round(a, 2) for a in out.per_hop_accuracy][:1] == [pytest.approx(0.85, abs=0.01)]


def test_without_an_envelope_there_is_no_confidence_so_nobody_is_asked():
    out = simulate_chain(ChainConfig(n=4), trials=2000)
    assert out.escalations_per_request == 0.0 and out.human_minutes_per_request == 0.0


@pytest.mark.parametrize(
    "option", ["realign", "threshold", "discrimination", "human_accuracy", "human_minutes"]
)
def test_an_envelope_option_on_a_bare_chain_is_refused_instead_of_ignored(option):
    with pytest.raises(ValueError, match=f"{option} only applies to a chain with an intent envelope"):
        ChainConfig(**{option: 0.5})
    assert getattr(ChainConfig(envelope=True, **{option: 0.5}), option) == 0.5


def test_the_refusal_names_every_option_that_would_be_ignored():
    with pytest.raises(
        SemanticError, match="realign, threshold only apply to a chain with an intent envelope"
    ):
        ChainConfig(envelope=False, realign=0.5, threshold=0.9)


def test_with_an_envelope_unset_options_take_their_defaults_and_a_bare_chain_leaves_them_unset():
    assert ChainConfig(envelope=True) == ChainConfig(envelope=True, **ENVELOPE_DEFAULTS)
    bare = ChainConfig()
    assert all(getattr(bare, name) is None for name in ENVELOPE_DEFAULTS)
    assert bare.option("realign") == 0.0 and ChainConfig(envelope=True).option("realign") == 0.5


def test_realign_without_an_envelope_is_refused_by_the_word_walk_too():
    with pytest.raises(SemanticError, match="realign only applies with an intent envelope"):
        drift_walk(realign=0.5)
    assert drift_walk(envelope=True, realign=0.5, seed=8) == drift_walk(envelope=True, seed=8)


def test_a_threshold_above_every_confidence_sends_every_hop_to_a_human():
    out = simulate_chain(ChainConfig(n=4, envelope=True, threshold=1.01, human_accuracy=1.0), trials=2000)
    assert out.escalations_per_request == 4.0 and out.accuracy == 1.0
    assert out.human_minutes_per_request == pytest.approx(12.0)


def test_raising_the_threshold_buys_accuracy_with_human_time():
    sweep = threshold_sweep(ChainConfig(), [0.0, 0.3, 0.6, 0.9], trials=4000)
    acc = [o.accuracy for o in sweep]
    load = [o.escalations_per_request for o in sweep]
    assert acc == sorted(acc) and load == sorted(load) and load[0] == 0.0
    assert sweep[2].accuracy - sweep[0].accuracy > 0.1


def test_a_sweep_point_equals_the_single_run_at_that_threshold():
    cfg = ChainConfig(envelope=True, threshold=0.6)
    (point,) = threshold_sweep(cfg, [0.6], trials=3000, seed=5)
    assert point == simulate_chain(cfg, trials=3000, seed=5)


def test_confidence_that_does_not_discriminate_spends_human_time_for_little_accuracy():
    good = threshold_sweep(ChainConfig(envelope=True, discrimination=0.9), [0.5], trials=6000)[0]
    blind = threshold_sweep(ChainConfig(envelope=True, discrimination=0.0), [0.5], trials=6000)[0]
    assert good.accuracy > blind.accuracy + 0.05
    assert blind.accuracy < envelope_accuracy(0.9, 4, 0.5) + 0.05  # barely better than no threshold


def test_the_option_is_discrimination_and_calibration_is_not_a_chain_option():
    # the model's knob is error visibility (discrimination); calibration is a different property
    assert "discrimination" in ENVELOPE_DEFAULTS and "calibration" not in ENVELOPE_DEFAULTS
    with pytest.raises(TypeError):
        ChainConfig(envelope=True, calibration=0.8)  # type: ignore[call-arg]
    with pytest.raises(SemanticError, match="discrimination must be a probability"):
        ChainConfig(envelope=True, discrimination=1.5)


def test_runs_are_reproducible():
    cfg = ChainConfig(envelope=True, threshold=0.5)
    assert simulate_chain(cfg, trials=500, seed=3) == simulate_chain(cfg, trials=500, seed=3)


# -- the envelope ------------------------------------------------------------------------------------
def test_each_hop_keeps_the_original_intent_and_accumulates_assumptions():
    env = IntentEnvelope.start("Arrange a comfortable trip for me")
    env = env.hop("planner", "3 days in Sanya", ["trip = short domestic"], 0.9)
    env = env.hop("flights", "business class to Sanya", ["comfortable = business class"], 0.6)
    assert env.original_intent == "Arrange a comfortable trip for me"
    assert env.hops == ("planner", "flights") and len(env.assumptions) == 2
    assert env.needs_human(0.7) and not env.needs_human(0.5)


def test_the_envelope_records_each_hops_confidence_and_does_not_accumulate_it():
    env = IntentEnvelope.start("Arrange a comfortable trip for me")
    assert env.hop_confidences == () and env.chain_confidence == 1.0
    env = env.hop("planner", "3 days in Sanya", confidence=0.9).hop("flights", "to Sanya", confidence=0.6)
    assert env.hop_confidences == (0.9, 0.6)
    assert env.confidence == 0.6  # the last hop's own number, not a running product
    assert env.chain_confidence == pytest.approx(0.54)


def test_a_per_hop_check_stays_silent_where_the_check_on_the_product_fires():
    env = IntentEnvelope.start("Arrange a comfortable trip for me")
    fired_per_hop, fired_on_chain = [], []
    for agent in ("planner", "flights", "hotels", "booking"):
        env = env.hop(agent, f"{agent}'s reading", confidence=0.85)
        fired_per_hop.append(env.needs_human(0.7))
        fired_on_chain.append(env.chain_needs_human(0.7))
    assert fired_per_hop == [False, False, False, False]  # every hop is 0.85 ≥ 0.7
    assert fired_on_chain == [False, False, True, True]  # 0.85, 0.72, 0.614, 0.522
    assert env.chain_confidence == pytest.approx(0.85**4)


def test_the_per_hop_record_survives_the_wire():
    env = IntentEnvelope.start("trip").hop("a", "x", confidence=0.9).hop("b", "y", confidence=0.8)
    data = env.to_dict()
    assert data["hopConfidences"] == [0.9, 0.8] and data["confidence"] == 0.8
    assert IntentEnvelope.from_dict(data) == env
    assert SEED_ENVELOPE.hop_confidences == (0.78,)  # one hop: its confidence is the record


def test_the_seed_envelope_round_trips_and_needs_a_human_at_a_0_8_threshold():
    data = SEED_ENVELOPE.to_dict()
    assert data["confidence"] == 0.78 and data["originalIntent"].startswith("Arrange")
    assert IntentEnvelope.from_dict(data) == SEED_ENVELOPE
    assert SEED_ENVELOPE.needs_human(0.8)


@pytest.mark.parametrize(
    "make",
    [
        lambda: IntentEnvelope("  ", "x"),
        lambda: IntentEnvelope("trip", "x", confidence=1.5),
        lambda: IntentEnvelope.from_dict({"currentInterpretation": "business class"}),
        # two hops and no per-hop record: the chain's confidence would be unknown
        lambda: IntentEnvelope("trip", "x", confidence=0.8, hops=("a", "b")),
        lambda: IntentEnvelope("trip", "x", confidence=0.8, hops=("a", "b"), hop_confidences=(0.9, 0.7)),
        lambda: IntentEnvelope("trip", "x", confidence=0.8, hops=("a",), hop_confidences=(0.8, 0.8)),
        lambda: IntentEnvelope("trip", "x", confidence=0.8, hops=("a", "b"), hop_confidences=(1.2, 0.8)),
    ],
)
def test_an_envelope_that_would_mislead_the_next_hop_is_refused(make):
    with pytest.raises(EnvelopeError) as err:
        make()
    assert err.value.rule == "intent-envelope"


# -- one concrete chain ---------------------------------------------------------------------------------
def test_a_drift_walk_is_reproducible_and_marks_each_hop_right_or_wrong():
    rows = drift_walk(p_word=0.7, n=6, seed=4)
    assert rows == drift_walk(p_word=0.7, n=6, seed=4)
    assert [r["hop"] for r in rows] == list(range(1, 7))
    for r in rows:
        meant = (r["comfortable"], r["trip"], r["arrange"]) == (
            "quiet hotel, window seat",
            "3 days in Sanya",
            "propose options",
        )
        assert r["right"] == meant


def test_words_that_are_always_understood_never_drift():
    assert all(r["right"] for r in drift_walk(p_word=1.0, n=5))


def test_with_an_envelope_drifted_words_get_repaired_more_often():
    def right_share(envelope: bool) -> float:
        rows = [r for seed in range(200) for r in drift_walk(p_word=0.85, n=6, envelope=envelope, seed=seed)]
        return sum(r["right"] for r in rows) / len(rows)

    assert right_share(True) > right_share(False) + 0.1


def test_a_walk_prints_one_line_per_hop_with_a_verdict():
    rows = drift_walk(p_word=1.0, n=2)
    text = walk_table(rows).splitlines()
    assert text[0].startswith("hop") and text[0].endswith("as meant?")
    assert len(text) == 4 and text[2].endswith("✓") and "3 days in Sanya" in text[2]
    assert walk_table([]) == "(no hops)"
