"""Notebook 13 §4, *Capacity for a class: Little's law*: the law checked on the kit's scheduler
(the FIFO run of §3), and the kit limits the section compares a class of 30 against.

No timings: the scheduler runs on virtual time, and the class is a seeded simulation.
"""

from __future__ import annotations

import pytest

from agentproto.a2a._service_streams import DEFAULT_SERVICE_LIMITS
from agentproto.limits import ConnectionLimits
from agentproto.orchestration.scheduler import FIFO, poisson_workload, simulate


@pytest.mark.parametrize("rate", [0.1, 0.25])
def test_littles_law_holds_on_the_schedulers_finished_work(rate):
    result = simulate(poisson_workload(rate, 600, seed=7), FIFO, until=600)
    done = [r for r in result.records.values() if r.finished is not None]
    assert done
    horizon = max(r.finished for r in done)
    lam = len(done) / horizon
    w = sum(r.finished - r.spec.arrival for r in done) / len(done)
    grid = [t / 10 for t in range(int(horizon * 10))]
    sampled = sum(sum(r.spec.arrival <= t < r.finished for r in done) for t in grid) / len(grid)
    assert sampled == pytest.approx(lam * w, rel=0.02)


def test_the_limits_the_capacity_section_compares_against():
    assert DEFAULT_SERVICE_LIMITS.max_streams_per_caller == 32
    assert DEFAULT_SERVICE_LIMITS.max_open_tasks_per_caller == 200
    connections = ConnectionLimits()
    assert (connections.max_per_peer, connections.limit_concurrency, connections.keep_alive_s) == (
        256,
        1000,
        5,
    )
