"""Benchmark: how soon ``agentproto serve`` answers its Agent Card, and what importing the A2A clients costs.

Three commands, each as a fresh process, in alternating order so background load hits them alike:

* ``python -c pass`` — the floor: the interpreter alone;
* ``python -c "from agentproto.a2a import A2AClient"`` — importing the A2A clients;
* ``agentproto serve --port P --db :memory:`` — timed from the spawn until
  ``GET /.well-known/agent-card.json`` on loopback answers 200 (polled every 20 ms), then stopped.

Reported per command: the median wall-clock time, and the ratio to the bare interpreter. The
targets (issue "The library as a product"): the card within 1.5 s of starting, the import under
0.5 s, in the course environment (where JupyterLab's dependencies, jsonschema's format checkers
among them, are installed; see ``agentproto._schemas``).

    python benchmarks/bench_serve_start.py            # 7 runs of each
    python benchmarks/bench_serve_start.py --quick    # 2 runs of each
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "serve_start.json"
TARGETS = {"serve_card_s": 1.5, "import_clients_s": 0.5}
GIVE_UP_S = 60.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _agentproto(python: str) -> list[str]:
    script = pathlib.Path(python).parent / "agentproto"
    return [str(script)] if script.is_file() and os.access(script, os.X_OK) else [python, "-m", "agentproto"]


def time_process(argv: list[str]) -> float:
    """Wall seconds for a command to run to completion."""
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=GIVE_UP_S)
    return time.perf_counter() - start


def time_serve(python: str) -> float:
    """Wall seconds from spawning ``agentproto serve`` to its card answering 200."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}/.well-known/agent-card.json"
    argv = [*_agentproto(python), "serve", "--port", str(port), "--db", ":memory:"]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while time.perf_counter() - start < GIVE_UP_S:
            try:
                with urllib.request.urlopen(url, timeout=1) as answer:
                    if answer.status == 200:
                        return time.perf_counter() - start
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if proc.poll() is not None:
                raise RuntimeError(f"serve exited with {proc.returncode} before answering")
            time.sleep(0.02)
        raise RuntimeError(f"serve did not answer {url} within {GIVE_UP_S} s")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def run(repeat: int, python: str) -> dict[str, Any]:
    commands = {
        "python": lambda: time_process([python, "-c", "pass"]),
        "import_clients": lambda: time_process([python, "-c", "from agentproto.a2a import A2AClient"]),
        "serve_card": lambda: time_serve(python),
    }
    for measure in commands.values():  # warm the byte-code caches; check each command works
        measure()
    walls: dict[str, list[float]] = {name: [] for name in commands}
    for i in range(repeat):
        for name in list(commands) if i % 2 == 0 else list(reversed(commands)):
            walls[name].append(commands[name]())
    medians = {name: statistics.median(values) for name, values in walls.items()}
    floor = medians["python"]
    return {
        "benchmark": "serve_start",
        "what": "agentproto serve until its Agent Card answers, and importing the A2A clients, "
        "vs a bare interpreter; fresh processes, interleaved",
        "python_executable": python,
        "repeat": repeat,
        "wall_s_median": {name: round(v, 3) for name, v in medians.items()},
        "wall_s_all": {name: [round(v, 3) for v in values] for name, values in walls.items()},
        "over_bare_python_s": {name: round(v - floor, 3) for name, v in medians.items() if name != "python"},
        "targets_s": TARGETS,
        "meets": {
            "serve_card_s": medians["serve_card"] <= TARGETS["serve_card_s"],
            "import_clients_s": medians["import_clients"] <= TARGETS["import_clients_s"],
        },
        "load_before": os.getloadavg()[0],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7, help="runs of each command (median)")
    ap.add_argument("--quick", action="store_true", help="2 runs of each")
    ap.add_argument("--python", default=sys.executable, help="interpreter to measure")
    ap.add_argument("--out", type=pathlib.Path, default=RESULTS, help="where to write JSON")
    args = ap.parse_args(argv)
    r = run(2 if args.quick else args.repeat, args.python)
    r["platform"] = platform.platform()
    for name, wall in r["wall_s_median"].items():
        print(f"{name:<16}{wall:>8.3f} s")
    print(
        f"serve card {r['wall_s_median']['serve_card']:.2f} s (target ≤ {TARGETS['serve_card_s']}), "
        f"client import {r['wall_s_median']['import_clients']:.2f} s (target ≤ {TARGETS['import_clients_s']})"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(r, indent=2) + "\n", encoding="utf-8")
    print(f"results written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
