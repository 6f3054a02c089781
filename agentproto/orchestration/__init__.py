"""Deterministic discrete-event simulations of multi-agent engineering.

Everything here runs on a virtual clock (:class:`~agentproto.orchestration.clock.Simulation`)
with seeded randomness: no threads, no sleeping; a simulated hour takes milliseconds.
"""

from agentproto.orchestration.clock import Simulation
from agentproto.orchestration import deadlock, feedback, hitl
from agentproto.orchestration.deadlock import CyclicPlanError, TimeoutPolicy, check_plan, find_cycle
from agentproto.orchestration.feedback import Drift, Loop, run_loop
from agentproto.orchestration.hitl import CostModel, ask_human_event

__all__ = [
    "Simulation",
    "deadlock", "hitl", "feedback", "CyclicPlanError", "TimeoutPolicy", "check_plan", "find_cycle",
    "Drift", "Loop", "run_loop", "CostModel", "ask_human_event",
]
