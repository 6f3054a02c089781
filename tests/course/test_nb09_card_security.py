"""What notebook 09 §10–§12 teaches, held to the library: card checks for the provider and every
security-scheme kind, a required extension refused (-32008) on all three bindings, and the
extended card behind a bearer token in auth mode."""

from __future__ import annotations

import pytest

from agentproto.a2a import (
    A2AClientError,
    AgentCapabilities,
    AgentSkill,
    ExtensionSupportRequiredError,
    Status,
    SyncA2AClient,
    TaskState,
    create_a2a_app,
)
from agentproto.a2a.agents import interface_card
from agentproto.a2a.cards import check_card
from agentproto.a2a.types import AgentExtension, AgentProvider
from agentproto.clock import FakeClock, IdFactory
from agentproto.server import RunningServer

GEO = "https://example.com/extensions/geolocation/v1"
BINDINGS = ["jsonrpc", "rest", "grpc"]


def _card(url: str, **extra):
    return interface_card(
        url,
        name="Near Me",
        version="1.0.0",
        description="Finds places near the caller.",
        capabilities=AgentCapabilities(extensions=[AgentExtension(uri=GEO, required=True)]),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="near", name="Near me", description="Places near you.", tags=["geo"])],
        **extra,
    )


class NearMe:
    name = "near-me"

    def card(self, url):
        return _card(url)

    def extended_card(self, url):
        return None

    async def run(self, ctx):
        yield Status.of(TaskState.COMPLETED, "ok")


def test_provider_needs_both_fields():
    wire = _card(
        "http://127.0.0.1:9/a2a", provider=AgentProvider(organization="O", url="https://o.example")
    ).to_wire()
    assert check_card(wire) == []
    assert [p.path for p in check_card({**wire, "provider": {"organization": "O"}})] == ["provider.url"]
    assert [p.path for p in check_card({**wire, "provider": {"url": "https://o.example"}})] == [
        "provider.organization"
    ]


@pytest.mark.parametrize(
    ("scheme", "missing"),
    [
        ({"apiKeySecurityScheme": {"location": "header"}}, "apiKeySecurityScheme.name"),
        ({"apiKeySecurityScheme": {"name": "X-Key"}}, "apiKeySecurityScheme.location"),
        ({"httpAuthSecurityScheme": {}}, "httpAuthSecurityScheme.scheme"),
        ({"openIdConnectSecurityScheme": {}}, "openIdConnectSecurityScheme.openIdConnectUrl"),
        (
            {"oauth2SecurityScheme": {"flows": {"authorizationCode": {"tokenUrl": "https://t"}}}},
            "oauth2SecurityScheme.flows.authorizationCode.authorizationUrl",
        ),
        (
            {"oauth2SecurityScheme": {"flows": {"deviceCode": {"deviceAuthorizationUrl": "https://d"}}}},
            "oauth2SecurityScheme.flows.deviceCode.tokenUrl",
        ),
    ],
)
def test_each_scheme_kind_names_its_missing_required_field(scheme, missing):
    wire = _card("http://127.0.0.1:9/a2a").to_wire()
    wire["securitySchemes"] = {"x": scheme, "m": {"mtlsSecurityScheme": {}}}
    wire["securityRequirements"] = [{"schemes": {"x": {}}}, {"schemes": {"m": {}}}]
    assert [p.path for p in check_card(wire)] == [f"securitySchemes.x.{missing}"]


@pytest.fixture(scope="module")
def geo_url():
    pytest.importorskip("grpc")
    app = create_a2a_app(agent=NearMe(), clock=FakeClock(), ids=IdFactory("geo"), grpc=True)
    running = RunningServer(app).start()
    try:
        yield running.url
    finally:
        running.stop()


@pytest.mark.parametrize("binding", BINDINGS)
def test_a_required_extension_is_refused_unless_activated_on_every_binding(geo_url, binding):
    with SyncA2AClient.connect(geo_url, binding=binding, ids=IdFactory("m")) as plain:
        with pytest.raises(ExtensionSupportRequiredError):
            plain.send("hi")
    with SyncA2AClient.connect(geo_url, binding=binding, ids=IdFactory("m"), extensions=[GEO]) as opted:
        assert opted.send("hi").status.state is TaskState.COMPLETED
    v2 = GEO.replace("/v1", "/v2")
    with SyncA2AClient.connect(geo_url, binding=binding, ids=IdFactory("m"), extensions=[v2]) as other:
        with pytest.raises(ExtensionSupportRequiredError):
            other.send("hi")  # no fallback to another version (§4.6.3)


@pytest.fixture(scope="module")
def secure():
    pytest.importorskip("grpc")
    from agentproto.demo.app import config_from_options, create_app
    from agentproto.system import SystemClock

    config = config_from_options(":memory:", a2a_agent="travel", a2a_grpc=True).with_auth(
        {"learner": "learner-secret-of-16+"}, issuer="https://auth.travel.example"
    )
    running = RunningServer(
        create_app(config, clock=FakeClock(), ids=IdFactory("sec"), auth_clock=SystemClock())
    ).start()
    try:
        yield running.url
    finally:
        running.stop()


@pytest.mark.parametrize("binding", BINDINGS)
def test_the_extended_card_needs_a_token_on_every_binding(secure, binding):
    from agentproto.client_auth import ClientCredentials

    with SyncA2AClient.connect(secure, binding=binding) as anon:
        with pytest.raises(A2AClientError):
            anon.get_extended_card()
    auth = ClientCredentials(secure + "/oauth/token", "learner", "learner-secret-of-16+", clock=FakeClock())
    with SyncA2AClient.connect(secure, binding=binding, auth=auth) as authed:
        card = authed.get_extended_card()
        public = authed.card
    assert {s.id for s in card.skills} - {s.id for s in public.skills} == {"corporate_rates"}
    assert card.security_schemes.keys() == public.security_schemes.keys() == {"oauth"}


def test_the_extended_card_over_grpc_lists_the_http_interfaces_at_their_real_address(secure):
    """The gRPC binding has no HTTP request to read the address from: it names the one the HTTP
    app served the card on (the client found the gRPC interface there)."""
    from agentproto.client_auth import ClientCredentials

    auth = ClientCredentials(secure + "/oauth/token", "learner", "learner-secret-of-16+", clock=FakeClock())
    with SyncA2AClient.connect(secure, binding="grpc", auth=auth) as authed:
        card = authed.get_extended_card()
    urls = [i.url for i in card.supported_interfaces if i.protocol_binding != "GRPC"]
    assert all(u.startswith(secure) for u in urls), urls
