"""``agentproto lint`` — check a captured AG-UI stream for conformance.

Usage::

    agentproto lint [--json] [--format auto|sse|jsonl] PATH|-

Runs the full consumer pipeline (:func:`agentproto.agui.pipeline.lint_source`) over a capture
— an SSE response body, one JSON event per line, or a JSON array of events — and reports the
first violation with its event number, type, rule id, the reference client's message and a
one-line suggested fix, followed by any warnings and the runs the stream contained.

Events are numbered **from 0 in arrival order**, everywhere: the human report says
``event #5`` for the event at index 5, which is the ``event`` of ``--json``'s ``error`` and
``warnings``. The human report lists up to :data:`RUNS_LISTED` runs by id; a longer capture
gets a count per run outcome (``600 runs: 598 success, 2 interrupt (run-17, run-233)``), while
``--json`` always carries every run.

Two words for two things: the report's **verdict** on the stream is ``conformant`` or
``rejected``; each run's **outcome** is ``success``, ``interrupt``, ``cancelled``, ``failed`` (the
producer's ``RUN_ERROR``), ``truncated`` (the stream ended with the run open) or ``rejected``
(the stream was rejected while the run was open).

Exit status: ``0`` the stream is conformant (a run that ended in ``RUN_ERROR`` still is);
``1`` it is not; ``2`` the input could not be read (missing file, not UTF-8, not a stream).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import Any

from agentproto.agui.pipeline import LintReport, fix_for, lint_source
from agentproto.agui.report import event_label

__all__ = ["configure", "run", "format_report", "summarize_runs", "RUNS_LISTED", "EPILOG"]

#: Up to this many runs, the human report names each one; beyond, it counts them by outcome.
RUNS_LISTED = 5
#: Run ids the summary names per outcome other than success (the rest is in --json).
_IDS_PER_OUTCOME = 3
_WARNINGS_LISTED = 50

EPILOG = """\
events are numbered from 0 in arrival order: "event #5" is the event at index 5, the
number --json gives as error.event and warnings[].event. Each SSE data payload or JSON line
counts as one event, dropped events included.

exit status: 0 conformant (a run that ended in RUN_ERROR still is), 1 not conformant,
2 unreadable input (missing file, not UTF-8, not a stream)."""


def configure(parser: argparse.ArgumentParser) -> None:
    """Register the ``lint`` arguments on *parser* (called by :mod:`agentproto.cli`)."""
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "path", metavar="PATH|-", help="the captured stream (SSE body, JSON lines or JSON array); - = stdin"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: verdict, error, warnings, state, messages, "
        "runs (every run, however many)",
    )
    parser.add_argument(
        "--format",
        choices=("auto", "sse", "jsonl"),
        default="auto",
        help="input format (default: auto-detect)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """The ``lint`` handler: returns the process exit code."""
    name = "<stdin>" if args.path == "-" else args.path
    try:
        if args.path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(args.path, "rb") as fh:
                data = fh.read()
    except OSError as exc:
        print(f"agentproto lint: cannot read {name}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    report = lint_source(data, format=args.format)
    if args.json:
        print(report.to_json())
    else:
        print(format_report(report, name))
    if not report.readable:
        return 2
    return 0 if report.ok else 1


def _short(value: object, width: int = 60) -> str:
    text = str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def summarize_runs(runs: list[dict[str, Any]]) -> str:
    """The runs of a report in one short phrase.

    Up to :data:`RUNS_LISTED` runs: each by id (``runs: run-1: success, run-2: failed``).
    More: a count per outcome, most frequent first, naming the first few runs of every
    outcome but success (``600 runs: 598 success, 2 interrupt (run-17, run-233)``).
    """
    if not runs:
        return "runs: none"
    if len(runs) <= RUNS_LISTED:
        return "runs: " + ", ".join(f"{r['runId'] or '?'}: {r['outcome']}" for r in runs)
    counts = Counter(r["outcome"] for r in runs)
    ids: dict[str, list[str]] = {}
    for r in runs:
        if r["outcome"] != "success":
            ids.setdefault(r["outcome"], []).append(r["runId"] or "?")
    parts = []
    for outcome, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        part = f"{count} {outcome}"
        named = ids.get(outcome)
        if named:
            shown = ", ".join(named[:_IDS_PER_OUTCOME])
            more = len(named) - _IDS_PER_OUTCOME
            part += f" ({shown}{f', … {more} more' if more > 0 else ''})"
        parts.append(part)
    return f"{len(runs)} runs: " + ", ".join(parts)


def format_report(report: LintReport, name: str = "stream") -> str:
    """The human-readable report: verdict, the violation and its fix, warnings, runs.

    Events are named ``event #N``, N counted from 0 in arrival order (as in ``--json``).
    """
    lines: list[str] = []
    runs = summarize_runs(report.runs)
    if report.ok:
        lines.append(
            f"{name}: conformant — {report.events} events, {runs}, {len(report.warnings)} warning(s)"
        )
    elif not report.readable:
        assert report.error is not None
        lines.append(f"{name}: UNREADABLE — {report.error['message']}")
        lines.append(f"  rule: {report.error['rule']}")
    else:
        err = report.error
        assert err is not None
        where = event_label(err["event"]) if err["event"] is not None else "end of stream"
        lines.append(f"{name}: rejected at {where}" + (f" ({err['type']})" if err["type"] else ""))
        lines.append(f"  rule:    {err['rule']}")
        lines.append(f"  message: {err['message']}")
        fix = err.get("fix") or fix_for(err["rule"])
        if fix:
            lines.append(f"  fix:     {fix}")
        lines.append(f"  {runs}")
    if report.warnings:
        lines.append(f"warnings ({len(report.warnings)}):")
        for w in report.warnings[:_WARNINGS_LISTED]:
            path = f" {w['path']}" if w["path"] else ""
            lines.append(f"  {event_label(w['event'])}{path}: {_short(w['message'], 120)}")
        if len(report.warnings) > _WARNINGS_LISTED:
            lines.append(f"  … and {len(report.warnings) - _WARNINGS_LISTED} more (use --json)")
    return "\n".join(lines)
