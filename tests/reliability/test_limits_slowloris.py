"""Finding F6 against a real ``agentproto serve``: slow heads, slow bodies and idle connections on
both ports. Before the fix uvicorn and grpc held every such connection open for as long as the
attacker liked (900/900 after 40 s), and under ``ulimit -n 1024`` normal clients timed out.
Now a head must be complete within ``--header-timeout``, a body within ``--body-timeout``
(``408`` and close), one address holds at most ``--max-connections-per-peer`` connections
(``429`` + ``Retry-After``), and the gRPC port drops connections that never finish the HTTP/2
handshake. Bounded: 50 attacking connections for a few seconds, on loopback."""

from __future__ import annotations

import socket
import time

import httpx
import pytest

from tests.reliability.sizes import size
from tests.reliability.test_streams_memory import serve, stop

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


def _open(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.setblocking(False)
    return s


def _closed_by_server(s: socket.socket) -> bytes | None:
    """What the server sent before closing (``b""`` for a bare close), or None if still open."""
    got = b""
    while True:
        try:
            chunk = s.recv(4096)
        except BlockingIOError:
            return None
        except OSError:  # reset
            return got
        if not chunk:
            return got
        got += chunk


def _drip(s: socket.socket, data: bytes) -> None:
    try:
        s.send(data)
    except OSError:
        pass  # closed by the server meanwhile


def test_slow_heads_and_bodies_are_cut_off_and_a_normal_client_is_served(tmp_path):
    heads, bodies = size(40, 400), size(10, 100)
    proc, url = serve(tmp_path, "--no-grpc", "--header-timeout", "1", "--body-timeout", "2")
    port = int(url.rsplit(":", 1)[1])
    attackers: list[tuple[socket.socket, str]] = []
    try:
        for _ in range(heads):
            s = _open(port)
            _drip(s, b"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            attackers.append((s, "head"))
        for _ in range(bodies):
            s = _open(port)
            _drip(
                s,
                b"POST /a2a HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: 100000\r\n\r\n{",
            )
            attackers.append((s, "body"))
        outcome: dict[int, bytes] = {}
        served = 0
        deadline = time.monotonic() + 12
        while time.monotonic() < deadline and len(outcome) < len(attackers):
            for n, (s, kind) in enumerate(attackers):
                if n in outcome:
                    continue
                got = _closed_by_server(s)
                if got is not None:
                    outcome[n] = got
                else:  # keep the attack going: one more byte of head or body
                    _drip(s, b"X-a: b\r\n" if kind == "head" else b" ")
            r = httpx.get(url + "/.well-known/agent-card.json", timeout=10)
            served += r.status_code == 200
            time.sleep(0.5)
        still_open = len(attackers) - len(outcome)
        print(
            f"\nF6: {len(attackers)} slow connections: {still_open} still open; {served} normal GETs served"
        )
        assert still_open == 0
        assert served >= 1
        for n, got in outcome.items():
            kind = attackers[n][1]
            assert got == b"" or got.startswith(b"HTTP/1.1 408"), (kind, got[:80])
        assert any(got.startswith(b"HTTP/1.1 408") for got in outcome.values())
    finally:
        for s, _ in attackers:
            s.close()
        stop(proc)


def test_one_address_gets_429_beyond_its_connection_cap(tmp_path):
    proc, url = serve(tmp_path, "--no-grpc", "--max-connections-per-peer", "5")
    port = int(url.rsplit(":", 1)[1])
    held = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(5)]
    try:
        extra = socket.create_connection(("127.0.0.1", port), timeout=5)
        extra.settimeout(5)
        answer = extra.recv(4096)
        extra.close()
        assert answer.startswith(b"HTTP/1.1 429") and b"retry-after: 5" in answer.lower()
        for s in held:
            s.close()
        time.sleep(0.5)  # freed: served again
        assert httpx.get(url + "/.well-known/agent-card.json", timeout=10).status_code == 200
    finally:
        for s in held:
            s.close()
        stop(proc)


def test_idle_connections_to_the_grpc_port_are_dropped(tmp_path):
    pytest.importorskip("grpc")
    proc, url = serve(tmp_path)
    try:
        card = httpx.get(url + "/.well-known/agent-card.json", timeout=10).json()
        target = next(i["url"] for i in card["supportedInterfaces"] if i["protocolBinding"] == "GRPC")
        host, port = target.rsplit(":", 1)
        idle = [_open(int(port)) for _ in range(size(10, 200))]  # no HTTP/2 preface, ever
        deadline = time.monotonic() + 20  # the handshake timeout is 5 s
        open_ = idle
        while open_ and time.monotonic() < deadline:
            time.sleep(0.5)
            open_ = [s for s in open_ if _closed_by_server(s) is None]
        print(f"\nF6: {len(idle)} idle gRPC connections: {len(open_)} still open")
        assert open_ == []
        assert httpx.get(url + "/.well-known/agent-card.json", timeout=10).status_code == 200
        for s in idle:
            s.close()
    finally:
        stop(proc)
