"""Widgets for notebook 17 (trust and auth). Nothing here decides anything.

Every verdict comes from the package — :func:`~agentproto.security.tokens.token_checks` for
tokens, :func:`~agentproto.security.cards.verify_card` for cards, the real AG-UI demo server
for run inputs — and every forgery is made by :mod:`agentproto.security.forgery` or
:mod:`agentproto.security.probe`. This module only offers the attacker's choices and shows the
result.

========================  ====================================================================
:class:`TokenInspector`   a token from the authorization server; tamper with its claims, swap
                          its signature for a forgery, move the fake clock, change which agent
                          (audience) and scope the verifier needs — and see which row of the
                          check table fails, with the HTTP answer it becomes
:class:`CardTamperLab`    a signed Agent Card; rename it, redirect its endpoint, add a skill,
                          re-sign it with an attacker's key, strip its signatures — verify
:class:`ForgeryProbe`     posts run inputs to a live AG-UI server and tabulates its answers
:class:`SecuredDemo`      ``agentproto serve --auth`` in-process on a free loopback port: two
                          clients, their tokens, and one-line A2A calls to show who sees what
========================  ====================================================================

Widgets follow the course rule: every control is an attribute, so a test can set ``.value`` or
call ``.click()`` and read ``.view.value`` (or the plain-text properties) afterwards.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from agentproto.a2a.agents import TravelDeskAgent
from agentproto.a2a.types import AgentCard
from agentproto.clock import FakeClock
from agentproto.course.widgets import show
from agentproto.security.cards import (
    canonical_card_payload,
    card_fingerprint,
    sign_card,
    signature_header,
    verify_card,
)
from agentproto.security.errors import CardSignatureError, TokenError
from agentproto.security.forgery import (
    hmac_with_public_key,
    resigned,
    tamper_card,
    with_claims,
    without_signature,
)
from agentproto.security.keys import KeySet, teaching_key
from agentproto.security.probe import ForgeryAttempt, post_run_input, run_input
from agentproto.security.tokens import (
    CHECKS,
    CheckResult,
    challenge,
    decode_unverified,
    issue_token,
    token_checks,
)

if TYPE_CHECKING:
    import httpx

__all__ = ["TokenInspector", "CardTamperLab", "ForgeryProbe", "SecuredDemo"]

_MONO = "font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px"
_OK, _BAD, _SKIP = "#1a7f37", "#cf222e", "#8c959f"


# --------------------------------------------------------------------------- tokens


class TokenInspector:
    """A bearer token and the verifier's check table, driven by five controls.

    The authorization server ``https://auth.example`` (key ``auth-1``, Ed25519, so every run
    prints the same token) issues ``orchestrator`` a one-hour token for ``flight-agent`` with
    scope ``flights:search``. The learner then plays attacker or clock:

    * ``tamper`` — edit a claim *without* re-signing (scope, subject, expiry);
    * ``forgery`` — replace the signature: ``alg: none``; re-signed by a stranger under the
      auth server's ``kid``; a stranger's own ``kid``; HS256 keyed with the *public* key;
    * ``minutes`` / ``advance_button`` — move the verifier's fake clock forward;
    * ``audience`` / ``scope_needed`` — which agent verifies, and what the request needs.
    """

    ISSUER = "https://auth.example"
    TAMPERS = [
        ("nothing", "none"),
        ("scope += flights:book", "scope"),
        ("sub → admin", "subject"),
        ("exp + 1 day", "expiry"),
    ]
    FORGERIES = [
        ("signed by the auth server", "genuine"),
        ("alg: none (signature removed)", "alg-none"),
        ("re-signed by a stranger as auth-1", "stranger"),
        ("signed by a stranger's own key", "unknown-kid"),
        ("HS256 keyed with the public key", "hs-confusion"),
    ]

    def __init__(self, *, ttl_s: int = 3600, start_ms: int = FakeClock.DEFAULT_START_MS) -> None:
        self.start_ms = start_ms
        self._auth_key = teaching_key("auth server", "EdDSA")
        self._mallory = teaching_key("mallory", "EdDSA")
        self.keys = KeySet()
        self.keys.add("auth-1", self._auth_key.public_key())
        self.genuine = issue_token(
            "orchestrator",
            "flight-agent",
            ["flights:search"],
            ttl_s,
            self._auth_key,
            clock=FakeClock(start_ms),
            kid="auth-1",
            issuer=self.ISSUER,
            token_id="tok-1",
            extra={"client_id": "orchestrator"},  # the claim set AuthorizationServer issues (RFC 9068 §2.2)
        )
        style = {"description_width": "110px"}
        layout = widgets.Layout(width="380px")

        def dropdown(options: Sequence[Any], value: str, description: str) -> widgets.Dropdown:
            """One of the four pickers: the shared label width and (one) layout."""
            return widgets.Dropdown(
                options=options, value=value, description=description, style=style, layout=layout
            )

        self.tamper = dropdown(self.TAMPERS, "none", "tamper claim")
        self.forgery = dropdown(self.FORGERIES, "genuine", "signature")
        self.audience = dropdown(["flight-agent", "hotel-agent"], "flight-agent", "verifier is")
        self.scope_needed = dropdown(["flights:search", "flights:book"], "flights:search", "request needs")
        self.minutes = widgets.IntSlider(
            value=0,
            min=0,
            max=180,
            step=5,
            description="minutes later",
            style=style,
            layout=widgets.Layout(width="380px"),
        )
        self.advance_button = widgets.Button(description="+15 min")
        self.reset_button = widgets.Button(description="Reset")
        self.view = widgets.HTML()
        for control in (self.tamper, self.forgery, self.audience, self.scope_needed, self.minutes):
            control.observe(lambda _change: self.redraw(), names="value")
        self.advance_button.on_click(lambda _b: self._advance(15))
        self.reset_button.on_click(lambda _b: self.reset())
        self.redraw()

    # -- state -------------------------------------------------------------------------------

    def _advance(self, minutes: int) -> None:
        self.minutes.value = min(self.minutes.max, self.minutes.value + minutes)

    def reset(self) -> None:
        """Back to the genuine token, the flight agent, no time elapsed."""
        self.tamper.value, self.forgery.value = "none", "genuine"
        self.audience.value, self.scope_needed.value = "flight-agent", "flights:search"
        self.minutes.value = 0

    @property
    def clock(self) -> FakeClock:
        """The verifier's clock: issue time plus the slider's minutes."""
        return FakeClock(self.start_ms + self.minutes.value * 60_000)

    @property
    def token(self) -> str:
        """The token as the attacker (or the honest caller) presents it."""
        _, claims = decode_unverified(self.genuine)
        edits: dict[str, Any] = {
            "none": {},
            "scope": {"scope": "flights:book flights:search"},
            "subject": {"sub": "admin"},
            "expiry": {"exp": claims["exp"] + 86_400},
        }[self.tamper.value]
        token = with_claims(self.genuine, **edits)
        forgery = self.forgery.value
        if forgery == "alg-none":
            return without_signature(token)
        if forgery == "stranger":
            return resigned(token, self._mallory)  # under the auth server's own kid
        if forgery == "unknown-kid":
            return resigned(token, self._mallory, kid="mallory-1")
        if forgery == "hs-confusion":
            return hmac_with_public_key(token, self._auth_key.public_key())
        return token

    @property
    def results(self) -> list[CheckResult]:
        """The verifier's check table for the current token and settings."""
        return token_checks(
            self.token,
            audience=self.audience.value,
            keys=self.keys,
            clock=self.clock,
            required_scopes={self.scope_needed.value},
            issuer=self.ISSUER,
            algorithms=("EdDSA", "ES256", "RS256", "HS256"),
        )

    @property
    def error(self) -> TokenError | None:
        return next((r.error for r in self.results if r.error is not None), None)

    @property
    def verdict(self) -> str:
        """One line: accepted, or the HTTP status and error the request would get."""
        error = self.error
        if error is None:
            return "✓ accepted — the request goes through"
        return f"✗ HTTP {error.http_status} — {type(error).__name__} [{error.rule}]"

    def failed_check(self) -> str | None:
        return next((r.name for r in self.results if r.passed is False), None)

    # -- drawing -----------------------------------------------------------------------------

    def redraw(self) -> None:
        token = self.token
        parts = token.split(".")
        colours = ["#cf222e", "#8250df", "#0969da"]
        coloured = '<span style="color:#57606a">.</span>'.join(
            f'<span style="color:{c}">{html.escape(p)}</span>' for c, p in zip(colours, parts)
        )
        try:
            header, payload = decode_unverified(token)
            decoded = (
                f"header  {html.escape(json.dumps(header))}<br>payload {html.escape(json.dumps(payload))}"
            )
        except TokenError as exc:
            decoded = html.escape(str(exc))
        rows = []
        for check, result in zip(CHECKS, self.results):
            colour = {True: _OK, False: _BAD, None: _SKIP}[result.passed]
            rows.append(
                f'<tr style="color:{colour}"><td>{result.mark}</td>'
                f"<td>{html.escape(check.name)}</td>"
                f"<td>{html.escape(result.detail or check.passes_when)}</td></tr>"
            )
        error = self.error
        answer = (
            "" if error is None else f"<br>WWW-Authenticate: {html.escape(challenge(error, realm='flights'))}"
        )
        self.view.value = (
            f'<div style="{_MONO}; word-break: break-all; max-width: 760px">{coloured}</div>'
            f'<div style="{_MONO}; margin: 6px 0">{decoded}<br>verifier clock '
            f"{self.clock.now().strftime('%H:%M')} UTC</div>"
            f'<table style="{_MONO}">{"".join(rows)}</table>'
            f'<div style="{_MONO}; margin-top: 6px">'
            f"<b>{html.escape(self.verdict)}</b>{answer}</div>"
        )

    def widget(self) -> widgets.VBox:
        left = widgets.VBox([self.forgery, self.tamper, self.audience, self.scope_needed])
        time = widgets.HBox([self.minutes, self.advance_button, self.reset_button])
        return widgets.VBox([left, time, self.view])

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        show(self.widget())


# --------------------------------------------------------------------------- cards


class CardTamperLab:
    """The Travel Desk's Agent Card, signed; buttons change it the way an attacker would.

    The client trusts one key, ``travel-card-1``. Each button edits the *current* card (so
    edits combine) with :func:`~agentproto.security.forgery.tamper_card`; the view shows the
    verdict of :func:`verify_card`, the card's signatures (``kid``/``alg`` from each protected
    header) and a fingerprint of the canonical bytes the signature covers.
    """

    def __init__(self, url: str = "https://travel.example/a2a") -> None:
        self._key = teaching_key("travel card")
        self._attacker = teaching_key("attacker card")
        self.keys = KeySet()
        self.keys.add("travel-card-1", self._key.public_key())
        self.original = sign_card(TravelDeskAgent().card(url), self._key, kid="travel-card-1")
        self.card: AgentCard = self.original
        self.actions: list[str] = []
        make = widgets.Button
        self.rename_button = make(description="Rename it")
        self.redirect_button = make(description="Redirect endpoint")
        self.add_skill_button = make(description="Add a skill")
        self.resign_button = make(description="Re-sign as attacker")
        self.strip_button = make(description="Strip signatures")
        self.reset_button = make(description="Reset", button_style="info")
        self.view = widgets.HTML()
        self.rename_button.on_click(lambda _b: self.apply("rename"))
        self.redirect_button.on_click(lambda _b: self.apply("redirect"))
        self.add_skill_button.on_click(lambda _b: self.apply("add-skill"))
        self.resign_button.on_click(lambda _b: self.apply("re-sign"))
        self.strip_button.on_click(lambda _b: self.apply("strip"))
        self.reset_button.on_click(lambda _b: self.reset())
        self.redraw()

    def apply(self, action: str) -> None:
        """One attacker move: rename, redirect, add-skill, re-sign or strip."""
        self.card = tamper_card(self.card, action, attacker_key=self._attacker, kid="travel-card-1")
        self.actions.append(action)
        self.redraw()

    def reset(self) -> None:
        self.card = self.original
        self.actions = []
        self.redraw()

    @property
    def error(self) -> CardSignatureError | None:
        try:
            verify_card(self.card, self.keys)
        except CardSignatureError as exc:
            return exc
        return None

    @property
    def verdict(self) -> str:
        error = self.error
        if error is None:
            kid = signature_header(verify_card(self.card, self.keys)).get("kid")
            return f"✓ verified: signed by trusted key {kid}"
        return f"✗ {type(error).__name__} [{error.rule}]"

    def fingerprint(self) -> str:
        """The first 16 hex digits of SHA-256 over the canonical payload."""
        return card_fingerprint(self.card)

    def redraw(self) -> None:
        card = self.card
        sigs = (
            ", ".join(f"{h.get('kid')} ({h.get('alg')})" for h in map(signature_header, card.signatures))
            or "none"
        )
        error = self.error
        why = "" if error is None else (error.reasons[0] if error.reasons else error.message)
        detail = f"<br>{html.escape(why)}" if why else ""
        colour = _OK if error is None else _BAD
        self.view.value = (
            f'<div style="{_MONO}">name: {html.escape(card.name)}<br>'
            f"endpoint: {html.escape(card.supported_interfaces[0].url)}<br>"
            f"skills: {html.escape(', '.join(s.id for s in card.skills))}<br>"
            f"signatures: {html.escape(sigs)}<br>"
            f"canonical payload: {len(canonical_card_payload(card))} bytes, "
            f"sha256 {self.fingerprint()}…<br>"
            f"moves so far: {html.escape(', '.join(self.actions) or 'none')}</div>"
            f'<div style="{_MONO}; color:{colour}; margin-top: 6px">'
            f"<b>{html.escape(self.verdict)}</b>{detail}</div>"
        )

    def widget(self) -> widgets.VBox:
        buttons = widgets.HBox(
            [
                self.rename_button,
                self.redirect_button,
                self.add_skill_button,
                self.resign_button,
                self.strip_button,
                self.reset_button,
            ]
        )
        return widgets.VBox([buttons, self.view])

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        show(self.widget())


# --------------------------------------------------------------------------- forged run inputs


class ForgeryProbe:
    """Post hand-made run inputs to ``POST /ag-ui/agent`` and keep a table of the answers.

    A refusal (4xx) is reported with the server's ``error.code`` and message; an accepted input
    with the outcome of the run it started (``success``, ``interrupt`` …) and the run's
    ``result`` (see :func:`agentproto.security.probe.read_answer`). The probe deliberately skips
    every client-side check: it is the attacker. Messages longer than ``message_width`` are
    shortened in the table only. Pass an ``httpx.Client`` as ``client`` to reuse connections.
    """

    def __init__(self, base_url: str, *, message_width: int = 90, client: httpx.Client | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.message_width = message_width
        self.client = client
        self.attempts: list[ForgeryAttempt] = []

    def attempt(
        self,
        label: str,
        *,
        thread_id: str,
        run_id: str,
        messages: Sequence[dict[str, Any]] = (),
        resume: list[dict[str, Any]] | None = None,
        state: Any = None,
        tools: Sequence[dict[str, Any]] = (),
    ) -> ForgeryAttempt:
        body = run_input(
            thread_id=thread_id, run_id=run_id, messages=messages, resume=resume, state=state, tools=tools
        )
        result = post_run_input(self.base_url, label, body, client=self.client)
        self.attempts.append(result)
        return result

    def _short(self, text: str) -> str:
        return text if len(text) <= self.message_width else text[: self.message_width - 1] + "…"

    def line(self, attempt: ForgeryAttempt, width: int = 44) -> str:
        """One row of the table: label, HTTP status, code, (shortened) message."""
        return (
            f"{attempt.label:<{width}} HTTP {attempt.status}  {attempt.code:<28} "
            f"{self._short(attempt.message)}"
        )

    def table(self) -> str:
        width = max((len(a.label) for a in self.attempts), default=10) + 2
        return "\n".join(self.line(a, width) for a in self.attempts)


# --------------------------------------------------------------------------- the secured server


class SecuredDemo:
    """The demo server of ``agentproto serve --auth`` started in-process on ``127.0.0.1``,
    port 0 (a free port), database in memory — nothing is written anywhere.

    The app is :func:`agentproto.demo.app.create_app` of a
    :class:`~agentproto.server.ServerConfig` in auth mode with ``clients`` (``{name: secret}``);
    the clock is a :class:`FakeClock` and the token key is a teaching key, so every run prints
    the same answers. ``call(...)`` returns
    ``(HTTP status, JSON body, WWW-Authenticate or "")``; nothing here decides anything.
    """

    ISSUER = "https://auth.demo.test"

    def __init__(self, clients: dict[str, str], *, a2a_agent: str = "conformance") -> None:
        from agentproto.clock import IdFactory
        from agentproto.demo.app import create_app
        from agentproto.server import AuthConfig, ServerConfig
        from agentproto.server.running import RunningServer

        self.clock = FakeClock()
        self.clients = dict(clients)
        auth = AuthConfig.of(self.clients, issuer=self.ISSUER, signing_key=teaching_key("demo auth", "EdDSA"))
        self.config = ServerConfig(port=0, a2a_agent=a2a_agent, auth=auth)
        self.app = create_app(self.config, clock=self.clock, ids=IdFactory("sec"))
        self.server = RunningServer(self.app).start()
        self.url = self.server.url

    def token(self, name: str) -> str:
        """A bearer token for client ``name`` (client credentials, ``client_secret_post``)."""
        import httpx

        from agentproto.server import TOKEN_PATH

        form = {"grant_type": "client_credentials", "client_id": name, "client_secret": self.clients[name]}
        answer = httpx.post(self.url + TOKEN_PATH, data=form, timeout=10)
        answer.raise_for_status()
        return str(answer.json()["access_token"])

    def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        token: str | None = None,
        content_type: str = "application/json",
        origin: str | None = None,
    ) -> tuple[int, Any, str]:
        """One JSON-RPC request to ``/a2a`` as a client (``token``) or a stranger (none)."""
        import httpx

        headers = {"A2A-Version": "1.0", "Content-Type": content_type}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if origin:
            headers["Origin"] = origin
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}})
        r = httpx.post(self.url + "/a2a", content=body, headers=headers, timeout=10)
        try:
            data: Any = r.json()
        except ValueError:
            data = r.text
        return r.status_code, data, r.headers.get("www-authenticate", "")

    def task_count(self) -> int:
        """How many A2A tasks the server holds, all owners together (the operator's view)."""
        with self.app.state.store.transaction() as db:
            return int(db.execute("SELECT COUNT(*) FROM a2a_tasks").fetchone()[0])

    def stop(self) -> None:
        self.server.stop()
