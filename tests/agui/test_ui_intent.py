"""The front end's gate for UI intents (agentproto.agui.ui_intent): allow-list, schemas, XSS guard."""

from __future__ import annotations

import pytest

from agentproto.agui import AGUIError
from agentproto.agui.ui_intent import (
    UI_INTENT_EVENT,
    IntentPropsError,
    UIIntent,
    UIIntentError,
    UnsafeContentError,
    find_unsafe,
    validate_ui_intent,
)


def custom(value, name=UI_INTENT_EVENT):
    return {"type": "CUSTOM", "name": name, "value": value}


@pytest.mark.parametrize(
    "value, rule",
    [
        ({"component": "iframe", "props": {"src": "https://x"}}, "intent.unknown-component"),
        (
            {"component": "notice", "props": {"level": "info", "text": "<script>x</script>"}},
            "intent.unsafe-content",
        ),
        (
            {"component": "notice", "props": {"level": "info", "text": "hi", "onclick": "x"}},
            "intent.invalid-props",
        ),
        (
            {"component": "link_button", "props": {"label": "pay", "href": "javascript:alert(1)"}},
            "intent.unsafe-content",
        ),
        (
            {"component": "link_button", "props": {"label": "pay", "href": "https://evil.test/"}},
            "intent.invalid-props",
        ),
        ({"component": "progress", "props": {"label": "x", "percent": 140}}, "intent.invalid-props"),
        ({"component": "notice", "props": {"level": "info", "text": "x" * 3000}}, "intent.too-large"),
        ({"props": {}}, "intent.envelope"),
        ("just text", "intent.envelope"),
    ],
)
def test_unsafe_or_unknown_ui_intents_are_refused_with_a_rule(value, rule):
    with pytest.raises(UIIntentError) as info:
        validate_ui_intent(custom(value))
    assert info.value.rule == rule


def test_allow_listed_intents_pass_as_events_or_bare_values():
    value = {"component": "progress", "props": {"label": "Refunding", "percent": 40}}
    assert validate_ui_intent(custom(value)) == UIIntent("progress", value["props"])
    assert validate_ui_intent(value).component == "progress"


def test_intent_errors_are_agui_errors_with_a_pointer_into_the_value():
    with pytest.raises(UnsafeContentError) as info:
        validate_ui_intent(
            custom({"component": "notice", "props": {"level": "info", "text": "<script>x</script>"}}), index=7
        )
    error = info.value
    assert isinstance(error, AGUIError) and isinstance(error, UIIntentError)
    assert (error.rule, error.path, error.component) == ("intent.unsafe-content", "/props/text", "notice")
    assert error.to_dict() == {
        "event": 7,
        "type": "CUSTOM",
        "rule": "intent.unsafe-content",
        "message": str(error),
    }


def test_props_errors_point_at_the_failing_prop():
    with pytest.raises(IntentPropsError) as info:
        validate_ui_intent({"component": "progress", "props": {"label": "x", "percent": 140}})
    assert info.value.path == "/props/percent" and info.value.component == "progress"


@pytest.mark.parametrize(
    "text",
    [
        "<SCRIPT>alert(1)</SCRIPT>",
        "< iframe src=x>",
        "JaVaScRiPt:alert(1)",
        "vbscript:x",
        "data: text/html;base64,PHN",
        "<img src=x onerror=alert(1)>",
        "x onClick = 'y'",
        "</style>",
        "<link rel=x>",
        "<meta http-equiv=refresh>",
        "<object>",
        "<embed src=x>",
    ],
)
def test_the_unsafe_content_guard_catches_markup_script_urls_and_handlers(text):
    assert find_unsafe({"text": text}) is not None
    with pytest.raises(UnsafeContentError):
        validate_ui_intent({"component": "notice", "props": {"level": "info", "text": text}})


def test_unsafe_content_is_found_in_keys_and_nested_values():
    assert find_unsafe({"ok": ["fine", {"deep": "javascript:x"}]}) == ("/ok/1/deep", "javascript:")
    assert find_unsafe({"onload=": 1}) == ("/onload=#key", "onload=")
    assert find_unsafe({"label": "Refund 128.00 USD", "n": 3}) is None


def test_the_guard_runs_even_when_the_schema_would_accept_the_text():
    permissive = {"notice": {"type": "object"}}
    with pytest.raises(UnsafeContentError):
        validate_ui_intent({"component": "notice", "props": {"html": "<script>"}}, components=permissive)


def test_a_size_limit_that_admits_nothing_is_refused():
    with pytest.raises(ValueError):
        validate_ui_intent({"component": "notice", "props": {}}, max_bytes=0)
