"""AG-UI (agent ↔ user interface): events, SSE, chunks, verification, state, interrupts.

The consumer pipeline, in the order spec 1.1 (``basic/processing``) prescribes::

    bytes ──SSEDecoder──▶ JSON text ──EventParser──▶ Event ──ChunkExpander──▶ Event*
          ──Verifier──▶ (rules) ──StateReducer──▶ state + messages

Every stage is sans-I/O: feed it input, take output — no sockets, clocks or randomness.
:class:`Pipeline` and :func:`lint_source` chain them; ``agentproto lint`` is the CLI.

The public surface, by module:

==========================  ===================================================================
module                      what
==========================  ===================================================================
:mod:`~.events`             the 31 event models, ``EVENT_CLASSES``; ``dump_event``, ``event_to_json``
:mod:`~.shapes`             what events carry: messages, parts, tools, ``RunAgentInput``, patch ops
:mod:`~.parse`              :class:`EventParser`, :func:`parse_event`, :func:`parse_run_agent_input`
:mod:`~.compat`             :class:`CompatibilityBoundary` (retired ``THINKING_*``, tolerated nulls)
:mod:`~.eras`               era shims for a peer pinned to an older protocol: :func:`shims_for`
:mod:`~.sse`                SSE framing: :class:`SSEDecoder`, :func:`encode_sse`, JSON lines
:mod:`~.chunks`             :class:`ChunkExpander`: ``*_CHUNK`` → start/content/end
:mod:`~.verify`             :class:`Verifier`, :func:`verify_events`, the :data:`RULES`
:mod:`~.state`              :class:`StateReducer`: snapshots, JSON Patch deltas, messages
:mod:`~.patch`              JSON Patch applied atomically in place: :func:`apply_patch`, :func:`copy_json`
:mod:`~.pipeline`           :class:`Pipeline`, :func:`lint_source` and its :class:`LintReport`
:mod:`~.report`             :func:`verdict`, :func:`format_messages`: reading a report
:mod:`~.interrupts`         interrupt/resume: building and checking ``resume`` entries
:mod:`~.ui_intent`          :func:`validate_ui_intent`: the front end's gate for UI intents
:mod:`~.errors`             :class:`AGUIError` and its family; :class:`PipelineWarning`
:mod:`~.client`             :class:`AGUIClient`, :class:`SyncAGUIClient` (httpx; imported lazily)
:mod:`~.server`, runner     the Starlette endpoint and the run driver (adapters)
==========================  ===================================================================

Events are numbered **from 0 in arrival order** everywhere: an error's ``index``, a warning's
``event``, ``report.error["event"]``; human text says "event #5" for index 5.

Importing this package loads neither httpx nor Starlette nor jsonschema: the clients are
imported on first use (``agentproto.agui.AGUIClient``), the servers only from their modules.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from agentproto.agui.chunks import ChunkExpander, PendingStream, expand_chunks
from agentproto.agui.compat import CompatibilityBoundary
from agentproto.agui.eras import ERA_SHIMS, EraDowngrade, EraShim, shims_for
from agentproto.agui.errors import (
    AGUIError,
    ChunkError,
    DecodeError,
    GuardError,
    IntentEnvelopeError,
    IntentPropsError,
    IntentTooLargeError,
    MalformedEventError,
    PatchError,
    PipelineWarning,
    ResyncNeeded,
    UIIntentError,
    UnknownComponentError,
    UnsafeContentError,
    VerificationError,
    Warning_,
)
from agentproto.agui.events import *  # noqa: F403 - the event model is the public API
from agentproto.agui.events import __all__ as _events_all
from agentproto.agui.parse import EventParser, ParsedEvent, parse_event, parse_run_agent_input
from agentproto.agui.patch import apply_patch, copy_json
from agentproto.agui.pipeline import (
    STAGE_RULES,
    LintReport,
    Pipeline,
    detect_format,
    fix_for,
    lint_source,
)
from agentproto.agui.report import event_label, format_messages, shorten, verdict, wire
from agentproto.agui.sse import (
    KEEP_ALIVE,
    SSE_CONTENT_TYPE,
    JSONLinesDecoder,
    SSEDecoder,
    encode_comment,
    encode_sse,
)
from agentproto.agui.state import DEFAULT_VERSION_KEY, StateReducer
from agentproto.agui.ui_intent import UI_COMPONENTS, UI_INTENT_EVENT, UIIntent, validate_ui_intent
from agentproto.agui.verify import (
    RULES,
    RUN_TRANSITIONS,
    Rule,
    RunState,
    VerifiedRun,
    Verifier,
    rules_table,
    verify_events,
)

if TYPE_CHECKING:
    from agentproto.agui.client import (
        AGUIClient,
        AGUIHTTPError,
        Deduplicator,
        RunResult,
        SyncAGUIClient,
        ThreadView,
    )

#: Names served lazily (PEP 562): the HTTP client needs httpx, which the core does not.
_LAZY = {
    "AGUIClient": "agentproto.agui.client",
    "SyncAGUIClient": "agentproto.agui.client",
    "AGUIHTTPError": "agentproto.agui.client",
    "RunResult": "agentproto.agui.client",
    "ThreadView": "agentproto.agui.client",
    "Deduplicator": "agentproto.agui.client",
}

__all__ = [
    # errors
    "AGUIError",
    "ChunkError",
    "DecodeError",
    "GuardError",
    "MalformedEventError",
    "PatchError",
    "PipelineWarning",
    "ResyncNeeded",
    "VerificationError",
    "Warning_",
    "UIIntentError",
    "IntentTooLargeError",
    "IntentEnvelopeError",
    "UnknownComponentError",
    "UnsafeContentError",
    "IntentPropsError",
    # transport
    "KEEP_ALIVE",
    "SSE_CONTENT_TYPE",
    "JSONLinesDecoder",
    "SSEDecoder",
    "encode_comment",
    "encode_sse",
    # stages
    "CompatibilityBoundary",
    "EventParser",
    "ParsedEvent",
    "parse_event",
    "parse_run_agent_input",
    "ChunkExpander",
    "PendingStream",
    "expand_chunks",
    "RULES",
    "RUN_TRANSITIONS",
    "Rule",
    "VerifiedRun",
    "RunState",
    "Verifier",
    "rules_table",
    "verify_events",
    "DEFAULT_VERSION_KEY",
    "StateReducer",
    "apply_patch",
    "copy_json",
    # era shims for a peer pinned to an older protocol (spec basic/versioning)
    "ERA_SHIMS",
    "EraDowngrade",
    "EraShim",
    "shims_for",
    # the pipeline and its report
    "STAGE_RULES",
    "LintReport",
    "Pipeline",
    "detect_format",
    "fix_for",
    "lint_source",
    "verdict",
    "format_messages",
    "wire",
    "shorten",
    "event_label",
    # UI intents
    "UI_INTENT_EVENT",
    "UI_COMPONENTS",
    "UIIntent",
    "validate_ui_intent",
    # clients (lazy)
    "AGUIClient",
    "SyncAGUIClient",
    "AGUIHTTPError",
    "RunResult",
    "ThreadView",
    "Deduplicator",
    # the event model
    *[
        name
        for name in _events_all
        if name
        not in ("ParsedEvent", "EventParser", "CompatibilityBoundary", "parse_event", "parse_run_agent_input")
    ],
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
