"""Mutual verification: both ends of an agent-to-agent call prove who they are (seed 004 §10).

Ordinary web authentication is one-way: the client proves itself to the server. Between agents
that is not enough — a malicious agent can pose as the *orchestrator* and send orders, or pose
as the *bank agent* and receive them. So each side checks the other:

* the **caller** checks the callee: the Agent Card it fetched is signed by a key it trusts
  (A2A §8.4) — and, in production, the TLS certificate of the host it connects to (§7.2);
* the **callee** checks the caller: the bearer token was issued by the authorization server it
  trusts, for *this* agent, with the scopes the request needs, and has not expired (§7.4).

:func:`mutual_check` runs both checks and reports both verdicts, so a notebook can show which
side refuses a forged party. It is sans-I/O: the card, the headers and the keys are arguments.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from agentproto.a2a.types import AgentCard
from agentproto.clock import Clock
from agentproto.security.cards import KeyLookup, signature_header, verify_card
from agentproto.security.errors import CardSignatureError, SecurityError, TokenError
from agentproto.security.keys import KeySet
from agentproto.security.tokens import authorize

__all__ = ["SideVerdict", "MutualResult", "mutual_check"]


@dataclass(frozen=True)
class SideVerdict:
    """One side's check of the other."""

    side: str
    check: str
    ok: bool
    detail: str
    error: SecurityError | None = None

    def line(self) -> str:
        mark = "✓" if self.ok else "✗"
        return f"{mark} {self.side:<22} {self.check:<18} {self.detail}"


@dataclass(frozen=True)
class MutualResult:
    """Both verdicts; the call may proceed only if both are ``ok``."""

    caller_checks_callee: SideVerdict
    callee_checks_caller: SideVerdict

    @property
    def ok(self) -> bool:
        return self.caller_checks_callee.ok and self.callee_checks_caller.ok

    def table(self) -> str:
        verdict = "call proceeds" if self.ok else "call refused"
        return "\n".join([self.caller_checks_callee.line(), self.callee_checks_caller.line(), f"→ {verdict}"])


def mutual_check(
    *,
    callee_card: AgentCard | Mapping[str, Any],
    card_keys: KeyLookup,
    caller_headers: Mapping[str, str],
    audience: str,
    token_keys: KeySet | Mapping[str, Any],
    clock: Clock,
    required_scopes: Iterable[str] = (),
    issuer: str | None = None,
) -> MutualResult:
    """Check the callee's signed card (caller's side) and the caller's token (callee's side)."""
    try:
        sig = verify_card(callee_card, card_keys, clock=clock)
        name = callee_card.name if isinstance(callee_card, AgentCard) else callee_card.get("name")
        card = SideVerdict(
            "caller checks callee",
            "signed card",
            True,
            f"{name!r} signed by {signature_header(sig).get('kid')}",
        )
    except CardSignatureError as exc:
        card = SideVerdict(
            "caller checks callee", "signed card", False, f"{type(exc).__name__} [{exc.rule}]", exc
        )
    try:
        claims = authorize(
            caller_headers,
            audience=audience,
            keys=token_keys,
            clock=clock,
            required_scopes=required_scopes,
            issuer=issuer,
        )
        token = SideVerdict("callee checks caller", "bearer token", True, claims.summary())
    except TokenError as exc:
        token = SideVerdict(
            "callee checks caller",
            "bearer token",
            False,
            f"{type(exc).__name__} [{exc.rule}] → HTTP {exc.http_status}",
            exc,
        )
    return MutualResult(card, token)
