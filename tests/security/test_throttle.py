"""The token endpoint's backoff (F7) and the bounded audit logs (F2), without I/O."""

from __future__ import annotations

import asyncio

import pytest

from agentproto.clock import FakeClock, IdFactory
from agentproto.security import AuthorizationServer, OAuthError, teaching_key
from agentproto.security.errors import OAuthThrottled
from agentproto.security.serving import LOG_PATH_CHARS, LOG_SIZE, BearerAuth
from agentproto.security.throttle import (
    PAIR_LIMIT,
    PEER_LIMIT,
    BackoffPolicy,
    ClientAuthThrottle,
    FailureBackoff,
)

RIGHT = "alice-secret-0123456789"


def server(clock: FakeClock, **kwargs) -> AuthorizationServer:
    auth = AuthorizationServer(
        "https://auth.example",
        teaching_key("auth", "EdDSA"),
        kid="a",
        clock=clock,
        ids=IdFactory("tok"),
        **kwargs,
    )
    for name in ("alice", "bob"):
        auth.register_client(name, f"{name}-secret-0123456789", scopes={"s"}, resources={"r"})
    return auth


def form(client: str = "alice", secret: str = RIGHT) -> dict[str, str]:
    return {"grant_type": "client_credentials", "client_id": client, "client_secret": secret, "resource": "r"}


def test_the_policy_doubles_after_the_free_failures_up_to_its_cap():
    policy = BackoffPolicy(free_failures=2, base_s=1, max_s=5)
    assert [policy.delay_s(n) for n in range(1, 8)] == [0, 0, 1, 2, 4, 5, 5]
    assert PAIR_LIMIT.free_failures < PEER_LIMIT.free_failures


def test_a_key_waits_after_its_free_failures_and_a_success_clears_it():
    clock = FakeClock()
    backoff = FailureBackoff(clock, BackoffPolicy(free_failures=2, base_s=1, max_s=60))
    assert [backoff.failed("k") for _ in range(4)] == [0, 0, 1, 2]
    assert backoff.retry_after_s("k") == 2 and backoff.retry_after_s("other") == 0
    clock.advance(2000)
    assert backoff.retry_after_s("k") == 0
    backoff.succeeded("k")
    assert backoff.failures("k") == 0


def test_old_failures_are_forgotten_and_the_table_is_bounded():
    clock = FakeClock()
    backoff = FailureBackoff(clock, BackoffPolicy(free_failures=1, forget_s=10), max_keys=3)
    backoff.failed("k")
    clock.advance(11_000)
    assert backoff.failures("k") == 0
    for n in range(10):
        backoff.failed(("id", n))
    assert len(backoff) == 3


def test_the_authorization_server_backs_off_per_address_and_client():
    clock = FakeClock()
    auth = server(clock, throttle=ClientAuthThrottle(clock))
    for _ in range(PAIR_LIMIT.free_failures + 1):
        with pytest.raises(OAuthError) as refused:
            auth.token(form(secret="guess"), peer="10.0.0.9")
        assert refused.value.error == "invalid_client"
    # now even the right secret waits on that address: a guesser learns nothing from 429 vs 200
    with pytest.raises(OAuthThrottled) as throttled:
        auth.token(form(), peer="10.0.0.9")
    assert throttled.value.http_status == 429 and throttled.value.retry_after_s >= 1
    assert throttled.value.to_json()["error"] == "slow_down"
    # the legitimate client elsewhere, and another client on that address, are not locked out
    assert auth.token(form(), peer="10.0.0.1")["access_token"]
    assert auth.token(form("bob", "bob-secret-0123456789"), peer="10.0.0.9")["access_token"]
    clock.advance(throttled.value.retry_after_s * 1000)
    assert auth.token(form(), peer="10.0.0.9")["access_token"]


def test_spraying_client_ids_from_one_address_is_throttled_too():
    clock = FakeClock()
    auth = server(clock, throttle=ClientAuthThrottle(clock))
    for n in range(PEER_LIMIT.free_failures + 1):
        with pytest.raises(OAuthError):
            auth.token(form(f"who-{n}", "guess"), peer="10.0.0.9")
    with pytest.raises(OAuthThrottled):
        auth.token(form("who-new", "guess"), peer="10.0.0.9")
    assert auth.token(form(), peer="10.0.0.1")["access_token"]


def test_without_a_throttle_the_teaching_model_answers_every_guess():
    auth = server(FakeClock())
    for _ in range(20):
        with pytest.raises(OAuthError) as refused:
            auth.token(form(secret="guess"))
        assert refused.value.http_status == 401
    assert auth.token(form())["access_token"]


def test_the_issued_audit_log_keeps_the_most_recent_tokens_only():
    auth = server(FakeClock(), issued_log_size=3)
    for _ in range(5):
        auth.token(form())
    assert [entry["jti"] for entry in auth.issued] == ["tok-3", "tok-4", "tok-5"]


def test_requests_without_a_token_cannot_grow_the_gate_log():
    async def never(scope, receive, send):  # pragma: no cover - every request is refused first
        raise AssertionError("reached the app")

    gate = BearerAuth(never, audience="x", keys={}, clock=FakeClock())
    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def flood() -> None:
        for n in range(LOG_SIZE + 50):
            scope = {"type": "http", "method": "GET", "path": f"/{n}/" + "x" * 5000, "headers": []}
            await gate(scope, receive, send)

    asyncio.run(flood())
    assert len(gate.log) == LOG_SIZE
    assert max(len(path) for _, path, _ in gate.log) <= LOG_PATH_CHARS
    assert all(outcome == "token.missing" for _, _, outcome in gate.log)
    assert sum(1 for m in sent if m["type"] == "http.response.start" and m["status"] == 401) == LOG_SIZE + 50
