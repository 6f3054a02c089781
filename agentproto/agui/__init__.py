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
:mod:`~.types`              the types events carry: messages, parts, tools, ``RunAgentInput``,
                            patch ops (the SDK's ``ag_ui.core.types``)
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
:mod:`~.capabilities`       :class:`AGUICapabilities`, :func:`parse_capabilities`: what an agent
                            declares before a run (spec ``basic/capabilities``)
:mod:`~.interrupts`         interrupt/resume: producing interrupts, building and checking
                            ``resume`` entries, and the :class:`ResumeError` family
:mod:`~.ui_intent`          :func:`validate_ui_intent`: the front end's gate for UI intents
:mod:`~.errors`             :class:`AGUIError` and its family; :class:`PipelineWarning`
:mod:`~.client`             :class:`AGUIClient`, :class:`SyncAGUIClient` (httpx; imported lazily)
:mod:`~.server`, runner     the Starlette endpoint and the run driver (adapters)
==========================  ===================================================================

Events are numbered **from 0 in arrival order** everywhere: an error's ``index``, a warning's
``event``, ``report.error["event"]``; human text says "event #5" for index 5.

Importing this package loads neither httpx nor Starlette nor jsonschema: the clients are
imported on first use (``agentproto.agui.AGUIClient``; the ``if TYPE_CHECKING:`` imports below
name them, :mod:`agentproto._lazy` serves them), the servers only from their modules.

``__all__`` is what a user of the protocol needs. A few helpers stay importable from here for
code written against earlier releases, but are documented in their modules and not listed (the
``import X as X`` lines below):
``Warning_`` (an alias of :class:`PipelineWarning`), ``PendingStream``, ``copy_json``,
``detect_format``, ``fix_for``, ``event_label``, ``shorten``, ``wire``, ``EraShim``, and the
event model's nested types in ``_UNLISTED_TYPES`` (JSON Patch operations, part sources, the
single outcome variants).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentproto._lazy import lazy_exports
from agentproto.agui import capabilities, errors, interrupts
from agentproto.agui._compat import CompatibilityBoundary
from agentproto.agui._eras import ERA_SHIMS, EraDowngrade, shims_for
from agentproto.agui._eras import EraShim as EraShim
from agentproto.agui._patch import apply_patch
from agentproto.agui._patch import copy_json as copy_json
from agentproto.agui.capabilities import *  # noqa: F403 - the AgentCapabilities declaration (AGUICapabilities)
from agentproto.agui.chunks import ChunkExpander, expand_chunks
from agentproto.agui.chunks import PendingStream as PendingStream
from agentproto.agui.errors import *  # noqa: F403 - every error and the warning type
from agentproto.agui.errors import Warning_ as Warning_
from agentproto.agui.events import *  # noqa: F403 - the event model is the public API
from agentproto.agui.events import __all__ as _events_all
from agentproto.agui.interrupts import *  # noqa: F403 - the interrupt/resume API and its errors
from agentproto.agui.parse import EventParser, ParsedEvent, parse_event, parse_run_agent_input
from agentproto.agui.pipeline import (
    STAGE_RULES,
    LintReport,
    Pipeline,
    lint_source,
)
from agentproto.agui.pipeline import detect_format as detect_format
from agentproto.agui.pipeline import fix_for as fix_for
from agentproto.agui.report import event_label as event_label
from agentproto.agui.report import format_messages, verdict
from agentproto.agui.report import shorten as shorten
from agentproto.agui.report import wire as wire
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
from agentproto.agui.usage import UsageTotal, sum_usage, thread_usage
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

if TYPE_CHECKING:  # served lazily: the HTTP client needs httpx, which the core does not
    from agentproto.agui.client import (
        AGUIClient,
        AGUIHTTPError,
        Deduplicator,
        RunResult,
        SyncAGUIClient,
        ThreadView,
    )

#: The event model's nested vocabulary, importable from here and from :mod:`~.types` but not
#: listed: a caller passes these as dicts (the models validate them) or as the union named
#: beside them (``JsonPatch``, ``RunFinishedOutcome``, ``SubagentFinishedOutcome``, ``Role``).
_UNLISTED_TYPES = frozenset(
    {
        *("AddOperation", "RemoveOperation", "ReplaceOperation", "MoveOperation", "CopyOperation"),
        *("TestOperation", "JsonPatchOperation", "DataSource", "UrlSource", "FileSource", "PartSource"),
        *("RunFinishedSuccessOutcome", "RunFinishedInterruptOutcome", "RunFinishedCancelledOutcome"),
        *("SubagentFinishedSuccessOutcome", "SubagentFinishedSuspendedOutcome"),
        *("ReasoningEncryptedValueSubtype", "TextMessageRole"),
    }
)

__all__ = [
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
    # era shims for a peer pinned to an older protocol (spec basic/versioning)
    "ERA_SHIMS",
    "EraDowngrade",
    "shims_for",
    # the pipeline and its report
    "STAGE_RULES",
    "LintReport",
    "Pipeline",
    "lint_source",
    "verdict",
    "format_messages",
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
    # token usage under the spec's accounting (events/lifecycle, Token usage)
    "UsageTotal",
    "sum_usage",
    "thread_usage",
    # the event model
    *[name for name in _events_all if name not in _UNLISTED_TYPES],
]

__all__ += errors.__all__  # AGUIError and its family, PipelineWarning
__all__ += interrupts.__all__  # interrupt/resume (spec basic/patterns/interrupt-resume) and ResumeError
__all__ += capabilities.__all__  # what an agent declares before a run (spec basic/capabilities)

__getattr__, __dir__, _EXPORTS = lazy_exports(globals())
