"""HTTPS on loopback for notebook 17: a lab authority, RunningServer with TLS, and the checks a
client makes (A2A spec §7.1, §7.2)."""

from __future__ import annotations

import socket
import ssl

import httpx
import pytest

from agentproto.a2a import create_a2a_app
from agentproto.clock import FakeClock, IdFactory
from agentproto.course.tls_lab import issue_lab_certificates
from agentproto.server import RunningServer


@pytest.fixture
def tls_server(tmp_path):
    certs = issue_lab_certificates(tmp_path)
    app = create_a2a_app(agent="echo", clock=FakeClock(), ids=IdFactory("e"))
    server = RunningServer(app, ssl_certfile=certs.cert, ssl_keyfile=certs.key).start()
    yield server, certs
    server.stop()


def test_a_client_that_trusts_the_lab_authority_gets_the_card_over_https(tls_server):
    server, certs = tls_server
    assert server.url.startswith("https://127.0.0.1:")
    card = httpx.get(
        server.url + "/.well-known/agent-card.json", verify=ssl.create_default_context(cafile=certs.ca)
    )
    assert card.status_code == 200
    assert all(i["url"].startswith("https://") for i in card.json()["supportedInterfaces"])


def test_the_default_trust_store_refuses_the_lab_certificate(tls_server):
    server, _ = tls_server
    with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        httpx.get(server.url + "/.well-known/agent-card.json")


def test_a_certificate_for_other_names_fails_the_identity_check(tls_server):
    server, certs = tls_server
    context = ssl.create_default_context(cafile=certs.ca)
    with socket.create_connection(("127.0.0.1", server.port)) as raw:
        with pytest.raises(ssl.SSLCertVerificationError, match="mismatch"):
            context.wrap_socket(raw, server_hostname="travel.example")
    with socket.create_connection(("127.0.0.1", server.port)) as raw:
        with context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            assert tls.version() in ("TLSv1.2", "TLSv1.3")
