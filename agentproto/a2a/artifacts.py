"""Reassemble a task's artifacts from the chunks a stream (or a webhook) delivers, sans I/O.

An agent may send an artifact in pieces (spec §3.1.2, proto ``TaskArtifactUpdateEvent``):

* ``append: false`` starts an artifact — or replaces one with the same ``artifactId``;
* ``append: true`` adds its parts to the artifact of the same ``artifactId``, which must exist;
* ``lastChunk: true`` says the artifact is complete: nothing may be appended after it.

A ``task`` payload (the first event of a stream or of ``SubscribeToTask``) carries every chunk
sent so far, so it *replaces* whatever was assembled. :class:`ArtifactAssembler` applies exactly
these rules — the same the server applies to its own copy of the task — so "reassembled ==
the task's artifact from ``GetTask``" is the check that nothing was lost. A chunk that cannot
fit raises :class:`ArtifactAssemblyError`, which says which artifact and why.

>>> from agentproto.a2a.types import TaskArtifactUpdateEvent, text_part
>>> def chunk(text, **kw):
...     return StreamResponse(artifact_update=TaskArtifactUpdateEvent(
...         task_id="t", context_id="c", artifact=Artifact(artifact_id="doc",
...         parts=[text_part(text)]), **kw))
>>> a = ArtifactAssembler()
>>> for event in (chunk("Hel"), chunk("lo", append=True, last_chunk=True)):
...     a.feed(event)
>>> a.text("doc"), a.complete
('Hello', {'doc'})
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from agentproto.a2a.types import Artifact, Part, StreamResponse
from agentproto.errors import AgentProtoError

__all__ = [
    "ArtifactAssembler",
    "ArtifactAssemblyError",
    "Chunk",
    "UNKNOWN_ARTIFACT",
    "AFTER_LAST_CHUNK",
    "fit_parts",
    "part_media_type",
]

#: :attr:`ArtifactAssemblyError.reason` of an append to an artifact this stream never started.
UNKNOWN_ARTIFACT = "unknown-artifact"
#: :attr:`ArtifactAssemblyError.reason` of a chunk that arrives after ``lastChunk: true``.
AFTER_LAST_CHUNK = "after-last-chunk"


class ArtifactAssemblyError(AgentProtoError, ValueError):
    """A chunk does not fit the artifacts assembled so far.

    ``reason`` is :data:`UNKNOWN_ARTIFACT` (an append whose first chunk never arrived — re-read
    the task with ``GetTask`` or resubscribe) or :data:`AFTER_LAST_CHUNK` (the sender broke the
    chunking rules); ``artifact_id`` names the artifact.
    """

    def __init__(self, reason: str, artifact_id: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.artifact_id = artifact_id


class Chunk(NamedTuple):
    """One ``artifactUpdate`` as it was fed: which artifact, its flags and its text (a tuple,
    so ``for artifact_id, append, last, text in assembler.chunks`` works)."""

    artifact_id: str
    append: bool
    last_chunk: bool
    text: str


class ArtifactAssembler:
    """Rebuild a task's artifacts on the client from ``StreamResponse`` events.

    ``artifacts`` maps ``artifactId`` to the artifact as assembled so far; ``complete`` holds
    the ids whose last chunk arrived; ``chunks`` records every artifact update fed, in order.
    """

    def __init__(self) -> None:
        self.artifacts: dict[str, Artifact] = {}
        self.complete: set[str] = set()
        self.chunks: list[Chunk] = []

    def feed(self, event: StreamResponse) -> None:
        """Take one event; payloads other than ``task`` and ``artifactUpdate`` are ignored."""
        if event.task is not None:
            self.artifacts = {a.artifact_id: a for a in event.task.artifacts}
            return
        update = event.artifact_update
        if update is None:
            return
        artifact = update.artifact
        key = artifact.artifact_id
        self.chunks.append(Chunk(key, update.append, update.last_chunk, artifact.text))
        if update.append:
            old = self.artifacts.get(key)
            if old is None:
                raise ArtifactAssemblyError(
                    UNKNOWN_ARTIFACT,
                    key,
                    f"append to artifact {key!r}, which this stream never started (a lost "
                    "first chunk?) — re-read the task with GetTask",
                )
            if key in self.complete:
                raise ArtifactAssemblyError(
                    AFTER_LAST_CHUNK, key, f"chunk after lastChunk for artifact {key!r}"
                )
            self.artifacts[key] = old.model_copy(update={"parts": old.parts + artifact.parts})
        else:
            self.artifacts[key] = artifact
            self.complete.discard(key)
        if update.last_chunk:
            self.complete.add(key)

    def text(self, artifact_id: str) -> str:
        """The text parts of one assembled artifact, joined (``KeyError`` if unknown)."""
        return self.artifacts[artifact_id].text

    def data(self, artifact_id: str) -> list[Any]:
        """The data-part values of one assembled artifact (``KeyError`` if unknown)."""
        return self.artifacts[artifact_id].data


def part_media_type(part: Part) -> str:
    """A part's media type: its ``mediaType``, else text/plain (text), application/json (data),
    application/octet-stream (raw, url)."""
    if part.media_type:
        return part.media_type.split(";")[0].strip().lower()
    return {"text": "text/plain", "data": "application/json"}.get(part.kind, "application/octet-stream")


def media_type_accepted(media_type: str, accepted: list[str]) -> bool:
    """Does ``media_type`` match one of ``accepted`` (``*/*`` and ``type/*`` wildcards allowed)?"""
    mt = media_type.split(";")[0].strip().lower()
    major = mt.split("/")[0]
    for a in accepted:
        a = a.split(";")[0].strip().lower()
        if a in ("*/*", "*", mt) or (a.endswith("/*") and a[:-2] == major):
            return True
    return False


def fit_parts(parts: list[Part], accepted: list[str]) -> list[Part]:
    """``parts`` tailored to a client's ``acceptedOutputModes`` (spec §3.2.1).

    Parts of an accepted type pass; a data part becomes its JSON as text when only text/plain
    is accepted; other parts are dropped. No modes (the client did not say), or nothing left,
    returns ``parts`` unchanged: an artifact must have parts, and the agent cannot do better.

    >>> from agentproto.a2a.types import data_part, text_part
    >>> [p.kind for p in fit_parts([text_part("hi"), data_part({"a": 1})], ["text/plain"])]
    ['text', 'text']
    """
    if not accepted:
        return parts
    out: list[Part] = []
    for part in parts:
        if media_type_accepted(part_media_type(part), accepted):
            out.append(part)
        elif part.kind == "data" and media_type_accepted("text/plain", accepted):
            out.append(
                Part(
                    text=json.dumps(part.data, ensure_ascii=False),
                    media_type="text/plain",
                    metadata=part.metadata,
                )
            )
    return out or parts
