"""acceptedOutputModes (spec §3.2.1): the agent's output is tailored to what the client takes."""

from __future__ import annotations

import json

import pytest

from agentproto.a2a.artifacts import fit_parts
from agentproto.a2a.types import (
    SendMessageConfiguration,
    SendMessageRequest,
    data_part,
    file_part,
    text_part,
    user_message,
)

pytestmark = pytest.mark.anyio


def test_parts_of_an_accepted_type_pass_and_others_are_dropped():
    parts = [text_part("hi"), file_part(b"\x89PNG", media_type="image/png")]
    assert [p.kind for p in fit_parts(parts, ["text/plain"])] == ["text"]
    assert [p.kind for p in fit_parts(parts, ["image/*"])] == ["raw"]
    assert fit_parts(parts, []) == parts  # the client did not say: anything goes


def test_a_data_part_becomes_its_json_text_for_a_text_only_client():
    [part] = fit_parts([data_part({"a": 1})], ["text/plain"])
    assert part.kind == "text" and json.loads(part.text) == {"a": 1}


def test_nothing_acceptable_leaves_the_parts_as_they_are():
    parts = [file_part(b"x", media_type="image/png")]
    assert fit_parts(parts, ["text/plain"]) == parts


async def test_the_service_applies_the_clients_modes_to_its_artifacts(make_service):
    svc = make_service("conformance")
    req = SendMessageRequest(
        message=user_message("hi", message_id="tck-artifact-data-modes"),
        configuration=SendMessageConfiguration(accepted_output_modes=["text/plain"]),
    )
    task = await svc.send_message(req)
    kinds = [p.kind for a in task.artifacts for p in a.parts]
    assert kinds and set(kinds) == {"text"}
    plain = await svc.send_message(
        SendMessageRequest(message=user_message("hi", message_id="tck-artifact-data-any"))
    )
    assert "data" in [p.kind for a in plain.artifacts for p in a.parts]


async def test_a_follow_up_whose_id_asks_for_input_keeps_the_conformance_task_open(make_service):
    # the TCK's multi-turn history flow (CORE-HIST-005/006): two input-required answers, then
    # a complete-task one; history keeps every message in order
    svc = make_service("conformance")
    task = await svc.send_message(
        SendMessageRequest(message=user_message("start", message_id="tck-input-required-h0"))
    )
    for i, mid in enumerate(["tck-input-required-h1", "tck-input-required-h2"]):
        task = await svc.send_message(
            SendMessageRequest(
                message=user_message(f"m{i}", message_id=mid, task_id=task.id, context_id=task.context_id)
            )
        )
        assert task.status.state.value == "TASK_STATE_INPUT_REQUIRED"
    task = await svc.send_message(
        SendMessageRequest(
            message=user_message(
                "end", message_id="tck-complete-task-h3", task_id=task.id, context_id=task.context_id
            )
        )
    )
    assert task.status.state.value == "TASK_STATE_COMPLETED"
    users = [m.text for m in task.history if m.role.value == "ROLE_USER"]
    assert users == ["start", "m0", "m1", "end"]
