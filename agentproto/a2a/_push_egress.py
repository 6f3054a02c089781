"""Where a webhook POST may go: the address policy, and connections pinned to checked addresses.

The server-side request forgery rule (spec §13.2: servers SHOULD refuse private and loopback
webhook targets) is judged twice with the same :class:`EgressPolicy`:

1. when a config is created, on the URL as written (:func:`agentproto.a2a.push.
   check_webhook_url`, which uses :func:`address_refusal` for literal addresses);
2. when a notification is sent, on every address the host name resolves to. That is this
   module's :class:`PinnedBackend`: an ``httpcore`` network backend that resolves the host
   once, refuses the connection if ANY address is refused, and then dials the checked address
   itself — so a DNS server that answers "public" to the check and "127.0.0.1" to the connect
   (DNS rebinding) gets nowhere: there is no second lookup. ``Host`` and TLS SNI still carry
   the name (``httpcore`` takes both from the URL, not from the address dialled).

A refusal at delivery time raises :class:`~agentproto.a2a.errors.InvalidParamsError`, the
error the create-time check gives, out of ``client.post`` (httpx passes exceptions that are
not its own through unchanged); the notifier treats it as permanent.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import httpcore
import httpx

from agentproto.a2a.errors import InvalidParamsError

__all__ = [
    "EgressPolicy",
    "IPAddress",
    "address_refusal",
    "resolve",
    "PinnedBackend",
    "PinnedTransport",
    "pinned_client",
    "MAX_ADDRESSES_DIALLED",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: Of the (all checked) addresses a name resolves to, how many are tried in turn before the
#: delivery counts as a connection error (each gets the connect timeout).
MAX_ADDRESSES_DIALLED = 2

_SOCKET_OPTION = tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]


@dataclass(frozen=True)
class EgressPolicy:
    """What webhook targets are allowed besides public (globally routable) addresses."""

    allow_loopback: bool = False  # 127.0.0.0/8, ::1, ``localhost`` (the teaching server)
    allow_private: bool = False  # RFC 1918, link-local (cloud metadata), ULA, CGNAT, reserved


LOOPBACK_REFUSED = "loopback targets are not allowed (spec §13.2)"
PRIVATE_REFUSED = "private, link-local and reserved addresses are not allowed (spec §13.2)"
UNSPECIFIED_REFUSED = "the unspecified address (0.0.0.0, ::) is never a webhook target"


def address_refusal(addr: IPAddress, policy: EgressPolicy) -> str | None:
    """Why ``addr`` may not be a webhook target under ``policy`` (``None``: it may).

    IPv4-mapped IPv6 addresses (``::ffff:127.0.0.1``) are judged as the IPv4 address they are.
    The unspecified address is refused whatever the policy: Linux connects it to the local host.
    """
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    if addr.is_unspecified:
        return UNSPECIFIED_REFUSED
    if addr.is_loopback:
        return None if policy.allow_loopback else LOOPBACK_REFUSED
    if policy.allow_private:
        return None
    if (
        not addr.is_global
        or addr.is_private
        or addr.is_link_local
        or addr.is_multicast
        or addr.is_reserved
        or (isinstance(addr, ipaddress.IPv6Address) and addr.is_site_local)
    ):
        return PRIVATE_REFUSED
    return None


async def resolve(host: str, port: int, timeout: float | None = None) -> list[str]:
    """Every address ``host`` resolves to for a TCP connection, in the resolver's order.

    Runs the system resolver (``socket.getaddrinfo``, as httpx would) in the loop's executor,
    bounded by ``timeout``. A failure is an ``httpcore.ConnectError`` / ``ConnectTimeout``, so
    httpx reports it as the connection error it is (and the notifier retries it)."""
    loop = asyncio.get_running_loop()
    try:
        infos = await asyncio.wait_for(
            loop.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP), timeout
        )
    except TimeoutError:
        raise httpcore.ConnectTimeout(f"resolving {host!r} timed out") from None
    except OSError as exc:
        raise httpcore.ConnectError(f"cannot resolve {host!r}: {exc}") from None
    out: list[str] = []
    for family, _type, _proto, _name, sockaddr in infos:
        if family not in (socket.AF_INET, socket.AF_INET6):
            continue
        addr = str(sockaddr[0])
        if addr not in out:
            out.append(addr)
    if not out:
        raise httpcore.ConnectError(f"{host!r} resolves to no address")
    return out


def _refused(host: str, why: str, addr: str = "") -> InvalidParamsError:
    where = f"push notification url host {host!r}" + (f" resolves to {addr}" if addr else "")
    return InvalidParamsError(f"{where}: refused: {why}", violations=[("url", why)])


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """An ``httpcore`` backend that connects only to addresses ``policy()`` allows, dialling the
    very address it checked (see the module docstring). ``policy`` is read at every connect."""

    def __init__(self, policy: Callable[[], EgressPolicy], inner: httpcore.AsyncNetworkBackend | None = None):
        self._policy = policy
        self._inner = inner if inner is not None else httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[_SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        policy = self._policy()
        addresses = await resolve(host, port, timeout)
        for addr in addresses:
            try:
                ip = ipaddress.ip_address(addr)
            except ValueError:
                raise _refused(host, "the resolver answered something that is not an address", addr) from None
            why = address_refusal(ip, policy)
            if why is not None:
                raise _refused(host, why, addr)
        last: Exception | None = None
        for addr in addresses[:MAX_ADDRESSES_DIALLED]:
            try:
                return await self._inner.connect_tcp(
                    addr, port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last = exc
        assert last is not None
        raise last

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[_SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise _refused(path, "webhooks are delivered over TCP only")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class PinnedTransport(httpx.AsyncHTTPTransport):
    """``httpx.AsyncHTTPTransport`` over a :class:`PinnedBackend`: no proxy (a proxy would be
    the peer we check, not the webhook), HTTP/1.1, the usual certificate checks."""

    def __init__(self, policy: Callable[[], EgressPolicy], *, limits: httpx.Limits) -> None:
        super().__init__(limits=limits, trust_env=False)
        # httpx builds its pool without a way to pass a network backend; build the same pool
        # with ours (the pinning test in tests/a2a/test_a2a_push_ssrf.py guards this).
        ctx: ssl.SSLContext = httpx.create_ssl_context(trust_env=False)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ctx,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            http1=True,
            http2=False,
            network_backend=PinnedBackend(policy),
        )


def pinned_client(
    policy: Callable[[], EgressPolicy], *, timeout_s: float, max_connections: int
) -> httpx.AsyncClient:
    """The HTTP client webhooks are POSTed with."""
    return httpx.AsyncClient(
        transport=PinnedTransport(policy, limits=httpx.Limits(max_connections=max_connections)),
        timeout=timeout_s,
        # Never follow redirects: a 3xx from an allowed host could point anywhere (internal
        # hosts included), and the answer is the webhook's, not a new target to POST to.
        follow_redirects=False,
        trust_env=False,
    )
