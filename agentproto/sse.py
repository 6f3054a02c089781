"""Server-Sent Events framing, shared by both protocols (WHATWG ``text/event-stream``).

AG-UI streams run events over SSE (spec 1.1 ``basic/transports/http-sse``) and A2A streams
task updates over SSE (A2A §9.4 JSON-RPC and §11 HTTP+JSON). The framing is the same, so it
lives here, below both protocol packages.

*Encoding* of a frame is one line: ``data: <payload>\\n\\n``. Comment frames
(``: keep-alive``) keep idle connections open; consumers ignore them.

*Decoding* follows the WHATWG event-stream parsing rules, incrementally and without I/O:
:class:`EventStreamDecoder` is fed arbitrary byte chunks (split anywhere — mid-line, mid-UTF-8
character, between the CR and LF of a CRLF) and returns the ``data`` payloads of the frames
that are now complete. Lines may end in CRLF, LF or CR; several ``data:`` lines in one frame
join with ``\\n``; ``event:``, ``id:``, ``retry:`` and unknown fields are ignored and comment
lines are skipped. Invalid UTF-8 raises :class:`SSEDecodeError` (or the subclass's
:attr:`EventStreamDecoder.error`). At the end of the stream :meth:`EventStreamDecoder.close` hands back any
dangling partial frame, which the event-stream rules discard and which usually means the
connection dropped mid-stream.
"""

from __future__ import annotations

import codecs

from agentproto.errors import AgentProtoError

__all__ = [
    "SSE_CONTENT_TYPE",
    "KEEP_ALIVE",
    "SSEDecodeError",
    "EventStreamDecoder",
    "encode_comment",
    "encode_data",
]

#: The media type of an event stream over HTTP.
SSE_CONTENT_TYPE = "text/event-stream"

#: A comment frame; send it on an idle stream so proxies do not time the connection out.
KEEP_ALIVE = b": keep-alive\n\n"


class SSEDecodeError(AgentProtoError, ValueError):
    """The bytes are not a well-formed UTF-8 event stream.

    A protocol's own decode error subclasses this one (AG-UI:
    :class:`agentproto.agui.errors.DecodeError`), so ``except SSEDecodeError`` catches both.
    """

    rule: str = "decode.sse"

    def __init__(self, message: str, *, rule: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if rule is not None:
            self.rule = rule


def encode_data(text: str) -> bytes:
    """One single-line payload as one SSE frame: ``data: <text>\\n\\n`` (UTF-8, LF)."""
    return b"data: " + text.encode("utf-8") + b"\n\n"


def encode_comment(text: str = "keep-alive") -> bytes:
    """A comment frame (every line prefixed with ``:``), ignored by every SSE consumer."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "".join(f": {line}\n" for line in lines).encode("utf-8") + b"\n"


class EventStreamDecoder:
    """Incremental SSE parser: ``feed(bytes) -> [data, ...]``, then ``close()``.

    >>> d = EventStreamDecoder()
    >>> d.feed(b'data: {"a"')
    []
    >>> d.feed(b':1}\\n\\n: keep-alive\\n\\n')
    ['{"a":1}']
    >>> d.close() is None
    True
    """

    #: The exception class raised for bytes that are not an event stream; a protocol's
    #: subclass sets its own (AG-UI: :class:`agentproto.agui.errors.DecodeError`).
    error: type[SSEDecodeError] = SSEDecodeError

    __slots__ = ("_utf8", "_pending", "_data", "_has_data", "_started", "_closed", "_skip_lf")

    def __init__(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8")("strict")
        self._pending = ""  # text after the last complete line
        self._data: list[str] = []  # data lines of the frame being assembled
        self._has_data = False
        self._started = False  # a leading BOM is stripped once
        self._closed = False
        self._skip_lf = False  # the previous chunk ended in CR: a leading LF belongs to it

    def feed(self, chunk: bytes) -> list[str]:
        """Consume bytes; return the ``data`` payloads of every frame completed by them."""
        if self._closed:
            raise self.error("EventStreamDecoder.feed() after close()", rule="decode.sse")
        try:
            text = self._utf8.decode(chunk)
        except UnicodeDecodeError as exc:
            raise self.error(f"SSE stream is not valid UTF-8: {exc.reason}", rule="decode.utf8") from None
        if not self._started and text:
            self._started = True
            if text[0] == "\ufeff":
                text = text[1:]
        if self._skip_lf and text:
            self._skip_lf = False
            if text[0] == "\n":
                text = text[1:]
        if not text:
            return []
        text = self._pending + text
        self._pending = ""
        if "\r" in text:
            return self._lines(text)
        if not self._has_data:
            return self._frames(text)
        # Mid-frame with data already collected: finish that frame line by line, then go fast.
        end = 0 if text[0] == "\n" else text.find("\n\n") + 1
        if end == 0 and text[0] != "\n":
            return self._lines(text)
        out = self._lines(text[: end + 1])
        rest = text[end + 1 :]
        if rest:
            out.extend(self._frames(rest))
        return out

    def close(self) -> str | None:
        """End of stream. Returns what was left of a never-terminated frame, or ``None``.

        The result joins the frame's ``data`` values received so far with any unterminated
        last line, exactly as received (``'data: {"ty'``).

        The event-stream rules discard an unterminated frame; we return it so that the caller
        can say so (an AG-UI stream cut mid-frame is a truncated run).
        """
        if self._closed:
            return None
        self._closed = True
        try:
            tail = self._utf8.decode(b"", final=True)
        except UnicodeDecodeError:
            raise self.error(
                "SSE stream ends in the middle of a UTF-8 character", rule="decode.utf8"
            ) from None
        if tail:
            self._lines(self._pending + tail)
            tail = ""
        dangling: list[str] = []
        if self._has_data:
            dangling.append("\n".join(self._data))
        if self._pending:
            dangling.append(self._pending)
        self._data, self._has_data, self._pending = [], False, ""
        return "\n".join(dangling) if dangling else None

    def _lines(self, text: str) -> list[str]:
        """The general line parser (WHATWG event-stream rules), for anything unusual."""
        if "\r" in text:
            # A CR ends a line at once; if the next chunk starts with LF, that LF is the
            # second half of a CRLF split between chunks and is skipped.
            self._skip_lf = text[-1] == "\r"
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        rest = lines.pop()  # the unterminated remainder ("" if text ended with a newline)
        out: list[str] = []
        data = self._data
        for line in lines:
            if not line:
                if self._has_data:
                    out.append("\n".join(data))
                    data.clear()
                    self._has_data = False
                continue
            if line[0] == ":":
                continue  # comment
            if line.startswith("data:"):
                value = line[5:]
                if value[:1] == " ":
                    value = value[1:]
                data.append(value)
                self._has_data = True
                continue
            if line == "data":  # a field name alone means an empty value
                data.append("")
                self._has_data = True
                continue
            # event:, id:, retry: and unknown fields are ignored (spec http-sse).
        self._pending = rest
        return out

    def _frames(self, text: str) -> list[str]:
        """Fast path for LF-only text that starts at a frame boundary: whole frames at once.

        Every AG-UI producer writes a frame as exactly one ``data: …`` line, so the complete
        frames of a chunk read ``data: `` + the payloads joined by ``\\n\\ndata: ``: one
        split yields them all. The split is exact when no payload contains a newline (one
        search over them all); a frame with another field, a comment or several lines
        would, and then each frame is taken on its own and anything unusual goes through
        the line parser.
        """
        end = text.rfind("\n\n")  # the complete frames end here; the tail is unfinished
        if end > 0 and text.startswith("data: "):
            payloads = text[6:end].split("\n\ndata: ")
            if "\n" not in "".join(payloads):
                tail = text[end + 2 :]
                if tail:
                    payloads.extend(self._lines(tail))  # keeps the partial line for later
                return payloads
        blocks = text.split("\n\n")
        tail = blocks.pop()  # an unfinished frame (possibly with complete lines in it)
        out: list[str] = []
        for block in blocks:
            if block.startswith("data: ") and "\n" not in block:
                out.append(block[6:])
            elif block:
                out.extend(self._lines(block + "\n\n"))
        if tail:
            out.extend(self._lines(tail))  # consumes its complete lines, keeps the partial one
        return out
