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
from typing import Any

__all__ = ["configure", "default_db_path", "run"]


def default_db_path() -> Path:
    """``<user data dir>/agentproto/agentproto.sqlite3`` (platformdirs decides the data dir)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("agentproto")) / "agentproto.sqlite3"


def configure(parser: argparse.ArgumentParser) -> None:
    """Register the ``serve`` options on ``parser`` (see :mod:`agentproto.cli`)."""
    parser.add_argument(
        "--host", default="127.0.0.1", help="interface to bind (default: 127.0.0.1, loopback only)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0 = any)")
    parser.add_argument(
        "--db",
        default=None,
        help=f"SQLite file for threads and approvals, or ':memory:' (default: {default_db_path()})",
    )
    parser.add_argument(
        "--a2a-agent", default="travel", help="which A2A demo agent to serve at /a2a (default: travel)"
    )
    parser.add_argument(
        "--no-grpc",
        action="store_true",
        help="do not start the A2A gRPC binding (default: started on a free "
        "loopback port when grpcio is installed; the card lists it)",
    )
    parser.add_argument(
        "--heartbeat",
        type=float,
        default=15.0,
        metavar="SECONDS",
        help="idle time before an SSE keep-alive comment (default: 15)",
    )
    parser.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )
    parser.add_argument(
        "--auth",
        action="store_true",
        help="auth mode: OAuth client credentials at POST /oauth/token, a bearer "
        "token on every endpoint, threads and tasks kept per client",
    )
    parser.add_argument(
        "--client",
        action="append",
        default=[],
        metavar="NAME:SECRET",
        help="a client allowed to get tokens in --auth mode (repeatable)",
    )
    parser.add_argument(
        "--allow-loopback-webhooks",
        action="store_true",
        help="in --auth mode, still allow push webhooks to loopback/private "
        "addresses (always allowed without --auth, for the course)",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a Host name to serve besides the loopback names (repeatable)",
    )
    parser.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a browser origin allowed to call the server, with CORS (repeatable; default: none)",
    )
    parser.add_argument(
        "--public-url", default=None, help="the base URL the Agent Card advertises (default: bound address)"
    )
    parser.set_defaults(handler=run)


def _urls(host: str, port: int, a2a: bool) -> list[str]:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    base = f"http://{shown}:{port}"
    lines = [
        f"  AG-UI agent     POST {base}/ag-ui/agent",
        f"  thread snapshot GET  {base}/ag-ui/threads/{{threadId}}",
        f"  cancel a run    POST {base}/ag-ui/runs/{{runId}}/cancel",
    ]
    if a2a:
        lines += [
            f"  A2A JSON-RPC    POST {base}/a2a",
            f"  A2A HTTP+JSON        {base}/a2a/rest/message:send, …",
            f"  Agent Card      GET  {base}/.well-known/agent-card.json",
        ]
    return lines


def _grpc_wanted(args: argparse.Namespace) -> bool:
    if getattr(args, "no_grpc", False) or not args.a2a_agent:
        return False
    import importlib.util

    # the binding needs grpcio and the official stubs a2a-sdk ships (the `grpc` extra)
    try:
        return all(importlib.util.find_spec(name) is not None for name in ("grpc", "a2a.types", "google.rpc"))
    except ModuleNotFoundError:  # a parent package (a2a, google) is missing
        return False


def _warm_up() -> None:
    """Import what the first run would otherwise import while a client waits.

    The demo agent checks tool arguments with jsonschema, imported lazily so that the library
    stays light. In an environment with Jupyter, jsonschema's format checkers pull in
    ``rfc3987_syntax``, which builds a grammar at import: about 3 s here, on the first AG-UI
    run after a start. The server pays it before it says it is ready instead."""
    try:
        import jsonschema  # noqa: F401
    except ImportError:  # pragma: no cover - a core dependency
        pass


def run(args: argparse.Namespace) -> int:
    """Start the server and block until Ctrl-C. Returns the process exit code."""
    import socket

    import uvicorn

    from agentproto.demo.app import create_app
    from agentproto.demo.auth import parse_client

    db = args.db or str(default_db_path())
    auth = getattr(args, "auth", False)
    try:
        clients = dict(parse_client(c) for c in getattr(args, "client", []))
    except ValueError as exc:
        print(f"agentproto serve: {exc}", file=sys.stderr)
        return 2
    if auth and not clients:
        print("agentproto serve: --auth needs at least one --client NAME:SECRET", file=sys.stderr)
        return 2
    try:
        app = create_app(
            db,
            a2a_agent=args.a2a_agent,
            heartbeat_s=args.heartbeat,
            a2a_grpc=_grpc_wanted(args),
            allowed_hosts=tuple(getattr(args, "allowed_host", [])),
            allowed_origins=tuple(getattr(args, "allowed_origin", [])),
            public_url=getattr(args, "public_url", None),
            allow_loopback_webhooks=not auth or getattr(args, "allow_loopback_webhooks", False),
        )
    except Exception as exc:  # a bad --db path, a database from a newer version, …
        print(f"agentproto serve: cannot start: {exc}", file=sys.stderr)
        return 2
    _warm_up()
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # stream events promptly
        sock.bind((args.host, args.port))
        sock.listen(128)  # accept (queue) connections at once, while the app starts up
    except OSError as exc:
        print(f"agentproto serve: cannot bind {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 2
    port = sock.getsockname()[1]
    a2a = any(getattr(r, "path", "") == "/a2a" for r in app.routes)
    served: Any = app
    if auth:
        from agentproto.demo.auth import TOKEN_PATH, secure
        from agentproto.runtime import SystemClock

        shown = "127.0.0.1" if args.host in ("0.0.0.0", "") else args.host
        issuer = getattr(args, "public_url", None) or f"http://{shown}:{port}"
        served = secure(app, clients, clock=SystemClock(), issuer=issuer)
        print(
            f"  auth mode: tokens at POST {issuer.rstrip('/')}{TOKEN_PATH} for {', '.join(sorted(clients))}",
            flush=True,
        )
    print(f"agentproto demo server (database: {db})", flush=True)
    for line in _urls(args.host, port, a2a):
        print(line, flush=True)
    print("Press Ctrl-C to stop.", flush=True)
    import logging

    events = logging.getLogger("agentproto")  # refusals and failed runs: one JSON line each
    if not events.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s:     %(name)s %(message)s"))
        events.addHandler(handler)
        events.setLevel(logging.INFO)
    # proxy_headers off: the card's URLs come from configuration (--public-url), never from a
    # request, and that includes the scheme an X-Forwarded-Proto header would claim.
    config = uvicorn.Config(
        served, log_level=args.log_level, timeout_graceful_shutdown=2, proxy_headers=False
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl-C after its graceful shutdown
        pass
    print("agentproto serve: stopped.", flush=True)
    return 0
