"""AG-UI (agent ↔ user interface): events, SSE, chunks, verification, state, interrupts.

The consumer pipeline, in the order spec 1.1 (``basic/processing``) prescribes::

    bytes ──SSEDecoder──▶ JSON text ──EventParser──▶ Event ──ChunkExpander──▶ Event*
          ──Verifier──▶ (rules) ──StateReducer──▶ state + messages

Every stage is sans-I/O: feed it input, take output, no sockets, clocks or randomness.
:class:`Pipeline` and :func:`lint_source` chain them; ``agentproto lint`` is the CLI.
"""

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
from agentproto.agui.sse import (
    KEEP_ALIVE,
    SSE_CONTENT_TYPE,
    JSONLinesDecoder,
    SSEDecoder,
    encode_comment,
    encode_sse,
)

__all__ = [
    "AGUIError", "ChunkError", "DecodeError", "GuardError", "MalformedEventError", "PatchError",
    "PipelineWarning", "ResyncNeeded", "VerificationError", "Warning_",
    "KEEP_ALIVE", "SSE_CONTENT_TYPE", "JSONLinesDecoder", "SSEDecoder", "encode_comment",
    "encode_sse",
    *_events_all,
]
