"""``agentproto lint`` — check a captured AG-UI stream for conformance.

Usage::

    agentproto lint [--json] [--format auto|sse|jsonl] PATH|-

Runs the full consumer pipeline (:func:`agentproto.agui.pipeline.lint_source`) over a capture
— an SSE response body, one JSON event per line, or a JSON array of events — and reports the
first violation with its event number, type, rule id, the reference client's message and a
one-line suggested fix, followed by any warnings and the runs the stream contained.

Exit status: ``0`` the stream is conformant (a run that ended in ``RUN_ERROR`` still is);
``1`` it is not; ``2`` the input could not be read (missing file, not UTF-8, not a stream).
"""

from __future__ import annotations

import argparse
import sys

from agentproto.agui.pipeline import LintReport, fix_for, lint_source

__all__ = ["configure", "run", "format_report"]


def configure(parser: argparse.ArgumentParser) -> None:
    """Register the ``lint`` arguments on *parser* (called by :mod:`agentproto.cli`)."""
    parser.add_argument("path", metavar="PATH|-",
                        help="the captured stream (SSE body, JSON lines or JSON array); - = stdin")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object: outcome, error, warnings, state, messages, "
                             "runs")
    parser.add_argument("--format", choices=("auto", "sse", "jsonl"), default="auto",
                        help="input format (default: auto-detect)")
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


def format_report(report: LintReport, name: str = "stream") -> str:
    """The human-readable report: verdict, the violation and its fix, warnings, runs."""
    lines: list[str] = []
    runs = ", ".join(f"{r['runId'] or '?'}: {r['outcome']}" for r in report.runs) or "none"
    if report.ok:
        lines.append(f"{name}: conformant — {report.events} events, runs: {runs}, "
                     f"{len(report.warnings)} warning(s)")
    elif not report.readable:
        lines.append(f"{name}: UNREADABLE — {report.error['message']}")
        lines.append(f"  rule: {report.error['rule']}")
    else:
        err = report.error
        where = f"event {err['event']}" if err["event"] is not None else "end of stream"
        lines.append(f"{name}: NOT CONFORMANT at {where}"
                     + (f" ({err['type']})" if err["type"] else ""))
        lines.append(f"  rule:    {err['rule']}")
        lines.append(f"  message: {err['message']}")
        fix = fix_for(err["rule"])
        if fix:
            lines.append(f"  fix:     {fix}")
        lines.append(f"  runs:    {runs}")
    if report.warnings:
        lines.append(f"warnings ({len(report.warnings)}):")
        for w in report.warnings[:50]:
            where = f"event {w['event']}" if w["event"] is not None else "stream"
            path = f" {w['path']}" if w["path"] else ""
            lines.append(f"  {where}{path}: {_short(w['message'], 120)}")
        if len(report.warnings) > 50:
            lines.append(f"  … and {len(report.warnings) - 50} more (use --json)")
    return "\n".join(lines)
