"""Artifact chunks (append, lastChunk) reassemble into what GetTask returns — or fail loudly."""

from __future__ import annotations

import pytest

from agentproto.a2a.states import TaskState

S = TaskState


def _chunk(artifact_id, text, *, append=False, last=False):
    from agentproto.a2a.types import (
        Artifact,
        StreamResponse,
        TaskArtifactUpdateEvent,
        text_part,
    )

    return StreamResponse(
        artifact_update=TaskArtifactUpdateEvent(
            task_id="t",
            context_id="c",
            append=append,
            last_chunk=last,
            artifact=Artifact(artifact_id=artifact_id, parts=[text_part(text)]),
        )
    )


def test_appended_chunks_join_into_one_artifact_and_last_chunk_completes_it():
    from agentproto.a2a.artifacts import ArtifactAssembler

    a = ArtifactAssembler()
    for event in (
        _chunk("doc", "Hel"),
        _chunk("doc", "lo, ", append=True),
        _chunk("doc", "world", append=True, last=True),
    ):
        a.feed(event)
    assert a.text("doc") == "Hello, world" and a.complete == {"doc"}
    assert [c[1:3] for c in a.chunks] == [(False, False), (True, False), (True, True)]


def test_a_chunk_without_append_replaces_the_artifact():
    from agentproto.a2a.artifacts import ArtifactAssembler

    a = ArtifactAssembler()
    a.feed(_chunk("doc", "draft", last=True))
    a.feed(_chunk("doc", "final"))
    assert a.text("doc") == "final" and "doc" not in a.complete


def test_appending_to_an_artifact_never_started_is_an_assembly_error():
    from agentproto.a2a.artifacts import ArtifactAssembler, ArtifactAssemblyError

    with pytest.raises(ArtifactAssemblyError, match="never started"):
        ArtifactAssembler().feed(_chunk("doc", "lo", append=True))


def test_appending_after_the_last_chunk_is_an_assembly_error():
    from agentproto.a2a.artifacts import ArtifactAssembler, ArtifactAssemblyError

    a = ArtifactAssembler()
    a.feed(_chunk("doc", "all", last=True))
    with pytest.raises(ArtifactAssemblyError, match="after lastChunk"):
        a.feed(_chunk("doc", "more", append=True))


def test_a_task_snapshot_replaces_what_was_assembled_so_far():
    from agentproto.a2a.artifacts import ArtifactAssembler
    from agentproto.a2a.types import Artifact, StreamResponse, Task, TaskStatus, text_part

    a = ArtifactAssembler()
    a.feed(_chunk("doc", "Hel"))
    snapshot = Task(
        id="t",
        context_id="c",
        status=TaskStatus(state=S.WORKING),
        artifacts=[Artifact(artifact_id="doc", parts=[text_part("Hello")])],
    )
    a.feed(StreamResponse(task=snapshot))
    a.feed(_chunk("doc", "!", append=True, last=True))
    assert a.text("doc") == "Hello!"


def test_an_assembly_error_says_which_artifact_and_why():
    from agentproto.a2a.artifacts import (
        AFTER_LAST_CHUNK,
        UNKNOWN_ARTIFACT,
        ArtifactAssembler,
        ArtifactAssemblyError,
    )

    with pytest.raises(ArtifactAssemblyError) as lost:
        ArtifactAssembler().feed(_chunk("doc", "lo", append=True))
    assert (lost.value.reason, lost.value.artifact_id) == (UNKNOWN_ARTIFACT, "doc")
    done = ArtifactAssembler()
    done.feed(_chunk("doc", "all", last=True))
    with pytest.raises(ArtifactAssemblyError) as late:
        done.feed(_chunk("doc", "more", append=True))
    assert late.value.reason == AFTER_LAST_CHUNK


def test_data_chunks_are_readable_as_data():
    from agentproto.a2a.artifacts import ArtifactAssembler
    from agentproto.a2a.types import (
        Artifact,
        StreamResponse,
        TaskArtifactUpdateEvent,
        data_part,
    )

    a = ArtifactAssembler()
    a.feed(
        StreamResponse(
            artifact_update=TaskArtifactUpdateEvent(
                task_id="t",
                context_id="c",
                last_chunk=True,
                artifact=Artifact(artifact_id="trip", parts=[data_part({"to": "Sanya"})]),
            )
        )
    )
    assert a.data("trip") == [{"to": "Sanya"}] and a.text("trip") == ""
    assert a.chunks[0].text == ""


def test_status_updates_and_messages_pass_through_untouched():
    from agentproto.a2a.artifacts import ArtifactAssembler
    from agentproto.a2a.types import StreamResponse, user_message

    a = ArtifactAssembler()
    a.feed(StreamResponse(message=user_message("hi", message_id="m")))
    assert a.artifacts == {} and a.chunks == []


def test_the_travel_desks_stream_reassembles_into_the_tasks_artifacts(make_service):
    import asyncio

    from agentproto.a2a.artifacts import ArtifactAssembler
    from agentproto.a2a.types import GetTaskRequest, SendMessageRequest, user_message

    async def run():
        service = make_service("travel")
        request = SendMessageRequest(
            message=user_message("Plan my trip to Sanya from 2026-04-08 to 2026-04-12", message_id="m-1")
        )
        a = ArtifactAssembler()
        task_id = ""
        async for event in await service.send_streaming_message(request):
            a.feed(event)
            task_id = task_id or event.task.id
        task = await service.get_task(GetTaskRequest(id=task_id))
        await service.aclose()
        return a, task

    a, task = asyncio.run(run())
    assert sum(1 for c in a.chunks if c.artifact_id == "itinerary") > 1
    assert {x.artifact_id: x.parts for x in task.artifacts} == {k: v.parts for k, v in a.artifacts.items()}
    assert a.complete == {x.artifact_id for x in task.artifacts}
