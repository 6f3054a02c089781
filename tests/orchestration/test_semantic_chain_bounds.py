"""End-to-end confidence along a chain: the product (a model that assumes independent errors)
and the bounds that hold under any dependence between the hops (Fréchet)."""

from __future__ import annotations

import itertools
import random

import pytest

from agentproto.orchestration.semantic import EnvelopeError, IntentEnvelope


def _chain(*confidences: float) -> IntentEnvelope:
    env = IntentEnvelope.start("Arrange a comfortable trip for me")
    for k, c in enumerate(confidences, 1):
        env = env.hop(f"agent{k}", f"reading {k}", confidence=c)
    return env


def test_five_hops_at_0_9_pass_one_by_one_but_not_end_to_end() -> None:
    env = _chain(*[0.9] * 5)
    assert not env.needs_human(0.7)  # the per-hop check never fires
    assert env.chain_confidence == pytest.approx(0.59049)
    assert env.chain_needs_human(0.7)
    assert env.chain_needs_human(0.7, bound="product")


def test_floor_and_ceiling_are_the_frechet_bounds() -> None:
    env = _chain(*[0.9] * 5)
    assert env.chain_confidence_floor == pytest.approx(0.5)  # 1 − 5 × 0.1
    assert env.chain_confidence_ceiling == pytest.approx(0.9)  # the weakest hop
    assert env.chain_confidence_floor <= env.chain_confidence <= env.chain_confidence_ceiling
    assert _chain(0.5, 0.4).chain_confidence_floor == 0.0  # never negative
    assert IntentEnvelope.start("x").chain_confidence_floor == 1.0
    assert IntentEnvelope.start("x").chain_confidence_ceiling == 1.0


def test_the_bound_chooses_which_number_the_check_uses() -> None:
    env = _chain(0.9, 0.9, 0.9)  # product 0.729, floor 0.7, ceiling 0.9
    assert not env.chain_needs_human(0.72)
    assert env.chain_needs_human(0.72, bound="floor")
    assert not env.chain_needs_human(0.72, bound="ceiling")
    assert env.chain_needs_human(0.95, bound="ceiling")
    with pytest.raises(EnvelopeError):
        env.chain_needs_human(0.7, bound="median")


def test_the_bounds_hold_for_any_joint_distribution_of_hop_errors() -> None:
    """Brute force: random joint distributions over which of three hops are right; the chance
    that all are right lies between the floor and the ceiling of the marginals, and the product
    is exact for the independent one."""
    rng = random.Random(7)
    outcomes = list(itertools.product((True, False), repeat=3))
    for _ in range(200):
        weights = [rng.random() ** 3 for _ in outcomes]
        total = sum(weights)
        joint = {o: w / total for o, w in zip(outcomes, weights, strict=True)}
        marg = [sum(p for o, p in joint.items() if o[k]) for k in range(3)]
        env = _chain(*marg)
        all_right = joint[(True, True, True)]
        assert env.chain_confidence_floor - 1e-12 <= all_right <= env.chain_confidence_ceiling + 1e-12
    independent = _chain(0.9, 0.8, 0.7)
    assert independent.chain_confidence == pytest.approx(0.9 * 0.8 * 0.7)


def test_the_wire_format_is_unchanged() -> None:
    env = _chain(0.9, 0.8)
    data = env.to_dict()
    assert "chainConfidence" not in data  # derived, never sent: the receiver recomputes it
    assert IntentEnvelope.from_dict(data).chain_confidence_floor == pytest.approx(0.7)


def test_the_bounds_are_attained_so_neither_can_be_tightened() -> None:
    """Five hops, each wrong on 10 % of requests: slips on disjoint requests reach the floor,
    slips on the same requests reach the ceiling (notebook 16 §4)."""
    env = _chain(*[0.9] * 5)
    grid = [i / 1000 for i in range(1000)]  # one shared draw u per request, evenly spread
    disjoint = sum(not any(0.1 * k <= u < 0.1 * (k + 1) for k in range(5)) for u in grid) / len(grid)
    nested = sum(not (u < 0.1) for u in grid) / len(grid)
    assert disjoint == pytest.approx(env.chain_confidence_floor)
    assert nested == pytest.approx(env.chain_confidence_ceiling)
