"""``agentproto a2a …`` — talk to an A2A agent from the shell.

::

    agentproto a2a send --url http://127.0.0.1:8000 "Plan my trip to Sanya"
    agentproto a2a send --url http://127.0.0.1:8000 --task-id T "2026-04-08 to 2026-04-12"
    agentproto a2a send --url http://127.0.0.1:8000 --stream "Trip to Tokyo 2026-05-01 2026-05-04"
    agentproto a2a send --url http://127.0.0.1:8000 --binding grpc --client-id alice "Plan my trip"
    agentproto a2a card --url http://127.0.0.1:8000

``--url`` is the agent's base URL: the client reads ``/.well-known/agent-card.json`` there (or at
the URL's origin, if you pass the JSON-RPC endpoint itself) and uses the card's JSON-RPC 1.0
interface, or the one ``--binding`` names (``jsonrpc``, ``rest`` = HTTP+JSON, ``grpc``).

Authentication (an agent such as ``agentproto serve --auth``): ``--token TOKEN`` sends a bearer
token you have; ``--client-id NAME`` gets tokens by the OAuth 2.0 client-credentials grant, the
secret from the environment variable ``AGENTPROTO_CLIENT_SECRET_<NAME>`` (the convention of
``serve --client``), the token endpoint from ``--token-url`` — by default the card's
client-credentials ``tokenUrl``, else ``<url>/oauth/token``. The same token goes on every
binding (:mod:`agentproto.client_auth`).

``send`` prints the resulting Task — or the agent's direct Message — as JSON. ``--no-wait`` sends
``returnImmediately`` and prints the task as created; ``--stream`` uses
``SendStreamingMessage`` and prints every event as one JSON object per line (JSON Lines).

Exit status: **0** the call succeeded (whatever state the task is in — read it from the JSON);
**1** the agent answered with an A2A/JSON-RPC error, or with something that is not valid A2A
(the error is printed to stderr with its code); **2** bad usage, or the agent could not be
reached (connection refused, HTTP error such as a 401, timeout, a refused token request).
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.parse
from collections.abc import Callable
from typing import Any

from agentproto.a2a._client_core import card_token_url
from agentproto.a2a.client import (
    A2AClientError,
    A2AConnectionError,
    A2AHTTPError,
    A2ATimeoutError,
    InvalidResponseError,
    SyncA2AClient,
)
from agentproto.a2a.errors import A2AError
from agentproto.a2a.types import AgentCard
from agentproto.client_auth import ClientCredentials, TokenRequestError, secret_env_name

__all__ = ["configure", "EXIT_OK", "EXIT_PROTOCOL", "EXIT_USAGE"]

EXIT_OK = 0
EXIT_PROTOCOL = 1
EXIT_USAGE = 2


def configure(parser: argparse.ArgumentParser) -> None:
    """Register ``send`` and ``card`` under ``agentproto a2a``."""
    sub = parser.add_subparsers(dest="a2a_command", metavar="SUBCOMMAND")

    def usage(_args: argparse.Namespace) -> int:
        parser.print_help()
        return EXIT_USAGE

    parser.set_defaults(handler=usage)

    send = sub.add_parser(
        "send",
        help="send a message; print the resulting task as JSON",
        description="Send a message to an A2A agent and print the result.",
    )
    send.add_argument("text", metavar="TEXT", help="the message text")
    send.add_argument("--url", required=True, help="the agent's base URL (where its card is)")
    mode = send.add_mutually_exclusive_group()
    mode.add_argument("--stream", action="store_true", help="stream the updates (one JSON object per line)")
    mode.add_argument(
        "--no-wait", action="store_true", help="return at once (returnImmediately) instead of waiting"
    )
    send.add_argument("--task-id", help="continue this task (answer an input-required task)")
    send.add_argument("--context-id", help="the conversation (context) to send in")
    send.add_argument(
        "--history-length",
        type=int,
        default=None,
        help="at most this many history messages in the printed task",
    )
    send.add_argument(
        "--timeout", type=float, default=60.0, help="give up after this many seconds (default 60)"
    )
    send.add_argument(
        "--binding",
        choices=["jsonrpc", "rest", "grpc"],
        default="jsonrpc",
        help="the protocol binding (default: jsonrpc, the kit's first choice; rest = HTTP+JSON; "
        "grpc needs grpcio)",
    )
    _auth_options(send)
    send.set_defaults(handler=_send)

    card = sub.add_parser(
        "card", help="print the agent's card as JSON", description="Fetch and print an A2A Agent Card."
    )
    card.add_argument("--url", required=True, help="the agent's base URL")
    card.set_defaults(handler=_card)


def _auth_options(send: argparse.ArgumentParser) -> None:
    who = send.add_mutually_exclusive_group()
    who.add_argument("--token", metavar="TOKEN", help="send this bearer token (Authorization: Bearer)")
    who.add_argument(
        "--client-id",
        metavar="NAME",
        help="get tokens by OAuth 2.0 client credentials as client NAME; the secret comes from "
        "the environment variable AGENTPROTO_CLIENT_SECRET_<NAME> (NAME upper-cased, other "
        "characters as _), as for `agentproto serve --client NAME`",
    )
    send.add_argument(
        "--token-url",
        metavar="URL",
        help="the token endpoint for --client-id (default: the card's client-credentials "
        "tokenUrl, else <url>/oauth/token)",
    )


def _candidates(url: str) -> list[str]:
    parts = urllib.parse.urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    return list(dict.fromkeys([url.rstrip("/"), origin]))


def _base(url: str) -> tuple[str, AgentCard]:
    """The base URL whose well-known path has the card (``url``, else its origin), and the card."""
    if not url.startswith(("http://", "https://")):
        raise _UsageError(f"--url must be an http(s) URL, not {url!r}")
    last: Exception | None = None
    for base in _candidates(url):
        try:
            return base, SyncA2AClient.fetch_card(base)
        except A2AHTTPError as exc:
            last = exc
    assert last is not None
    raise last


def _auth(args: argparse.Namespace, base: str, card: AgentCard) -> str | ClientCredentials | None:
    """``--token`` or ``--client-id`` as the clients' ``auth=`` option."""
    if getattr(args, "token", None):
        return str(args.token)
    name = getattr(args, "client_id", None)
    if not name:
        if getattr(args, "token_url", None):
            raise _UsageError("--token-url goes with --client-id")
        return None
    token_url = args.token_url or card_token_url(card) or base + "/oauth/token"
    try:
        return ClientCredentials.from_env(token_url, name, timeout=min(args.timeout, 30.0))
    except KeyError:
        raise _UsageError(f"--client-id {name}: set {secret_env_name(name)} to its secret") from None
    except ValueError as exc:
        raise _UsageError(str(exc)) from None


def _connect(args: argparse.Namespace) -> SyncA2AClient:
    base, card = _base(args.url)
    auth = _auth(args, base, card)
    return SyncA2AClient.connect(base, binding=args.binding, timeout=args.timeout, auth=auth)


class _UsageError(Exception):
    pass


def _print(obj: Any, *, compact: bool = False) -> None:
    if compact:
        print(json.dumps(obj, ensure_ascii=False, separators=(",", ":")), flush=True)
    else:
        print(json.dumps(obj, ensure_ascii=False, indent=2), flush=True)


def _run(fn: Callable[[], int]) -> int:
    try:
        return fn()
    except _UsageError as exc:
        print(f"agentproto a2a: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except InvalidResponseError as exc:
        print(f"agentproto a2a: invalid response: {exc}", file=sys.stderr)
        return EXIT_PROTOCOL
    except (A2AConnectionError, A2AHTTPError, A2ATimeoutError, TokenRequestError) as exc:
        print(f"agentproto a2a: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except A2AClientError as exc:  # e.g. the card offers no JSON-RPC 1.0 interface
        print(f"agentproto a2a: {exc}", file=sys.stderr)
        return EXIT_PROTOCOL
    except A2AError as exc:  # after the client errors, which are A2AErrors without a wire code
        print(f"agentproto a2a: error {exc.code}: {exc.message}", file=sys.stderr)
        return EXIT_PROTOCOL


def _send(args: argparse.Namespace) -> int:
    def go() -> int:
        if args.history_length is not None and args.history_length < 0:
            raise _UsageError("--history-length must be >= 0")
        with _connect(args) as client:
            common: dict[str, Any] = {
                "task_id": args.task_id,
                "context_id": args.context_id,
                "history_length": args.history_length,
                "timeout": args.timeout,
            }
            if args.stream:
                for event in client.stream(args.text, **common):
                    _print(event.to_wire(), compact=True)
                return EXIT_OK
            _print(client.send(args.text, return_immediately=args.no_wait, **common).to_wire())
            return EXIT_OK

    return _run(go)


def _card(args: argparse.Namespace) -> int:
    def go() -> int:
        _print(_base(args.url)[1].to_wire())
        return EXIT_OK

    return _run(go)
