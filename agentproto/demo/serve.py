"""``agentproto serve``: run the demo agents (AG-UI, and A2A when present) under uvicorn.

Binds 127.0.0.1 by default — a teaching server has no business on a public interface; pass
``--host 0.0.0.0`` deliberately if you must. Threads, pending approvals and refunds live in a
SQLite file under the user's data directory (``--db``), so stopping the server loses nothing;
``--db :memory:`` keeps everything in memory instead. One server per database: ``serve`` holds
an exclusive lock on ``<db>.lock`` while it runs (``Store(path, exclusive=True)``), and a second
``serve`` on the same file exits 2 with a message naming the first one's PID, before it reads
or changes anything (its start-up recovery would otherwise fail the first one's running tasks).

Connection limits (slowloris and idle connections; each has a flag):

=============================  =========  ============================================================
limit                          default    what a client gets beyond it
=============================  =========  ============================================================
``HEAD_TIMEOUT_S``             10 s       a request head (or an idle new connection) not complete in
                                          time: ``408 Request Timeout``, connection closed
``BODY_TIMEOUT_S``             30 s       a body not received in time: ``408``, connection closed
``KEEP_ALIVE_S``               5 s        an idle keep-alive connection is closed
``MAX_CONNECTIONS_PER_PEER``   256        ``429 Too Many Requests`` + ``Retry-After``, closed
``LIMIT_CONCURRENCY``          1000       uvicorn's ``503`` (all peers together; the last resort)
=============================  =========  ============================================================

At start the process raises its open-file limit (``RLIMIT_NOFILE``) to the hard limit, so the
caps above, not the file descriptor table, decide. Beyond loopback put a reverse proxy in front
(nginx ``client_header_timeout``, ``client_body_timeout``, ``limit_conn``): it is the place for
slow clients, TLS and per-address limits across many machines.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import logging
import sys
from pathlib import Path
from typing import Any, ClassVar

from agentproto.limits import ConnectionLimits
from agentproto.server._log import serve_log as _log
from agentproto.server._paths import AGENT_CARD_PATH, TOKEN_PATH
from agentproto.server.config import AuthConfig, Bindings, ServerConfig, WebhookPolicy

__all__ = [
    "configure",
    "config_from_args",
    "default_db_path",
    "run",
    "BodyDeadline",
    "GuardedH11Protocol",
    "raise_nofile_limit",
    "HEAD_TIMEOUT_S",
    "BODY_TIMEOUT_S",
    "KEEP_ALIVE_S",
    "MAX_CONNECTIONS_PER_PEER",
    "LIMIT_CONCURRENCY",
]

_DEFAULTS = ConnectionLimits()
HEAD_TIMEOUT_S = _DEFAULTS.head_timeout_s
BODY_TIMEOUT_S = _DEFAULTS.body_timeout_s
KEEP_ALIVE_S = _DEFAULTS.keep_alive_s
MAX_CONNECTIONS_PER_PEER = _DEFAULTS.max_per_peer
LIMIT_CONCURRENCY = _DEFAULTS.limit_concurrency


def _plain(status: str, text: str, *extra: str) -> bytes:
    body = text.encode()
    head = [f"HTTP/1.1 {status}", "content-type: text/plain", *extra, f"content-length: {len(body)}"]
    return ("\r\n".join([*head, "connection: close", "", ""])).encode() + body


_TIMEOUT_408 = _plain("408 Request Timeout", "request head timed out.\n")
_BUSY_429 = _plain("429 Too Many Requests", "too many connections from your address\n", "retry-after: 5")


def raise_nofile_limit() -> tuple[int, int] | None:
    """Raise the soft ``RLIMIT_NOFILE`` to the hard limit; returns ``(soft, hard)`` now in force."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):  # pragma: no cover - e.g. macOS with RLIM_INFINITY
            pass
    return soft, hard


def _guarded_protocol() -> type[Any]:
    """:class:`GuardedH11Protocol`, built on first use (uvicorn is a ``server`` extra)."""
    global GuardedH11Protocol
    if GuardedH11Protocol is not None:
        return GuardedH11Protocol
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class _Guarded(H11Protocol):
        """uvicorn's h11 protocol with a deadline on request heads and a per-peer cap.

        uvicorn times out only *between* requests (``timeout_keep_alive``); a client that opens
        a connection, or starts a head, and then sends a byte now and then holds the connection
        forever. Here a head (from the connection's first byte, or its opening) must be complete
        within ``head_timeout_s``, else ``408`` and close."""

        head_timeout_s: ClassVar[float] = HEAD_TIMEOUT_S
        max_per_peer: ClassVar[int] = MAX_CONNECTIONS_PER_PEER
        per_peer: ClassVar[collections.Counter[str]] = collections.Counter()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._head_timer: asyncio.TimerHandle | None = None
            self._peer = str(self.client[0]) if self.client else ""
            self.per_peer[self._peer] += 1
            if self.per_peer[self._peer] > self.max_per_peer:
                _log.warning("refused a connection: more than %d from one address", self.max_per_peer)
                transport.write(_BUSY_429)
                transport.close()
                return
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            left = self.per_peer[self._peer] - 1
            if left > 0:
                self.per_peer[self._peer] = left
            else:
                self.per_peer.pop(self._peer, None)
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self.conn.their_state is h11.IDLE and self._head_timer is None:
                self._arm()  # the first byte of a head on a kept-alive connection
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:
                self._disarm()  # the head is complete

        def _arm(self) -> None:
            self._head_timer = self.loop.call_later(self.head_timeout_s, self._head_timed_out)

        def _disarm(self) -> None:
            timer = getattr(self, "_head_timer", None)
            if timer is not None:
                timer.cancel()
                self._head_timer = None

        def _head_timed_out(self) -> None:
            self._head_timer = None
            if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
                return
            if self.cycle is not None and not self.cycle.response_complete:
                return  # pragma: no cover - a response in flight (pipelining)
            self.transport.write(_TIMEOUT_408)
            self.transport.close()

    GuardedH11Protocol = _Guarded
    return _Guarded


#: Set by :func:`_guarded_protocol` (a subclass of uvicorn's ``H11Protocol``).
GuardedH11Protocol: type[Any] | None = None


class _BodyTimeout(Exception):
    pass


class BodyDeadline:
    """ASGI middleware: the whole request body must arrive within ``timeout_s`` of the request
    head, else ``408 Request Timeout`` with ``Connection: close`` (slowloris on bodies). Reads
    after the body (an SSE response waiting for the disconnect) have no deadline."""

    def __init__(self, app: Any, timeout_s: float = BODY_TIMEOUT_S) -> None:
        self.app = app
        self.timeout_s = timeout_s

    def __getattr__(self, name: str) -> Any:
        return getattr(self.app, name)  # ``served.state`` and friends reach the app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout_s
        body_done = False
        started = False
        timed_out = False

        async def timed_receive() -> Any:
            nonlocal body_done, timed_out
            if body_done or timed_out:
                return await receive() if not timed_out else {"type": "http.disconnect"}
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                timed_out = True
                await reply_408()
                return {"type": "http.disconnect"}
            if message.get("type") != "http.request" or not message.get("more_body", False):
                body_done = True
            return message

        async def reply_408() -> None:
            if started:
                return
            _log.warning("request body not received within %.0f s: 408", self.timeout_s)
            await send(
                {
                    "type": "http.response.start",
                    "status": 408,
                    "headers": [(b"content-type", b"text/plain"), (b"connection", b"close")],
                }
            )
            await send({"type": "http.response.body", "body": b"request body timed out.\n"})

        async def tracked_send(message: Any) -> None:
            nonlocal started
            if timed_out:
                return  # the 408 is the answer
            if message.get("type") == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, timed_receive, tracked_send)
        except Exception:
            if not timed_out:
                raise


def default_db_path() -> Path:
    """``<user data dir>/agentproto/agentproto.sqlite3`` (platformdirs decides the data dir)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("agentproto")) / "agentproto.sqlite3"


#: ``serve --help`` ends with the token request, as a caller makes it (RFC 6749 §4.4).
AUTH_EPILOG = """\
auth mode: a client gets a token, then sends it on every request
  export AGENTPROTO_CLIENT_SECRET_ALICE='a-secret-of-16-or-more-chars'
  agentproto serve --auth --client alice
  curl -s http://127.0.0.1:8000/oauth/token -d grant_type=client_credentials \\
       -d client_id=alice -d client_secret="$AGENTPROTO_CLIENT_SECRET_ALICE"
  -> {"access_token": "eyJ...", "token_type": "Bearer", "expires_in": ...}
  The body is form-encoded (application/x-www-form-urlencoded, RFC 6749 §4.4.2); the id
  and secret may instead go in an Authorization: Basic header. Then send
  "Authorization: Bearer <access_token>" on the A2A and AG-UI endpoints (gRPC: the
  "authorization" metadata). Each client sees only its own threads and tasks.
"""


def configure(parser: argparse.ArgumentParser) -> None:
    """Register the ``serve`` options on ``parser`` (see :mod:`agentproto.cli`)."""
    parser.epilog = AUTH_EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    _server_options(parser)
    _auth_options(parser)
    _browser_options(parser)
    _connection_options(parser)
    parser.set_defaults(handler=run)


def _server_options(parser: argparse.ArgumentParser) -> None:
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


def _auth_options(parser: argparse.ArgumentParser) -> None:
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
        help="in --auth mode, still allow push webhooks to loopback addresses (127.0.0.0/8, "
        "::1, localhost; always allowed without --auth, for the course). Private, link-local "
        "and other reserved addresses stay refused in every mode",
    )


def _browser_options(parser: argparse.ArgumentParser) -> None:
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


def _connection_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--header-timeout",
        type=float,
        default=HEAD_TIMEOUT_S,
        metavar="SECONDS",
        help=f"time a client has to send a request head: 408 beyond (default: {HEAD_TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--body-timeout",
        type=float,
        default=BODY_TIMEOUT_S,
        metavar="SECONDS",
        help=f"time a client has to send a request body: 408 beyond (default: {BODY_TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--max-connections-per-peer",
        type=int,
        default=MAX_CONNECTIONS_PER_PEER,
        metavar="N",
        help=f"open HTTP connections from one address: 429 beyond (default: {MAX_CONNECTIONS_PER_PEER})",
    )
    parser.add_argument(
        "--limit-concurrency",
        type=int,
        default=LIMIT_CONCURRENCY,
        metavar="N",
        help=f"open HTTP connections in all: uvicorn's 503 beyond (default: {LIMIT_CONCURRENCY})",
    )


def config_from_args(args: argparse.Namespace, *, port: int | None = None) -> ServerConfig:
    """The :class:`ServerConfig` the ``serve`` arguments describe (``port``: the port the
    socket is bound to, when ``--port 0`` let the kernel choose). Raises ``ValueError`` for
    a ``--client`` that is not ``NAME:SECRET``."""
    specs = getattr(args, "client", [])
    clients: dict[str, str] = {}
    if specs:  # auth mode (cryptography, PyJWT) is imported only when it is asked for
        from agentproto.demo.auth import parse_client

        clients = dict(parse_client(c) for c in specs)
    auth = AuthConfig.of(clients) if getattr(args, "auth", False) else None
    return ServerConfig(
        host=args.host,
        port=args.port if port is None else port,
        db=args.db or str(default_db_path()),
        a2a_agent=args.a2a_agent,
        auth=auth,
        connections=ConnectionLimits(
            head_timeout_s=float(getattr(args, "header_timeout", HEAD_TIMEOUT_S)),
            body_timeout_s=float(getattr(args, "body_timeout", BODY_TIMEOUT_S)),
            max_per_peer=int(getattr(args, "max_connections_per_peer", MAX_CONNECTIONS_PER_PEER)),
            limit_concurrency=int(getattr(args, "limit_concurrency", LIMIT_CONCURRENCY)),
        ),
        allowed_hosts=tuple(getattr(args, "allowed_host", [])),
        allowed_origins=tuple(getattr(args, "allowed_origin", [])),
        public_url=getattr(args, "public_url", None),
        bindings=Bindings(grpc=_grpc_wanted(args)),
        heartbeat_s=args.heartbeat,
        # loopback webhooks: allowed without --auth (the course), refused with it unless asked
        webhooks=WebhookPolicy(
            loopback=None if not getattr(args, "allow_loopback_webhooks", False) else True
        ),
    )


def _urls(config: ServerConfig) -> list[str]:
    base = ServerConfig(host=config.host, port=config.port).base_url  # the bound address
    lines = [
        f"  AG-UI agent     POST {base}/ag-ui/agent",
        f"  thread snapshot GET  {base}/ag-ui/threads/{{threadId}}",
        f"  cancel a run    POST {base}/ag-ui/runs/{{runId}}/cancel",
    ]
    if config.a2a_agent:
        lines += [
            f"  A2A JSON-RPC    POST {base}/a2a",
            f"  A2A HTTP+JSON        {base}/a2a/rest/message:send, …",
            f"  Agent Card      GET  {base}{AGENT_CARD_PATH}",
        ]
    if config.auth is not None:
        names = ", ".join(name for name, _ in config.auth.clients)
        lines.append(f"  auth mode: tokens at POST {config.auth.issuer_for(config)}{TOKEN_PATH} for {names}")
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
    """Import what the first run would otherwise import while a client waits: jsonschema,
    which the demo agent checks tool arguments with (loaded lazily so the library stays light,
    and without the format checkers that cost seconds: :mod:`agentproto._schemas`)."""
    from agentproto._schemas import jsonschema

    jsonschema()


def run(args: argparse.Namespace) -> int:
    """Start the server and block until Ctrl-C. Returns the process exit code (2: it could
    not start — bad clients, a database another server holds, a port in use, …)."""
    from agentproto.store import DatabaseInUseError, Store

    try:
        config = config_from_args(args)
    except ValueError as exc:
        print(f"agentproto serve: {exc}", file=sys.stderr)
        return 2
    if config.auth is not None and not config.auth.clients:
        print("agentproto serve: --auth needs at least one --client NAME:SECRET", file=sys.stderr)
        return 2
    # One server per database (F10): the lock on <db>.lock is held by this process until it
    # ends, taken before anything reads or recovers the file, so a second `serve` on the same
    # database stops here, naming the first one's PID, and changes nothing.
    try:
        held = Store(config.db, exclusive=True)
    except DatabaseInUseError as exc:
        print(f"agentproto serve: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a bad --db path (a directory, no permission, …)
        print(f"agentproto serve: cannot start: {exc}", file=sys.stderr)
        return 2
    try:
        return _run_holding(config, args.log_level)
    finally:
        held.close()  # gives the lock back


def _bind(host: str, port: int) -> Any:
    """A listening socket on ``host:port``: it accepts (queues) connections at once, while
    the app starts up, and tells the port ``--port 0`` got."""
    import socket

    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # stream events promptly
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def _run_holding(config: ServerConfig, log_level: str) -> int:
    """The rest of :func:`run`, while this process holds the database."""
    from dataclasses import replace

    from agentproto.demo.app import create_app

    try:
        sock = _bind(config.host, config.port)
    except OSError as exc:
        print(f"agentproto serve: cannot bind {config.host}:{config.port}: {exc}", file=sys.stderr)
        return 2
    config = replace(config, port=sock.getsockname()[1])  # the issuer and banner name the real port
    try:
        app = create_app(config)
    except Exception as exc:  # a bad --db path, a database from a newer version, …
        sock.close()
        print(f"agentproto serve: cannot start: {exc}", file=sys.stderr)
        return 2
    _warm_up()
    raise_nofile_limit()
    print(f"agentproto demo server (database: {config.db})", flush=True)
    for line in _urls(config):
        print(line, flush=True)
    print("Press Ctrl-C to stop.", flush=True)
    _log_events()
    try:
        _uvicorn_server(app, config, log_level).run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl-C after its graceful shutdown
        pass
    print("agentproto serve: stopped.", flush=True)
    return 0


def _log_events() -> None:
    """Refusals and failed runs: one JSON line each on stderr (unless logging is set up)."""
    events = logging.getLogger("agentproto")
    if not events.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s:     %(name)s %(message)s"))
        events.addHandler(handler)
        events.setLevel(logging.INFO)


def _uvicorn_server(app: Any, config: ServerConfig, log_level: str) -> Any:
    """uvicorn with the connection limits of ``config`` (the module table)."""
    import uvicorn

    limits = config.connections
    protocol = _guarded_protocol()
    protocol.head_timeout_s = limits.head_timeout_s
    protocol.max_per_peer = limits.max_per_peer
    # proxy_headers off: the card's URLs come from configuration (--public-url), never from a
    # request, and that includes the scheme an X-Forwarded-Proto header would claim.
    return uvicorn.Server(
        uvicorn.Config(
            BodyDeadline(app, limits.body_timeout_s),
            log_level=log_level,
            timeout_graceful_shutdown=2,
            proxy_headers=False,
            http=protocol,
            timeout_keep_alive=limits.keep_alive_s,
            limit_concurrency=limits.limit_concurrency,
            h11_max_incomplete_event_size=16 * 1024,
        )
    )
