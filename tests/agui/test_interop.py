"""Wire compatibility with the official Python SDK, ``ag-ui-protocol`` 1.0.0 (``ag_ui.core``)."""

import json

import pytest

from agentproto.agui import EventParser, encode_sse, event_to_json
from tests.agui.agui_samples import SAMPLES

pytestmark = pytest.mark.interop
ag_core = pytest.importorskip("ag_ui.core")
ag_encoder = pytest.importorskip("ag_ui.encoder")


@pytest.fixture(scope="module")
def official():
    from pydantic import TypeAdapter

    return TypeAdapter(ag_core.Event)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_our_json_parses_in_the_official_sdk_and_redumps_identically(official, name):
    ours = EventParser().parse(json.dumps(SAMPLES[name])).event
    theirs = official.validate_json(event_to_json(ours))
    assert theirs.model_dump_json(by_alias=True) == event_to_json(ours)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_official_json_parses_here_and_redumps_identically(official, name):
    theirs = official.validate_python(SAMPLES[name])
    text = theirs.model_dump_json(by_alias=True)
    parsed = EventParser().parse(text)
    assert parsed.warnings == []
    assert event_to_json(parsed.event) == text


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_sse_framing_is_byte_identical_to_the_official_encoder(official, name):
    ours = EventParser().parse(json.dumps(SAMPLES[name])).event
    theirs = official.validate_python(SAMPLES[name])
    assert encode_sse(ours) == ag_encoder.EventEncoder().encode(theirs).encode("utf-8")


def test_official_python_constructors_and_ours_agree_on_a_role_less_start():
    theirs = ag_core.TextMessageStartEvent(message_id="m")
    assert EventParser().parse(theirs.model_dump_json(by_alias=True)).event.role is None


def test_the_official_sdk_coerces_where_we_refuse():
    """The SDK parses leniently by design; enforcement is the consumer's job (spec processing)."""
    from agentproto.agui import MalformedEventError

    raw = '{"type":"STEP_STARTED","stepName":"s","timestamp":"15"}'
    from pydantic import TypeAdapter

    assert TypeAdapter(ag_core.Event).validate_json(raw).timestamp == 15
    with pytest.raises(MalformedEventError):
        EventParser().parse(raw)
