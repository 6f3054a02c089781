"""Run an already-present checkout of the official A2A TCK against ``agentproto serve``.

This script fetches nothing and ships no TCK code: point it at a checkout of
a2aproject/a2a-tck (branch ``1.0-dev``) and at a Python that has the TCK's dependencies::

    python tools/run_tck.py --tck /tmp/a2a-tck --tck-python /tmp/tckvenv/bin/python

It starts ``agentproto serve --a2a-agent conformance`` on a free loopback port (gRPC on
another), runs the TCK's compatibility tests once per transport and level (push-notification
tests left out), and prints a MUST/SHOULD pass table. Each run is bounded by ``--timeout``.
"""

from __future__ import annotations

import argparse
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

TRANSPORTS = ("jsonrpc", "http_json", "grpc")
LEVELS = ("must", "should")


def start_server() -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentproto",
            "serve",
            "--a2a-agent",
            "conformance",
            "--port",
            "0",
            "--db",
            ":memory:",
            "--log-level",
            "error",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 30
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        m = re.search(r"(http://127\.0\.0\.1:\d+)/a2a\b", line)
        if m:
            time.sleep(1.0)  # the gRPC binding starts with the app
            return proc, m.group(1)
    proc.kill()
    raise SystemExit("agentproto serve did not start")


def count(junit: Path) -> dict[str, int]:
    out = {"passed": 0, "failed": 0, "skipped": 0}
    if not junit.exists():
        return out
    for case in ET.parse(junit).iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            out["failed"] += 1
        elif case.find("skipped") is not None:
            out["skipped"] += 1
        else:
            out["passed"] += 1
    return out


def failures(junit: Path) -> list[str]:
    if not junit.exists():
        return []
    return [
        f"{c.get('classname', '').split('.')[-1]}::{c.get('name')}"
        for c in ET.parse(junit).iter("testcase")
        if c.find("failure") is not None or c.find("error") is not None
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tck", required=True, type=Path, help="path of the a2a-tck checkout")
    ap.add_argument(
        "--tck-python", default=sys.executable, help="a Python with the TCK's dependencies installed"
    )
    ap.add_argument("--out", type=Path, default=Path("/tmp/tck-results"))
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per TCK run")
    ap.add_argument("--transports", default=",".join(TRANSPORTS))
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    proc, url = start_server()
    rows = []
    try:
        for transport in args.transports.split(","):
            for level in LEVELS:
                junit = args.out / f"{transport}-{level}.xml"
                cmd = [
                    args.tck_python,
                    "-m",
                    "pytest",
                    "tests/compatibility/",
                    f"--sut-host={url}",
                    f"--transport={transport}",
                    "-m",
                    level,
                    "-k",
                    "not push and not Push",
                    "-q",
                    "-p",
                    "no:cacheprovider",
                    "--tb=line",
                    f"--junitxml={junit}",
                ]
                log = args.out / f"{transport}-{level}.log"
                with log.open("w") as fh:
                    try:
                        subprocess.run(
                            cmd,
                            cwd=args.tck,
                            stdout=fh,
                            stderr=subprocess.STDOUT,
                            timeout=args.timeout,
                            check=False,
                        )
                    except subprocess.TimeoutExpired:
                        fh.write("\n[run_tck] timed out\n")
                rows.append((transport, level, count(junit), failures(junit)))
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    print(f"{'transport':10} {'level':7} {'passed':>6} {'failed':>6} {'skipped':>7}")
    for transport, level, c, _ in rows:
        print(f"{transport:10} {level:7} {c['passed']:6} {c['failed']:6} {c['skipped']:7}")
    for transport, level, _, failed in rows:
        for name in failed:
            print(f"FAILED {transport} {level}: {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
