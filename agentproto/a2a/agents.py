"""Agents behind the A2A server, written sans I/O.

An agent is an object with a ``run(ctx)`` method returning an *async generator of updates*. It
never touches a socket, a clock or a store; the runtime (:class:`agentproto.a2a.service.A2AService`)
turns each update into task state, stream events and push notifications:

==============================  ==============================================================
update                          what the runtime does
==============================  ==============================================================
:class:`Reply`                  answer with a direct Message; no task is created (first update
                                only — spec §3.1.1 lets an agent reply without a task)
:class:`Status`                 move the task (checked against the transition table) and emit a
                                ``statusUpdate``; an attached text becomes the status message
:class:`ArtifactChunk`          add or extend an artifact and emit an ``artifactUpdate``
:class:`Wait`                   pause ``ms`` milliseconds (on the injected clock) — or, with
                                ``ms=None``, until the client cancels the task
==============================  ==============================================================

The run ends when the generator returns; by then the task must be terminal or interrupted
(INPUT_REQUIRED / AUTH_REQUIRED). When the client answers an interrupted task, ``run`` is called
again with the task so far in ``ctx.task``.

Three agents ship with the kit:

* :class:`TravelDeskAgent` — the trip-planning desk of seed 004 §1/§4: it asks for what is missing
  (destination, dates) with INPUT_REQUIRED, then streams an itinerary in chunks and a structured
  trip summary as artifacts.
* :class:`ConformanceAgent` — the system-under-test behaviour the public A2A suites expect,
  selected by the ``messageId`` prefix (a2a-tck ``scenarios/*.feature``, branch ``1.0-dev``, and
  the SDKs' ``acts/sut-behaviors.yaml``): ``tck-complete-task``, ``tck-input-required`` …
* :class:`EchoAgent` — completes at once with one artifact; the trivial agent of the benchmark.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from agentproto.a2a.states import TaskState
from agentproto.a2a.types import (
    JSONRPC_BINDING,
    PROTOCOL_VERSION,
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentProvider,
    AgentSkill,
    Message,
    Part,
    Task,
    data_part,
    file_part,
    text_part,
    url_part,
)

__all__ = [
    "Update",
    "Reply",
    "Status",
    "ArtifactChunk",
    "Wait",
    "RequestContext",
    "Agent",
    "TravelDeskAgent",
    "ConformanceAgent",
    "EchoAgent",
    "CONFORMANCE_BEHAVIOURS",
    "AGENTS",
    "make_agent",
    "interface_card",
]


# --------------------------------------------------------------------------- updates


def _parts(content: str | Part | list[Part] | None) -> list[Part]:
    if content is None:
        return []
    if isinstance(content, str):
        return [Part(text=content)]
    if isinstance(content, Part):
        return [content]
    return list(content)


@dataclass(frozen=True)
class Reply:
    """Answer with a direct Message instead of a task."""

    parts: list[Part]
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, content: str | Part | list[Part]) -> Reply:
        return cls(_parts(content))


@dataclass(frozen=True)
class Status:
    """Move the task to ``state``; ``parts`` (if any) become the agent's status message."""

    state: TaskState
    parts: list[Part] = field(default_factory=list)

    @classmethod
    def of(cls, state: TaskState, content: str | Part | list[Part] | None = None) -> Status:
        return cls(state, _parts(content))


@dataclass(frozen=True)
class ArtifactChunk:
    """An artifact, or one chunk of it (``append=True`` extends the same ``artifact_id``)."""

    artifact_id: str
    parts: list[Part]
    name: str = ""
    description: str = ""
    append: bool = False
    last_chunk: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Wait:
    """Pause for ``ms`` milliseconds of (injected) time; ``None`` waits until canceled."""

    ms: int | None


Update = Reply | Status | ArtifactChunk | Wait


@dataclass(frozen=True)
class RequestContext:
    """What an agent sees: the new message and, when resuming, the task so far."""

    message: Message
    context_id: str
    task: Task | None = None

    @property
    def task_id(self) -> str | None:
        return self.task.id if self.task is not None else None

    @property
    def is_follow_up(self) -> bool:
        """True when the message answers an existing (interrupted) task."""
        return self.task is not None

    def user_texts(self) -> list[str]:
        """Every user text of the task so far, oldest first, ending with the new message."""
        seen = [m for m in (self.task.history if self.task else []) if m.role.value == "ROLE_USER"]
        if not seen or seen[-1].message_id != self.message.message_id:
            seen.append(self.message)
        return [m.text for m in seen]


@runtime_checkable
class Agent(Protocol):
    """What the runtime needs from an agent."""

    name: str

    def card(self, url: str) -> AgentCard:
        """The public Agent Card, with ``url`` as its JSON-RPC interface."""
        ...

    def extended_card(self, url: str) -> AgentCard | None:
        """The extended card for authenticated callers, or ``None`` if not configured."""
        ...

    def run(self, ctx: RequestContext) -> AsyncIterator[Update]: ...


def interface_card(url: str, **fields: Any) -> AgentCard:
    """An :class:`AgentCard` whose only interface is JSON-RPC 1.0 at ``url``."""
    return AgentCard(
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding=JSONRPC_BINDING, protocol_version=PROTOCOL_VERSION)
        ],
        **fields,
    )


_PROVIDER = AgentProvider(
    url="https://github.com/agentproto/agentproto", organization="agentproto teaching kit"
)
_MODES = ["text/plain", "application/json"]


# --------------------------------------------------------------------------- travel desk

#: Destinations the desk knows, with the spellings it recognises (seed 004 plans a trip to Sanya).
_CITIES: dict[str, tuple[str, ...]] = {
    "Sanya": ("sanya", "三亚"),
    "Beijing": ("beijing", "北京"),
    "Shanghai": ("shanghai", "上海"),
    "Chengdu": ("chengdu", "成都"),
    "Hangzhou": ("hangzhou", "杭州"),
    "Tokyo": ("tokyo", "东京"),
    "Paris": ("paris", "巴黎"),
}
_OFF_WORLD = ("mars", "moon", "火星", "月球")
_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
_GREETING = re.compile(r"^\s*(hi|hello|hey|你好|what can you do\??|help)\s*[.!?]*\s*$", re.I)


def _stable_int(*parts: str, mod: int) -> int:
    """A deterministic pseudo-random number from the inputs (no RNG, same every run)."""
    digest = hashlib.sha256("|".join(parts).encode()).digest()
    return int.from_bytes(digest[:4], "big") % mod


@dataclass
class TravelDeskAgent:
    """Plans a trip: WORKING → INPUT_REQUIRED (missing dates) → WORKING → COMPLETED.

    ``step_ms`` is the simulated time each search step takes (on the injected clock, so a
    notebook with a fake clock runs instantly); ``chunk_chars`` sizes the itinerary chunks.
    """

    step_ms: int = 40
    chunk_chars: int = 48
    name: str = "travel"

    def card(self, url: str) -> AgentCard:
        return interface_card(
            url,
            name="Travel Desk",
            description="Plans trips: flights, a hotel and the weather, as one itinerary. "
            "Asks for whatever is missing (destination, dates).",
            provider=_PROVIDER,
            version="1.0.0",
            documentation_url="https://github.com/agentproto/agentproto/blob/main/docs/a2a.md",
            capabilities=AgentCapabilities(streaming=True, push_notifications=True, extended_agent_card=True),
            default_input_modes=["text/plain"],
            default_output_modes=_MODES,
            skills=[
                AgentSkill(
                    id="plan_trip",
                    name="Plan a trip",
                    description="Finds flights and a hotel and checks the weather for a "
                    "destination and dates; returns an itinerary.",
                    tags=["travel", "flights", "hotels", "itinerary"],
                    examples=[
                        "Plan my trip to Sanya next week",
                        "Trip to Tokyo from 2026-04-08 to 2026-04-12",
                    ],
                    input_modes=["text/plain"],
                    output_modes=_MODES,
                )
            ],
        )

    def extended_card(self, url: str) -> AgentCard | None:
        card = self.card(url)
        card.skills.append(
            AgentSkill(
                id="corporate_rates",
                name="Corporate rates",
                description="Applies negotiated corporate hotel rates (authenticated callers).",
                tags=["travel", "corporate"],
            )
        )
        card.description += " The extended card adds corporate rates."
        return card

    async def run(self, ctx: RequestContext) -> AsyncIterator[Update]:
        said = " ".join(ctx.user_texts())
        if not ctx.is_follow_up and _GREETING.match(ctx.message.text):
            yield Reply.of(
                "Hello! I am the Travel Desk. Tell me where you want to go and "
                "when (YYYY-MM-DD to YYYY-MM-DD), and I will plan the trip."
            )
            return
        yield Status.of(
            TaskState.WORKING,
            "Thanks, picking up where we left off…" if ctx.is_follow_up else "Reading your request…",
        )
        request = _read_request(said)
        if isinstance(request, Status):
            yield request
            return
        city, depart, back = request

        yield Status.of(TaskState.WORKING, f"Searching flights to {city}…")
        yield Wait(self.step_ms)
        flight = _flight(city, depart, back)
        yield Status.of(TaskState.WORKING, "Booking a hotel…")
        yield Wait(self.step_ms)
        hotel = _hotel(city, depart, back)
        yield Status.of(TaskState.WORKING, "Checking the weather…")
        yield Wait(self.step_ms)
        weather = ["sunny", "cloudy", "showers", "windy"][_stable_int(city, depart, mod=4)]

        for update in self._deliver(flight, hotel, weather):
            yield update
        yield Status.of(TaskState.COMPLETED, f"Your trip to {city} is planned.")

    def _deliver(self, flight: dict[str, Any], hotel: dict[str, Any], weather: str) -> Iterator[Update]:
        """The itinerary text in ``chunk_chars`` chunks (a short wait after each), then the trip as data."""
        itinerary = (
            f"Trip to {flight['to']}, {flight['depart']} → {flight['return']}.\n"
            f"Flight {flight['flight']}, return ticket {flight['priceCny']} CNY.\n"
            f"Hotel: {hotel['name']}, {hotel['nights']} nights at "
            f"{hotel['pricePerNightCny']} CNY per night.\n"
            f"Weather forecast on arrival: {weather}.\n"
        )
        chunks = [itinerary[i : i + self.chunk_chars] for i in range(0, len(itinerary), self.chunk_chars)]
        for i, chunk in enumerate(chunks):
            yield ArtifactChunk(
                "itinerary",
                [text_part(chunk)],
                name="itinerary.txt",
                description="The trip, in words.",
                append=i > 0,
                last_chunk=i == len(chunks) - 1,
            )
            yield Wait(self.step_ms // 4)
        yield ArtifactChunk(
            "trip",
            [data_part({"flight": flight, "hotel": hotel, "weather": weather})],
            name="trip.json",
            description="The trip as structured data.",
            last_chunk=True,
        )


def _read_request(said: str) -> tuple[str, str, str] | Status:
    """The trip asked for (city, departure, return, in date order), or the Status that ends the run."""
    low = said.lower()
    if any(w in low for w in _OFF_WORLD):
        return Status.of(TaskState.REJECTED, "Sorry, I only plan trips on Earth. Try Sanya or Tokyo.")
    city = next((c for c, names in _CITIES.items() if any(n in low for n in names)), None)
    dates = _DATE.findall(said)
    if city is None:
        return Status.of(
            TaskState.INPUT_REQUIRED, "Where would you like to go? I know: " + ", ".join(_CITIES) + "."
        )
    if len(dates) < 2:
        # Seed 004 §4: "you did not say when you come back, I cannot price a return ticket".
        return Status.of(
            TaskState.INPUT_REQUIRED,
            f"When do you leave for {city} and when do you come back? "
            "Reply with two dates, e.g. 2026-04-08 to 2026-04-12.",
        )
    depart, back = dates[-2], dates[-1]
    if back < depart:
        depart, back = back, depart
    return city, depart, back


def _flight(city: str, depart: str, back: str) -> dict[str, Any]:
    """The (simulated) return flight, priced deterministically from the trip."""
    return {
        "to": city,
        "depart": depart,
        "return": back,
        "flight": f"AP{100 + _stable_int(city, depart, mod=900)}",
        "priceCny": 800 + _stable_int(city, depart, back, mod=1200),
    }


def _hotel(city: str, depart: str, back: str) -> dict[str, Any]:
    """The (simulated) hotel for the stay."""
    return {
        "name": f"{city} Seaview Hotel" if city == "Sanya" else f"{city} Central Hotel",
        "nights": _nights(depart, back),
        "pricePerNightCny": 300 + _stable_int(city, "hotel", mod=500),
    }


def _nights(depart: str, back: str) -> int:
    from datetime import date

    try:
        return max((date.fromisoformat(back) - date.fromisoformat(depart)).days, 0)
    except ValueError:
        return 0


# --------------------------------------------------------------------------- conformance agent

#: messageId prefix → what the agent does (a2a-tck 1.0-dev ``scenarios/core_operations.feature``
#: and the SDKs' ``acts/sut-behaviors.yaml``). Longest prefix wins (``tck-artifact-file-url``
#: before ``tck-artifact-file``); no prefix → complete with an echo.
CONFORMANCE_BEHAVIOURS: dict[str, str] = {
    "tck-complete-task": "complete the task with the message 'Hello from TCK'",
    "tck-delayed-complete": "WORKING, wait delay_ms, complete with 'Done after delay'",
    "tck-long-running": "stay WORKING for delay_ms, then complete",
    "tck-artifact-text": "complete with a text artifact",
    "tck-artifact-file": "complete with a file artifact (inline bytes, output.txt, text/plain)",
    "tck-artifact-file-url": "complete with a file artifact by URL",
    "tck-artifact-data": "complete with a data artifact {'key': 'value', 'count': 42}",
    "tck-message-response": "reply with a direct Message, no task",
    "tck-input-required": "stop in INPUT_REQUIRED; any follow-up completes the task",
    "tck-auth-required": "stop in AUTH_REQUIRED; any follow-up completes the task",
    "tck-reject-task": "REJECTED with the message 'rejected'",
    "tck-task-failure": "FAILED with an error message",
    "tck-multi-turn": "stay in INPUT_REQUIRED until the user sends 'done', then complete",
    "tck-cancel": "stay WORKING until canceled",
    "tck-stream-basic": "stream WORKING → one artifact → COMPLETED",
    "tck-stream-chunked": "stream one artifact in three appended chunks, then complete",
}
_BY_LENGTH = sorted(CONFORMANCE_BEHAVIOURS, key=len, reverse=True)


@dataclass
class ConformanceAgent:
    """The system under test for conformance suites: behaviour chosen by ``messageId`` prefix.

    For a follow-up on an existing task the behaviour of the task's *first* message applies.
    ``delay_ms`` is the "streaming timeout" the delayed scenarios wait for.
    """

    delay_ms: int = 1000
    name: str = "conformance"

    def card(self, url: str) -> AgentCard:
        return interface_card(
            url,
            name="A2A Conformance SUT",
            description="A system under test for A2A conformance suites: the messageId prefix "
            "(tck-complete-task, tck-input-required, …) selects the behaviour.",
            provider=_PROVIDER,
            version="1.0.0",
            capabilities=AgentCapabilities(
                streaming=True, push_notifications=True, extended_agent_card=False
            ),
            default_input_modes=_MODES,
            default_output_modes=_MODES,
            skills=[
                AgentSkill(
                    id="tck",
                    name="Conformance behaviours",
                    description="; ".join(f"{k}: {v}" for k, v in CONFORMANCE_BEHAVIOURS.items()),
                    tags=["conformance", "tck"],
                    examples=list(CONFORMANCE_BEHAVIOURS),
                )
            ],
        )

    def extended_card(self, url: str) -> AgentCard | None:
        return None

    @staticmethod
    def behaviour_of(message_id: str) -> str | None:
        """The prefix that selects the behaviour for ``message_id`` (longest match)."""
        return next((p for p in _BY_LENGTH if message_id.startswith(p)), None)

    async def run(self, ctx: RequestContext) -> AsyncIterator[Update]:
        first = ctx.task.history[0].message_id if ctx.task and ctx.task.history else None
        behaviour = self.behaviour_of(first or ctx.message.message_id)
        S = TaskState
        if ctx.is_follow_up:
            yield self._follow_up(behaviour, ctx.message)
            return
        match behaviour:
            case "tck-message-response":
                yield Reply.of("Direct message response")
            case "tck-complete-task":
                yield Status.of(S.COMPLETED, "Hello from TCK")
            case "tck-delayed-complete" | "tck-long-running":
                yield Status.of(S.WORKING, "Working…")
                yield Wait(self.delay_ms)
                yield Status.of(S.COMPLETED, "Done after delay")
            case "tck-artifact-text" | "tck-artifact-file" | "tck-artifact-file-url" | "tck-artifact-data":
                yield _tck_artifact(behaviour)
                yield Status.of(S.COMPLETED)
            case "tck-input-required" | "tck-multi-turn":
                yield Status.of(S.INPUT_REQUIRED, "Please provide more input.")
            case "tck-auth-required":
                yield Status.of(S.AUTH_REQUIRED, "Please authenticate to continue.")
            case "tck-reject-task":
                yield Status.of(S.REJECTED, "rejected")
            case "tck-task-failure":
                yield Status.of(S.WORKING)
                yield Status.of(S.FAILED, "Task failed: the conformance scenario asked for it")
            case "tck-cancel":
                yield Status.of(S.WORKING, "Working until canceled…")
                yield Wait(None)
            case "tck-stream-basic":
                yield Status.of(S.WORKING)
                yield ArtifactChunk("stream-artifact", [text_part("streamed content")], last_chunk=True)
                yield Status.of(S.COMPLETED)
            case "tck-stream-chunked":
                yield Status.of(S.WORKING)
                chunks = ["chunk one", " chunk two", " chunk three"]
                for i, chunk in enumerate(chunks):
                    yield ArtifactChunk(
                        "chunked-artifact", [text_part(chunk)], append=i > 0, last_chunk=i == len(chunks) - 1
                    )
                yield Status.of(S.COMPLETED)
            case _:
                yield Status.of(S.COMPLETED, f"Echo: {ctx.message.text}")

    def _follow_up(self, behaviour: str | None, message: Message) -> Status:
        """The answer to a follow-up: more input again (tck-input-required, tck-multi-turn) or done."""
        again = self.behaviour_of(message.message_id) == "tck-input-required"
        if again or (behaviour == "tck-multi-turn" and message.text.strip().lower() != "done"):
            return Status.of(TaskState.INPUT_REQUIRED, "Got it. Send more, or 'done' to finish.")
        return Status.of(TaskState.COMPLETED, f"Follow-up received: {message.text}")


def _tck_artifact(behaviour: str) -> ArtifactChunk:
    """The one artifact a ``tck-artifact-*`` scenario completes with (text, inline file, file URL or data)."""
    match behaviour:
        case "tck-artifact-text":
            return ArtifactChunk(
                "text-artifact", [text_part("Generated text content")], name="text", last_chunk=True
            )
        case "tck-artifact-file":
            return ArtifactChunk(
                "file-artifact",
                [file_part(b"Generated file content\n", filename="output.txt", media_type="text/plain")],
                name="output.txt",
                last_chunk=True,
            )
        case "tck-artifact-file-url":
            return ArtifactChunk(
                "file-url-artifact",
                [url_part("https://example.com/output.txt", filename="output.txt", media_type="text/plain")],
                name="output.txt",
                last_chunk=True,
            )
        case _:  # tck-artifact-data
            return ArtifactChunk(
                "data-artifact", [data_part({"key": "value", "count": 42})], name="data", last_chunk=True
            )


# --------------------------------------------------------------------------- echo


@dataclass
class EchoAgent:
    """Completes immediately with one artifact echoing the text (benchmark workload)."""

    name: str = "echo"

    def card(self, url: str) -> AgentCard:
        return interface_card(
            url,
            name="Echo",
            description="Echoes the message text back as an artifact.",
            version="1.0.0",
            capabilities=AgentCapabilities(streaming=True, push_notifications=False),
            default_input_modes=_MODES,
            default_output_modes=["text/plain"],
            skills=[AgentSkill(id="echo", name="Echo", description="Echo the text back.", tags=["echo"])],
        )

    def extended_card(self, url: str) -> AgentCard | None:
        return None

    async def run(self, ctx: RequestContext) -> AsyncIterator[Update]:
        yield ArtifactChunk("echo", [text_part(ctx.message.text)], name="echo", last_chunk=True)
        yield Status.of(TaskState.COMPLETED)


#: Agents by the name ``agentproto serve --a2a-agent NAME`` uses.
AGENTS: dict[str, Callable[..., Agent]] = {
    "travel": TravelDeskAgent,
    "conformance": ConformanceAgent,
    "echo": EchoAgent,
}


def make_agent(name: str, **options: Any) -> Agent:
    """Build a shipped agent by name (``travel``, ``conformance``, ``echo``)."""
    try:
        factory = AGENTS[name]
    except KeyError:
        raise ValueError(f"unknown agent {name!r}; choose one of {', '.join(AGENTS)}") from None
    return factory(**options)
