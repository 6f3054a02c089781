"""Server-Sent Events framing for AG-UI (spec 1.1 ``basic/transports/http-sse``).

An AG-UI response body is ``text/event-stream``: one event JSON object per SSE ``data``
field, each frame ended by a blank line, UTF-8, LF line endings on the producer side.

Theory of operation
-------------------
*Encoding* is one line: ``data: <compact JSON by alias>\\n\\n`` — byte-for-byte what the
official Python SDK's ``EventEncoder`` writes. Comment frames (``: keep-alive``) keep idle
connections open; consumers ignore them.

*Decoding* follows the WHATWG event-stream parsing rules, incrementally and without I/O:
:class:`SSEDecoder` is fed arbitrary byte chunks (split anywhere — mid-line, mid-UTF-8
character, between the CR and LF of a CRLF) and returns the ``data`` payloads of the frames
that are now complete. Lines may end in CRLF, LF or CR; several ``data:`` lines in one frame
join with ``\\n``; ``event:``, ``id:``, ``retry:`` and unknown fields are ignored (AG-UI has
no ``Last-Event-ID`` resumption) and comment lines are skipped. Invalid UTF-8 raises
:class:`~agentproto.agui.errors.DecodeError`. The framing itself is shared with A2A and lives
in :mod:`agentproto.sse`; this module adds the AG-UI event encoding and error type. At the end
of the stream :meth:`SSEDecoder.close` hands back any dangling partial frame — which the
event-stream rules discard and which, for AG-UI, usually means the connection dropped mid-run.

:class:`JSONLinesDecoder` does the same job for captures stored one JSON object per line
(``agentproto lint --format jsonl``).
"""

from __future__ import annotations

import codecs
import json
from typing import Any

from agentproto import sse as _sse
from agentproto.agui.errors import DecodeError
from agentproto.agui.events import BaseEvent, event_to_json
from agentproto.sse import KEEP_ALIVE, SSE_CONTENT_TYPE, encode_comment

__all__ = [
    "SSE_CONTENT_TYPE",
    "KEEP_ALIVE",
    "encode_sse",
    "encode_comment",
    "SSEDecoder",
    "JSONLinesDecoder",
]


def encode_sse(event: BaseEvent | dict[str, Any]) -> bytes:
    """One event as one SSE frame: ``data: <compact JSON>\\n\\n`` (UTF-8, LF).

    ``event`` is an event model or the event's JSON object as a ``dict``. Anything else is a
    :class:`TypeError`: a ``str`` would become a JSON *string* frame (``data: "…"``), which no
    consumer reads as an event. Text that already is one event's JSON is framed by
    :func:`agentproto.sse.encode_data`.

    >>> encode_sse({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
    b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\\n\\n'
    """
    if isinstance(event, BaseEvent):
        text = event_to_json(event)
    elif isinstance(event, dict):
        text = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
    else:
        hint = (
            " (to frame JSON text you already have, use agentproto.sse.encode_data)"
            if isinstance(event, (str, bytes))
            else ""
        )
        raise TypeError(f"encode_sse takes an AG-UI event model or a dict, not {type(event).__name__}{hint}")
    return _sse.encode_data(text)


class SSEDecoder(_sse.EventStreamDecoder):
    """The shared incremental SSE parser (:class:`agentproto.sse.EventStreamDecoder`), raising
    AG-UI's :class:`~agentproto.agui.errors.DecodeError`.

    >>> d = SSEDecoder()
    >>> d.feed(b'data: {"a"')
    []
    >>> d.feed(b':1}\\n\\n: keep-alive\\n\\n')
    ['{"a":1}']
    >>> d.close() is None
    True
    """

    __slots__ = ()
    # DecodeError takes the same (message, *, rule) arguments as SSEDecodeError; the base
    # class types the attribute narrowly (agentproto.sse), hence the ignore.
    error = DecodeError


class JSONLinesDecoder:
    """Incremental reader for one-JSON-object-per-line captures.

    Blank lines are skipped; CRLF is accepted; a last line without a newline is complete.
    """

    __slots__ = ("_utf8", "_pending", "_closed")

    def __init__(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8")("strict")
        self._pending = ""
        self._closed = False

    def feed(self, chunk: bytes) -> list[str]:
        """Consume bytes; return every complete, non-blank line."""
        try:
            text = self._pending + self._utf8.decode(chunk)
        except UnicodeDecodeError as exc:
            raise DecodeError(
                f"JSON lines input is not valid UTF-8: {exc.reason}", rule="decode.utf8"
            ) from None
        lines = text.split("\n")
        self._pending = lines.pop()
        return [s for line in lines if (s := line.strip().lstrip("\ufeff"))]

    def close(self) -> list[str]:
        """End of input: the last line, if it had no trailing newline."""
        if self._closed:
            return []
        self._closed = True
        try:
            tail = self._pending + self._utf8.decode(b"", final=True)
        except UnicodeDecodeError:
            raise DecodeError(
                "JSON lines input ends in the middle of a UTF-8 character", rule="decode.utf8"
            ) from None
        self._pending = ""
        tail = tail.strip().lstrip("\ufeff")
        return [tail] if tail else []
