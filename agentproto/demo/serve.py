"""``agentproto serve``: run the demo agents (AG-UI, and A2A when present) under uvicorn.

Binds 127.0.0.1 by default — a teaching server has no business on a public interface; pass
``--host 0.0.0.0`` deliberately if you must. Threads, pending approvals and refunds live in a
SQLite file under the user's data directory (``--db``), so stopping the server loses nothing;
``--db :memory:`` keeps everything in memory instead.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["configure", "default_db_path", "run"]


def default_db_path() -> Path:
    """``<user data dir>/agentproto/agentproto.sqlite3`` (platformdirs decides the data dir)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("agentproto")) / "agentproto.sqlite3"


def configure(parser: argparse.ArgumentParser) -> None:
    """Register the ``serve`` options on ``parser`` (see :mod:`agentproto.cli`)."""
    parser.add_argument("--host", default="127.0.0.1",
                        help="interface to bind (default: 127.0.0.1, loopback only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0 = any)")
    parser.add_argument("--db", default=None,
                        help="SQLite file for threads and approvals, or ':memory:' "
                             f"(default: {default_db_path()})")
    parser.add_argument("--a2a-agent", default="travel",
                        help="which A2A demo agent to serve at /a2a (default: travel)")
    parser.add_argument("--heartbeat", type=float, default=15.0, metavar="SECONDS",
                        help="idle time before an SSE keep-alive comment (default: 15)")
    parser.add_argument("--log-level", default="info",
                        choices=["critical", "error", "warning", "info", "debug"])
    parser.set_defaults(handler=run)


def _urls(host: str, port: int, a2a: bool) -> list[str]:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    base = f"http://{shown}:{port}"
    lines = [f"  AG-UI agent     POST {base}/ag-ui/agent",
             f"  thread snapshot GET  {base}/ag-ui/threads/{{threadId}}",
             f"  cancel a run    POST {base}/ag-ui/runs/{{runId}}/cancel"]
    if a2a:
        lines += [f"  A2A JSON-RPC    POST {base}/a2a",
                  f"  Agent Card      GET  {base}/.well-known/agent-card.json"]
    return lines


def run(args: argparse.Namespace) -> int:
    """Start the server and block until Ctrl-C. Returns the process exit code."""
    import socket

    import uvicorn

    from agentproto.demo.app import create_app

    db = args.db or str(default_db_path())
    try:
        app = create_app(db, a2a_agent=args.a2a_agent, heartbeat_s=args.heartbeat)
    except Exception as exc:  # a bad --db path, a database from a newer version, …
        print(f"agentproto serve: cannot start: {exc}", file=sys.stderr)
        return 2
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # stream events promptly
        sock.bind((args.host, args.port))
    except OSError as exc:
        print(f"agentproto serve: cannot bind {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 2
    port = sock.getsockname()[1]
    a2a = any(getattr(r, "path", "") == "/a2a" for r in app.routes)
    print(f"agentproto demo server (database: {db})", flush=True)
    for line in _urls(args.host, port, a2a):
        print(line, flush=True)
    print("Press Ctrl-C to stop.", flush=True)
    config = uvicorn.Config(app, log_level=args.log_level, timeout_graceful_shutdown=2)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl-C after its graceful shutdown
        pass
    print("agentproto serve: stopped.", flush=True)
    return 0
