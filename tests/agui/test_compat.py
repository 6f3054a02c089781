"""The outgoing half of the compatibility boundary: retired ``binary`` parts become media parts."""

from __future__ import annotations

import copy

import pytest

from agentproto.agui._compat import upgrade_binary_parts
from agentproto.agui.parse import parse_run_agent_input


def _one(part: dict) -> tuple[dict, list]:
    messages, warnings = upgrade_binary_parts([{"id": "u", "role": "user", "content": [part]}])
    return messages[0]["content"][0], warnings


@pytest.mark.parametrize(
    ("mime", "kind"),
    [("image/png", "image"), ("audio/wav", "audio"), ("video/mp4", "video"), ("application/pdf", "document")],
)
def test_the_media_kind_follows_the_mime_type(mime, kind):
    part, warnings = _one({"type": "binary", "mimeType": mime, "url": "https://example.com/x"})
    assert part == {
        "type": kind,
        "source": {"type": "url", "value": "https://example.com/x", "mimeType": mime},
    }
    assert warnings == []


def test_inline_data_becomes_a_data_source_and_a_legacy_id_a_file_handle():
    part, _ = _one({"type": "binary", "mimeType": "image/png", "data": "AAAA"})
    assert part["source"] == {"type": "data", "value": "AAAA", "mimeType": "image/png"}
    part, _ = _one({"type": "binary", "mimeType": "image/png", "id": "file-1"})
    assert part["source"] == {"type": "file", "value": "file-1", "mimeType": "image/png"}


def test_what_the_typed_part_cannot_carry_is_warned_about():
    part, [warning] = _one(
        {
            "type": "binary",
            "mimeType": "image/png",
            "data": "AAAA",
            "url": "https://e.x/y",
            "filename": "y.png",
        }
    )
    assert part["source"]["type"] == "data"
    assert warning.path == "/messages/0/content/0"
    assert "url 'https://e.x/y'" in warning.message and "filename 'y.png'" in warning.message


@pytest.mark.parametrize(
    "part",
    [
        {"type": "binary", "url": "https://e.x/y"},
        {"type": "binary", "mimeType": "image/png"},
        {"type": "binary"},
    ],
)
def test_an_unreadable_legacy_part_is_not_repaired(part):
    assert _one(part) == (part, [])


def test_the_upgrade_is_pure_and_shares_what_it_did_not_change():
    messages = [
        {"id": "a", "role": "user", "content": "plain"},
        {"id": "b", "role": "user", "content": [{"type": "binary", "mimeType": "image/png", "url": "u"}]},
    ]
    before = copy.deepcopy(messages)
    out, _ = upgrade_binary_parts(messages)
    assert messages == before and out is not messages and out[0] is messages[0]
    untouched = [messages[0]]
    assert upgrade_binary_parts(untouched) == (untouched, [])
    assert upgrade_binary_parts(None) == (None, [])


def test_the_upgraded_input_is_one_the_current_schema_accepts_without_stripping():
    messages, _ = upgrade_binary_parts(
        [
            {
                "id": "u",
                "role": "user",
                "content": [{"type": "binary", "mimeType": "image/png", "url": "https://e.x"}],
            }
        ]
    )
    value, warnings = parse_run_agent_input({"threadId": "t", "runId": "r", "messages": messages})
    assert warnings == [] and value.messages[0].content[0].type == "image"
