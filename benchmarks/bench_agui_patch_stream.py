"""Benchmark: the whole AG-UI consumer pipeline on a patch-heavy stream vs the SDK's bare parse.

The stream is one run of text messages with a ``STATE_DELTA`` carrying a two-operation JSON
Patch every 27 events — a shared-state agent (notebook 05) that updates its progress and its
to-do list while it talks::

    TEXT_MESSAGE_START, 24 × TEXT_MESSAGE_CONTENT, TEXT_MESSAGE_END,
    STATE_DELTA [replace /progress, add /todos/-]            ← 27 events, repeated

It is measured exactly like :mod:`bench_agui_pipeline` (whose stream has a delta every ~70
events): **ours** is ``Pipeline.feed_bytes`` over the SSE bytes — decode, parse, expand,
verify and apply to state and messages; **official** is
``TypeAdapter(ag_ui.core.Event).validate_json`` per already-split ``data`` payload — parse
only. Same stream, same process, alternating ``ours, official`` rounds, CPU time of this
process. The ratio ``ours / official`` (events per second) has a target of ≥ 1.0 (0.5 before
issue 23).

    python benchmarks/bench_agui_patch_stream.py            # 200 000 events, 5 rounds
    python benchmarks/bench_agui_patch_stream.py --quick    # 20 000 events, a few seconds
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # the shared helpers live next to this file
    sys.path.insert(0, str(HERE))

import bench_agui_pipeline as common  # noqa: E402

ROOT = common.ROOT
RESULTS = ROOT / "benchmarks" / "results" / "agui_patch_stream.json"
PERIOD = 27  # one STATE_DELTA every PERIOD events
TEXT_DELTAS = PERIOD - 3  # START + deltas + END + STATE_DELTA = PERIOD
TARGET_RATIO = 1.0


def build_stream(n_events: int) -> list[dict]:
    """About *n_events* events: messages of 24 deltas, each followed by a 2-op STATE_DELTA."""
    events: list[dict] = [
        {"type": "RUN_STARTED", "threadId": "thread-1", "runId": "run-1"},
        {"type": "STATE_SNAPSHOT", "snapshot": {"todos": [], "progress": 0, "ui": {"busy": True}}},
    ]
    words = common.WORDS
    turn = 0
    while len(events) < n_events - 1:
        turn += 1
        mid = f"msg-{turn}"
        events.append({"type": "TEXT_MESSAGE_START", "messageId": mid, "role": "assistant"})
        events += [
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": words[(turn + i) % len(words)] + " "}
            for i in range(TEXT_DELTAS)
        ]
        events.append({"type": "TEXT_MESSAGE_END", "messageId": mid})
        events.append(
            {
                "type": "STATE_DELTA",
                "delta": [
                    {"op": "replace", "path": "/progress", "value": turn},
                    {"op": "add", "path": "/todos/-", "value": {"id": turn, "done": False}},
                ],
            }
        )
    events.append({"type": "RUN_FINISHED", "threadId": "thread-1", "runId": "run-1"})
    return events


def run(n_events: int = 200_000, repeat: int = 5, write: bool = True, out: pathlib.Path = RESULTS) -> dict:
    """Run the benchmark and return (and by default write) the results."""
    events = build_stream(n_events)
    result = common.measure(events, repeat)
    deltas = sum(1 for e in events if e["type"] == "STATE_DELTA")
    if result["result_check"]["state_todos"] != deltas:
        raise SystemExit(
            f"state check failed: {deltas} deltas sent, {result['result_check']['state_todos']} applied"
        )
    result = {
        "benchmark": "agui_patch_stream",
        **result,
        "mix": {
            "period": PERIOD,
            "text_deltas_per_message": TEXT_DELTAS,
            "state_deltas": deltas,
            "ops_per_delta": 2,
        },
        "target_ratio": TARGET_RATIO,
    }
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
    common.print_result(f"AG-UI pipeline, patch-heavy stream (a 2-op STATE_DELTA every {PERIOD} events)", r)
    if args.profile is not None:
        common.profile(build_stream(n), args.profile, "Pipeline.feed_bytes, patch-heavy stream")
        print(f"profile written to {args.profile}")
    if not args.no_write:
        print(f"results written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
