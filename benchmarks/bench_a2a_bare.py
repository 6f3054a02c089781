"""Benchmark: our A2A server's blocking ``SendMessage`` against its web stack's bare speed
(issue 23, part 2), on each binding, in one run.

Three servers, each in its own subprocess on 127.0.0.1, all three bindings from one process
(JSON-RPC and HTTP+JSON under uvicorn, gRPC on ``grpc.aio`` in the same event loop), started
afresh for each binding (ours keeps every task it answers; a store filled by the bindings
measured before would make the later ones pay for it):

``ours``
    ``create_a2a_app`` with the echo agent (as in ``bench_a2a_server.py``), every default limit
    on (input limits, body budget, service limits, the HTTP guard), served the way
    ``agentproto serve`` serves it (its uvicorn server: head/body deadlines, per-peer cap,
    ``limit_concurrency``).
``relaxed``
    the same app with every limit relaxed (input limits, body budget and service limits raised
    far beyond the load, plain uvicorn without the connection guards): ``ours`` vs ``relaxed``
    is what the limits cost.
``bare``
    no protocol work: a Starlette app on plain uvicorn (the same h11 protocol, the same
    settings as ``relaxed``) that parses the JSON-RPC (or HTTP+JSON) body and answers a
    completed Task of the same shape (ids, timestamp, artifact, history); a bare ``grpc.aio``
    servicer on the official a2a stubs (the same server options as ours) that answers the same
    Task message.

Load: ``wrk`` (1 thread, 8 connections; a Lua ``request()`` makes a fresh messageId per
request, ``response()`` counts answers that are not a completed task echoing the text) for the
HTTP bindings; for gRPC, the grpc.aio load loop of ``bench_a2a_server.py`` (8 concurrent
calls, each answer checked). Before each HTTP round, a few requests go through the checked
Python client of ``bench_a2a_server.py`` too. Rounds alternate the servers (the order rotates
each round), so background noise hits all three alike. Without ``wrk`` the HTTP part is
skipped with a clear status. Reported per binding and server: rps (median of the rounds),
p50/p99 (wrk's, or over all gRPC calls), server CPU per request (``/proc``), and the per-round
ratios ``ours/bare``, ``relaxed/bare``, ``ours/relaxed`` (medians). Target: ``ours/bare ≥ 0.5``.

``--profile DIR`` also runs ``ours`` under cProfile, once per binding, and writes the top-30
functions by cumulative (and by own) time as text to ``DIR/a2a_<binding>.txt``.

    python benchmarks/bench_a2a_bare.py                        # 3 rounds × 8 s per server and binding
    python benchmarks/bench_a2a_bare.py --quick                # 1 round × 1 s
    python benchmarks/bench_a2a_bare.py --profile benchmarks/results/profiles
    python benchmarks/bench_a2a_bare.py --baseline-src /tmp/before   # + ours as of another commit
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
for _p in (str(ROOT), str(HERE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import bench_a2a_server as base  # noqa: E402  (the shared load generator and process helpers)

RESULTS = ROOT / "benchmarks" / "results" / "a2a_bare.json"
KINDS = ("ours", "bare", "relaxed")
#: ``--baseline-src DIR``: ``before`` is ``ours`` from another checkout's ``agentproto`` (e.g.
#: ``git archive <commit> agentproto | tar -x -C DIR``), so before/after is one run too.
BEFORE = "before"
BINDINGS = base.BINDINGS
RPC_PATH = "/a2a"
REST_PATH = "/a2a/rest"
TARGET = 0.5
WRK_MISSING = "skipped: wrk not installed (apt-get install wrk)"

# --------------------------------------------------------------------------- servers


def _relaxed_config() -> Any:
    from agentproto.a2a._service_streams import ServiceLimits
    from agentproto.a2a.server import a2a_config
    from agentproto.limits import Limits

    big = 1 << 30
    config = a2a_config(
        grpc=True,
        max_body_bytes=big,
        input_limits=Limits(
            max_depth=10_000, max_string_chars=big, max_int_digits=4_000, max_items=big, max_parts=big
        ),
    )
    from dataclasses import replace

    relaxed = ServiceLimits(
        max_streams_per_caller=big,
        max_streams_per_task=big,
        max_queued_events=big,
        max_open_tasks_per_caller=big,
        max_list_response_bytes=big,
    )
    return replace(config, service_limits=relaxed)


def _now_iso() -> str:
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def bare_task(message: dict[str, Any]) -> dict[str, Any]:
    """The completed Task ours answers, built by hand: same fields, same shape."""
    task_id, context_id = str(uuid.uuid4()), str(uuid.uuid4())
    text = message["parts"][0]["text"]
    return {
        "id": task_id,
        "contextId": context_id,
        "status": {"state": "TASK_STATE_COMPLETED", "timestamp": _now_iso()},
        "artifacts": [{"artifactId": "echo", "name": "echo", "parts": [{"text": text}]}],
        "history": [
            {
                "messageId": message["messageId"],
                "contextId": context_id,
                "taskId": task_id,
                "role": message["role"],
                "parts": [{"text": text}],
            }
        ],
    }


def bare_app(port: int, grpc_port: int) -> Any:
    """Starlette, no protocol work: parse the body, answer the Task; gRPC in its lifespan."""
    import contextlib

    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    def dumps(obj: Any) -> bytes:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()

    async def rpc(request: Request) -> Response:
        body = json.loads(await request.body())
        task = bare_task(body["params"]["message"])
        out = {"jsonrpc": "2.0", "id": body["id"], "result": {"task": task}}
        return Response(dumps(out), media_type="application/json")

    async def rest(request: Request) -> Response:
        body = json.loads(await request.body())
        return Response(dumps({"task": bare_task(body["message"])}), media_type="application/json")

    async def card(_request: Request) -> Response:
        return JSONResponse(
            {
                "supportedInterfaces": [
                    {"protocolBinding": "JSONRPC", "url": f"http://127.0.0.1:{port}{RPC_PATH}"},
                    {"protocolBinding": "HTTP+JSON", "url": f"http://127.0.0.1:{port}{REST_PATH}"},
                    {"protocolBinding": "GRPC", "url": f"127.0.0.1:{grpc_port}"},
                ]
            }
        )

    @contextlib.asynccontextmanager
    async def lifespan(_app: Any) -> Any:
        server = await bare_grpc_server(grpc_port)
        try:
            yield
        finally:
            await server.stop(0.5)

    return Starlette(
        routes=[
            Route("/.well-known/agent-card.json", card, methods=["GET"]),
            Route(RPC_PATH, rpc, methods=["POST"]),
            Route(REST_PATH + "/message:send", rest, methods=["POST"]),
        ],
        lifespan=lifespan,
    )


async def bare_grpc_server(port: int) -> Any:
    """A bare ``grpc.aio`` servicer on the official stubs: the same Task message, no protocol."""
    import grpc
    from a2a.types import a2a_pb2 as pb
    from a2a.types import a2a_pb2_grpc

    from agentproto.a2a._grpc_server import SERVER_OPTIONS

    class Bare(a2a_pb2_grpc.A2AServiceServicer):
        async def SendMessage(self, request: Any, context: Any) -> Any:
            m = request.message
            task_id, context_id = str(uuid.uuid4()), str(uuid.uuid4())
            task = pb.Task(id=task_id, context_id=context_id)
            task.status.state = pb.TASK_STATE_COMPLETED
            task.status.timestamp.GetCurrentTime()
            art = task.artifacts.add(artifact_id="echo", name="echo")
            art.parts.add(text=m.parts[0].text)
            h = task.history.add(message_id=m.message_id, context_id=context_id, task_id=task_id, role=m.role)
            h.parts.add(text=m.parts[0].text)
            return pb.SendMessageResponse(task=task)

    server = grpc.aio.server(options=list(SERVER_OPTIONS))
    a2a_pb2_grpc.add_A2AServiceServicer_to_server(Bare(), server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    return server


def serve(kind: str, port: int, grpc_port: int, profile: str | None) -> None:
    """The subprocess entry point: run one server until SIGTERM (then write the profile)."""
    import logging

    import uvicorn

    logging.getLogger("a2a").setLevel(logging.ERROR)
    if kind == BEFORE:  # the baseline's agentproto, served exactly as ours
        sys.path.insert(0, os.environ["A2A_BENCH_BASELINE_SRC"])
        kind = "ours"
    plain: dict[str, Any] = {
        "log_level": "warning",
        "access_log": False,
        "lifespan": "on",
        "timeout_keep_alive": 60,
    }
    if kind == "bare":
        server = uvicorn.Server(
            uvicorn.Config(bare_app(port, grpc_port), host="127.0.0.1", port=port, **plain)
        )
    else:
        from agentproto.a2a.server import a2a_config, create_a2a_app

        config = a2a_config(grpc=True) if kind == "ours" else _relaxed_config()
        app = create_a2a_app(config, agent="echo")
        if kind == "ours":  # as `agentproto serve` runs it: its connection limits
            from agentproto.demo.serve import _uvicorn_server

            server = _uvicorn_server(app, config, "warning")
            server.config.host, server.config.port = "127.0.0.1", port
        else:
            server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, **plain))
    profiler = None
    if profile:
        import cProfile
        import signal

        class Stopped(Exception):
            pass

        def stopped(_signum: int, _frame: Any) -> None:
            raise Stopped

        # uvicorn re-raises the SIGTERM it caught after its graceful shutdown: with this
        # handler restored, that ends server.run() with an exception instead of the process
        signal.signal(signal.SIGTERM, stopped)
        profiler = cProfile.Profile()
        # SIGUSR1 starts it, once the server is up and warm (no start-up imports in the profile)
        signal.signal(signal.SIGUSR1, lambda _signum, _frame: profiler.enable())
    try:
        server.run()
    except Exception as exc:
        if profiler is None or type(exc).__name__ != "Stopped":
            raise
    if profiler is not None:
        profiler.disable()
        write_profile(profiler, pathlib.Path(profile))  # type: ignore[arg-type]


def write_profile(profiler: Any, out: pathlib.Path) -> None:
    import io
    import pstats

    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text).strip_dirs()
    text.write("== top 30 by cumulative time\n")
    stats.sort_stats("cumulative").print_stats(30)
    text.write("== top 30 by own time\n")
    stats.sort_stats("tottime").print_stats(30)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text.getvalue())


class Server(base.ServerProcess):
    """One benchmark server (this script's ``--serve``), stopped by its own pid only."""

    def __init__(
        self, kind: str, profile: pathlib.Path | None = None, baseline_src: str | None = None
    ) -> None:
        super().__init__(kind)
        self.profile = profile
        self.baseline_src = baseline_src

    def start(self) -> Server:
        argv = [sys.executable, __file__, "--serve", self.kind, "--port", str(self.port)]
        argv += ["--grpc-port", str(self.grpc_port)]
        if self.profile is not None:
            argv += ["--profile-out", str(self.profile)]
        env = dict(os.environ)
        if self.baseline_src:
            env["A2A_BENCH_BASELINE_SRC"] = self.baseline_src
        self.proc = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT, env=env
        )
        return self

    def cpu_s(self) -> float | None:
        assert self.proc is not None
        return base.process_cpu_s(self.proc.pid)


# --------------------------------------------------------------------------- load

WRK_SCRIPT = r"""
-- globals: done() reads each thread's bad/checked with thread:get()
prefix, binding, path = "id", "jsonrpc", "/"
counter, bad, checked = 0, 0, 0
threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  prefix, binding, path = args[1], args[2], args[3]
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["A2A-Version"] = "1.0"
end

function request()
  counter = counter + 1
  local id = prefix .. "-" .. counter
  local msg = '{"messageId":"' .. id .. '","role":"ROLE_USER","parts":[{"text":"echo ' .. id .. '"}]}'
  local body
  if binding == "jsonrpc" then
    body = '{"jsonrpc":"2.0","id":' .. counter ..
      ',"method":"SendMessage","params":{"message":' .. msg .. '}}'
  else
    body = '{"message":' .. msg .. '}'
  end
  return wrk.format("POST", path, nil, body)
end

function response(status, headers, body)
  checked = checked + 1
  if status ~= 200
    or not string.find(body, '"state":"TASK_STATE_COMPLETED"', 1, true)
    or not string.find(body, '"artifactId":"echo","name":"echo","parts":[{"text":"echo ' ..
                       prefix .. '-', 1, true)
  then
    bad = bad + 1
  end
end

function done(summary, latency, requests)
  local b, c = 0, 0
  for _, t in ipairs(threads) do
    b = b + t:get("bad")
    c = c + t:get("checked")
  end
  local e = summary.errors
  io.write(string.format(
    '\nWRK-JSON {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,' ..
    '"timeout":%d,"p50_us":%d,"p99_us":%d,"bad":%d,"checked":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), b, c))
end
"""


def wrk_round(wrk: str, script: pathlib.Path, binding: str, url: str, seconds: float) -> dict[str, Any]:
    """One wrk run; returns rps, p50/p99 (ms) and the answer check. A wrong answer aborts."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    path = parts.path if binding == "jsonrpc" else parts.path.rstrip("/") + "/message:send"
    prefix = uuid.uuid4().hex[:12]
    argv = [wrk, "-t1", "-c8", f"-d{max(1, round(seconds))}s", "--timeout", "10s", "-s", str(script)]
    argv += [f"http://{parts.netloc}{path}", "--", prefix, binding, path]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 60, check=False)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("WRK-JSON ")), None)
    if proc.returncode != 0 or line is None:
        raise RuntimeError(f"wrk failed ({proc.returncode}): {proc.stdout[-1500:]} {proc.stderr[-1500:]}")
    r = json.loads(line.removeprefix("WRK-JSON "))
    errors = r["connect"] + r["read"] + r["write"] + r["status"] + r["timeout"]
    if r["bad"] or errors or r["checked"] < r["requests"] - 8:
        raise AssertionError(f"{binding}: wrong answers or errors under wrk: {r}")
    return {
        "requests": r["requests"],
        "rps": r["requests"] / (r["duration_us"] / 1e6),
        "p50_ms": r["p50_us"] / 1000,
        "p99_ms": r["p99_us"] / 1000,
    }


def grpc_round(target: str, seconds: float, rps_guess: float) -> tuple[dict[str, Any], list[float]]:
    """A bounded gRPC round: about ``seconds`` at the last measured rate, 8 calls in flight."""
    n = max(50, int(rps_guess * seconds))
    wall, lat = asyncio.run(base.load_grpc(target, n, 8))
    return {"requests": n, "rps": n / wall}, lat


def check_http(binding: str, url: str) -> None:
    """A few requests through the checked Python client: each answer is the right task."""
    asyncio.run(base.load_http(binding, url, 16, 4))


# --------------------------------------------------------------------------- run


def run_binding(
    binding: str,
    servers: dict[str, Server],
    rounds: int,
    seconds: float,
    wrk: str | None,
    script: pathlib.Path,
) -> dict[str, Any]:
    kinds = tuple(servers)
    per: dict[str, dict[str, list[Any]]] = {
        k: {"rps": [], "p50": [], "p99": [], "lat": [], "cpu": []} for k in kinds
    }
    guess = dict.fromkeys(kinds, 500.0)
    # warm-up: each server once, briefly (imports, caches, the first connections)
    for kind in kinds:
        target = servers[kind].targets[binding]
        if binding == "grpc":
            info, _ = grpc_round(target, 0.5, 400)
            guess[kind] = info["rps"]
        else:
            check_http(binding, target)
            assert wrk is not None
            wrk_round(wrk, script, binding, target, 1)
    for r in range(rounds):
        order = kinds[r % len(kinds) :] + kinds[: r % len(kinds)]
        for kind in order:
            target = servers[kind].targets[binding]
            cpu0 = servers[kind].cpu_s()
            if binding == "grpc":
                info, lat = grpc_round(target, seconds, guess[kind])
                guess[kind] = info["rps"]
                per[kind]["lat"] += lat
            else:
                assert wrk is not None
                check_http(binding, target)
                cpu0 = servers[kind].cpu_s()
                info = wrk_round(wrk, script, binding, target, seconds)
                per[kind]["p50"].append(info["p50_ms"])
                per[kind]["p99"].append(info["p99_ms"])
            cpu1 = servers[kind].cpu_s()
            per[kind]["rps"].append(info["rps"])
            if cpu0 is not None and cpu1 is not None:
                per[kind]["cpu"].append((cpu1 - cpu0) / info["requests"] * 1000)
            print(f"  {binding:>7} round {r + 1}/{rounds} {kind:>7}: {info['rps']:8.0f} req/s", flush=True)
    return summarise(per)


def _ratio(per: dict[str, Any], a: str, b: str) -> float:
    return round(statistics.median(x / y for x, y in zip(per[a]["rps"], per[b]["rps"], strict=True)), 3)


def summarise(per: dict[str, dict[str, list[Any]]]) -> dict[str, Any]:
    servers: dict[str, Any] = {}
    for kind, m in per.items():
        s: dict[str, Any] = {
            "requests_per_s": round(statistics.median(m["rps"]), 1),
            "rounds_requests_per_s": [round(x, 1) for x in m["rps"]],
        }
        if m["lat"]:  # gRPC: over every call of every round
            s["p50_ms"] = round(base.percentile(m["lat"], 50) * 1000, 2)
            s["p99_ms"] = round(base.percentile(m["lat"], 99) * 1000, 2)
        else:  # wrk: the median of the rounds' percentiles
            s["p50_ms"] = round(statistics.median(m["p50"]), 2)
            s["p99_ms"] = round(statistics.median(m["p99"]), 2)
        if m["cpu"] and statistics.median(m["cpu"]) > 0:
            s["server_cpu_ms_per_request"] = round(statistics.median(m["cpu"]), 3)
        servers[kind] = s
    out = {
        "servers": servers,
        "ratio_ours_bare": _ratio(per, "ours", "bare"),
        "ratio_relaxed_bare": _ratio(per, "relaxed", "bare"),
        "ratio_ours_relaxed": _ratio(per, "ours", "relaxed"),
    }
    if BEFORE in per:  # the same run's baseline: what this change gained
        out["ratio_before_bare"] = _ratio(per, BEFORE, "bare")
        out["ratio_ours_before"] = _ratio(per, "ours", BEFORE)
    cpu = {k: s.get("server_cpu_ms_per_request") for k, s in servers.items()}
    if cpu["ours"] and cpu["bare"]:
        out["cpu_ratio_bare_ours"] = round(cpu["bare"] / cpu["ours"], 3)
    return out


def profile_run(
    out_dir: pathlib.Path, bindings: list[str], seconds: float, wrk: str | None, script: pathlib.Path
) -> dict[str, str]:
    """``ours`` under cProfile, one server per binding, one round of load each."""
    written = {}
    for binding in bindings:
        if binding != "grpc" and wrk is None:
            continue
        out = out_dir / f"a2a_{binding}.txt"
        server = Server("ours", profile=out).start()
        try:
            server.wait_ready()
            target = server.targets[binding]
            for phase in ("warm-up", "profiled"):
                if phase == "profiled":
                    os.kill(server.proc.pid, signal.SIGUSR1)  # type: ignore[union-attr]
                if binding == "grpc":
                    grpc_round(target, 1 if phase == "warm-up" else seconds, 300)
                else:
                    check_http(binding, target)
                    wrk_round(wrk, script, binding, target, 1 if phase == "warm-up" else seconds)  # type: ignore[arg-type]
        finally:
            server.stop()
        written[binding] = str(out.relative_to(ROOT) if out.is_relative_to(ROOT) else out)
        print(f"  profile of ours on {binding} → {written[binding]}", flush=True)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="one 1 s round per server and binding")
    ap.add_argument("--seconds", type=float, default=None, help="seconds per round (default 8)")
    ap.add_argument("--rounds", type=int, default=None, help="rounds per binding (default 3)")
    ap.add_argument("--bindings", default=",".join(BINDINGS), help="subset of " + ",".join(BINDINGS))
    ap.add_argument("--profile", type=pathlib.Path, default=None, help="also write cProfile text here")
    ap.add_argument("--out", type=pathlib.Path, default=RESULTS, help="where to write JSON")
    ap.add_argument(
        "--baseline-src",
        default=None,
        help="also run 'before': ours from the agentproto package under this directory",
    )
    ap.add_argument("--serve", choices=(*KINDS, BEFORE), help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--grpc-port", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--profile-out", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.serve:
        serve(args.serve, args.port, args.grpc_port, args.profile_out)
        return 0
    bindings = [b for b in args.bindings.split(",") if b]
    if unknown := set(bindings) - set(BINDINGS):
        ap.error(f"unknown binding(s): {sorted(unknown)}")
    seconds = args.seconds or (1.0 if args.quick else 8.0)
    rounds = args.rounds or (1 if args.quick else 3)
    wrk = shutil.which("wrk")
    print(
        f"A2A SendMessage, ours vs bare stack, bindings {', '.join(bindings)}: {rounds} round(s) × "
        f"{seconds:g} s per server, wrk -t1 -c8 ({wrk or 'not installed'}), gRPC 8 in flight, loopback"
    )
    load_before = os.getloadavg()[0]
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="a2a-bare-") as tmp:
        script = pathlib.Path(tmp) / "send_message.lua"
        script.write_text(WRK_SCRIPT)
        kinds = (*KINDS, BEFORE) if args.baseline_src else KINDS
        for binding in bindings:
            if binding != "grpc" and wrk is None:
                results[binding] = {"status": WRK_MISSING}
                print(f"  {binding}: {WRK_MISSING}", flush=True)
                continue
            # Fresh servers for each binding: ours stores every task it answers, and a store
            # that the bindings before filled (tens of thousands of tasks) makes each commit
            # dearer, so the bindings measured later would pay for the ones measured first.
            servers = {kind: Server(kind, baseline_src=args.baseline_src) for kind in kinds}
            try:
                for server in servers.values():
                    server.start()
                for server in servers.values():
                    server.wait_ready()
                results[binding] = {
                    "status": "ok",
                    **run_binding(binding, servers, rounds, seconds, wrk, script),
                }
            finally:
                for server in servers.values():
                    server.stop()
        profiles = profile_run(args.profile, bindings, seconds, wrk, script) if args.profile else {}
    load_after = os.getloadavg()[0]

    from importlib.metadata import version

    measured = {b: r for b, r in results.items() if r["status"] == "ok"}
    report: dict[str, Any] = {
        "benchmark": "a2a_server_vs_bare_stack",
        "workload": "SendMessage (blocking) → one artifact echoing the text → COMPLETED",
        "params": {
            "bindings": bindings,
            "rounds": rounds,
            "seconds_per_round": seconds,
            "http_load": "wrk -t1 -c8, fresh messageId per request (Lua request())",
            "grpc_load": "grpc.aio, 8 calls in flight, one channel",
            "quick": args.quick,
            "baseline_src": args.baseline_src,
        },
        "bindings": results,
        "ratio_ours_bare": min((r["ratio_ours_bare"] for r in measured.values()), default=None),
        "ratio_ours_relaxed": min((r["ratio_ours_relaxed"] for r in measured.values()), default=None),
        "target_ratio": TARGET,
        "profiles": profiles,
        "environment": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load_average_1min": [round(load_before, 2), round(load_after, 2)],
            "wrk": wrk,
            "grpcio": version("grpcio"),
            "uvicorn": version("uvicorn"),
            "starlette": version("starlette"),
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")

    print()
    print(f"{'binding':<9}{'server':<9}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'CPU ms/req':>12}")
    for binding, r in measured.items():
        for kind in r["servers"]:
            s = r["servers"][kind]
            cpu = s.get("server_cpu_ms_per_request", float("nan"))
            print(
                f"{binding:<9}{kind:<9}{s['requests_per_s']:>9.0f}{s['p50_ms']:>9.2f}{s['p99_ms']:>9.2f}{cpu:>12.3f}"
            )
    print()
    for binding, r in results.items():
        if r["status"] != "ok":
            print(f"{binding:<9} {r['status']}")
            continue
        print(
            f"{binding:<9} ours / bare {r['ratio_ours_bare']:.2f}× (target ≥ {TARGET}×), "
            f"relaxed / bare {r['ratio_relaxed_bare']:.2f}×, ours / relaxed {r['ratio_ours_relaxed']:.2f}× "
            "(the limits' cost)"
            + (f", ours / before {r['ratio_ours_before']:.2f}×" if "ratio_ours_before" in r else "")
        )
    where = args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out
    print(f"→ {where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
