"""Hand-made run inputs posted to an AG-UI server: the attacker's side of the trust boundary.

Everything in a ``RunAgentInput`` is written by code the user controls (see
:mod:`agentproto.security.client_input`), so the way to test a server's gatekeeping is to send
what no honest front end would: a tool result the agent never asked for, a resume for another
thread's interrupt, an off-schema approval. This module builds such inputs and reads the
server's answer; it deliberately skips every client-side check.

* :func:`run_input` — the wire body of ``POST /ag-ui/agent`` (camelCase, every field present);
* :func:`read_answer` — sans-I/O: an HTTP status and body become a :class:`ForgeryAttempt`. A
  refusal (any status but 200) carries the server's ``error.code`` and ``error.message``; an
  accepted input carries the outcome of the run it started (``run success``,
  ``run interrupt`` …, from the last event of the SSE stream) and that event's ``result``;
* :func:`post_run_input` — the one I/O step, with ``httpx``.

The bodies are plain dicts on purpose: a forgery need not be a valid ``RunAgentInput``, and
this package sits below :mod:`agentproto.agui`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from agentproto.sse import SSE_CONTENT_TYPE, EventStreamDecoder

__all__ = ["AGENT_PATH", "ForgeryAttempt", "run_input", "read_answer", "post_run_input"]

#: Where the AG-UI demo server takes run inputs.
AGENT_PATH = "/ag-ui/agent"


@dataclass(frozen=True)
class ForgeryAttempt:
    """What an AG-UI server answered to one hand-made run input."""

    label: str
    status: int  #: the HTTP status; 200 means a run started
    code: str  #: the refusal's error code, or ``run <outcome>`` when a stream opened
    message: str  #: the refusal's message, or the run's ``result`` as compact JSON

    @property
    def refused(self) -> bool:
        """Whether the server turned the input away before any run started."""
        return self.status != 200


def run_input(
    *,
    thread_id: str,
    run_id: str,
    messages: Sequence[dict[str, Any]] = (),
    resume: list[dict[str, Any]] | None = None,
    state: Any = None,
    tools: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """The wire body of one run input; ``resume`` is sent only when given."""
    body: dict[str, Any] = {
        "threadId": thread_id,
        "runId": run_id,
        "messages": list(messages),
        "tools": list(tools),
        "context": [],
        "state": {} if state is None else state,
        "forwardedProps": {},
    }
    if resume is not None:
        body["resume"] = resume
    return body


def _events(content: bytes) -> list[dict[str, Any]]:
    decoder = EventStreamDecoder()
    frames = decoder.feed(content)
    decoder.close()
    events = [json.loads(frame) for frame in frames if frame.strip()]
    return [event for event in events if isinstance(event, dict)]


def read_answer(label: str, status: int, content: bytes) -> ForgeryAttempt:
    """The server's answer (HTTP ``status`` and body bytes) as a :class:`ForgeryAttempt`."""
    if status != 200:
        try:
            document = json.loads(content)
        except ValueError:
            document = None
        error = document.get("error") if isinstance(document, dict) else None
        if not isinstance(error, dict):
            return ForgeryAttempt(label, status, f"HTTP {status}", content.decode("utf-8", "replace"))
        return ForgeryAttempt(label, status, str(error.get("code")), str(error.get("message", "")))
    events = _events(content)
    last = events[-1] if events else {}
    if last.get("type") == "RUN_FINISHED":
        outcome = (last.get("outcome") or {}).get("type", "success")
    else:
        outcome = last.get("type", "?")
    result = json.dumps(last.get("result"), separators=(",", ":"))
    return ForgeryAttempt(label, 200, f"run {outcome}", result)


def post_run_input(
    base_url: str,
    label: str,
    body: dict[str, Any],
    *,
    client: httpx.Client | None = None,
    timeout: float = 30.0,
) -> ForgeryAttempt:
    """POST ``body`` to ``base_url`` + :data:`AGENT_PATH` and read the whole answer.

    Pass ``client`` to reuse a connection pool (or a test transport); otherwise one request
    is made with a fresh connection.
    """
    url = base_url.rstrip("/") + AGENT_PATH
    headers = {"Accept": SSE_CONTENT_TYPE}
    if client is None:
        response = httpx.post(url, json=body, headers=headers, timeout=timeout)
    else:
        response = client.post(url, json=body, headers=headers, timeout=timeout)
    return read_answer(label, response.status_code, response.content)
