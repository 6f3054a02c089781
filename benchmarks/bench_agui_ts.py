"""Benchmark (optional): our consumer pipeline vs the official TypeScript consumer, @ag-ui/client.

The TypeScript side is ``HttpAgent.runAgent()`` from ``@ag-ui/client`` 1.0.0 under Node.js, fed
the capture through a replaced ``fetch`` (no socket): SSE parsing, ``JSON.parse``, the
compatibility boundary, zod enforcement, chunk expansion, verification and
``defaultApplyEvents`` — the official client's whole consumer path
(``benchmarks/ts/consumer.mjs``). Ours is ``Pipeline.feed_bytes`` on the same bytes. Both
streams of the other AG-UI benchmarks are measured (the mixed one of
:mod:`bench_agui_pipeline` and the patch-heavy one of :mod:`bench_agui_patch_stream`), each
side for ``--repeat`` rounds after a warm-up, CPU time of each process; the ratio is
ours / TypeScript in events per second (medians), also given against Node's wall time (its
CPU time includes the garbage collector's and the JIT's threads). The official Python SDK's bare parse is
measured alongside, as in the other benchmarks.

The TypeScript consumer's cost per event grows with the conversation (its reducer copies the
message list as it goes), so its rate depends on the stream's length: the result records
the size, and comparisons only hold at the same size.

Skipped — not failed — when ``node`` is missing or the npm package is not installed. The
package is installed outside the checkout, under ``$AGENTPROTO_TS_BENCH_DIR`` (default
``/tmp/agentproto-ts-bench``), and only when asked::

    python benchmarks/bench_agui_ts.py --install     # npm install @ag-ui/client@1.0.0 there
    python benchmarks/bench_agui_ts.py               # 5 000 events per stream
    python benchmarks/bench_agui_ts.py --quick       # 1 000 events, one round
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import bench_agui_patch_stream as patch_stream  # noqa: E402
import bench_agui_pipeline as common  # noqa: E402

ROOT = common.ROOT
RESULTS = ROOT / "benchmarks" / "results" / "agui_ts.json"
CONSUMER = HERE / "ts" / "consumer.mjs"
PACKAGE = "@ag-ui/client@1.0.0"
DEFAULT_DIR = pathlib.Path(os.environ.get("AGENTPROTO_TS_BENCH_DIR", "/tmp/agentproto-ts-bench"))


def node_modules(directory: pathlib.Path = DEFAULT_DIR) -> pathlib.Path | None:
    """The node_modules holding @ag-ui/client, or None."""
    nm = directory / "node_modules"
    return nm if (nm / "@ag-ui" / "client" / "package.json").is_file() else None


def why_skipped(directory: pathlib.Path = DEFAULT_DIR) -> str | None:
    """None when the TypeScript side can run, else the reason it cannot."""
    if shutil.which("node") is None:
        return "node is not installed"
    if node_modules(directory) is None:
        return f"{PACKAGE} is not installed under {directory} (python benchmarks/bench_agui_ts.py --install)"
    return None


def install(directory: pathlib.Path = DEFAULT_DIR) -> None:
    """``npm install`` the official client under *directory* (never inside the checkout)."""
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm is not installed")
    directory.mkdir(parents=True, exist_ok=True)
    if not (directory / "package.json").exists():
        (directory / "package.json").write_text('{"private": true}\n', encoding="utf-8")
    subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--prefix", str(directory), PACKAGE],
        check=True,
        timeout=600,
    )


def run_ts(nm: pathlib.Path, capture: pathlib.Path, repeat: int, timeout: float) -> dict[str, Any]:
    out = subprocess.run(
        ["node", str(CONSUMER), str(nm), str(capture), str(repeat)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(f"the TypeScript consumer failed: {out.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def measure_stream(
    name: str, events: list[dict[str, Any]], repeat: int, nm: pathlib.Path, timeout: float
) -> dict[str, Any]:
    data, payloads = common.encode(events)
    with tempfile.TemporaryDirectory() as tmp:
        capture = pathlib.Path(tmp) / f"{name}.sse"
        capture.write_bytes(data)
        ts = run_ts(nm, capture, repeat, timeout)
    validate = common.official_validator()
    common.run_ours(data)  # warm-up, as the TypeScript side gets one
    ours_s, official_s, summary = [], [], {}
    for _ in range(repeat):
        elapsed, summary = common.run_ours(data)
        ours_s.append(elapsed)
        official_s.append(common.run_official(payloads, validate))
    n = len(events)
    ts_cpu = statistics.median(r["cpu_s"] for r in ts["rounds"])
    ts_wall = statistics.median(r["wall_s"] for r in ts["rounds"])
    ours = statistics.median(ours_s)
    official = statistics.median(official_s)
    if ts["messages"] != summary["messages"]:
        raise RuntimeError(
            f"{name}: the consumers disagree on the messages "
            f"(ours {summary['messages']}, TypeScript {ts['messages']})"
        )
    return {
        "events": n,
        "bytes": len(data),
        "ours": {"cpu_s_median": round(ours, 4), "events_per_s": round(n / ours)},
        "typescript": {
            "cpu_s_median": round(ts_cpu, 4),
            "wall_s_median": round(ts_wall, 4),
            "events_per_s": round(n / ts_cpu),
            "node": ts["node"],
        },
        "official_python_parse": {"cpu_s_median": round(official, 4), "events_per_s": round(n / official)},
        "ratio_ours_vs_typescript": round(ts_cpu / ours, 2),
        # Node's CPU time includes its helper threads (GC, JIT); against its wall time
        # instead (ours is one thread, CPU ≤ wall) the comparison leans towards TypeScript.
        "ratio_ours_vs_typescript_wall": round(ts_wall / ours, 2),
        "ratio_typescript_vs_python_sdk_parse": round(official / ts_cpu, 3),
        "result_check": {
            "messages": summary["messages"],
            "state_todos": summary["state_todos"],
            "typescript_state_todos": ts["state_todos"],
        },
    }


def run(
    n_events: int = 5000,
    repeat: int = 3,
    write: bool = True,
    timeout: float = 600,
    directory: pathlib.Path = DEFAULT_DIR,
    out: pathlib.Path = RESULTS,
) -> dict[str, Any]:
    """Run both streams; a result with ``skipped`` when the TypeScript side is unavailable."""
    result: dict[str, Any] = {
        "benchmark": "agui_ts",
        "package": PACKAGE,
        "repeat": repeat,
        "clock": "CPU time of each process (process.cpuUsage / time.process_time), medians of the rounds",
    }
    reason = why_skipped(directory)
    if reason is not None:
        result["skipped"] = reason
    else:
        nm = node_modules(directory)
        assert nm is not None
        start = time.monotonic()
        result["streams"] = {
            "mixed": measure_stream("mixed", common.build_stream(n_events), repeat, nm, timeout),
            "patch_heavy": measure_stream(
                "patch_heavy", patch_stream.build_stream(n_events), repeat, nm, timeout
            ),
        }
        result["seconds"] = round(time.monotonic() - start, 1)
    if write:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=5000, help="events per stream")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="1 000 events, one round")
    ap.add_argument("--install", action="store_true", help=f"npm install {PACKAGE} under {DEFAULT_DIR} first")
    ap.add_argument("--no-write", action="store_true", help="do not write the JSON results")
    ap.add_argument("--out", type=pathlib.Path, default=RESULTS, help="where to write JSON")
    args = ap.parse_args(argv)
    if args.install:
        install()
    n, repeat = (1000, 1) if args.quick else (args.events, args.repeat)
    r = run(n, repeat, write=not args.no_write, out=args.out)
    if "skipped" in r:
        print(f"TypeScript comparison skipped: {r['skipped']}")
        return 0
    for name, s in r["streams"].items():
        print(
            f"{name}: {s['events']:,} events — ours {s['ours']['events_per_s']:,}/s, "
            f"@ag-ui/client {s['typescript']['events_per_s']:,}/s, "
            f"Python SDK parse {s['official_python_parse']['events_per_s']:,}/s; "
            f"ours / TypeScript = {s['ratio_ours_vs_typescript']}×"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
