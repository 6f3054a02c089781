"""Chunk expansion (spec 1.1 basic/patterns/streaming; reference chunks/transform.ts)."""

import pytest

from agentproto.agui import (
    ChunkError,
    ChunkExpander,
    CustomEvent,
    RawEvent,
    ReasoningMessageChunkEvent,
    RunFinishedEvent,
    StateSnapshotEvent,
    SubagentFinishedEvent,
    TextMessageChunkEvent,
    TextMessageStartEvent,
    ToolCallChunkEvent,
    dump_event,
    expand_chunks,
)


def kinds(events):
    return [e.type.value for e in events]


def text_chunk(**kw):
    return TextMessageChunkEvent(**kw)


def test_a_first_chunk_opens_and_a_delta_becomes_content():
    out = ChunkExpander().feed(text_chunk(message_id="m", delta="Hi"))
    assert kinds(out) == ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]
    assert dump_event(out[0]) == {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}
    assert dump_event(out[1]) == {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "Hi"}


def test_the_end_is_synthesized_by_the_next_closing_event_before_it():
    x = ChunkExpander()
    x.feed(text_chunk(message_id="m", delta="a"))
    out = x.feed(RunFinishedEvent(thread_id="t", run_id="r"))
    assert kinds(out) == ["TEXT_MESSAGE_END", "RUN_FINISHED"]


@pytest.mark.parametrize(
    "first, message",
    [
        (TextMessageChunkEvent(delta="x"), "First TEXT_MESSAGE_CHUNK must have a messageId"),
        (ToolCallChunkEvent(tool_call_name="f", delta="x"), "First TOOL_CALL_CHUNK must have a toolCallId"),
        (ToolCallChunkEvent(tool_call_id="c"), "First TOOL_CALL_CHUNK must have a toolCallName"),
        (ReasoningMessageChunkEvent(delta="x"), "First REASONING_MESSAGE_CHUNK must have a messageId"),
    ],
)
def test_a_first_chunk_must_carry_its_id_and_ids_are_never_invented(first, message):
    with pytest.raises(ChunkError) as info:
        ChunkExpander().feed(first)
    assert str(info.value) == message


def test_a_different_id_closes_then_opens():
    x = ChunkExpander()
    x.feed(text_chunk(message_id="a", delta="1"))
    out = x.feed(text_chunk(message_id="b", delta="2"))
    assert kinds(out) == ["TEXT_MESSAGE_END", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]
    assert out[0].message_id == "a" and out[1].message_id == "b"


def test_metadata_never_lands_on_the_end_that_closes_the_previous_item():
    x = ChunkExpander()
    x.feed(text_chunk(message_id="a", delta="1"))
    end, start, content = x.feed(text_chunk(message_id="b", delta="2", metadata={"k": 1}))
    assert end.metadata is None and start.metadata == {"k": 1} and content.metadata == {"k": 1}


def test_raw_event_rides_the_content_event_only():
    start, content = ChunkExpander().feed(text_chunk(message_id="m", delta="x", raw_event={"p": 1}))
    assert start.raw_event is None and content.raw_event == {"p": 1}


def test_a_metadata_only_continuation_yields_an_empty_content_event():
    x = ChunkExpander()
    x.feed(text_chunk(message_id="m", delta="x"))
    [content] = x.feed(text_chunk(metadata={"finish": "stop"}))
    assert content.delta == "" and content.metadata == {"finish": "stop"}


def test_the_chunk_timestamp_is_not_carried():
    out = ChunkExpander().feed(text_chunk(message_id="m", delta="x", timestamp=5))
    assert all(e.timestamp is None for e in out)


def test_an_empty_delta_still_produces_content():
    out = ChunkExpander().feed(text_chunk(message_id="m", delta=""))
    assert kinds(out)[-1] == "TEXT_MESSAGE_CONTENT"


def test_a_repeated_role_must_match_including_the_assistant_default():
    x = ChunkExpander()
    x.feed(text_chunk(message_id="m", delta="a"))
    x.feed(text_chunk(role="assistant", delta="b"))  # the default, made explicit: fine
    with pytest.raises(ChunkError) as info:
        x.feed(text_chunk(role="user", delta="c"))
    assert str(info.value) == (
        "Cannot continue text message 'm': chunk role 'user' does not "
        "match the open stream's role 'assistant'."
    )


def test_a_name_given_later_disagrees_with_an_absent_one():
    x = ChunkExpander()
    x.feed(text_chunk(message_id="m", delta="a"))
    with pytest.raises(ChunkError, match=r"name 'Ada' does not match the open stream's name \(absent\)"):
        x.feed(text_chunk(name="Ada", delta="b"))


def test_tool_chunk_parent_message_must_match():
    x = ChunkExpander()
    x.feed(ToolCallChunkEvent(tool_call_id="c", tool_call_name="f", parent_message_id="m1"))
    with pytest.raises(ChunkError, match="parentMessageId 'm2'"):
        x.feed(ToolCallChunkEvent(parent_message_id="m2", delta="x"))


def test_lanes_are_per_owner_so_subagents_stream_side_by_side():
    x = ChunkExpander()
    x.feed(text_chunk(message_id="p", delta="1"))
    x.feed(text_chunk(message_id="s", delta="1", subagent_run_id="sa"))
    [content] = x.feed(text_chunk(delta="2"))
    assert content.message_id == "p"
    [content] = x.feed(text_chunk(delta="2", subagent_run_id="sa"))
    assert content.message_id == "s" and content.subagent_run_id == "sa"


def test_an_untagged_continuation_falls_back_to_the_sole_open_lane():
    x = ChunkExpander()
    x.feed(text_chunk(message_id="s", delta="1", subagent_run_id="sa"))
    [content] = x.feed(text_chunk(delta="2"))
    assert content.message_id == "s" and content.subagent_run_id == "sa"


def test_an_untagged_id_less_chunk_with_two_candidate_lanes_is_ambiguous():
    x = ChunkExpander()
    x.feed(text_chunk(message_id="a", delta="1", subagent_run_id="s1"))
    x.feed(text_chunk(message_id="b", delta="1", subagent_run_id="s2"))
    with pytest.raises(ChunkError) as info:
        x.feed(text_chunk(delta="?"))
    assert str(info.value) == (
        "Ambiguous TEXT_MESSAGE_CHUNK: it carries neither a messageId nor a subagentRunId, but 2 "
        "lanes have an open text message. Attribute the chunk to the subagent it belongs to."
    )


def test_a_named_id_continues_where_it_is_open_and_a_contradicting_tag_is_fatal():
    x = ChunkExpander()
    x.feed(text_chunk(message_id="m", delta="1", subagent_run_id="s1"))
    with pytest.raises(ChunkError) as info:
        x.feed(text_chunk(message_id="m", delta="2", subagent_run_id="s2"))
    assert str(info.value) == (
        "Cannot continue text message 'm': chunk subagentRunId 's2' does "
        "not match the open stream's subagent 's1'."
    )


def test_an_explicit_event_closes_only_its_own_lane():
    x = ChunkExpander()
    x.feed(text_chunk(message_id="s", delta="1", subagent_run_id="sa"))
    out = x.feed(TextMessageStartEvent(message_id="p"))
    assert kinds(out) == ["TEXT_MESSAGE_START"]  # the subagent's message stays open
    assert set(x.pending) == {"sa"}


def test_a_subagent_terminal_closes_that_subagents_lane():
    x = ChunkExpander()
    x.feed(text_chunk(message_id="s", delta="1", subagent_run_id="sa"))
    out = x.feed(SubagentFinishedEvent(subagent_run_id="sa"))
    assert kinds(out) == ["TEXT_MESSAGE_END", "SUBAGENT_FINISHED"]
    assert out[0].subagent_run_id == "sa"


@pytest.mark.parametrize("event", [RawEvent(event={}), CustomEvent(name="n", value=1)])
def test_raw_closes_nothing_but_custom_closes_its_lane(event):
    x = ChunkExpander()
    x.feed(text_chunk(message_id="m", delta="1"))
    out = x.feed(event)
    assert (kinds(out)[0] == "TEXT_MESSAGE_END") is (event.type.value == "CUSTOM")


def test_run_level_events_close_every_lane():
    x = ChunkExpander()
    x.feed(text_chunk(message_id="a", delta="1"))
    x.feed(ToolCallChunkEvent(tool_call_id="c", tool_call_name="f", subagent_run_id="sa"))
    out = x.feed(RunFinishedEvent(thread_id="t", run_id="r"))
    assert kinds(out) == ["TEXT_MESSAGE_END", "TOOL_CALL_END", "RUN_FINISHED"]


def test_end_of_stream_mid_chunk_synthesizes_nothing_and_records_what_was_open():
    x = ChunkExpander()
    x.feed(text_chunk(message_id="m", delta="half"))
    assert x.close() == []
    assert [(p.kind, p.id) for p in x.discarded] == [("text", "m")]


def test_reasoning_chunks_open_a_reasoning_message():
    out = expand_chunks(
        [ReasoningMessageChunkEvent(message_id="r", delta="x"), StateSnapshotEvent(snapshot={})]
    )
    assert kinds(out) == [
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "STATE_SNAPSHOT",
    ]
    assert out[0].role == "reasoning"


def test_non_chunk_events_pass_through_untouched():
    event = CustomEvent(name="n", value=None)
    assert ChunkExpander().feed(event) == [event]
