"""Application: state snapshots/deltas, messages, activity, interrupts, guard rails."""

import copy
import json
import random

import jsonpatch
import pytest

from agentproto.agui import (
    DEFAULT_VERSION_KEY,
    ChunkError,
    GuardError,
    PatchError,
    ResyncNeeded,
    StateReducer,
    TextMessageChunkEvent,
    apply_patch,
    parse_event,
)
from agentproto.agui import _patch as patch_module


def apply(reducer, *objs):
    warnings = []
    for obj in objs:
        warnings += reducer.apply(parse_event(obj).event)
    return warnings


def snapshot(value, **kw):
    return {"type": "STATE_SNAPSHOT", "snapshot": value, **kw}


def delta(*ops, **kw):
    return {"type": "STATE_DELTA", "delta": list(ops), **kw}


@pytest.mark.parametrize("value", [None, 0, [], [1], "s", {"a": {"b": None}}])
def test_a_snapshot_replaces_state_with_any_json_value(value):
    r = StateReducer(state={"old": True})
    apply(r, snapshot(value))
    assert r.state == value


def test_a_delta_applies_in_order():
    r = StateReducer()
    apply(
        r,
        delta(
            {"op": "add", "path": "/a", "value": [1]},
            {"op": "add", "path": "/a/-", "value": 2},
            {"op": "move", "from": "/a", "path": "/b"},
            {"op": "copy", "from": "/b", "path": "/c"},
        ),
    )
    assert r.state == {"b": [1, 2], "c": [1, 2]}


def test_a_delta_is_atomic_a_failing_op_leaves_the_state_untouched():
    r = StateReducer(state={"a": {"x": 1}, "b": [1]})
    before = r.state
    [warning] = apply(
        r,
        delta(
            {"op": "replace", "path": "/a/x", "value": 2},
            {"op": "add", "path": "/b/-", "value": 2},
            {"op": "remove", "path": "/missing"},
        ),
    )
    assert r.state == {"a": {"x": 1}, "b": [1]} and r.state is before
    assert warning.message.startswith("Failed to apply state patch:")


def test_a_failed_test_op_keeps_the_prior_state():
    r = StateReducer(state={"v": 1})
    assert apply(
        r, delta({"op": "test", "path": "/v", "value": 2}, {"op": "replace", "path": "/v", "value": 3})
    )
    assert r.state == {"v": 1}


def test_applying_a_delta_never_mutates_the_event():
    r = StateReducer()
    event = parse_event(delta({"op": "add", "path": "/obj", "value": {"k": []}})).event
    r.apply(event)
    apply(r, delta({"op": "add", "path": "/obj/k/-", "value": 1}))
    assert event.delta[0].value == {"k": []}
    assert r.state == {"obj": {"k": [1]}}


def test_a_snapshot_is_copied_in_so_later_deltas_do_not_touch_the_event():
    r = StateReducer()
    event = parse_event(snapshot({"list": []})).event
    r.apply(event)
    apply(r, delta({"op": "add", "path": "/list/-", "value": 1}))
    assert event.snapshot == {"list": []}


def test_untouched_subtrees_are_shared_not_copied():
    r = StateReducer(state={"big": {"x": list(range(100))}, "small": {"n": 1}})
    big = r.state["big"]
    apply(r, delta({"op": "replace", "path": "/small/n", "value": 2}))
    assert r.state["big"] is big


def test_the_next_snapshot_is_adopted_after_a_failed_delta():
    r = StateReducer(state={"n": 1})
    apply(r, delta({"op": "replace", "path": "/gone", "value": 1}), snapshot({"n": 9}))
    assert r.state == {"n": 9}


def test_apply_patch_rejects_a_malformed_patch_and_drops_unknown_ops():
    with pytest.raises(PatchError):
        apply_patch({}, [{"op": "add", "path": "/a"}])
    with pytest.raises(PatchError):
        apply_patch({}, "not a list")
    ops = [{"op": "merge", "path": "/x"}, {"op": "add", "path": "/a", "value": 1}]
    assert apply_patch({}, ops) == {"a": 1}


def test_text_messages_are_built_from_start_content_end():
    r = StateReducer()
    apply(
        r,
        {"type": "TEXT_MESSAGE_START", "messageId": "m"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "b"},
    )
    assert r.messages == [{"id": "m", "role": "assistant", "content": "ab"}]  # visible mid-stream
    apply(
        r,
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "c"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
    )
    assert r.messages[0]["content"] == "abc"


def test_tool_call_metadata_lands_on_the_call_not_its_message():
    r = StateReducer()
    apply(
        r,
        {"type": "TEXT_MESSAGE_START", "messageId": "m"},
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "c",
            "toolCallName": "f",
            "parentMessageId": "m",
            "metadata": {"k": 1},
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{}"},
        {"type": "TOOL_CALL_END", "toolCallId": "c", "metadata": {"j": 2}},
    )
    [msg] = r.messages
    assert "metadata" not in msg
    assert msg["toolCalls"] == [
        {
            "id": "c",
            "type": "function",
            "function": {"name": "f", "arguments": "{}"},
            "metadata": {"k": 1, "j": 2},
        }
    ]


def test_a_tool_call_whose_parent_is_not_an_assistant_message_gets_its_own_with_a_warning():
    r = StateReducer()
    warnings = apply(
        r,
        {"type": "TEXT_MESSAGE_START", "messageId": "u", "role": "user"},
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "parentMessageId": "u"},
    )
    assert len(warnings) == 1
    assert [m["id"] for m in r.messages] == ["u", "c"]


def test_tool_call_start_is_idempotent_on_a_known_call_id():
    r = StateReducer()
    apply(
        r,
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
        {"type": "TOOL_CALL_END", "toolCallId": "c"},
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
    )
    assert len(r.messages) == 1 and len(r.messages[0]["toolCalls"]) == 1


def test_interrupt_outcome_sets_pending_interrupts_and_other_finishes_clear_them():
    r = StateReducer()
    apply(
        r,
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r1"},
        {
            "type": "RUN_FINISHED",
            "threadId": "t",
            "runId": "r1",
            "outcome": {
                "type": "interrupt",
                "interrupts": [{"id": "i1", "reason": "confirmation", "expiresAt": "2026-01-01T00:00:00Z"}],
            },
        },
    )
    assert r.pending_interrupts == [
        {"id": "i1", "reason": "confirmation", "expiresAt": "2026-01-01T00:00:00Z"}
    ]
    apply(
        r,
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r2"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r2"},
    )
    assert r.pending_interrupts == [] and r.results["r2"] == {"outcome": "success"}


def test_run_error_is_recorded_against_the_run():
    r = StateReducer()
    apply(
        r,
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r1"},
        {"type": "RUN_ERROR", "message": "boom", "code": "E1"},
    )
    assert r.results["r1"] == {"outcome": "failed", "error": {"message": "boom", "code": "E1"}}


def test_messages_snapshot_replaces_in_place_appends_unseen_drops_missing():
    r = StateReducer(
        messages=[
            {"id": "a", "role": "user", "content": "1"},
            {"id": "b", "role": "assistant", "content": "2"},
            {"id": "c", "role": "assistant", "content": "3"},
        ]
    )
    apply(
        r,
        {
            "type": "MESSAGES_SNAPSHOT",
            "messages": [
                {"id": "d", "role": "user", "content": "new"},
                {"id": "c", "role": "assistant", "content": "3'"},
                {"id": "a", "role": "user", "content": "1'"},
            ],
        },
    )
    assert [(m["id"], m["content"]) for m in r.messages] == [("a", "1'"), ("c", "3'"), ("d", "new")]


def test_messages_snapshot_keeps_reasoning_unless_it_carries_reasoning():
    r = StateReducer(messages=[{"id": "r", "role": "reasoning", "content": "x"}])
    apply(r, {"type": "MESSAGES_SNAPSHOT", "messages": []})
    assert [m["id"] for m in r.messages] == ["r"]
    apply(r, {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "r2", "role": "reasoning", "content": "y"}]})
    assert [m["id"] for m in r.messages] == ["r2"]


def test_a_snapshot_replaces_the_encrypted_value_too():
    r = StateReducer(messages=[{"id": "m", "role": "assistant", "content": "x", "encryptedValue": "old"}])
    apply(r, {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "m", "role": "assistant", "content": "x"}]})
    assert "encryptedValue" not in r.messages[0]


def test_a_new_encrypted_value_without_a_type_removes_the_old_type():
    r = StateReducer(messages=[{"id": "m", "role": "reasoning", "content": ""}])
    apply(
        r,
        {
            "type": "REASONING_ENCRYPTED_VALUE",
            "subtype": "message",
            "entityId": "m",
            "encryptedValue": "v1",
            "encryptedValueType": "t1",
        },
        {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "m", "encryptedValue": "v2"},
    )
    assert r.messages[0] == {"id": "m", "role": "reasoning", "content": "", "encryptedValue": "v2"}


def test_activity_replacing_snapshot_re_mints_ownership_but_keeps_metadata():
    r = StateReducer()
    apply(
        r,
        {
            "type": "ACTIVITY_SNAPSHOT",
            "messageId": "a",
            "activityType": "T",
            "content": {"v": 1},
            "subagentRunId": "s",
            "metadata": {"k": 1},
        },
        {"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "U", "content": {"v": 2}},
    )
    assert r.messages == [
        {"id": "a", "role": "activity", "activityType": "U", "content": {"v": 2}, "metadata": {"k": 1}}
    ]


def test_activity_delta_that_would_make_content_a_non_object_is_skipped():
    r = StateReducer()
    warnings = apply(
        r,
        {"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "T", "content": {}},
        {
            "type": "ACTIVITY_DELTA",
            "messageId": "a",
            "activityType": "T",
            "patch": [{"op": "replace", "path": "", "value": [1]}],
        },
    )
    assert warnings and r.messages[0]["content"] == {}


def test_outgoing_input_messages_strip_activity():
    r = StateReducer(
        messages=[
            {"id": "u", "role": "user", "content": "hi"},
            {"id": "a", "role": "activity", "activityType": "T", "content": {}},
        ]
    )
    assert [m["id"] for m in r.messages_for_input()] == ["u"]


def test_a_chunk_reaching_the_reducer_is_an_error():
    with pytest.raises(ChunkError, match="TEXT_MESSAGE_CHUNK must be transformed before being applied"):
        StateReducer().apply(TextMessageChunkEvent(message_id="m", delta="x"))


# -- guard rails --------------------------------------------------------------------------


def test_allowed_paths_refuse_a_delta_outside_them():
    r = StateReducer(state={"order": {}, "ui": {}, "secret": 1}, allowed_paths=["/order", "/ui/*"])
    apply(
        r,
        delta(
            {"op": "add", "path": "/order/item", "value": 1},
            {"op": "add", "path": "/ui/theme", "value": "dark"},
        ),
    )
    with pytest.raises(GuardError) as info:
        apply(r, delta({"op": "replace", "path": "/secret", "value": 2}))
    assert info.value.rule == "guard.path-not-allowed" and r.state["secret"] == 1
    with pytest.raises(GuardError):
        apply(r, delta({"op": "replace", "path": "/ui", "value": {}}))  # /ui itself is not /ui/*


def test_allowed_paths_check_snapshots_by_their_difference():
    r = StateReducer(state={"order": {"n": 1}, "secret": 1}, allowed_paths=["/order"])
    apply(r, snapshot({"order": {"n": 2}, "secret": 1}))
    with pytest.raises(GuardError):
        apply(r, snapshot({"order": {"n": 2}, "secret": 2}))


def test_version_guard_refuses_a_gap_until_a_snapshot_resynchronises():
    r = StateReducer(version_key=DEFAULT_VERSION_KEY)
    meta = lambda n: {"metadata": {DEFAULT_VERSION_KEY: n}}  # noqa: E731
    apply(r, snapshot({"n": 0}, **meta(1)), delta({"op": "replace", "path": "/n", "value": 1}, **meta(2)))
    with pytest.raises(ResyncNeeded) as info:
        apply(r, delta({"op": "replace", "path": "/n", "value": 3}, **meta(4)))
    assert (info.value.expected, info.value.got) == (3, 4) and r.state == {"n": 1}
    with pytest.raises(ResyncNeeded):  # still refusing, even the "right" number
        apply(r, delta({"op": "replace", "path": "/n", "value": 3}, **meta(3)))
    apply(r, snapshot({"n": 4}, **meta(4)), delta({"op": "replace", "path": "/n", "value": 5}, **meta(5)))
    assert r.state == {"n": 5} and not r.needs_resync


def test_version_guard_is_off_by_default():
    r = StateReducer()
    apply(r, delta({"op": "add", "path": "/x", "value": 1}, metadata={DEFAULT_VERSION_KEY: 99}))
    assert r.state == {"x": 1}


# -- the fast patch engine behaves exactly like jsonpatch ------------------------------------


def _reference(doc, ops):
    """jsonpatch itself, in place and atomic, on a deep copy: (result or None, error or None)."""
    doc = copy.deepcopy(doc)
    try:
        return jsonpatch.JsonPatch(copy.deepcopy(ops)).apply(doc, in_place=True, atomic=True), None
    except Exception as exc:
        return doc, exc


def _random_doc(rng, depth=0):
    if depth > 2 or (depth and rng.random() < 0.3):
        return rng.choice([0, 1, True, None, "s", 1.5, [], {}])
    if rng.random() < (0.7 if depth == 0 else 0.5):
        keys = rng.sample(["a", "b", "c", "-", "0", "x/y", "t~"], rng.randint(0, 4))
        return {k: _random_doc(rng, depth + 1) for k in keys}
    return [_random_doc(rng, depth + 1) for _ in range(rng.randint(0, 3))]


def _random_path(rng):
    parts = [
        rng.choice(["a", "b", "c", "-", "0", "1", "2", "01", "x~1y", "t~0", "~2", "", "z"])
        for _ in range(rng.randint(0, 3))
    ]
    return "".join("/" + p for p in parts) if rng.random() > 0.05 else "a"


def _escape(key):
    return key.replace("~", "~0").replace("/", "~1")


def _path_into(rng, doc):
    """Mostly a path that resolves in *doc* (so the fast engine gets work), sometimes not."""
    if rng.random() < 0.1:
        return _random_path(rng)
    parts, cur = [], doc
    while True:
        stop = rng.random() < 0.4
        if type(cur) is dict and cur and not stop:
            key = rng.choice(list(cur))
        elif type(cur) is list and cur and not stop:
            key = rng.randrange(len(cur))
        else:
            last = ["z", "a", "-", "0", str(len(cur)) if type(cur) is list else "new"]
            parts.append(_escape(rng.choice(last)))
            return "".join("/" + p for p in parts)
        parts.append(_escape(str(key)))
        cur = cur[key]
        if type(cur) not in (dict, list) or rng.random() < 0.3:
            return "".join("/" + p for p in parts)


def _random_op(rng, doc):
    name = rng.choice(["add"] * 4 + ["replace"] * 4 + ["remove"] * 3 + ["test", "move", "copy"])
    op = {"op": name, "path": _path_into(rng, doc)}
    if name in ("add", "replace", "test"):
        op["value"] = _random_doc(rng, 1)
    if name in ("move", "copy"):
        op["from"] = _path_into(rng, doc)
    return op


def test_the_fast_engine_matches_jsonpatch_on_thousands_of_random_patches():
    rng = random.Random(20260101)
    fast_hits = failures = 0
    for _ in range(4000):
        doc = _random_doc(rng)
        ops = [_random_op(rng, doc) for _ in range(rng.randint(1, 3))]
        expected, error = _reference(doc, ops)
        mine = copy.deepcopy(doc)
        before = json.dumps(mine)  # key order included
        probe = copy.deepcopy(doc)
        if patch_module._fast_apply(probe, copy.deepcopy(ops)) is not patch_module._FALLBACK:
            fast_hits += 1
        else:
            assert json.dumps(probe) == before  # a hand-over leaves the document untouched
        try:
            result = patch_module._apply_in_place(mine, ops)
        except Exception as exc:
            failures += 1
            assert error is not None, (doc, ops, exc)
            assert (type(exc), str(exc)) == (type(error), str(error))
            assert json.dumps(mine) == before, (doc, ops)  # atomic, order included
        else:
            assert error is None, (doc, ops, error)
            assert json.dumps(result) == json.dumps(expected), (doc, ops)
    # Both engines, and both outcomes, were exercised.
    assert fast_hits > 500 and failures > 500, (fast_hits, failures)


def test_the_fast_engine_takes_the_common_operations_and_copies_inserted_values():
    value = {"k": [1]}
    doc = {"todos": [{"id": 1}], "progress": 0, "ui": {"busy": True}}
    ops = [
        {"op": "replace", "path": "/progress", "value": 5},
        {"op": "add", "path": "/todos/-", "value": value},
        {"op": "add", "path": "/todos/0", "value": 0},
        {"op": "remove", "path": "/ui/busy"},
    ]
    assert patch_module._fast_apply(doc, ops) is doc
    assert doc == {"todos": [0, {"id": 1}, {"k": [1]}], "progress": 5, "ui": {}}
    assert doc["todos"][2] is not value and doc["todos"][2]["k"] is not value["k"]


@pytest.mark.parametrize(
    "op",
    [
        {"op": "move", "from": "/a", "path": "/b"},
        {"op": "test", "path": "/a", "value": 1},
        {"op": "add", "path": "", "value": 1},
        {"op": "replace", "path": "/nope", "value": 1},
        {"op": "add", "path": "/l/7", "value": 1},
        {"op": "remove", "path": "/l/01"},
    ],
)
def test_anything_else_is_handed_to_jsonpatch_with_the_document_untouched(op):
    doc = {"a": 1, "b": 2, "l": [1, 2]}
    ops = [{"op": "remove", "path": "/a"}, {"op": "add", "path": "/z", "value": 1}, op]
    assert patch_module._fast_apply(doc, ops) is patch_module._FALLBACK
    assert list(doc) == ["a", "b", "l"] and doc == {"a": 1, "b": 2, "l": [1, 2]}


def test_a_failed_delta_restores_key_order_and_list_positions():
    r = StateReducer(state={"a": 1, "b": [1, 2, 3], "c": 3})
    [warning] = apply(
        r,
        delta(
            {"op": "remove", "path": "/a"},
            {"op": "remove", "path": "/b/0"},
            {"op": "add", "path": "/b/1", "value": 9},
            {"op": "add", "path": "/a", "value": 0},
            {"op": "replace", "path": "/missing", "value": 1},
        ),
    )
    assert json.dumps(r.state) == json.dumps({"a": 1, "b": [1, 2, 3], "c": 3})
    assert warning.message == (
        "Failed to apply state patch: JsonPatchPathNotFound: can't replace "
        "a non-existent object 'missing'; the previous state is kept"
    )
