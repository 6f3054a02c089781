"""The checks POST /ag-ui/agent makes before anything is stored, one function each
(agentproto.agui.server): version negotiation and the id limit, without a server."""

from __future__ import annotations

import json

import pytest

from agentproto.agui import events as ev
from agentproto.agui.server import _check_ids, _Refusal, _version_warning


def _refusal(call, *args):
    with pytest.raises(_Refusal) as info:
        call(*args)
    response = info.value.response
    return response.status_code, json.loads(response.body)["error"]


def test_no_declaration_and_our_own_version_need_no_warning():
    assert _version_warning(None) is None
    assert _version_warning(ev.PROTOCOL_VERSION) is None


def test_a_newer_minor_of_our_line_is_served_with_a_warning():
    warning = _version_warning("1.99")
    assert warning is not None and warning["code"] == "input.protocol-version-newer"
    assert warning["path"] == "/protocolVersion"


@pytest.mark.parametrize("declared", ["v1", "1", "1.0.0", "latest"])
def test_an_uninterpretable_declaration_is_served_as_if_newer(declared):
    warning = _version_warning(declared)
    assert warning is not None and warning["code"] == "input.protocol-version-uninterpretable"


def test_a_declaration_from_another_major_line_is_refused_before_the_run():
    status, error = _refusal(_version_warning, "2.0")
    assert status == 400 and error["code"] == "unsupported_protocol_version"


@pytest.mark.parametrize(
    ("thread_id", "run_id", "field"), [("a/b", "r-1", "threadId"), ("t-1", "..", "runId")]
)
def test_an_id_outside_the_servers_pattern_is_refused_with_its_pointer(thread_id, run_id, field):
    status, error = _refusal(_check_ids, thread_id, run_id)
    assert status == 422 and error["code"] == "invalid_input" and error["path"] == f"/{field}"
