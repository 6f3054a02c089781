"""The demo agent's tools, behind an interface shaped like MCP's ``tools/list`` and ``tools/call``.

AG-UI says nothing about *where* an agent's tools live. In practice they often sit behind the
Model Context Protocol: the agent lists them (``tools/list``: ``name``, ``description``,
``inputSchema``) and calls them (``tools/call`` → ``content`` blocks, optional
``structuredContent``, ``isError``). The refund agent talks to its tools only through
:class:`ToolProvider`, so notebook 08 can put the two protocols side by side: an MCP
``tools/call`` on one side, the AG-UI ``TOOL_CALL_START/ARGS/END/RESULT`` it becomes on the other.

Theory of operation
-------------------
* :class:`FakeToolProvider` is an in-process provider over the deterministic orders in
  ``agentproto/data/demo/orders.json``. Refunds are written to the :class:`~agentproto.store.Store`
  (table ``demo_refunds``), so they survive a restart and are visible to every server instance
  sharing the database file.
* ``refund_order`` requires an ``idempotencyKey``; :meth:`Store.idempotent` guarantees that one
  key refunds at most once, however many times (or from however many threads) it is called.
* Errors follow MCP's split: a request the server cannot route (unknown tool) is a protocol
  error (JSON-RPC ``-32602``, :class:`UnknownToolError`); anything the tool itself reports —
  bad arguments, "order not found", "not shipped yet" — is a *result* with ``isError: true``,
  which the agent can show or reason about (MCP 2025-11-25, "Error Handling").
* Faults for the error-handling matrix are injected with :meth:`FakeToolProvider.inject`:
  ``timeout`` (raises :class:`ToolTimeout`, as an MCP client does when a request times out),
  ``business_error`` (an ``isError`` result) and ``oversize`` (a result far larger than a UI
  should receive). Each fault fires for a given number of calls, then the tool behaves again.
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol, runtime_checkable

from agentproto.clock import Clock, IdFactory
from agentproto.errors import AgentProtoError
from agentproto.store import Store
from agentproto.system import SystemClock

__all__ = [
    "ToolProvider",
    "FakeToolProvider",
    "ToolError",
    "ToolTimeout",
    "UnknownToolError",
    "Fault",
    "load_orders",
    "handle_jsonrpc",
    "text_result",
    "error_result",
    "result_text",
    "truncate_result_text",
    "mcp_tool_to_agui",
]

_REFUNDS_DDL = (
    """CREATE TABLE demo_refunds (
        refund_id       TEXT PRIMARY KEY,
        order_id        TEXT NOT NULL,
        amount_cents    INTEGER NOT NULL,
        reason          TEXT,
        idempotency_key TEXT NOT NULL UNIQUE,
        created_ms      INTEGER NOT NULL
    )""",
)


class ToolError(AgentProtoError):
    """Base class for failures of the tool *transport* (not a tool's own error result)."""


class ToolTimeout(ToolError):
    """The tool did not answer in time (the MCP client gave up on the request)."""

    def __init__(self, name: str, timeout_ms: int) -> None:
        super().__init__(f"tools/call {name} timed out after {timeout_ms} ms")
        self.name = name
        self.timeout_ms = timeout_ms


class UnknownToolError(ToolError):
    """``tools/call`` named a tool the provider does not have (JSON-RPC ``-32602``)."""

    code = -32602

    def __init__(self, name: str) -> None:
        super().__init__(f"Unknown tool: {name}")
        self.name = name


@runtime_checkable
class ToolProvider(Protocol):
    """What the agent needs from a tool server: MCP's two tool methods, as Python calls."""

    def list_tools(self) -> dict[str, Any]:
        """``tools/list`` result: ``{"tools": [{"name", "description", "inputSchema"}, ...]}``."""
        ...

    def call_tool(self, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """``tools/call`` result: ``{"content": [...], "structuredContent"?, "isError"}``."""
        ...


def text_result(structured: Any, *, text: str | None = None) -> dict[str, Any]:
    """A successful ``CallToolResult`` carrying ``structured`` and its JSON text."""
    body = text if text is not None else json.dumps(structured, ensure_ascii=False, separators=(",", ":"))
    return {"content": [{"type": "text", "text": body}], "structuredContent": structured, "isError": False}


def error_result(message: str, *, code: str | None = None) -> dict[str, Any]:
    """A ``CallToolResult`` reporting a tool-level failure (``isError: true``)."""
    out: dict[str, Any] = {"content": [{"type": "text", "text": message}], "isError": True}
    if code:
        out["structuredContent"] = {"error": code, "message": message}
    return out


#: The metadata keys :func:`truncate_result_text` sets, prefixed with the kit's name (spec 1.1
#: ``basic/metadata``, "Keys": a producer SHOULD prefix the keys it invents).
TRUNCATED_KEY = "agentproto.truncated"
ORIGINAL_LENGTH_KEY = "agentproto.originalLength"


def truncate_result_text(text: str, max_chars: int) -> tuple[str, dict[str, Any] | None]:
    """Cut a tool result's text to ``max_chars`` for the UI, and say exactly what was cut.

    Text that fits comes back unchanged, with ``None``. Longer text keeps its first ``max_chars``
    characters, followed by a marker naming how many characters were removed out of how many
    there were — ``… [truncated: 196321 of 200321 chars]`` means 4 000 of 200 321 were kept —
    and comes back with the metadata the agent puts on its ``TOOL_CALL_RESULT``:
    ``{"agentproto.truncated": True, "agentproto.originalLength": 200321}``. The marker and the
    metadata keys are this kit's convention; neither AG-UI nor MCP defines one. The keys carry
    the kit's name because spec 1.1 ``basic/metadata`` ("Keys") says producers SHOULD prefix the
    keys they invent with a vendor or application name.
    """
    if max_chars < 0:
        raise ValueError(f"max_chars must be >= 0, got {max_chars}")
    if len(text) <= max_chars:
        return text, None
    original = len(text)
    marker = f"… [truncated: {original - max_chars} of {original} chars]"
    return text[:max_chars] + marker, {TRUNCATED_KEY: True, ORIGINAL_LENGTH_KEY: original}


def result_text(result: Mapping[str, Any]) -> str:
    """The text of a ``CallToolResult``: its text blocks joined (other block types described)."""
    parts = []
    for block in result.get("content", []):
        if block.get("type") == "text":
            parts.append(block.get("text", ""))
        else:
            parts.append(f"[{block.get('type', 'unknown')} content]")
    return "\n".join(parts)


def mcp_tool_to_agui(tool: Mapping[str, Any]) -> dict[str, Any]:
    """An MCP tool definition as an AG-UI ``Tool`` (``inputSchema`` becomes ``parameters``)."""
    out = {"name": tool["name"], "description": tool.get("description", "")}
    if "inputSchema" in tool:
        out["parameters"] = tool["inputSchema"]
    return out


def load_orders() -> dict[str, Any]:
    """The demo orders shipped with the package (``agentproto/data/demo/orders.json``)."""
    text = resources.files("agentproto").joinpath("data/demo/orders.json").read_text("utf-8")
    return json.loads(text)


@dataclass
class Fault:
    """A failure to inject into the next ``times`` calls of one tool."""

    kind: str  #: ``timeout`` | ``business_error`` | ``oversize``
    times: int = 1
    timeout_ms: int = 5_000
    message: str = "The order service is unavailable (simulated business error)."
    size_chars: int = 200_000


TOOLS: list[dict[str, Any]] = [
    {
        "name": "get_order",
        "title": "Look up an order",
        "description": "Fetch an order by id: status, items, total and any refund already made.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "orderId": {
                    "type": "string",
                    "pattern": "^[A-Z][0-9]{4}$",
                    "description": "Order id, e.g. A1024",
                }
            },
            "required": ["orderId"],
            "additionalProperties": False,
        },
    },
    {
        "name": "refund_order",
        "title": "Refund an order",
        "description": (
            "Refund a shipped or delivered order, fully or in part. Needs human "
            "approval. Idempotent: the same idempotencyKey never refunds twice."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "orderId": {"type": "string", "pattern": "^[A-Z][0-9]{4}$"},
                "amountCents": {"type": "integer", "minimum": 1},
                "reason": {"type": "string", "maxLength": 200},
                "idempotencyKey": {"type": "string", "minLength": 1},
            },
            "required": ["orderId", "amountCents", "idempotencyKey"],
            "additionalProperties": False,
        },
        "annotations": {"destructiveHint": True, "idempotentHint": True},
    },
]


class FakeToolProvider:
    """An in-process MCP-shaped tool server over the demo orders.

    >>> tools = FakeToolProvider()
    >>> tools.call_tool("get_order", {"orderId": "A1024"})["structuredContent"]["status"]
    'shipped'
    """

    def __init__(
        self,
        store: Store | None = None,
        *,
        orders: Mapping[str, Any] | None = None,
        clock: Clock | None = None,
        ids: Any = None,
    ) -> None:
        self.store = store if store is not None else Store(":memory:")
        self.store.ensure_schema("demo_tools", 1, _REFUNDS_DDL)
        data = dict(orders) if orders is not None else load_orders()
        self.currency: str = data.get("currency", "USD")
        self._orders: dict[str, dict[str, Any]] = {o["orderId"]: o for o in data["orders"]}
        self.clock: Clock = clock or SystemClock()
        self._refund_ids = ids or IdFactory("refund")
        self._faults: dict[str, list[Fault]] = {}
        self._lock = threading.Lock()
        #: Every call made, in order: ``{"name", "arguments", "outcome"}`` — for notebooks/tests.
        self.calls: list[dict[str, Any]] = []

    def _fresh_refund_id(self, conn: Any) -> str:
        """The next id from ``ids`` that is not already in the database. The default counter
        restarts at ``refund-1`` with the process, so after a restart on a database holding
        N refunds it skips the N ids already used instead of failing the insert (bounded)."""
        for _ in range(100_000):
            refund_id = str(self._refund_ids())
            if (
                conn.execute("SELECT 1 FROM demo_refunds WHERE refund_id = ?", (refund_id,)).fetchone()
                is None
            ):
                return refund_id
        raise RuntimeError("the refund id source keeps returning ids already in the database")

    # -- faults -------------------------------------------------------------------------------

    def inject(self, tool: str, kind: str, *, times: int = 1, **params: Any) -> Fault:
        """Make the next ``times`` calls of ``tool`` fail with ``kind`` (see :class:`Fault`)."""
        if kind not in ("timeout", "business_error", "oversize"):
            raise ValueError(f"unknown fault kind {kind!r}")
        if tool not in {t["name"] for t in TOOLS}:
            raise UnknownToolError(tool)
        fault = Fault(kind, times=times, **params)
        with self._lock:
            self._faults.setdefault(tool, []).append(fault)
        return fault

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def _take_fault(self, tool: str) -> Fault | None:
        with self._lock:
            queue = self._faults.get(tool) or []
            if not queue:
                return None
            fault = queue[0]
            fault.times -= 1
            if fault.times <= 0:
                queue.pop(0)
            return fault

    # -- MCP surface ----------------------------------------------------------------------------

    def list_tools(self) -> dict[str, Any]:
        return {"tools": copy.deepcopy(TOOLS)}

    def call_tool(self, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        tool = next((t for t in TOOLS if t["name"] == name), None)
        if tool is None:
            raise UnknownToolError(name)
        record: dict[str, Any] = {"name": name, "arguments": dict(arguments)}
        self.calls.append(record)
        fault = self._take_fault(name)
        if fault is not None and fault.kind == "timeout":
            record["outcome"] = "timeout"
            raise ToolTimeout(name, fault.timeout_ms)
        if fault is not None and fault.kind == "business_error":
            record["outcome"] = "error"
            return error_result(fault.message, code="service_unavailable")
        from agentproto._schemas import jsonschema as load_jsonschema  # lazily: agentproto._schemas

        jsonschema = load_jsonschema()

        errors = sorted(
            jsonschema.Draft202012Validator(tool["inputSchema"]).iter_errors(dict(arguments)),
            key=lambda e: list(e.path),
        )
        if errors:
            record["outcome"] = "error"
            return error_result(
                f"Invalid arguments for {name}: {errors[0].message}", code="invalid_arguments"
            )
        result = getattr(self, f"_tool_{name}")(dict(arguments))
        if fault is not None and fault.kind == "oversize" and not result["isError"]:
            padded = dict(result["structuredContent"])
            padded["trackingHistory"] = ("in transit; " * (fault.size_chars // 12 + 1))[: fault.size_chars]
            result = text_result(padded)
        record["outcome"] = "error" if result["isError"] else "ok"
        return result

    # -- the tools ------------------------------------------------------------------------------

    def refunds(self, order_id: str | None = None) -> list[dict[str, Any]]:
        """Refunds actually made (from the database), oldest first."""
        with self.store.transaction() as conn:
            rows = conn.execute(
                "SELECT * FROM demo_refunds WHERE (? IS NULL OR order_id = ?) ORDER BY created_ms, refund_id",
                (order_id, order_id),
            ).fetchall()
        return [
            {
                "refundId": r["refund_id"],
                "orderId": r["order_id"],
                "amountCents": r["amount_cents"],
                "reason": r["reason"],
                "idempotencyKey": r["idempotency_key"],
            }
            for r in rows
        ]

    def _refunded_cents(self, order: Mapping[str, Any]) -> int:
        made = sum(r["amountCents"] for r in self.refunds(order["orderId"]))
        return int(order.get("refundedCents", 0)) + made

    def _order_view(self, order: Mapping[str, Any]) -> dict[str, Any]:
        view = copy.deepcopy(dict(order))
        refunded = self._refunded_cents(order)
        view["refundedCents"] = refunded
        view["currency"] = self.currency
        if refunded >= order["totalCents"]:
            view["status"] = "refunded"
        return view

    def _tool_get_order(self, args: dict[str, Any]) -> dict[str, Any]:
        order = self._orders.get(args["orderId"])
        if order is None:
            return error_result(f"Order {args['orderId']} was not found.", code="not_found")
        return text_result(self._order_view(order))

    def _tool_refund_order(self, args: dict[str, Any]) -> dict[str, Any]:
        key = args["idempotencyKey"]

        def refund() -> dict[str, Any]:
            order = self._orders.get(args["orderId"])
            if order is None:
                return error_result(f"Order {args['orderId']} was not found.", code="not_found")
            view = self._order_view(order)
            if view["status"] not in ("shipped", "delivered"):
                return error_result(
                    f"Order {order['orderId']} is {view['status']}; only "
                    f"shipped or delivered orders can be refunded.",
                    code="not_refundable",
                )
            left = order["totalCents"] - view["refundedCents"]
            if args["amountCents"] > left:
                return error_result(
                    f"Refund of {args['amountCents']} cents exceeds the "
                    f"{left} cents still refundable on {order['orderId']}.",
                    code="amount_too_large",
                )
            with self.store.transaction() as conn:  # joins the idempotency transaction
                refund_id = self._fresh_refund_id(conn)
                conn.execute(
                    "INSERT INTO demo_refunds(refund_id, order_id, amount_cents, reason, "
                    "idempotency_key, created_ms) VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        refund_id,
                        order["orderId"],
                        args["amountCents"],
                        args.get("reason"),
                        key,
                        self.clock.now_ms(),
                    ),
                )
            return text_result(
                {
                    "refundId": refund_id,
                    "orderId": order["orderId"],
                    "amountCents": args["amountCents"],
                    "currency": self.currency,
                    "status": "refunded",
                }
            )

        result, replayed = self.store.idempotent(f"tool:refund_order:{key}", refund)
        if replayed and not result["isError"]:
            result = copy.deepcopy(result)
            result["structuredContent"]["replayed"] = True
            result["content"][0]["text"] = json.dumps(result["structuredContent"], separators=(",", ":"))
        return result


def handle_jsonrpc(provider: ToolProvider, request: Mapping[str, Any]) -> dict[str, Any]:
    """Answer one MCP JSON-RPC request (``tools/list`` or ``tools/call``) from ``provider``.

    Shows the wire shape the Python calls stand for. Protocol errors use JSON-RPC codes
    (``-32601`` unknown method, ``-32602`` unknown tool or bad params). A timeout has no code in
    the MCP spec (2025-11-25, *basic/lifecycle*, "Timeouts": a sender SHOULD time its requests
    out, send a cancellation notification and stop waiting); it is shown here as error
    ``-32001``, the ``RequestTimeout`` code of the official MCP TypeScript SDK, which that SDK's
    client raises locally when it gives up — an SDK convention, not a code a server sends (and
    unrelated to A2A's ``TaskNotFoundError``, which uses the same number).
    """
    rid = request.get("id")
    method = request.get("method")
    params = request.get("params") or {}

    def error(code: int, message: str) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}

    if method == "tools/list":
        return {"jsonrpc": "2.0", "id": rid, "result": provider.list_tools()}
    if method != "tools/call":
        return error(-32601, f"Method not found: {method}")
    if not isinstance(params.get("name"), str):
        return error(-32602, "Invalid params: tools/call needs a tool name")
    try:
        result = provider.call_tool(params["name"], params.get("arguments") or {})
    except UnknownToolError as exc:
        return error(exc.code, str(exc))
    except ToolTimeout as exc:
        return error(-32001, str(exc))
    return {"jsonrpc": "2.0", "id": rid, "result": result}
