"""The demo agents that the notebooks and ``agentproto serve`` run.

* :func:`create_app` — the Starlette app (AG-UI refund agent, plus A2A when available).
* :class:`RefundAgent` — the order-refund agent, a sans-I/O event generator.
* :class:`FakeToolProvider` — MCP-shaped ``tools/list``/``tools/call`` over the demo orders,
  with injectable faults.

Names are imported lazily so that ``agentproto lint`` does not load a web framework.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["create_app", "RefundAgent", "FakeToolProvider", "ToolProvider", "handle_jsonrpc"]

_WHERE = {
    "create_app": "agentproto.demo.app",
    "RefundAgent": "agentproto.demo.refund_agent",
    "FakeToolProvider": "agentproto.demo.tools",
    "ToolProvider": "agentproto.demo.tools",
    "handle_jsonrpc": "agentproto.demo.tools",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'agentproto.demo' has no attribute {name!r}")
