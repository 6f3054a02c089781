"""The demo agents that the notebooks and ``agentproto serve`` run.

* :func:`create_app` — the Starlette app (AG-UI refund agent, plus A2A when available).
* :class:`RefundAgent` — the order-refund agent, a sans-I/O event generator.
* :class:`FakeToolProvider` — MCP-shaped ``tools/list``/``tools/call`` over the demo orders,
  with injectable faults.

Names are imported lazily so that ``agentproto lint`` does not load a web framework.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentproto._lazy import lazy_exports

if TYPE_CHECKING:  # each public name and its home module; loaded on first use
    from agentproto.demo.app import create_app
    from agentproto.demo.refund_agent import RefundAgent
    from agentproto.demo.tools import FakeToolProvider, ToolProvider, handle_jsonrpc

__all__ = ["create_app", "RefundAgent", "FakeToolProvider", "ToolProvider", "handle_jsonrpc"]

__getattr__, __dir__, _EXPORTS = lazy_exports(globals())
