"""Notebook 03's catalogue and chunk lab (agentproto.course.agui_catalogue)."""

from __future__ import annotations

import pytest

from agentproto.agui import EventType, lint_source
from agentproto.course.agui_catalogue import (
    CATEGORIES,
    CHUNK_PRESETS,
    ChunkLab,
    category_of,
    expand_side_by_side,
)


def test_the_categories_hold_every_event_type_exactly_once():
    listed = [t for members in CATEGORIES.values() for t in members]
    assert sorted(t.value for t in listed) == sorted(t.value for t in EventType)
    assert len(listed) == len(set(listed)) == 31
    assert category_of("CUSTOM") == "passthrough"
    # spec 1.1 events/index: eight families; MESSAGES_SNAPSHOT is in State
    assert list(CATEGORIES) == [
        "runs and steps",
        "text messages",
        "tool calls",
        "reasoning",
        "state",
        "activity",
        "subagents",
        "passthrough",
    ]
    assert category_of("MESSAGES_SNAPSHOT") == category_of("STATE_DELTA") == "state"
    with pytest.raises(KeyError):
        category_of("THINKING_START")


def test_text_chunks_expand_into_a_triad_closed_by_run_finished():
    expansion = expand_side_by_side(CHUNK_PRESETS["text chunks"])
    assert [[o["type"] for o in outs] for _, outs in expansion.rows] == [
        ["RUN_STARTED"],
        ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"],
        ["TEXT_MESSAGE_CONTENT"],
        ["TEXT_MESSAGE_END", "RUN_FINISHED"],
    ]
    assert expansion.error is None and "│" in str(expansion)


def test_a_first_chunk_without_an_id_is_an_error_not_an_invented_id():
    expansion = expand_side_by_side(CHUNK_PRESETS["first chunk without an id"])
    assert "First TEXT_MESSAGE_CHUNK must have a messageId" in expansion.error


def test_a_stream_that_ends_mid_chunk_synthesizes_no_end():
    expansion = expand_side_by_side(CHUNK_PRESETS["stream ends mid-chunk"])
    assert "TEXT_MESSAGE_END" not in [e["type"] for e in expansion.events]
    assert expansion.discarded == ["text 'm1'"]


def test_every_preset_expands_and_lints_without_crashing():
    for name, events in CHUNK_PRESETS.items():
        expansion = expand_side_by_side(events)
        report = lint_source(events)
        assert (expansion.error is None) or not report.ok, name


def test_the_chunk_lab_reacts_to_its_preset_and_text_box():
    lab = ChunkLab()
    assert lab.report.ok
    lab.preset.value = "ambiguous continuation"
    assert "Ambiguous TEXT_MESSAGE_CHUNK" in lab.view.value
    assert lab.report.error["rule"] == "chunk.ambiguous"
    lab.source.value = "{not json"
    lab.expand_button.click()
    assert lab.report is None and "not JSON lines" in lab.view.value
    lab.preset.value = "two subagent lanes"
    assert lab.report.ok
    assert {m["subagentRunId"] for m in lab.report.messages} == {"sa-search", "sa-billing"}


def test_expansion_rows_are_numbered_from_zero():
    lines = str(expand_side_by_side(CHUNK_PRESETS["text chunks"])).splitlines()[1:]
    numbers = [line.split()[0] for line in lines if not line.startswith(" " * 4)]
    assert numbers == ["0", "1", "2", "3"]
