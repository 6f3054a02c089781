"""How every agentproto client authenticates: a bearer token, or OAuth 2.0 client credentials.

One option, ``auth=``, on :class:`~agentproto.a2a.client.A2AClient`,
:class:`~agentproto.a2a.client_bindings.RestA2AClient`,
:class:`~agentproto.a2a.client_bindings.GrpcA2AClient`,
:class:`~agentproto.agui.client.AGUIClient` and their sync twins. It takes

* a **string**: a bearer token you already have (:class:`BearerToken`), sent as is;
* a :class:`ClientCredentials`: the client-credentials grant (RFC 6749 §4.4). It asks the token
  endpoint for a token with a form-encoded body (§4.4.2), the client id and secret in
  ``Authorization: Basic`` (§2.3.1; or in the body with ``method="client_secret_post"``),
  keeps the token and asks again ``refresh_before`` seconds before ``expires_in`` runs out —
  and once more when the agent answers 401 anyway (a token revoked, a server restarted with a
  new key).

Theory of operation
-------------------
Both are :class:`httpx.Auth` objects, so the HTTP clients hand them to httpx, which calls
:meth:`ClientAuth.sync_auth_flow` or :meth:`ClientAuth.async_auth_flow` around every request:
set ``Authorization: Bearer …``, send, and on a 401 (with a token that can be renewed) forget
the token, get a new one and send the request once more. The gRPC client asks the same object
for the header (:meth:`ClientAuth.aheader`) and sends it as the ``authorization`` metadata
(A2A §7.3: credentials travel in the binding's headers or metadata), retrying once on
``UNAUTHENTICATED``. Time comes from an injected clock (:mod:`agentproto.clock`), so a test moves
a :class:`~agentproto.clock.FakeClock` past the refresh point instead of sleeping.

The token request goes out on a short-lived httpx client of its own (``transport=`` for tests),
so one :class:`ClientCredentials` serves sync and async clients and any number of event loops.
A refused request raises :class:`TokenRequestError` with the RFC 6749 §5.2 ``error`` code.

>>> ClientCredentials("http://127.0.0.1:8000/oauth/token", "alice", "s3cret").form()
{'grant_type': 'client_credentials'}
"""

from __future__ import annotations

import asyncio
import base64
import os
import re
import threading
import urllib.parse
import weakref
from collections.abc import AsyncGenerator, Generator
from typing import Any

import httpx

from agentproto.clock import Clock
from agentproto.errors import AgentProtoError

__all__ = [
    "ClientAuth",
    "BearerToken",
    "ClientCredentials",
    "TokenRequestError",
    "as_auth",
    "secret_env_name",
    "SECRET_ENV_PREFIX",
]

#: Where a client's secret waits in the environment: this prefix + its name (``serve --client``
#: reads the same variable, so one ``export`` serves the server and its caller on one machine).
SECRET_ENV_PREFIX = "AGENTPROTO_CLIENT_SECRET_"


class TokenRequestError(AgentProtoError):
    """The token endpoint refused the request (or could not be reached, or answered nonsense).

    ``error`` is the RFC 6749 §5.2 code (``invalid_client``, ``invalid_scope`` …) when the
    server sent one; ``http_status`` its HTTP status (``None`` when nothing answered).
    """

    def __init__(self, message: str, *, error: str | None = None, http_status: int | None = None) -> None:
        super().__init__(message)
        self.error = error
        self.http_status = http_status


class ClientAuth(httpx.Auth):
    """What ``auth=`` takes: something that produces ``Authorization: Bearer …``.

    Subclasses implement :meth:`token` / :meth:`atoken` (the current token, fetched if need be)
    and may implement :meth:`forget` (drop a token the server refused, so the next call fetches
    anew). ``renewable`` says whether a 401 is worth one retry.
    """

    renewable = False

    def token(self) -> str:
        raise NotImplementedError

    async def atoken(self) -> str:
        return self.token()

    def forget(self, token: str) -> None:
        """The server refused ``token``: do not hand it out again."""

    def header(self) -> str:
        return f"Bearer {self.token()}"

    async def aheader(self) -> str:
        return f"Bearer {await self.atoken()}"

    def sync_auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        token = self.token()
        request.headers["Authorization"] = f"Bearer {token}"
        response = yield request
        if response.status_code == 401 and self.renewable:
            self.forget(token)
            request.headers["Authorization"] = self.header()
            yield request

    async def async_auth_flow(self, request: httpx.Request) -> AsyncGenerator[httpx.Request, httpx.Response]:
        token = await self.atoken()
        request.headers["Authorization"] = f"Bearer {token}"
        response = yield request
        if response.status_code == 401 and self.renewable:
            self.forget(token)
            request.headers["Authorization"] = await self.aheader()
            yield request


class BearerToken(ClientAuth):
    """A token you already have, sent on every request (never renewed)."""

    def __init__(self, token: str) -> None:
        if not token or any(c in token for c in "\r\n "):
            raise ValueError("a bearer token is one non-empty word (no spaces or line breaks)")
        self._token = token

    def token(self) -> str:
        return self._token

    def __repr__(self) -> str:
        return "BearerToken('…')"  # never the token itself


class ClientCredentials(ClientAuth):
    """Tokens from an OAuth 2.0 token endpoint by the client-credentials grant (RFC 6749 §4.4).

    ``scope`` (space-separated) and ``resource`` (RFC 8707) are sent when given. ``clock`` (the
    wall clock by default) decides when a token is due for renewal: ``refresh_before`` seconds
    before it expires, or half its lifetime for a short one. ``method`` is how the client
    authenticates to the token endpoint: ``client_secret_basic`` (the default, which every
    server must support, §2.3.1) or ``client_secret_post`` (id and secret in the form).
    ``transport`` is the httpx transport of the token requests (tests pass a mock);
    ``timeout`` bounds each of them.
    """

    renewable = True

    def __init__(
        self,
        token_url: str,
        client_id: str,
        client_secret: str,
        *,
        scope: str | None = None,
        resource: str | None = None,
        clock: Clock | None = None,
        refresh_before: float = 30.0,
        method: str = "client_secret_basic",
        transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None = None,
        timeout: float = 10.0,
    ) -> None:
        if method not in ("client_secret_basic", "client_secret_post"):
            raise ValueError(f"method must be client_secret_basic or client_secret_post, not {method!r}")
        if not token_url.startswith(("http://", "https://")):
            raise ValueError(f"token_url must be an http(s) URL, not {token_url!r}")
        if refresh_before < 0 or timeout <= 0:
            raise ValueError("refresh_before must be >= 0 and timeout > 0")
        if clock is None:
            from agentproto.system import SystemClock

            clock = SystemClock()
        self.token_url = token_url
        self.client_id = client_id
        self._secret = client_secret
        self.scope = scope
        self.resource = resource
        self.clock = clock
        self.refresh_before = refresh_before
        self.method = method
        self.transport = transport
        self.timeout = timeout
        self._token: str | None = None
        self._renew_at_ms: int | None = None  # None: keep until the server refuses it
        #: How many tokens this provider has obtained (a test or a notebook counts them).
        self.tokens_fetched = 0
        self._lock = threading.Lock()
        self._alocks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )

    @classmethod
    def from_env(cls, token_url: str, client_id: str, **kwargs: Any) -> ClientCredentials:
        """The client's secret from ``AGENTPROTO_CLIENT_SECRET_<CLIENT_ID>`` (:func:`secret_env_name`);
        a ``KeyError`` naming the variable if it is not set."""
        variable = secret_env_name(client_id)
        secret = os.environ.get(variable)
        if not secret:
            raise KeyError(f"set {variable} to the secret of client {client_id!r}")
        return cls(token_url, client_id, secret, **kwargs)

    def __repr__(self) -> str:
        return f"ClientCredentials({self.token_url!r}, {self.client_id!r}, '…')"

    # -- the request and its answer (no I/O) -------------------------------------------------

    def form(self) -> dict[str, str]:
        """The form fields of the token request (§4.4.2), the secret only for ``client_secret_post``."""
        form = {"grant_type": "client_credentials"}
        if self.scope:
            form["scope"] = self.scope
        if self.resource:
            form["resource"] = self.resource
        if self.method == "client_secret_post":
            form.update(client_id=self.client_id, client_secret=self._secret)
        return form

    def request_headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self.method == "client_secret_basic":  # each part form-url-encoded first (§2.3.1)
            pair = f"{_form_encode(self.client_id)}:{_form_encode(self._secret)}"
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        return headers

    def _current(self) -> str | None:
        if self._token is None:
            return None
        if self._renew_at_ms is not None and self.clock.now_ms() >= self._renew_at_ms:
            return None
        return self._token

    def _accept(self, response: httpx.Response) -> str:
        """Read a token response (§5.1) into the cache, or raise what §5.2 says went wrong."""
        try:
            body: Any = response.json()
        except ValueError:
            body = None
        if response.status_code != 200:
            error = body.get("error") if isinstance(body, dict) else None
            description = body.get("error_description", "") if isinstance(body, dict) else response.text[:200]
            raise TokenRequestError(
                f"token request to {self.token_url} refused (HTTP {response.status_code}"
                f"{', ' + str(error) if error else ''}): {description}",
                error=str(error) if error else None,
                http_status=response.status_code,
            )
        token = body.get("access_token") if isinstance(body, dict) else None
        if not isinstance(token, str) or not token or str(body.get("token_type", "")).lower() != "bearer":
            raise TokenRequestError(
                f"{self.token_url} answered without a bearer access_token: {response.text[:200]}",
                http_status=response.status_code,
            )
        lifetime = body.get("expires_in")
        self._token = token
        self._renew_at_ms = None
        if isinstance(lifetime, int | float) and not isinstance(lifetime, bool) and lifetime > 0:
            margin = min(self.refresh_before, lifetime / 2)
            self._renew_at_ms = self.clock.now_ms() + int((lifetime - margin) * 1000)
        self.tokens_fetched += 1
        return token

    def forget(self, token: str) -> None:
        with self._lock:
            if self._token == token:
                self._token = None

    def _unreachable(self, exc: httpx.HTTPError) -> TokenRequestError:
        return TokenRequestError(f"cannot reach the token endpoint {self.token_url}: {exc}")

    # -- I/O -----------------------------------------------------------------------------------

    def token(self) -> str:
        """A valid access token: the one kept, or a new one from the token endpoint."""
        with self._lock:
            current = self._current()
            if current is not None:
                return current
            transport = self.transport if isinstance(self.transport, httpx.BaseTransport) else None
            try:
                with httpx.Client(transport=transport, timeout=self.timeout) as http:
                    response = http.post(self.token_url, data=self.form(), headers=self.request_headers())
            except httpx.HTTPError as exc:
                raise self._unreachable(exc) from exc
            return self._accept(response)

    async def atoken(self) -> str:
        """:meth:`token` without blocking the event loop (one request at a time per loop)."""
        lock = self._alocks.setdefault(asyncio.get_running_loop(), asyncio.Lock())
        async with lock:
            current = self._current()
            if current is not None:
                return current
            transport = self.transport if isinstance(self.transport, httpx.AsyncBaseTransport) else None
            try:
                async with httpx.AsyncClient(transport=transport, timeout=self.timeout) as http:
                    response = await http.post(
                        self.token_url, data=self.form(), headers=self.request_headers()
                    )
            except httpx.HTTPError as exc:
                raise self._unreachable(exc) from exc
            with self._lock:
                return self._accept(response)


def secret_env_name(client_id: str) -> str:
    """``AGENTPROTO_CLIENT_SECRET_`` + the name upper-cased, other characters as ``_``.

    >>> secret_env_name("travel-desk")
    'AGENTPROTO_CLIENT_SECRET_TRAVEL_DESK'
    """
    return SECRET_ENV_PREFIX + re.sub(r"[^A-Za-z0-9]", "_", client_id).upper()


def _form_encode(text: str) -> str:
    return urllib.parse.quote_plus(text, safe="")


def as_auth(auth: str | ClientAuth | None) -> ClientAuth | None:
    """The ``auth=`` option as a :class:`ClientAuth`: a string is a :class:`BearerToken`."""
    if auth is None or isinstance(auth, ClientAuth):
        return auth
    if isinstance(auth, str):
        return BearerToken(auth)
    raise TypeError(f"auth must be a bearer token (str) or a ClientAuth (ClientCredentials …), not {auth!r}")
