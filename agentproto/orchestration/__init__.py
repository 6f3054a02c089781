"""Deterministic discrete-event simulations of multi-agent engineering.

Everything here runs on a virtual clock (:class:`~agentproto.orchestration.engine.Simulation`)
with seeded randomness: no threads, no sleeping; a simulated hour takes milliseconds. The
simulations *return data* — results, traces, sweeps — and import nothing but the standard
library and the protocol packages; their pictures and the notebooks' labs live in the course
layer (the ``course`` package, one module per notebook topic).

=================  ============================================================  ========
module             what it models                                                notebook
=================  ============================================================  ========
``engine``         the virtual clock and agenda every simulation runs on          —
``transports``     one agent run seen through polling, WebSocket, SSE and AG-UI   01
``scheduler``      per-agent queues: FIFO, priority + preemption, aging           13
``dedup``          idempotency keys, singleton tasks, a TTL result cache          14
``plans``          event-driven plan books and the runner that switches plans     15
``semantic``       misunderstandings compounding along a chain; the envelope      16
``waitgraph``      wait-for graphs: cycles, cyclic SCCs, the pre-dispatch check    18
``deadlock``       dispatching a wait-for plan under timeouts and escalation      18
``bulkhead``       a worker pool starved by same-pool synchronous calls; fixes    18
``hitl``           when to ask a human: trigger rules, the cost of asking         19
``feedback``       execute → observe → compare → correct under drift              20
``proxy``          a buffering proxy and an idle-timeout hop in front of SSE      04
=================  ============================================================  ========

The names below are the ones a notebook or a caller usually needs; every module documents its
full surface in its own ``__all__``. Functions that exist in several modules under the same
name (``simulate``) are reached through their module: ``deadlock.simulate(plan, "timeout")``.
"""

from agentproto.orchestration import (
    bulkhead,
    deadlock,
    dedup,
    engine,
    feedback,
    hitl,
    plans,
    scheduler,
    semantic,
    transports,
    waitgraph,
)
from agentproto.orchestration.deadlock import (
    DeadlockRun,
    Strategy,
    TimeoutPolicy,
    random_plan,
    sweep,
)
from agentproto.orchestration.dedup import IdempotencyStore, TTLCache, cache_analytic, run_dedup
from agentproto.orchestration.engine import AgendaEntry, Simulation
from agentproto.orchestration.feedback import Drift, Loop, LoopTrace, run_loop
from agentproto.orchestration.hitl import (
    Action,
    CostModel,
    HitlDecision,
    HitlPolicy,
    ask_human_event,
    cost_curve,
    decide,
)
from agentproto.orchestration.plans import PlanBook, PlanRun, TripWorld, load_trip_plans, run_plan
from agentproto.orchestration.scheduler import (
    FIFO,
    PRIORITY,
    PRIORITY_AGING,
    Policy,
    Scheduler,
    ScheduleResult,
    TaskSpec,
)
from agentproto.orchestration.semantic import (
    ChainConfig,
    IntentEnvelope,
    chain_accuracy,
    simulate_chain,
    threshold_sweep,
)
from agentproto.orchestration.transports import TransportResult, compare
from agentproto.orchestration.waitgraph import (
    CyclicPlanError,
    WaitPlan,
    check_plan,
    find_cycle,
    load_plan,
)

__all__ = [
    # modules
    "engine",
    "transports",
    "scheduler",
    "dedup",
    "plans",
    "semantic",
    "waitgraph",
    "deadlock",
    "bulkhead",
    "hitl",
    "feedback",
    # the engine
    "Simulation",
    "AgendaEntry",
    # notebook 01
    "TransportResult",
    "compare",
    # notebook 13
    "Scheduler",
    "Policy",
    "FIFO",
    "PRIORITY",
    "PRIORITY_AGING",
    "TaskSpec",
    "ScheduleResult",
    # notebook 14
    "IdempotencyStore",
    "TTLCache",
    "run_dedup",
    "cache_analytic",
    # notebook 15
    "PlanBook",
    "PlanRun",
    "TripWorld",
    "run_plan",
    "load_trip_plans",
    # notebook 16
    "ChainConfig",
    "IntentEnvelope",
    "chain_accuracy",
    "simulate_chain",
    "threshold_sweep",
    # notebook 18
    "WaitPlan",
    "CyclicPlanError",
    "check_plan",
    "find_cycle",
    "load_plan",
    "Strategy",
    "TimeoutPolicy",
    "DeadlockRun",
    "random_plan",
    "sweep",
    # notebook 19
    "Action",
    "HitlPolicy",
    "HitlDecision",
    "CostModel",
    "decide",
    "cost_curve",
    "ask_human_event",
    # notebook 20
    "Drift",
    "Loop",
    "LoopTrace",
    "run_loop",
]
