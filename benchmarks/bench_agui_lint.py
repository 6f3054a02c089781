"""Benchmark: ``agentproto lint`` on a large capture vs the official SDK's bare parse of it.

The capture is :mod:`bench_agui_pipeline`'s mixed stream (text deltas, chunked messages,
streamed tool arguments, tool results, state deltas), written once as an SSE body to a
temporary file. Two sides, same capture, same process, alternating rounds:

* **ours**: the ``agentproto lint PATH`` command's code path, in process
  (``agentproto.cli.main(["lint", PATH])``, its report printed into a buffer): reading the
  file, decoding, parsing, chunk expansion, verification, application and the human report;
* **official**: ``TypeAdapter(ag_ui.core.Event).validate_json`` on each already-split ``data``
  payload of the same capture — parsing only, SSE splitting done for it outside the timed
  region (exactly the yardstick of :mod:`bench_agui_pipeline`).

The ratio ``ours / official`` (events per second, CPU time of this process) has a target of
≥ 0.5. ``--profile PATH`` also writes a cProfile summary of one lint run.

    python benchmarks/bench_agui_lint.py            # 200 000 events, 5 rounds
    python benchmarks/bench_agui_lint.py --quick    # 20 000 events, a few seconds
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import pathlib
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # the shared helpers live next to this file
    sys.path.insert(0, str(HERE))

import bench_agui_pipeline as common  # noqa: E402

ROOT = common.ROOT
RESULTS = ROOT / "benchmarks" / "results" / "agui_lint.json"
TARGET_RATIO = 0.5


def lint_once(path: pathlib.Path) -> tuple[float, int, str]:
    """One in-process ``agentproto lint PATH``: CPU seconds, exit code, the report's first line."""
    from agentproto.cli import main

    out = io.StringIO()
    start = time.process_time()
    with contextlib.redirect_stdout(out):
        code = main(["lint", str(path)])
    elapsed = time.process_time() - start
    return elapsed, code, out.getvalue().splitlines()[0]


def measure(events: list[dict], repeat: int, workdir: pathlib.Path) -> dict:
    data, payloads = common.encode(events)
    path = workdir / "capture.sse"
    path.write_bytes(data)
    validate = common.official_validator()
    common.run_official(payloads[:1000], validate)  # warm both sides up (first-call costs)
    _, code, first = lint_once(path)
    if code != 0:
        raise SystemExit(f"benchmark capture rejected: {first}")
    checked: dict = {}

    def ours() -> float:
        elapsed, checked["exit_code"], checked["report"] = lint_once(path)
        return elapsed

    ours_times, official_times = common.paired_rounds(
        ours, lambda: common.run_official(payloads, validate), repeat
    )
    return common.paired_report(
        len(events),
        data,
        repeat,
        "agentproto lint PATH (cli.main in process: read, pipeline, human report)",
        ours_times,
        official_times,
        checked,
    )


def profile(events: list[dict], out: pathlib.Path, workdir: pathlib.Path) -> None:
    """A cProfile text summary of one lint run (:func:`bench_agui_pipeline.write_profile`)."""
    path = workdir / "capture.sse"
    path.write_bytes(common.encode(events)[0])
    common.write_profile(lambda: lint_once(path), f"agentproto lint, {len(events):,} events", out)


def run(n_events: int = 200_000, repeat: int = 5, write: bool = True, out: pathlib.Path = RESULTS) -> dict:
    """Run the benchmark and return (and by default write) the results."""
    with tempfile.TemporaryDirectory() as tmp:
        measured = measure(common.build_stream(n_events), repeat, pathlib.Path(tmp))
    result = {"benchmark": "agui_lint", **measured, "target_ratio": TARGET_RATIO}
    if write:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="20 000 events, for a smoke run")
    parser.add_argument("--no-write", action="store_true", help="do not write the JSON results")
    parser.add_argument("--out", type=pathlib.Path, default=RESULTS, help="where to write JSON")
    parser.add_argument("--profile", type=pathlib.Path, help="also write a cProfile summary here")
    args = parser.parse_args(argv)
    n = 20_000 if args.quick else args.events
    r = run(n, args.repeat, write=not args.no_write, out=args.out)
    common.print_result("agentproto lint on a large capture", r)
    if args.profile is not None:
        with tempfile.TemporaryDirectory() as tmp:
            profile(common.build_stream(n), args.profile, pathlib.Path(tmp))
        print(f"profile written to {args.profile}")
    if not args.no_write:
        print(f"results written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
