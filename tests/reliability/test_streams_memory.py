"""Finding F3 against a real ``agentproto serve``: SubscribeToTask streams whose consumers never
read, on a task with a big history. Before the fix each stream held its own copy of the whole
history in the server's buffers (400 streams on 950 KB: +1.1 GB RSS, never given back) and
every stream was accepted. Now a task takes at most ``MAX_STREAMS_PER_TASK`` streams, the extra
ones get ``-32603 RESOURCE_EXHAUSTED``, and the first event carries no history, so RSS stays
flat. The RSS figures are printed (``-s``) for the record; the assertion on them is generous."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from agentproto.a2a._service_streams import MAX_STREAMS_PER_TASK
from tests.reliability.sizes import size
from tests.servers import free_port

psutil = pytest.importorskip("psutil")
pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]
V = {"A2A-Version": "1.0"}


def serve(tmp: Path, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    """``agentproto serve`` (conformance agent) as a subprocess on a free port."""
    port = free_port()
    log = tmp / "serve.log"
    cmd = [sys.executable, "-m", "agentproto", "serve", "--port", str(port), "--db", str(tmp / "db.sqlite3")]
    cmd += ["--a2a-agent", "conformance", *extra]
    proc = subprocess.Popen(cmd, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text()[-2000:]
        try:
            if httpx.get(url + "/.well-known/agent-card.json", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    raise AssertionError("agentproto serve did not start:\n" + log.read_text()[-2000:])


def stop(proc: subprocess.Popen[bytes]) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def rss_mb(pid: int) -> float:
    return psutil.Process(pid).memory_info().rss / 1e6


def rpc(url: str, method: str, params: dict) -> dict:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return httpx.post(url + "/a2a", json=body, headers=V, timeout=60).json()


def big_interrupted_task(url: str, kb: int) -> str:
    """A task waiting in INPUT_REQUIRED whose history holds about ``kb`` KB of text."""
    chunk = 150_000  # under the 200,000-char limit per string
    parts = [{"text": "h" * chunk} for _ in range(max(1, kb * 1000 // chunk))]
    msg = {"messageId": "tck-multi-turn-big", "role": "ROLE_USER", "parts": parts}
    answer = rpc(url, "SendMessage", {"message": msg, "configuration": {"historyLength": 0}})
    assert answer["result"]["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED", str(answer)[:300]
    return answer["result"]["task"]["id"]


def lazy_subscriber(port: int, task_id: str) -> socket.socket:
    """A raw SubscribeToTask request on a socket with a tiny receive buffer that is never read."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SubscribeToTask", "params": {"id": task_id}})
    head = (
        f"POST /a2a HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"A2A-Version: 1.0\r\nAccept: text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    s.sendall(head.encode() + body.encode())
    return s


def answer_of(s: socket.socket) -> bytes:
    s.settimeout(5)
    try:
        return s.recv(4096)
    except OSError:
        return b""


def test_lazy_subscribers_on_a_big_task_are_capped_and_memory_stays_flat(tmp_path):
    n, kb = size(100, 400), size(500, 950)
    proc, url = serve(tmp_path, "--no-grpc")
    port = int(url.rsplit(":", 1)[1])
    sockets: list[socket.socket] = []
    try:
        tid = big_interrupted_task(url, kb)
        time.sleep(1)
        before = rss_mb(proc.pid)
        for _ in range(n):
            sockets.append(lazy_subscriber(port, tid))
        time.sleep(3)
        during = rss_mb(proc.pid)
        answers = [answer_of(s) for s in sockets]
        streams = sum(b"text/event-stream" in a for a in answers)
        refused = sum(b"RESOURCE_EXHAUSTED" in a for a in answers)
        print(
            f"\nF3: {n} lazy SSE subscribers on a {kb} KB task: RSS {before:.0f} MB -> {during:.0f} MB "
            f"(+{during - before:.0f} MB); {streams} streams, {refused} refused"
        )
        assert streams <= MAX_STREAMS_PER_TASK
        assert streams + refused == n, answers[:3]
        assert during - before < 40, f"RSS grew by {during - before:.0f} MB"
        # the server still answers others at once
        assert rpc(url, "GetTask", {"id": tid, "historyLength": 0})["result"]["id"] == tid
    finally:
        for s in sockets:
            s.close()
        stop(proc)
