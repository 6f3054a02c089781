"""AG-UI (agent ↔ user interface): events, SSE, chunks, verification, state, interrupts.

The consumer pipeline, in the order spec 1.1 (``basic/processing``) prescribes::

    bytes ──SSEDecoder──▶ JSON text ──EventParser──▶ Event ──ChunkExpander──▶ Event*
          ──Verifier──▶ (rules) ──StateReducer──▶ state + messages

Every stage is sans-I/O: feed it input, take output — no sockets, clocks or randomness.
:class:`Pipeline` and :func:`lint_source` chain them; ``agentproto lint`` is the CLI.
"""

from agentproto.agui.chunks import ChunkExpander, PendingStream, expand_chunks
from agentproto.agui.errors import (
    AGUIError,
    ChunkError,
    DecodeError,
    GuardError,
    MalformedEventError,
    PatchError,
    PipelineWarning,
    ResyncNeeded,
    VerificationError,
    Warning_,
)
from agentproto.agui.events import *  # noqa: F401,F403 - the event model is the public API
from agentproto.agui.events import __all__ as _events_all
from agentproto.agui.pipeline import (
    STAGE_RULES,
    LintReport,
    Pipeline,
    detect_format,
    fix_for,
    lint_source,
)
from agentproto.agui.sse import (
    KEEP_ALIVE,
    SSE_CONTENT_TYPE,
    JSONLinesDecoder,
    SSEDecoder,
    encode_comment,
    encode_sse,
)
from agentproto.agui.state import DEFAULT_VERSION_KEY, StateReducer, apply_patch, copy_json
from agentproto.agui.verify import (
    RULES,
    RUN_TRANSITIONS,
    Rule,
    RunRecord,
    RunState,
    Verifier,
    rules_table,
    verify_events,
)

__all__ = [
    # errors
    "AGUIError", "ChunkError", "DecodeError", "GuardError", "MalformedEventError", "PatchError",
    "PipelineWarning", "ResyncNeeded", "VerificationError", "Warning_",
    # transport
    "KEEP_ALIVE", "SSE_CONTENT_TYPE", "JSONLinesDecoder", "SSEDecoder", "encode_comment",
    "encode_sse",
    # stages
    "ChunkExpander", "PendingStream", "expand_chunks",
    "RULES", "RUN_TRANSITIONS", "Rule", "RunRecord", "RunState", "Verifier", "rules_table",
    "verify_events",
    "DEFAULT_VERSION_KEY", "StateReducer", "apply_patch", "copy_json",
    "STAGE_RULES", "LintReport", "Pipeline", "detect_format", "fix_for", "lint_source",
    # the event model
    *_events_all,
]
