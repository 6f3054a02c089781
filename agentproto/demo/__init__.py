"""The demo agents that the notebooks and ``agentproto serve`` run."""
