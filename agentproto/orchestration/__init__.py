"""Deterministic discrete-event simulations of multi-agent engineering.

Everything here runs on a virtual clock (:class:`~agentproto.orchestration.engine.Simulation`)
with seeded randomness: no threads, no sleeping; a simulated hour takes milliseconds.
"""

from agentproto.orchestration.engine import Simulation
from agentproto.orchestration import deadlock, feedback, hitl
from agentproto.orchestration.deadlock import CyclicPlanError, TimeoutPolicy, check_plan, find_cycle
from agentproto.orchestration.feedback import Drift, Loop, run_loop
from agentproto.orchestration.hitl import CostModel, ask_human_event
from agentproto.orchestration import dedup, plans, scheduler, semantic
from agentproto.orchestration.dedup import IdempotencyStore, TTLCache, run_dedup
from agentproto.orchestration.plans import PlanBook, run_plan
from agentproto.orchestration.scheduler import FIFO, PRIORITY, PRIORITY_AGING, Policy, Scheduler
from agentproto.orchestration.semantic import IntentEnvelope, chain_accuracy, simulate_chain

__all__ = [
    "Simulation",
    "deadlock", "hitl", "feedback", "CyclicPlanError", "TimeoutPolicy", "check_plan", "find_cycle",
    "Drift", "Loop", "run_loop", "CostModel", "ask_human_event",
    "scheduler", "dedup", "plans", "semantic", "Scheduler", "Policy", "FIFO", "PRIORITY",
    "PRIORITY_AGING", "IdempotencyStore", "TTLCache", "run_dedup", "PlanBook", "run_plan",
    "IntentEnvelope", "chain_accuracy", "simulate_chain",
]
