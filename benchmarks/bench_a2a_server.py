"""Benchmark: ``SendMessage`` throughput and latency of our A2A server vs the a2a-sdk 1.3.0 server.

Both servers run the same trivial agent — one artifact echoing the text, then COMPLETED
(:class:`agentproto.a2a.agents.EchoAgent` and its a2a-sdk twin in
:func:`agentproto.a2a.sdk_bridge.sdk_echo_app`) — each in its own subprocess under uvicorn with
identical settings, on 127.0.0.1. One load generator (httpx, async, a fixed number of requests
at a fixed concurrency) drives each server in turn, alternating rounds ``ours, sdk, ours, sdk …``
so that background noise hits both alike. Every answer is checked (a JSON-RPC result holding a
COMPLETED task with the echoed artifact); a wrong answer aborts the run.

Reported per server: requests per second (median of the rounds) and p50/p99 latency over all
rounds; then the throughput ratio ours / sdk — the median of the per-round ratios, each round
measuring both servers back to back, so a burst of load from elsewhere on the machine skews a
pair less than it skews two separate medians. The target is ≥ 1.5.

Wall-clock numbers on a shared machine move with everything else running there (and the load
generator itself competes for the same cores). So, on Linux, the benchmark also reads each
server process's own CPU time from ``/proc/<pid>/stat`` around every round: **server CPU per
request** is what one request costs the server wherever it runs, and ``1000 / cpu_ms`` is the
throughput one dedicated core would sustain. Both ratios are reported. Results go to
``benchmarks/results/a2a_server.json``.

    python benchmarks/bench_a2a_server.py            # 3 rounds × 2000 requests, concurrency 16
    python benchmarks/bench_a2a_server.py --quick    # 1 round × 300 requests, a few seconds
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

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # allow running from a checkout without installing
    sys.path.insert(0, str(ROOT))

RESULTS = ROOT / "benchmarks" / "results" / "a2a_server.json"
SERVERS = ("ours", "sdk")
RPC_PATH = "/a2a"


# --------------------------------------------------------------------------- server side


def serve(kind: str, port: int) -> None:
    """Run one server in this process (the subprocess entry point)."""
    import logging

    import uvicorn

    logging.getLogger("a2a").setLevel(logging.ERROR)  # the SDK logs every request at INFO
    if kind == "ours":
        from agentproto.a2a.server import create_a2a_app

        app = create_a2a_app(agent="echo")
    else:
        from agentproto.a2a.sdk_bridge import sdk_echo_app

        app = sdk_echo_app(rpc_path=RPC_PATH, url=f"http://127.0.0.1:{port}")
    # keep-alive well above a round's longest pause on a loaded machine: with uvicorn's 5 s
    # default, an idle connection could be closed just as the client reused it (ReadError).
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="on" if kind == "ours" else "auto",
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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """A benchmark server in a subprocess; stopped by its own pid only."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def start(self) -> ServerProcess:
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", self.kind, "--port", str(self.port)],
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
                if httpx.get(self.url + "/.well-known/agent-card.json", timeout=1).status_code == 200:
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


def _body(i: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": i,
        "method": "SendMessage",
        "params": {
            "message": {"messageId": f"bench-{i}", "role": "ROLE_USER", "parts": [{"text": f"echo {i}"}]}
        },
    }


def _check(i: int, data: Any) -> None:
    task = data["result"]["task"]
    if task["status"]["state"] != "TASK_STATE_COMPLETED":
        raise AssertionError(f"request {i}: task not completed: {task['status']}")
    if task["artifacts"][0]["parts"][0]["text"] != f"echo {i}":
        raise AssertionError(f"request {i}: wrong artifact {task['artifacts']}")


#: Transport errors retried per request (a connection the server closed as it was reused);
#: every retry is counted and reported. A wrong answer is never retried: it aborts the run.
RETRIES = 3
retried: dict[str, int] = {"transport_retries": 0}


async def load(url: str, n: int, concurrency: int) -> tuple[float, list[float]]:
    """Send ``n`` SendMessage requests, ``concurrency`` at a time; return (wall s, latencies)."""
    import httpx

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    headers = {"A2A-Version": "1.0"}
    latencies: list[float] = []
    counter = iter(range(n))

    async with httpx.AsyncClient(limits=limits, timeout=30.0) as client:

        async def post(i: int) -> httpx.Response:
            for attempt in range(RETRIES + 1):
                try:
                    return await client.post(url + RPC_PATH, json=_body(i), headers=headers)
                except (httpx.ReadError, httpx.RemoteProtocolError, httpx.ConnectError):
                    if attempt == RETRIES:
                        raise
                    retried["transport_retries"] += 1
            raise AssertionError("unreachable")

        async def worker() -> None:
            for i in counter:
                t0 = time.perf_counter()
                r = await post(i)
                latencies.append(time.perf_counter() - t0)
                _check(i, r.json())

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        wall = time.perf_counter() - start
    return wall, latencies


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


# --------------------------------------------------------------------------- main


def run(requests: int, concurrency: int, rounds: int, warmup: int) -> dict[str, Any]:
    per: dict[str, dict[str, Any]] = {k: {"rps": [], "latencies": [], "cpu_ms": []} for k in SERVERS}
    ratios: list[float] = []
    servers = {kind: ServerProcess(kind) for kind in SERVERS}
    try:
        for server in servers.values():  # start both, then wait: the imports overlap
            server.start()
        for server in servers.values():
            server.wait_ready()
        urls = {kind: server.url for kind, server in servers.items()}
        for kind in SERVERS:
            asyncio.run(load(urls[kind], warmup, concurrency))
        for r in range(rounds):
            for kind in SERVERS:
                pid = servers[kind].proc.pid  # type: ignore[union-attr]
                cpu0 = process_cpu_s(pid)
                wall, lat = asyncio.run(load(urls[kind], requests, concurrency))
                cpu1 = process_cpu_s(pid)
                per[kind]["rps"].append(requests / wall)
                per[kind]["latencies"] += lat
                cpu_note = ""
                if cpu0 is not None and cpu1 is not None:
                    per[kind]["cpu_ms"].append((cpu1 - cpu0) / requests * 1000)
                    cpu_note = f", server CPU {per[kind]['cpu_ms'][-1]:.2f} ms/request"
                print(
                    f"  round {r + 1}/{rounds} {kind:>4}: {requests / wall:8.0f} req/s{cpu_note}", flush=True
                )
            ratios.append(per["ours"]["rps"][-1] / per["sdk"]["rps"][-1])
    finally:
        for server in servers.values():
            server.stop()
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
    out = {
        "servers": summary,
        "throughput_ratio": round(statistics.median(ratios), 2),
        "round_ratios": [round(x, 2) for x in ratios],
        **retried,
    }
    if per["ours"]["cpu_ms"] and per["sdk"]["cpu_ms"]:
        out["cpu_capacity_ratio"] = round(
            statistics.median(per["sdk"]["cpu_ms"]) / statistics.median(per["ours"]["cpu_ms"]), 2
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="one small round (a few seconds)")
    ap.add_argument("--requests", type=int, default=None, help="requests per round per server")
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--out", type=pathlib.Path, default=RESULTS, help="where to write JSON")
    ap.add_argument("--serve", choices=SERVERS, help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.serve:
        serve(args.serve, args.port)
        return 0

    requests = args.requests or (300 if args.quick else 2000)
    rounds = args.rounds or (1 if args.quick else 3)
    warmup = min(100, requests)
    print(
        f"A2A SendMessage, echo agent: {rounds} round(s) × {requests} requests, "
        f"concurrency {args.concurrency}, loopback"
    )
    load_before = os.getloadavg()[0]
    result = run(requests, args.concurrency, rounds, warmup)
    load_after = os.getloadavg()[0]

    from importlib.metadata import version

    import a2a  # noqa: F401  - only to record its version

    report = {
        "benchmark": "a2a_server_send_message",
        "workload": "SendMessage (blocking) → one artifact echoing the text → COMPLETED",
        "params": {
            "requests_per_round": requests,
            "rounds": rounds,
            "concurrency": args.concurrency,
            "warmup": warmup,
            "quick": args.quick,
        },
        **result,
        "target_ratio": 1.5,
        "environment": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            # Other work on the machine skews both servers; the paired ratio
            # is the robust number, absolute req/s are only comparable here.
            "load_average_1min": [round(load_before, 2), round(load_after, 2)],
            "a2a-sdk": version("a2a-sdk"),
            "uvicorn": version("uvicorn"),
            "starlette": version("starlette"),
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")

    print()
    print(f"{'server':<8}{'req/s':>10}{'p50 ms':>10}{'p99 ms':>10}{'CPU ms/req':>12}{'1-core req/s':>14}")
    for kind in SERVERS:
        s = result["servers"][kind]
        cpu = s.get("server_cpu_ms_per_request")
        cap = s.get("one_core_capacity_per_s")
        print(
            f"{kind:<8}{s['requests_per_s']:>10.0f}{s['p50_ms']:>10.2f}{s['p99_ms']:>10.2f}"
            f"{cpu if cpu is not None else float('nan'):>12.3f}"
            f"{cap if cap is not None else float('nan'):>14.0f}"
        )
    where = args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out
    print(
        f"\nthroughput ratio ours / a2a-sdk (paired rounds, wall clock): "
        f"{result['throughput_ratio']:.2f}× (target ≥ 1.5×)"
    )
    if "cpu_capacity_ratio" in result:
        print(
            f"server CPU per request, a2a-sdk / ours (one-core capacity ratio): "
            f"{result['cpu_capacity_ratio']:.2f}×"
        )
    print(f"→ {where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
