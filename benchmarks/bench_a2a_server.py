"""Benchmark: ``SendMessage`` throughput and latency of our A2A server vs the a2a-sdk 1.3.0 server,
on each of the three bindings (JSON-RPC, HTTP+JSON, gRPC).

Both servers run the same trivial agent — one artifact echoing the text, then COMPLETED
(:class:`agentproto.a2a.agents.EchoAgent` and its a2a-sdk twin in
:func:`agentproto.a2a._server_sdk.sdk_echo_app`) — each in its own subprocess under uvicorn with
identical settings, on 127.0.0.1, serving all three bindings from one handler: JSON-RPC and
HTTP+JSON over HTTP, gRPC (grpc.aio) in the same process and event loop. One load generator
(a lean HTTP/1.1 client on asyncio streams for the HTTP bindings — see :func:`load_http` for
why not httpx; grpc.aio with the SDK's generated stubs for gRPC; a fixed number of requests at
a fixed concurrency) drives each server in turn, alternating rounds
``ours, sdk, ours, sdk …`` per binding so that background noise hits both alike. Every answer
is checked (a COMPLETED task with the echoed artifact); a wrong answer aborts the run.

Reported per binding and server: requests per second (median of the rounds) and p50/p99
latency over all rounds; then the throughput ratio ours / sdk — the median of the per-round
ratios, each round measuring both servers back to back. The target is ≥ 1.5 with a p99 no
worse than the SDK's.

Wall-clock numbers on a shared machine move with everything else running there (and the load
generator itself competes for the same cores). So, on Linux, the benchmark also reads each
server process's own CPU time from ``/proc/<pid>/stat`` around every round: **server CPU per
request** is what one request costs the server wherever it runs, and ``1000 / cpu_ms`` is the
throughput one dedicated core would sustain. Both ratios are reported. Results go to
``benchmarks/results/a2a_server.json``.

    python benchmarks/bench_a2a_server.py            # 3 bindings × 3 rounds × 2000 requests, concurrency 16
    python benchmarks/bench_a2a_server.py --quick    # 1 round × 300 requests per binding
    python benchmarks/bench_a2a_server.py --bindings grpc
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import platform
import socket
import statistics
import subprocess
import sys
import time
from typing import Any
from urllib.parse import urlsplit

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # allow running from a checkout without installing
    sys.path.insert(0, str(ROOT))

RESULTS = ROOT / "benchmarks" / "results" / "a2a_server.json"
SERVERS = ("ours", "sdk")
BINDINGS = ("jsonrpc", "rest", "grpc")
RPC_PATH = "/a2a"
SDK_REST_PATH = "/rest"


# --------------------------------------------------------------------------- server side


def serve(kind: str, port: int, grpc_port: int) -> None:
    """Run one server in this process (the subprocess entry point): all three bindings."""
    import logging

    import uvicorn

    logging.getLogger("a2a").setLevel(logging.ERROR)  # the SDK logs every request at INFO
    if kind == "ours":
        from agentproto.a2a.server import create_a2a_app

        app = create_a2a_app(agent="echo", grpc=True)  # gRPC on a free port, named by the card
    else:
        from agentproto.a2a._server_sdk import sdk_echo_app

        app = sdk_echo_app(
            rpc_path=RPC_PATH, url=f"http://127.0.0.1:{port}", rest_path=SDK_REST_PATH, grpc_port=grpc_port
        )
    # keep-alive well above a round's longest pause on a loaded machine: with uvicorn's 5 s
    # default, an idle connection could be closed just as the client reused it (ReadError).
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_keep_alive=60,
    )


def process_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of a process (Linux ``/proc``; ``None`` elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _own_cpu_s() -> float:
    t = os.times()
    return t.user + t.system


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """A benchmark server in a subprocess; stopped by its own pid only."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.port = free_port()
        self.grpc_port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None
        self.targets: dict[str, str] = {}

    def start(self) -> ServerProcess:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--serve",
                self.kind,
                "--port",
                str(self.port),
                "--grpc-port",
                str(self.grpc_port),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=ROOT,
        )
        return self

    def wait_ready(self) -> ServerProcess:
        import httpx

        assert self.proc is not None

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise RuntimeError(f"{self.kind} server exited: {err[-2000:]}")
            try:
                card = httpx.get(self.url + "/.well-known/agent-card.json", timeout=1)
                if card.status_code == 200:
                    # each binding's URL as the card declares it (the client picks by the card)
                    wanted = {"JSONRPC": "jsonrpc", "HTTP+JSON": "rest", "GRPC": "grpc"}
                    for interface in card.json()["supportedInterfaces"]:
                        self.targets[wanted[interface["protocolBinding"]]] = interface["url"]
                    assert set(self.targets) == set(BINDINGS), self.targets
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise TimeoutError(f"{self.kind} server did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self.proc is not None and self.proc.stderr:
            self.proc.stderr.close()


# --------------------------------------------------------------------------- load generator


def _message(i: int) -> dict[str, Any]:
    return {"messageId": f"bench-{i}", "role": "ROLE_USER", "parts": [{"text": f"echo {i}"}]}


def _body(i: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": i, "method": "SendMessage", "params": {"message": _message(i)}}


def _check(i: int, task: dict[str, Any]) -> None:
    if task["status"]["state"] != "TASK_STATE_COMPLETED":
        raise AssertionError(f"request {i}: task not completed: {task['status']}")
    if task["artifacts"][0]["parts"][0]["text"] != f"echo {i}":
        raise AssertionError(f"request {i}: wrong artifact {task['artifacts']}")


#: Transport errors retried per request (a connection the server closed as it was reused);
#: every retry is counted and reported. A wrong answer is never retried: it aborts the run.
RETRIES = 3
retried: dict[str, int] = {"transport_retries": 0}
#: The HTTP load client (``--http-client``): ``raw`` (the lean one) or ``httpx``.
HTTP_CLIENT: dict[str, str] = {"name": "raw"}


async def _drive(n: int, concurrency: int, call: Any, per_worker: Any = None) -> tuple[float, list[float]]:
    """Run ``call(state, i)`` for i in range(n), ``concurrency`` workers at a time, each with its
    own ``state`` (``per_worker()``, e.g. its connection); return (wall s, latencies)."""
    latencies: list[float] = []
    counter = iter(range(n))

    async def worker() -> None:
        state = per_worker() if per_worker else None
        try:
            for i in counter:
                t0 = time.perf_counter()
                await call(state, i)
                latencies.append(time.perf_counter() - t0)
        finally:
            if state:  # an open connection of the lean HTTP client
                state[1].close()

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - start, latencies


async def load_http(binding: str, url: str, n: int, concurrency: int) -> tuple[float, list[float]]:
    """SendMessage over JSON-RPC (``url`` is the RPC endpoint) or HTTP+JSON (the REST base), with
    a lean HTTP/1.1 client: one keep-alive connection per worker, the request written in one
    piece, the answer read by its ``Content-Length`` and checked.

    Why not httpx: on this workload httpx spends about 3.6 ms of client CPU per request, more
    than our server spends answering it (about 1.9 ms). With both sharing two cores, the load
    generator then sets the pace and its own scheduling makes the tail (measured: p99 380 ms
    seen by the client while the server's own time per request had p99 12 ms). This client
    costs about 0.3 ms per request, so the latency measured is the server's. ``--http-client
    httpx`` reruns the benchmark with httpx for comparison."""
    if HTTP_CLIENT["name"] == "httpx":
        return await load_httpx(binding, url, n, concurrency)
    parts = urlsplit(url)
    path = parts.path if binding == "jsonrpc" else parts.path.rstrip("/") + "/message:send"
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/json\r\n"
        "A2A-Version: 1.0\r\n"
    ).encode()
    assert parts.hostname is not None and parts.port is not None

    async def exchange(conn: list[Any], request: bytes) -> tuple[int, bytes]:
        reader, writer = conn
        writer.write(request)
        header = await reader.readuntil(b"\r\n\r\n")
        status, length = int(header[9:12]), None
        for line in header.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        if length is None:
            raise AssertionError(f"answer without Content-Length: {header!r}")
        return status, await reader.readexactly(length)

    async def call_all(conn: list[Any], i: int) -> None:
        body = json.dumps(_body(i) if binding == "jsonrpc" else {"message": _message(i)}).encode()
        request = head + b"Content-Length: %d\r\n\r\n" % len(body) + body
        for attempt in range(RETRIES + 1):
            try:
                if not conn:
                    conn[:] = await asyncio.open_connection(parts.hostname, parts.port)
                status, raw = await exchange(conn, request)
                break
            except (asyncio.IncompleteReadError, ConnectionError):
                if conn:
                    conn[1].close()
                conn.clear()
                if attempt == RETRIES:
                    raise
                retried["transport_retries"] += 1
        data = json.loads(raw)
        if status != 200:
            raise AssertionError(f"request {i}: HTTP {status}: {data}")
        _check(i, data["result"]["task"] if binding == "jsonrpc" else data["task"])

    return await _drive(n, concurrency, call_all, per_worker=list)


async def load_httpx(binding: str, url: str, n: int, concurrency: int) -> tuple[float, list[float]]:
    """The same load with httpx (``--http-client httpx``): see :func:`load_http` for the cost."""
    import httpx

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    headers = {"A2A-Version": "1.0"}
    target = url if binding == "jsonrpc" else url.rstrip("/") + "/message:send"

    async with httpx.AsyncClient(limits=limits, timeout=30.0) as client:

        async def call(_state: None, i: int) -> None:
            body = _body(i) if binding == "jsonrpc" else {"message": _message(i)}
            for attempt in range(RETRIES + 1):
                try:
                    r = await client.post(target, json=body, headers=headers)
                    break
                except (httpx.ReadError, httpx.RemoteProtocolError, httpx.ConnectError):
                    if attempt == RETRIES:
                        raise
                    retried["transport_retries"] += 1
            data = r.json()
            _check(i, data["result"]["task"] if binding == "jsonrpc" else data["task"])

        return await _drive(n, concurrency, call)


async def load_grpc(target: str, n: int, concurrency: int) -> tuple[float, list[float]]:
    """SendMessage over gRPC with the SDK's generated stubs, one channel (HTTP/2 multiplexed)."""
    import grpc
    from a2a.types import a2a_pb2 as pb
    from a2a.types import a2a_pb2_grpc
    from google.protobuf.json_format import MessageToDict, ParseDict

    async with grpc.aio.insecure_channel(target) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        metadata = (("a2a-version", "1.0"),)

        async def call(_state: None, i: int) -> None:
            request = ParseDict({"message": _message(i)}, pb.SendMessageRequest())
            response = await stub.SendMessage(request, metadata=metadata, timeout=30)
            _check(i, MessageToDict(response.task))

        return await _drive(n, concurrency, call)


def load(binding: str, server: ServerProcess, n: int, concurrency: int) -> tuple[float, list[float]]:
    target = server.targets[binding]
    if binding == "grpc":
        return asyncio.run(load_grpc(target, n, concurrency))
    return asyncio.run(load_http(binding, target, n, concurrency))


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


# --------------------------------------------------------------------------- main


def _summarise(per: dict[str, dict[str, Any]], ratios: list[float]) -> dict[str, Any]:
    summary = {}
    for kind in SERVERS:
        lat = per[kind]["latencies"]
        summary[kind] = {
            "requests_per_s": round(statistics.median(per[kind]["rps"]), 1),
            "rounds_requests_per_s": [round(x, 1) for x in per[kind]["rps"]],
            "p50_ms": round(percentile(lat, 50) * 1000, 2),
            "p99_ms": round(percentile(lat, 99) * 1000, 2),
        }
        if per[kind]["cpu_ms"]:
            cpu = statistics.median(per[kind]["cpu_ms"])
            summary[kind]["server_cpu_ms_per_request"] = round(cpu, 3)
            summary[kind]["one_core_capacity_per_s"] = round(1000 / cpu, 1) if cpu else None
        # the load generator's own CPU per request: well under the server's, or it sets the pace
        summary[kind]["client_cpu_ms_per_request"] = round(statistics.median(per[kind]["client_cpu_ms"]), 3)
    out: dict[str, Any] = {
        "servers": summary,
        "throughput_ratio": round(statistics.median(ratios), 2),
        "round_ratios": [round(x, 2) for x in ratios],
        "p99_ours_le_sdk": summary["ours"]["p99_ms"] <= summary["sdk"]["p99_ms"],
    }
    if per["ours"]["cpu_ms"] and per["sdk"]["cpu_ms"]:
        # CPU time is read in clock ticks (10 ms): a short run can measure 0 for one side, and
        # then the ratio is left out, not divided by zero
        ours_cpu = statistics.median(per["ours"]["cpu_ms"])
        sdk_cpu = statistics.median(per["sdk"]["cpu_ms"])
        if ours_cpu and sdk_cpu:
            out["cpu_capacity_ratio"] = round(sdk_cpu / ours_cpu, 2)
    return out


def run(bindings: list[str], requests: int, concurrency: int, rounds: int, warmup: int) -> dict[str, Any]:
    servers = {kind: ServerProcess(kind) for kind in SERVERS}
    results: dict[str, Any] = {}
    try:
        for server in servers.values():  # start both, then wait: the imports overlap
            server.start()
        for server in servers.values():
            server.wait_ready()
        for binding in bindings:
            per: dict[str, dict[str, Any]] = {
                k: {"rps": [], "latencies": [], "cpu_ms": [], "client_cpu_ms": []} for k in SERVERS
            }
            ratios: list[float] = []
            for kind in SERVERS:
                load(binding, servers[kind], warmup, concurrency)
            for r in range(rounds):
                for kind in SERVERS:
                    pid = servers[kind].proc.pid  # type: ignore[union-attr]
                    cpu0, own0 = process_cpu_s(pid), _own_cpu_s()
                    wall, lat = load(binding, servers[kind], requests, concurrency)
                    cpu1, own1 = process_cpu_s(pid), _own_cpu_s()
                    per[kind]["client_cpu_ms"].append((own1 - own0) / requests * 1000)
                    per[kind]["rps"].append(requests / wall)
                    per[kind]["latencies"] += lat
                    cpu_note = ""
                    if cpu0 is not None and cpu1 is not None:
                        per[kind]["cpu_ms"].append((cpu1 - cpu0) / requests * 1000)
                        cpu_note = f", server CPU {per[kind]['cpu_ms'][-1]:.2f} ms/request"
                    print(
                        f"  {binding:>7} round {r + 1}/{rounds} {kind:>4}: "
                        f"{requests / wall:8.0f} req/s{cpu_note}",
                        flush=True,
                    )
                ratios.append(per["ours"]["rps"][-1] / per["sdk"]["rps"][-1])
            results[binding] = _summarise(per, ratios)
    finally:
        for server in servers.values():
            server.stop()
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="one small round per binding (seconds)")
    ap.add_argument("--requests", type=int, default=None, help="requests per round per server")
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument(
        "--bindings", default=",".join(BINDINGS), help="comma-separated subset of " + ",".join(BINDINGS)
    )
    ap.add_argument(
        "--http-client",
        choices=("raw", "httpx"),
        default="raw",
        help="HTTP load client: the lean one (default) or httpx (its own CPU sets the tail)",
    )
    ap.add_argument("--out", type=pathlib.Path, default=RESULTS, help="where to write JSON")
    ap.add_argument("--serve", choices=SERVERS, help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--grpc-port", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.serve:
        serve(args.serve, args.port, args.grpc_port)
        return 0
    bindings = [b for b in args.bindings.split(",") if b]
    if unknown := set(bindings) - set(BINDINGS):
        ap.error(f"unknown binding(s): {sorted(unknown)}")

    HTTP_CLIENT["name"] = args.http_client
    requests = args.requests or (300 if args.quick else 2000)
    rounds = args.rounds or (1 if args.quick else 3)
    warmup = min(100, requests)
    print(
        f"A2A SendMessage, echo agent, bindings {', '.join(bindings)}: {rounds} round(s) × {requests} "
        f"requests, concurrency {args.concurrency}, loopback"
    )
    load_before = os.getloadavg()[0]
    result = run(bindings, requests, args.concurrency, rounds, warmup)
    load_after = os.getloadavg()[0]

    from importlib.metadata import version

    report = {
        "benchmark": "a2a_server_send_message",
        "workload": "SendMessage (blocking) → one artifact echoing the text → COMPLETED",
        "params": {
            "bindings": bindings,
            "requests_per_round": requests,
            "rounds": rounds,
            "concurrency": args.concurrency,
            "http_client": args.http_client,
            "warmup": warmup,
            "quick": args.quick,
        },
        "bindings": result,
        # the headline figures: the worst binding (every binding must meet the target)
        "throughput_ratio": min(r["throughput_ratio"] for r in result.values()),
        "p99_ours_le_sdk": all(r["p99_ours_le_sdk"] for r in result.values()),
        **retried,
        "target_ratio": 1.5,
        "environment": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            # Other work on the machine skews both servers; the paired ratio
            # is the robust number, absolute req/s are only comparable here.
            "load_average_1min": [round(load_before, 2), round(load_after, 2)],
            "a2a-sdk": version("a2a-sdk"),
            "grpcio": version("grpcio"),
            "uvicorn": version("uvicorn"),
            "starlette": version("starlette"),
        },
    }
    if all("cpu_capacity_ratio" in r for r in result.values()):
        report["cpu_capacity_ratio"] = min(r["cpu_capacity_ratio"] for r in result.values())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")

    print()
    print(f"{'binding':<9}{'server':<8}{'req/s':>10}{'p50 ms':>10}{'p99 ms':>10}", end="")
    print(f"{'CPU ms/req':>12}{'1-core req/s':>14}{'load CPU ms/req':>17}")
    for binding, r in result.items():
        for kind in SERVERS:
            s = r["servers"][kind]
            cpu = s.get("server_cpu_ms_per_request")
            cap = s.get("one_core_capacity_per_s")
            print(
                f"{binding:<9}{kind:<8}{s['requests_per_s']:>10.0f}{s['p50_ms']:>10.2f}{s['p99_ms']:>10.2f}"
                f"{cpu if cpu is not None else float('nan'):>12.3f}"
                f"{cap if cap is not None else float('nan'):>14.0f}"
                f"{s['client_cpu_ms_per_request']:>17.3f}"
            )
    print()
    for binding, r in result.items():
        cpu = f", server CPU ratio {r['cpu_capacity_ratio']:.2f}×" if "cpu_capacity_ratio" in r else ""
        print(
            f"{binding:<9} throughput ours / a2a-sdk {r['throughput_ratio']:.2f}× (target ≥ 1.5×), "
            f"p99 no worse than the SDK's: {'yes' if r['p99_ours_le_sdk'] else 'NO'}{cpu}"
        )
    where = args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out
    print(f"→ {where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
