"""Crash safety: ``agentproto serve`` killed with SIGKILL keeps its pending interrupts.

A real server process (uvicorn on 127.0.0.1, SQLite on disk) gets N refund runs that stop at
their approval interrupt; then the process is killed without any chance to clean up. A new
process on the same database must let every one of them be approved, each refund happening
exactly once — an approval sent twice is answered from the record, not refunded again.
``AGENTPROTO_SOAK=1`` uses 20 pending interrupts (the figure the issue started from).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.reliability.sizes import size
from tests.reliability.test_restart import approve_refund, start_refund
from tests.servers import approve, decode, free_port, post_run, run_body

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def _serve(db: Path, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    cmd = [sys.executable, "-m", "agentproto", "serve", "--port", str(port), "--db", str(db), "--no-grpc"]
    proc = subprocess.Popen(
        cmd, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True, cwd=db.parent
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text()[-2000:]
        try:
            httpx.get(url + "/ag-ui/threads/none", timeout=2)
            return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    raise AssertionError("agentproto serve did not start:\n" + log.read_text()[-2000:])


def repeat_approval(url: str, thread: str, interrupt: dict) -> list[str]:
    """Send the same approval again (a client retry, in a new run); return what the run did:
    the CUSTOM events' names, plus ``TOOL_CALL_RESULT`` if a tool ran."""
    args = {**interrupt["metadata"]["proposedArgs"], "amountCents": 1}
    body = run_body(thread, f"{thread}-run-3", messages=[], resume=approve(interrupt["id"], editedArgs=args))
    r = post_run(url, body)
    assert r.status_code == 200, r.text
    events = decode(r.content)
    return [e.get("name", e["type"]) for e in events if e["type"] in ("CUSTOM", "TOOL_CALL_RESULT")]


def test_pending_interrupts_survive_sigkill_and_each_refund_happens_once(tmp_path):
    db, log = tmp_path / "demo.sqlite3", tmp_path / "serve.log"
    n = size(4, 20)
    proc, url = _serve(db, log)
    try:
        pending = {f"crash-{i}": start_refund(url, f"crash-{i}") for i in range(n)}
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # no shutdown, no flush, no goodbye
        proc.wait(timeout=10)
    proc, url = _serve(db, log)
    try:
        first = {
            thread: approve_refund(url, thread, interrupt, amount=1) for thread, interrupt in pending.items()
        }
        again = {t: repeat_approval(url, t, interrupt) for t, interrupt in pending.items()}
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    assert all(result["status"] == "refunded" for result in first.values()), first
    refund_ids = [result["refundId"] for result in first.values()]
    assert len(set(refund_ids)) == n  # one refund per interrupt
    # each repeat is a replay of the recorded run: no new tool call, no second refund
    assert all(events == ["agentproto.resume_replayed"] for events in again.values()), again
    print(
        f"{n} pending interrupts survived SIGKILL; {n} refunds, each once; "
        f"{n} repeats answered from the record"
    )
