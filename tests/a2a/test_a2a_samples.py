"""The sample files in data/a2a are what the code produces, and say what their README says."""

from __future__ import annotations

import json
import pathlib

import pytest
from pydantic import ValidationError

from agentproto.a2a.cards import check_card
from agentproto.a2a.cli_samples import sample_files
from agentproto.a2a.errors import ERRORS_BY_CODE
from agentproto.a2a.types import AgentCard, StreamResponse
from agentproto.sse import EventStreamDecoder

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "a2a"


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    return sample_files()


def test_the_files_on_disk_are_what_the_code_generates(generated):
    for rel, content in generated.items():
        assert (DATA / rel).read_text(encoding="utf-8") == content, (
            f"data/a2a/{rel} is stale: run `python -m agentproto.a2a.cli_samples`"
        )


@pytest.mark.parametrize("name", ["travel-desk", "conformance"])
def test_the_v10_cards_are_valid(name):
    card = AgentCard.from_wire(json.loads((DATA / "cards" / f"{name}.json").read_text()))
    assert card.interface().url == "http://127.0.0.1:8000/a2a"


def test_the_v03_card_is_not_a_v10_card():
    wire = json.loads((DATA / "cards" / "v0.3-travel-desk.json").read_text())
    card = AgentCard.from_wire(wire)  # unknown v0.3 fields are ignored (spec §5.7) …
    assert card.supported_interfaces == []  # … but it declares no v1.0 interface
    assert card.interface() is None
    assert {"url", "preferredTransport", "protocolVersion"} <= set(wire)


def test_the_seed_card_fails_v10_validation_for_the_documented_reasons():
    wire = json.loads((DATA / "cards" / "seed-004-flight-agent.json").read_text())
    with pytest.raises(ValidationError):
        AgentCard.from_wire(wire)
    problems = {p.path: p.message for p in check_card(wire)}
    assert "securitySchemes" in problems["authentication"]
    assert set(problems) >= {
        "supportedInterfaces",
        "skills.0.description",
        "skills.0.tags",
        "skills.0.inputModes.0",
        "defaultInputModes",
    }
    assert "not a media type" in problems["skills.0.outputModes.1"]


def test_the_v03_card_gets_a_migration_hint_per_old_field():
    wire = json.loads((DATA / "cards" / "v0.3-travel-desk.json").read_text())
    paths = [p.path for p in check_card(wire)]
    assert paths[:5] == [
        "url",
        "preferredTransport",
        "additionalInterfaces",
        "protocolVersion",
        "supportsAuthenticatedExtendedCard",
    ]
    assert "capabilities.stateTransitionHistory" in paths


@pytest.mark.parametrize("name", ["travel-desk", "conformance"])
def test_the_shipped_cards_have_no_problems(name):
    assert check_card(json.loads((DATA / "cards" / f"{name}.json").read_text())) == []


@pytest.mark.parametrize(
    "change, path, says",
    [
        (
            {
                "supportedInterfaces": [
                    {"url": "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
                ]
            },
            "supportedInterfaces.0.url",
            "absolute",
        ),
        (
            {
                "supportedInterfaces": [
                    {"url": "https://a/x", "protocolBinding": "SOAP", "protocolVersion": "1.0"}
                ]
            },
            "supportedInterfaces.0.protocolBinding",
            "URI",
        ),
        (
            {
                "supportedInterfaces": [
                    {"url": "https://a/x", "protocolBinding": "JSONRPC", "protocolVersion": "1.0.2"}
                ]
            },
            "supportedInterfaces.0.protocolVersion",
            "no patch",
        ),
        (
            {"securityRequirements": [{"schemes": {"oauth": {"list": ["read"]}}}]},
            "securityRequirements.0.schemes.oauth",
            "not in securitySchemes",
        ),
        ({"defaultInputModes": []}, "defaultInputModes", "must not be empty"),
    ],
)
def test_check_card_finds_what_the_parser_lets_through(change, path, says):
    wire = {**json.loads((DATA / "cards" / "travel-desk.json").read_text()), **change}
    problems = {p.path: p.message for p in check_card(wire)}
    assert says in problems[path]


def test_the_stream_capture_is_a_task_then_updates_ending_completed():
    decoder = EventStreamDecoder()
    frames = [json.loads(d) for d in decoder.feed((DATA / "streams" / "travel-desk.sse").read_bytes())]
    events = [StreamResponse.from_wire(f["result"]) for f in frames]
    assert events[0].kind == "task"
    assert {e.kind for e in events[1:]} == {"statusUpdate", "artifactUpdate"}
    assert events[-1].status_update.status.state.value == "TASK_STATE_COMPLETED"


def test_errors_json_has_one_response_per_code():
    errors = json.loads((DATA / "errors.json").read_text())
    assert sorted(int(c) for c in errors) == sorted(ERRORS_BY_CODE)
    for code, response in errors.items():
        assert response["error"]["code"] == int(code)
        assert response["error"]["data"][0]["@type"].endswith("google.rpc.ErrorInfo")
