"""Notebooks 18 §6 (resource deadlocks) and 16 §4 (end-to-end confidence): the library calls they make."""

from __future__ import annotations

from agentproto.orchestration.bulkhead import PoolLayout, Workload, simulate, sweep_pools
from agentproto.orchestration.semantic import IntentEnvelope


def test_the_starved_pool_and_its_graphs() -> None:
    starved = simulate(Workload(parents=2, fan_out=1), PoolLayout.shared(2), wait="blocking")
    assert starved.completed == 0 and len(starved.stuck) == 4
    s = starved.starvation
    assert s is not None and s.task_cycle is None and s.resource_cycle == ("P1", "P1.1", "shared#1")


def test_each_fix_finishes_the_five_parents() -> None:
    work = Workload(parents=5, fan_out=2)
    assert simulate(work, PoolLayout.shared(2)).completed == 0
    for layout, wait in [
        (PoolLayout.bulkheads(2, 1), "blocking"),
        (PoolLayout.shared(2), "async"),
        (PoolLayout.shared(2, admission=1), "blocking"),
    ]:
        assert simulate(work, layout, wait=wait).completed == 5


def test_the_grid_counts_the_notebook_prints() -> None:
    workers, parents = range(1, 7), range(1, 9)
    assert sum(p.stuck for p in sweep_pools(workers, parents)) == 33
    staggered = sweep_pools(workers, parents, base=Workload(fan_out=3, arrival_gap=0.5))
    assert sum(p.stuck for p in staggered) == 24
    assert not any(p.stuck for p in sweep_pools(workers, parents, wait="async"))


def test_exercise_4_answer_is_five_workers() -> None:
    def finishes(n: int) -> bool:
        return not simulate(Workload(parents=4, fan_out=2), PoolLayout.shared(n)).stuck

    assert finishes(5) and not finishes(4)


def test_notebook_16_five_hops_at_0_9() -> None:
    env = IntentEnvelope.start("Arrange a comfortable trip for me")
    for agent in ("planner", "flights", "hotels", "transfers", "booking"):
        env = env.hop(agent, f"{agent}'s reading of the trip", confidence=0.9)
    assert not env.needs_human(0.7)
    assert env.chain_needs_human(0.7) and env.chain_needs_human(0.7, bound="floor")
    assert not env.chain_needs_human(0.7, bound="ceiling")
