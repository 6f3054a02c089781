"""Deterministic discrete-event simulations of multi-agent engineering.

Everything here runs on a virtual clock (:class:`~agentproto.orchestration.clock.Simulation`)
with seeded randomness: no threads, no sleeping; a simulated hour takes milliseconds.
"""

from agentproto.orchestration.clock import Simulation

__all__ = ["Simulation"]
