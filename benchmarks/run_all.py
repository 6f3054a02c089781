"""Run every benchmark side by side with the official SDKs; write the results and a summary.

``make bench`` runs this. Each benchmark runs in its own subprocess, bounded by a timeout
(and the whole run by ``--max-minutes``), on loopback only (the A2A servers bind 127.0.0.1;
the AG-UI benchmarks open no socket), and measures agentproto against the official SDK *in
the same run*:

=====================  ======================================================  ===========
benchmark              ours vs official                                        target
=====================  ======================================================  ===========
``agui_pipeline``      whole consumer pipeline vs ``TypeAdapter(Event)``        ≥ 1.0
                       ``.validate_json`` per frame (ag-ui-protocol), mixed
                       stream
``agui_patch_stream``  the same on a patch-heavy stream (a 2-op STATE_DELTA    ≥ 1.0
                       every 27 events)
``agui_lint``          ``agentproto lint`` (the CLI, in process) on a 200 000-  ≥ 0.5
                       event capture vs ``TypeAdapter(Event).validate_json``
                       per frame of the same capture
``startup``            ``agentproto lint`` of a 2-event file vs a cold import  ≤ 1.0
                       of ``ag_ui.core.Event`` + ``TypeAdapter(Event)``
``startup_base``       the same in another interpreter (``--base-python``,     ≤ 1.0
                       e.g. a base install without the dev extras)
``serve_start``        ``agentproto serve`` until its card answers, and        ≤ 1.5 s,
                       importing the A2A clients, vs ``python -c pass``         ≤ 0.5 s
``a2a_server``         SendMessage throughput vs the a2a-sdk server on each    ≥ 1.5, p99
                       binding (JSON-RPC, HTTP+JSON, gRPC); the worst counts   no worse
``a2a_bare``           blocking SendMessage of ours vs a bare Starlette/       ≥ 0.5
                       grpc.aio server answering the same Task (no protocol
                       work), wrk for HTTP; also default vs relaxed limits
                       (skipped per binding without wrk)
``agui_ts``            the pipeline vs @ag-ui/client's consumer under Node     (report)
                       (optional: skipped without node and the npm package)
``memory``             resident memory (RSS and Python heap) per open AG-UI    (report)
                       run, per consumer, per live A2A task and per history
                       item; the worst case each stated limit allows
=====================  ======================================================  ===========

Results go to ``<out-dir>/run_all.json`` — the machine (CPU count, platform, Python, load),
the package versions, the command, each benchmark's status, its own JSON and the ratios —
and ``<out-dir>/summary.txt``, a short table. Each benchmark also leaves its own JSON in
``<out-dir>``. ``--out-dir`` defaults to ``benchmarks/results``; with ``--quick`` (tiny sizes,
one round: for smoke tests, the numbers mean nothing) it defaults to a fresh temporary
directory so that a quick run never overwrites real results.

    python benchmarks/run_all.py                          # everything, a few minutes
    python benchmarks/run_all.py --quick --only agui_pipeline,startup
    python benchmarks/run_all.py --base-python /tmp/base/bin/python

Exit status: 0 when every benchmark ran (or was skipped), 1 when one failed or timed out.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_OUT = HERE / "results"
PACKAGES = (
    "agentproto",
    "pydantic",
    "pydantic-core",
    "ag-ui-protocol",
    "a2a-sdk",
    "jsonpatch",
    "jsonschema",
    "uvicorn",
    "starlette",
    "sse-starlette",
    "httpx",
)


@dataclass(frozen=True)
class Bench:
    name: str
    script: str
    full: tuple[str, ...]  # arguments of a real run
    quick: tuple[str, ...]  # arguments of a smoke run
    timeout_full: float
    timeout_quick: float
    ratios: Callable[[dict[str, Any]], dict[str, Any]]
    target: str


def _pipeline_ratios(r: dict[str, Any]) -> dict[str, Any]:
    return {
        "ratio": r["ratio"],
        "ratio_median": r["ratio_median"],
        "ours_events_per_s": r["ours"]["events_per_s"],
        "official_events_per_s": r["official"]["events_per_s"],
        "events": r["events"],
    }


def _startup_ratios(r: dict[str, Any]) -> dict[str, Any]:
    res = r["results"]
    return {
        "ratio_cpu": r["ratio_cpu"],
        "ratio_wall": r["ratio_wall"],
        "lint_cpu_s": res["lint"]["cpu_s_median"],
        "sdk_cpu_s": res["sdk"]["cpu_s_median"],
        "python_executable": r["python_executable"],
    }


def _serve_start_ratios(r: dict[str, Any]) -> dict[str, Any]:
    walls = r["wall_s_median"]
    targets = r["targets_s"]
    return {  # a ratio to its target: ≤ 1 meets it
        "serve_card_ratio_to_target": round(walls["serve_card"] / targets["serve_card_s"], 3),
        "import_clients_ratio_to_target": round(walls["import_clients"] / targets["import_clients_s"], 3),
        "serve_card_s": walls["serve_card"],
        "import_clients_s": walls["import_clients"],
        "bare_python_s": walls["python"],
    }


def _a2a_ratios(r: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"throughput_ratio": r["throughput_ratio"], "p99_ours_le_sdk": r["p99_ours_le_sdk"]}
    for binding, b in r["bindings"].items():
        out[f"{binding}_throughput_ratio"] = b["throughput_ratio"]
        out[f"{binding}_p99_ms_ours_sdk"] = [b["servers"]["ours"]["p99_ms"], b["servers"]["sdk"]["p99_ms"]]
    return out


def _bare_ratios(r: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ratio_ours_bare": r["ratio_ours_bare"],
        "ratio_ours_relaxed": r["ratio_ours_relaxed"],
    }
    for binding, b in r["bindings"].items():
        if b["status"] != "ok":
            out[f"{binding}_skipped"] = b["status"]
            continue
        out[f"{binding}_ratio_ours_bare"] = b["ratio_ours_bare"]
        out[f"{binding}_ratio_ours_relaxed"] = b["ratio_ours_relaxed"]
        out[f"{binding}_p99_ms_ours_bare"] = [b["servers"]["ours"]["p99_ms"], b["servers"]["bare"]["p99_ms"]]
    return out


def _memory_figures(r: dict[str, Any]) -> dict[str, Any]:
    items = {**r["agui"], **r["a2a"]}
    return {f"{name}_bytes_per_item": item["bytes_per_item"]["best"] for name, item in items.items()}


def _summarised(key: str) -> bool:
    """The figures summary.txt shows: the ratios, the memory per item, why a part was skipped."""
    return "ratio" in key or key.endswith("_bytes_per_item") or key == "skipped"


def _ts_ratios(r: dict[str, Any]) -> dict[str, Any]:
    if "skipped" in r:
        return {"skipped": r["skipped"]}
    return {
        f"ratio_{name}_ours_vs_typescript": s["ratio_ours_vs_typescript"] for name, s in r["streams"].items()
    } | {"events": r["streams"]["mixed"]["events"]}


BENCHES: dict[str, Bench] = {
    b.name: b
    for b in (
        Bench(
            "agui_pipeline",
            "bench_agui_pipeline.py",
            ("--events", "200000", "--repeat", "9"),
            ("--events", "2000", "--repeat", "1"),
            600,
            120,
            _pipeline_ratios,
            "ratio ≥ 1.0",
        ),
        Bench(
            "agui_patch_stream",
            "bench_agui_patch_stream.py",
            ("--events", "200000", "--repeat", "9"),
            ("--events", "2000", "--repeat", "1"),
            600,
            120,
            _pipeline_ratios,
            "ratio ≥ 1.0",
        ),
        Bench(
            "agui_lint",
            "bench_agui_lint.py",
            ("--events", "200000", "--repeat", "5"),
            ("--events", "2000", "--repeat", "1"),
            600,
            120,
            _pipeline_ratios,
            "ratio ≥ 0.5",
        ),
        Bench(
            "startup",
            "bench_startup.py",
            ("--repeat", "21"),
            ("--repeat", "1"),
            600,
            120,
            _startup_ratios,
            "ratio_cpu ≤ 1.0",
        ),
        Bench(
            "serve_start",
            "bench_serve_start.py",
            ("--repeat", "7"),
            ("--repeat", "1"),
            600,
            120,
            _serve_start_ratios,
            "ratios to the 1.5 s / 0.5 s targets ≤ 1",
        ),
        Bench(
            "a2a_server",
            "bench_a2a_server.py",
            (),
            ("--requests", "40", "--rounds", "1"),
            600,
            180,
            _a2a_ratios,
            "throughput_ratio ≥ 1.5 on every binding, p99 ≤ the SDK's",
        ),
        Bench(
            "a2a_bare",
            "bench_a2a_bare.py",
            (),
            ("--seconds", "1", "--rounds", "1"),
            600,
            180,
            _bare_ratios,
            "ratio_ours_bare ≥ 0.5 on every binding; ours/relaxed ≈ 1 (limits cost nothing)",
        ),
        Bench(
            "agui_ts",
            "bench_agui_ts.py",
            ("--events", "5000", "--repeat", "3"),
            ("--events", "300", "--repeat", "1"),
            600,
            180,
            _ts_ratios,
            "(reported)",
        ),
        Bench("memory", "bench_memory.py", (), ("--quick",), 600, 180, _memory_figures, "(reported)"),
    )
}
# `startup_base` is `startup` in another interpreter; it exists when --base-python is given.
ORDER = (
    "agui_pipeline",
    "agui_patch_stream",
    "agui_lint",
    "startup",
    "startup_base",
    "serve_start",
    "a2a_server",
    "a2a_bare",
    "agui_ts",
    "memory",
)


def versions() -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    node = shutil.which("node")
    if node:
        try:
            found["node"] = subprocess.run(
                [node, "--version"], capture_output=True, text=True, timeout=30
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            found["node"] = None
    sys.path.insert(0, str(HERE))
    try:
        import bench_agui_ts

        nm = bench_agui_ts.node_modules()
        if nm is not None:
            pkg = json.loads((nm / "@ag-ui" / "client" / "package.json").read_text())
            found["@ag-ui/client"] = pkg.get("version")
    except Exception:  # versions are informative only
        pass
    finally:
        sys.path.remove(str(HERE))
    return found


def machine() -> dict[str, Any]:
    return {
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor() or None,
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "python_executable": sys.executable,
    }


def load_average() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def run_one(
    name: str, bench: Bench, out_dir: pathlib.Path, quick: bool, extra: tuple[str, ...] = ()
) -> dict[str, Any]:
    """Run one benchmark in a subprocess; return its record (status, command, result)."""
    out = out_dir / f"{name}.json"
    argv = [
        sys.executable,
        str(HERE / bench.script),
        *(bench.quick if quick else bench.full),
        *extra,
        "--out",
        str(out),
    ]
    timeout = bench.timeout_quick if quick else bench.timeout_full
    record: dict[str, Any] = {
        "command": shlex.join(argv),
        "target": bench.target,
        "timeout_s": timeout,
        "load_before": load_average(),
    }
    start = time.monotonic()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=ROOT, check=False)
    except subprocess.TimeoutExpired:
        record.update(status="timeout", seconds=round(time.monotonic() - start, 1))
        return record
    record["seconds"] = round(time.monotonic() - start, 1)
    record["load_after"] = load_average()
    record["output"] = proc.stdout[-4000:]
    if proc.returncode != 0 or not out.exists():
        record.update(status="failed", returncode=proc.returncode, stderr=proc.stderr[-4000:])
        return record
    result = json.loads(out.read_text(encoding="utf-8"))
    record["result"] = result
    record["status"] = "skipped" if "skipped" in result else "ok"
    try:
        record["ratios"] = bench.ratios(result)
    except (KeyError, TypeError) as exc:
        record.update(status="failed", stderr=f"unexpected result shape: {exc!r}")
    return record


def summary_text(report: dict[str, Any]) -> str:
    m = report["machine"]
    v = report["versions"]
    kind = "QUICK: sizes too small to mean anything" if report["quick"] else "full run"
    lines = [
        f"agentproto benchmarks — {report['started']} ({kind})",
        f"machine: {m['cpu_count']} CPUs, {m['platform']}, Python {m['python']}",
        "versions: " + ", ".join(f"{k} {val}" for k, val in v.items() if val),
        f"command: {report['command']}",
        "",
    ]
    lines.append(f"{'benchmark':<19}{'status':<9}{'ratios':<58}target")
    for name, rec in report["benchmarks"].items():
        ratios = rec.get("ratios") or {}
        shown = ", ".join(f"{k}={val}" for k, val in ratios.items() if _summarised(k)) or "-"
        lines.append(f"{name:<19}{rec['status']:<9}{shown:<58} {rec['target']}")
    lines.append("")
    lines.append(
        "ratios: ours / official, measured side by side in this run (CPU time where "
        "stated); see run_all.json for every figure."
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--quick",
        action="store_true",
        help="tiny sizes, one round (a smoke run: seconds, numbers meaningless)",
    )
    ap.add_argument(
        "--only", default=None, help="comma-separated benchmarks to run (default: all): " + ", ".join(ORDER)
    )
    ap.add_argument(
        "--out-dir",
        type=pathlib.Path,
        default=None,
        help="where the JSON and summary go (default: benchmarks/results; "
        "a temporary directory with --quick)",
    )
    ap.add_argument(
        "--max-minutes",
        type=float,
        default=30.0,
        help="time budget of the whole run; benchmarks not started by then are skipped "
        "(each one also has its own timeout; default: 30)",
    )
    ap.add_argument(
        "--base-python",
        default=None,
        help="also measure start-up with this interpreter (e.g. a base-install "
        "venv made with: pip install -c requirements/lock.txt . ag-ui-protocol)",
    )
    args = ap.parse_args(argv)

    names = list(ORDER) if args.only is None else [n.strip() for n in args.only.split(",") if n]
    unknown = [n for n in names if n not in ORDER]
    if unknown:
        ap.error(f"unknown benchmark(s): {', '.join(unknown)}")
    if "startup_base" in names and not args.base_python:
        if args.only is not None:
            ap.error("startup_base needs --base-python")
        names.remove("startup_base")
    out_dir = args.out_dir or (
        pathlib.Path(tempfile.mkdtemp(prefix="agentproto-bench-")) if args.quick else DEFAULT_OUT
    )
    out_dir.mkdir(parents=True, exist_ok=True)

    command = (
        shlex.join([sys.executable, *sys.argv])
        if argv is None
        else shlex.join([sys.executable, __file__, *argv])
    )
    report: dict[str, Any] = {
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "quick": args.quick,
        "command": command,
        "machine": machine(),
        "versions": versions(),
        "benchmarks": {},
    }
    failed = False
    deadline = time.monotonic() + args.max_minutes * 60
    for name in names:
        print(f"== {name}", flush=True)
        if time.monotonic() > deadline:
            report["benchmarks"][name] = {
                "status": "skipped",
                "target": BENCHES["startup" if name == "startup_base" else name].target,
                "ratios": {"skipped": f"time budget of {args.max_minutes:g} min spent"},
            }
            print("   skipped: time budget spent", flush=True)
            continue
        if name == "startup_base":
            rec = run_one(name, BENCHES["startup"], out_dir, args.quick, ("--python", args.base_python))
        else:
            rec = run_one(name, BENCHES[name], out_dir, args.quick)
        report["benchmarks"][name] = rec
        print(
            f"   {rec['status']} in {rec.get('seconds', '?')} s"
            + (f": {rec['ratios']}" if rec.get("ratios") else ""),
            flush=True,
        )
        if rec["status"] in ("failed", "timeout"):
            failed = True
            print(rec.get("stderr", "")[-1500:], file=sys.stderr)
    report["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    (out_dir / "run_all.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    text = summary_text(report)
    (out_dir / "summary.txt").write_text(text, encoding="utf-8")
    print()
    print(text, end="")
    print(f"results: {out_dir / 'run_all.json'}, {out_dir / 'summary.txt'}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
