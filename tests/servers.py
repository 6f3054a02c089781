"""Helpers for tests that talk to a real server: start the demo app, read and check SSE streams.

The server itself runs under :func:`agentproto.server.running_server` (uvicorn on a free
127.0.0.1 port, in a thread). These helpers only add what tests of AG-UI streams keep needing.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from agentproto.agui.pipeline import lint_source
from agentproto.agui.sse import SSEDecoder

SSE_HEADERS = {"Accept": "text/event-stream"}
#: Debian's Chromium, driven by Playwright directly (its own browser downloads are not used).
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def free_port() -> int:
    """A free TCP port on 127.0.0.1 (for a server started as a separate process)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


REFUND_REQUEST = "check order A1024 and refund it if shipped"


def user(text: str = REFUND_REQUEST, message_id: str = "u-1") -> dict[str, Any]:
    return {"id": message_id, "role": "user", "content": text}


def run_body(thread_id: str, run_id: str, *, messages=None, resume=None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "threadId": thread_id,
        "runId": run_id,
        "messages": [user()] if messages is None else messages,
    }
    if resume is not None:
        body["resume"] = resume
    body.update(extra)
    return body


def decode(raw: bytes) -> list[dict[str, Any]]:
    """An SSE body as the list of event dicts it carries (comments skipped)."""
    decoder = SSEDecoder()
    frames = decoder.feed(raw)
    assert decoder.close() is None, "stream ended mid-frame"
    return [json.loads(f) for f in frames]


def verified(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run the whole core consumer pipeline (parse, expand, verify, apply) over the stream and
    insist it is conformant and warning-free; return the events unchanged."""
    report = lint_source(events)
    assert report.ok, report.error
    assert report.warnings == [], report.warnings
    return events


def official(events: list[dict[str, Any]]) -> list[Any]:
    """Parse every event with the official ``ag_ui.core`` models (interop tests)."""
    import pydantic

    core = __import__("ag_ui.core", fromlist=["Event"])
    adapter = pydantic.TypeAdapter(core.Event)
    return [adapter.validate_python(e) for e in events]


def post_run(base_url: str, body: dict[str, Any], **kwargs: Any) -> httpx.Response:
    # generous: a run on a CI machine busy with other test workers can take seconds
    return httpx.post(f"{base_url}/ag-ui/agent", json=body, headers=SSE_HEADERS, timeout=30, **kwargs)


def interrupt_of(events: list[dict[str, Any]]) -> dict[str, Any]:
    (interrupt,) = events[-1]["outcome"]["interrupts"]
    return interrupt


def approve(interrupt_id: str, **payload: Any) -> list[dict[str, Any]]:
    return [{"interruptId": interrupt_id, "status": "resolved", "payload": {"approved": True, **payload}}]


@contextlib.contextmanager
def serving_process(
    cmd: list[str], *, cwd: Any, env: dict[str, str], log_path: Any, ready_url: str, headers: dict[str, str]
) -> Iterator[None]:
    """Start ``cmd`` (a server such as JupyterLab) in its own session, wait until ``ready_url``
    answers 200 (at most 120 s, failing with the log's tail), and stop it — group and all — after."""
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    if httpx.get(ready_url, headers=headers, timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert proc.poll() is None, Path(log_path).read_text()[-3000:]
                assert time.monotonic() < deadline, (
                    "the server did not start:\n" + Path(log_path).read_text()[-3000:]
                )
                time.sleep(0.5)
            yield
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def stop_with_ctrl_c(proc: subprocess.Popen, timeout_s: float = 10) -> None:
    """Stop a server process the way a user does (SIGINT), waiting for its graceful shutdown;
    killed only if that hangs (the caller then sees its return code is not 0)."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:  # pragma: no cover - only if shutdown hangs
        proc.kill()
        proc.wait()


#: The two clients of the secured test servers (``--auth`` mode), name → secret.
AUTH_CLIENTS = {"alice": "s3cret-a", "bob": "s3cret-b"}
#: The issuer of their tokens (any URL: the tests never fetch it).
AUTH_ISSUER = "http://127.0.0.1/test-issuer"


def secured(**options: Any) -> Any:
    """The demo app of ``serve --auth`` with :data:`AUTH_CLIENTS`, built by the one factory
    (:func:`agentproto.demo.app.create_app`; ``options`` as its). Tokens follow the wall
    clock (the app's runs may follow a fake one): gRPC streams end at a token's wall-clock
    expiry."""
    from agentproto.demo.app import config_from_options, create_app
    from agentproto.system import SystemClock

    injected = {name: options.pop(name) for name in ("clock", "ids", "tools") if name in options}
    db = options.pop("db", ":memory:")
    config = config_from_options(db, **options).with_auth(AUTH_CLIENTS, issuer=AUTH_ISSUER)
    return create_app(config, auth_clock=SystemClock(), **injected)
