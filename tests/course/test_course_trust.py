"""Notebook 17's widgets, driven from code exactly as a learner drives them."""

from __future__ import annotations

import httpx
import pytest

from agentproto.clock import FakeClock, IdFactory
from agentproto.course.trust import CardTamperLab, ForgeryProbe, TokenInspector


@pytest.fixture
def inspector():
    return TokenInspector()


def test_the_genuine_token_is_accepted(inspector):
    assert inspector.verdict.startswith("✓ accepted")
    assert all(r.passed for r in inspector.results)
    assert "eyJ" in inspector.view.value and "✓" in inspector.view.value


@pytest.mark.parametrize(
    "forgery, failed, rule",
    [
        ("alg-none", "algorithm", "token.alg-none"),
        ("stranger", "signature", "token.bad-signature"),
        ("unknown-kid", "known key", "token.unknown-key"),
        ("hs-confusion", "key's algorithm", "token.alg-mismatch"),
    ],
)
def test_each_forgery_fails_its_own_check(inspector, forgery, failed, rule):
    inspector.forgery.value = forgery
    assert inspector.failed_check() == failed
    assert inspector.error.rule == rule
    assert f"[{rule}]" in inspector.view.value


@pytest.mark.parametrize("tamper", ["scope", "subject", "expiry"])
def test_editing_a_claim_without_re_signing_breaks_the_signature(inspector, tamper):
    inspector.tamper.value = tamper
    assert inspector.failed_check() == "signature"


def test_the_clock_expires_the_token_after_an_hour(inspector):
    for _ in range(3):
        inspector.advance_button.click()
    assert inspector.minutes.value == 45 and inspector.error is None
    inspector.advance_button.click()
    assert inspector.failed_check() == "not expired"
    assert "HTTP 401" in inspector.verdict and "01:00 UTC" in inspector.view.value


def test_another_audience_and_a_bigger_scope_are_refused(inspector):
    inspector.audience.value = "hotel-agent"
    assert inspector.failed_check() == "audience"
    inspector.audience.value = "flight-agent"
    inspector.scope_needed.value = "flights:book"
    assert inspector.failed_check() == "scopes" and "HTTP 403" in inspector.verdict
    assert "scope=&quot;flights:book&quot;" in inspector.view.value  # HTML-escaped


def test_reset_restores_the_genuine_token(inspector):
    inspector.forgery.value = "alg-none"
    inspector.minutes.value = 120
    inspector.reset_button.click()
    assert inspector.token == inspector.genuine and inspector.error is None


def test_the_token_is_the_same_on_every_run():
    assert TokenInspector().genuine == TokenInspector().genuine


# --- the card lab ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "button, error",
    [
        ("rename_button", "CardTampered"),
        ("redirect_button", "CardTampered"),
        ("add_skill_button", "CardTampered"),
        ("resign_button", "CardTampered"),
        ("strip_button", "CardUnsigned"),
    ],
)
def test_every_attacker_move_is_caught(button, error):
    lab = CardTamperLab()
    assert lab.verdict.startswith("✓ verified")
    before = lab.fingerprint()
    getattr(lab, button).click()
    assert lab.verdict.startswith(f"✗ {error}")
    assert error in lab.view.value
    if button not in ("resign_button", "strip_button"):
        assert lab.fingerprint() != before  # the signed bytes changed


def test_moves_combine_and_reset_undoes_them():
    lab = CardTamperLab()
    lab.rename_button.click()
    lab.redirect_button.click()
    assert lab.actions == ["rename", "redirect"]
    assert "Bank of Agents" in lab.view.value and "evil.example" in lab.view.value
    lab.reset_button.click()
    assert lab.actions == [] and lab.error is None


def test_an_unknown_move_is_refused():
    with pytest.raises(ValueError):
        CardTamperLab().apply("teleport")


# --- the probe against the live server --------------------------------------------------------------


def test_the_probe_tabulates_refusals_and_runs():
    from agentproto.demo.app import create_app
    from agentproto.server import RunningServer

    app = create_app(clock=FakeClock(), ids=IdFactory("srv"), a2a_agent=None)
    with RunningServer(app) as server:
        probe = ForgeryProbe(server.url)
        first = probe.attempt(
            "first run",
            thread_id="t-1",
            run_id="r-1",
            messages=[{"id": "m-1", "role": "user", "content": "refund A1024"}],
        )
        assert (first.status, first.code) == (200, "run interrupt")
        refused = probe.attempt(
            "no resume",
            thread_id="t-1",
            run_id="r-2",
            messages=[{"id": "m-2", "role": "user", "content": "again"}],
        )
        assert (refused.status, refused.code) == (409, "resume.required")
    table = probe.table()
    assert table.splitlines()[0].startswith("first run") and "HTTP 409" in table


def test_the_table_shortens_long_messages_but_keeps_them_whole_on_the_attempt():
    long = "x" * 200
    transport = httpx.MockTransport(
        lambda request: httpx.Response(422, json={"error": {"code": "resume.off-schema", "message": long}})
    )
    with httpx.Client(transport=transport) as client:
        probe = ForgeryProbe("http://shop.test", message_width=20, client=client)
        attempt = probe.attempt("off-schema", thread_id="t", run_id="r", resume=[])
    assert attempt.message == long and attempt.refused
    row = probe.table()
    assert row.endswith("x" * 19 + "…") and "HTTP 422  resume.off-schema" in row


def test_the_inspector_token_has_the_claim_set_the_authorization_server_issues():
    # RFC 9068 §2.2: iss, exp, aud, sub, client_id, iat, jti are REQUIRED in an at+jwt token.
    from agentproto.security import decode_unverified

    header, payload = decode_unverified(TokenInspector().genuine)
    assert header["typ"] == "at+jwt"
    assert {"iss", "exp", "aud", "sub", "client_id", "iat", "jti"} <= set(payload)
    assert payload["client_id"] == payload["sub"] == "orchestrator"
