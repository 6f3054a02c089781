"""AG-UI (agent ↔ user interface): events, SSE, chunks, verification, state, interrupts."""
