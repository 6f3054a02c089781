"""Benchmark: start-up of ``agentproto lint`` vs a cold import of the official SDK's event union.

``agentproto lint`` on a two-event capture is mostly start-up: the interpreter, pydantic, the
event models and the pipeline. The yardstick is what any consumer of the official Python SDK
pays before it can parse its first event::

    python -c "from ag_ui.core import Event; from pydantic import TypeAdapter; TypeAdapter(Event)"

Both commands run as fresh processes (cold: nothing imported, byte-code caches warm), in
alternating order ``lint, sdk, lint, sdk …`` so that background load hits both alike, and a
bare ``python -c pass`` is measured the same way as the floor. Reported per command: the
median wall-clock time and the median CPU time (user + system of the child, from
``os.wait4``; robust on a shared machine), and the ratios lint / sdk. The target is a CPU
ratio ≤ 1.0.

    python benchmarks/bench_startup.py               # 21 runs of each
    python benchmarks/bench_startup.py --quick       # 3 runs of each, a few seconds
    python benchmarks/bench_startup.py --python /tmp/base/bin/python   # another venv

``--python`` measures another environment (for example a base install without the dev
extras, where jsonschema's format checkers and JupyterLab are absent); its ``agentproto``
must be importable there. ``agentproto lint`` is run as the console script next to that
interpreter when there is one (what a user types), else as ``python -m agentproto``.

Byte-code: by default every child runs with ``PYTHONPYCACHEPREFIX`` set to a fresh temporary
directory (and ``PYTHONDONTWRITEBYTECODE`` unset), filled by the warm-up runs, so both sides
load cached byte-code as an installed package does — nothing is written into the checkout.
``--env-as-is`` keeps the caller's environment instead; with ``PYTHONDONTWRITEBYTECODE=1``
and an editable install that means agentproto is compiled from source on every run while
the SDK's wheel ships its ``.pyc`` files, which inflates lint by about a third.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "startup.json"

SDK_SNIPPET = "from ag_ui.core import Event; from pydantic import TypeAdapter; TypeAdapter(Event)"
TWO_EVENTS = (
    b'{"type": "RUN_STARTED", "threadId": "thread-1", "runId": "run-1"}\n'
    b'{"type": "RUN_FINISHED", "threadId": "thread-1", "runId": "run-1"}\n'
)
TARGET_RATIO = 1.0


def timed_run(argv: list[str], cwd: str, env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """Run *argv* to completion; return (wall s, child CPU s, exit code)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, cwd=cwd, env=env
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    return wall, usage.ru_utime + usage.ru_stime, proc.returncode


def lint_argv(python: str) -> list[str]:
    """``agentproto`` as a user runs it: the console script beside *python*, else ``-m``."""
    script = pathlib.Path(python).parent / "agentproto"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [python, "-m", "agentproto"]


def commands(python: str, capture: str) -> dict[str, list[str]]:
    return {
        "lint": [*lint_argv(python), "lint", capture],
        "sdk": [python, "-c", SDK_SNIPPET],
        "python": [python, "-c", "pass"],
    }


def run(
    repeat: int = 21,
    python: str | None = None,
    warmup: int = 2,
    env_as_is: bool = False,
    pythonpath: str | None = None,
) -> dict[str, Any]:
    """Measure the commands *repeat* times each, interleaved; return the results.

    *pythonpath* puts another source tree first (e.g. a copy of the code before a change).
    """
    python = python or sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        capture = os.path.join(tmp, "two-events.jsonl")
        with open(capture, "wb") as fh:
            fh.write(TWO_EVENTS)
        env = dict(os.environ)
        if not env_as_is:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
        if pythonpath:
            env["PYTHONPATH"] = pythonpath
        cmds = commands(python, capture)
        for name, argv in cmds.items():  # fills the byte-code cache; checks every command
            for _ in range(warmup):
                _, _, code = timed_run(argv, tmp, env)
                if code != 0:
                    raise RuntimeError(f"{name} command failed (exit {code}): {argv}")
        walls: dict[str, list[float]] = {k: [] for k in cmds}
        cpus: dict[str, list[float]] = {k: [] for k in cmds}
        for i in range(repeat):
            order = list(cmds) if i % 2 == 0 else list(reversed(cmds))
            for name in order:
                wall, cpu, code = timed_run(cmds[name], tmp, env)
                if code != 0:
                    raise RuntimeError(f"{name} command failed (exit {code})")
                walls[name].append(wall)
                cpus[name].append(cpu)
    per = {
        name: {
            "wall_s_median": round(statistics.median(walls[name]), 4),
            "cpu_s_median": round(statistics.median(cpus[name]), 4),
            "wall_s_min": round(min(walls[name]), 4),
            "cpu_s_min": round(min(cpus[name]), 4),
        }
        for name in cmds
    }
    # Paired ratios: run i of lint against run i of sdk, then the median of those.
    cpu_pairs = [a / b for a, b in zip(cpus["lint"], cpus["sdk"]) if b > 0]
    wall_pairs = [a / b for a, b in zip(walls["lint"], walls["sdk"]) if b > 0]
    return {
        "benchmark": "startup",
        "what": "agentproto lint of a 2-event file vs a cold import of ag_ui.core.Event + "
        "TypeAdapter(Event); fresh processes, interleaved",
        "repeat": repeat,
        "python_executable": python,
        "commands": {name: " ".join(argv) for name, argv in commands(python, "<2 events>").items()},
        "bytecode": (
            "as the environment has it"
            if env_as_is
            else "cached (fresh PYTHONPYCACHEPREFIX, filled by the warm-up runs)"
        ),
        "pythonpath": pythonpath,
        "results": per,
        "ratio_cpu": round(statistics.median(cpu_pairs), 3),
        "ratio_wall": round(statistics.median(wall_pairs), 3),
        "target_ratio": TARGET_RATIO,
        "clock": "CPU = user + system time of the child (os.wait4); wall = perf_counter",
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=21, help="runs of each command (median)")
    ap.add_argument("--quick", action="store_true", help="3 runs of each")
    ap.add_argument("--python", default=None, help="interpreter to measure (default: this one)")
    ap.add_argument("--out", type=pathlib.Path, default=RESULTS, help="where to write JSON")
    ap.add_argument(
        "--env-as-is",
        action="store_true",
        help="keep the environment's byte-code settings (see the module doc)",
    )
    ap.add_argument("--pythonpath", default=None, help="put this source tree first")
    ap.add_argument("--no-write", action="store_true", help="do not write the JSON results")
    args = ap.parse_args(argv)
    r = run(
        3 if args.quick else args.repeat,
        python=args.python,
        env_as_is=args.env_as_is,
        pythonpath=args.pythonpath,
    )
    r["platform"] = platform.platform()
    print(
        f"start-up, fresh processes, {r['repeat']} interleaved runs each "
        f"({r['python_executable']}; byte-code {r['bytecode']})"
    )
    print(f"{'':<8}{'CPU s':>8}{'wall s':>9}  command")
    for name, row in r["results"].items():
        print(f"{name:<8}{row['cpu_s_median']:>8.3f}{row['wall_s_median']:>9.3f}  {r['commands'][name]}")
    verdict = "meets" if r["ratio_cpu"] <= TARGET_RATIO else "ABOVE"
    print(
        f"ratio lint/sdk: CPU {r['ratio_cpu']:.3f} ({verdict} the ≤ {TARGET_RATIO} target), "
        f"wall {r['ratio_wall']:.3f}"
    )
    if not args.no_write:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(r, indent=2) + "\n", encoding="utf-8")
        print(f"results written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
