"""One wire-shaped example of every AG-UI event type, with every field exercised.

Shared by the event, SSE and interop tests. Values are chosen to hit the awkward cases:
null as data, non-ASCII text, nested outcomes, content parts, open patch operations.
"""

THREAD, RUN = "thread-1", "run-1"

SAMPLES: dict[str, dict] = {
    "TEXT_MESSAGE_START": {
        "type": "TEXT_MESSAGE_START",
        "timestamp": 1767225600000,
        "messageId": "m1",
        "role": "assistant",
        "name": "Ada",
    },
    "TEXT_MESSAGE_CONTENT": {
        "type": "TEXT_MESSAGE_CONTENT",
        "messageId": "m1",
        "delta": 'héllo ✓ "quoted"\n',
    },
    "TEXT_MESSAGE_END": {"type": "TEXT_MESSAGE_END", "messageId": "m1", "metadata": {"k": None, "n": [1, 2]}},
    "TEXT_MESSAGE_CHUNK": {
        "type": "TEXT_MESSAGE_CHUNK",
        "messageId": "m2",
        "role": "user",
        "delta": "",
        "name": "Bob",
        "subagentRunId": "sa-1",
    },
    "TOOL_CALL_START": {
        "type": "TOOL_CALL_START",
        "toolCallId": "tc1",
        "toolCallName": "search",
        "parentMessageId": "m1",
    },
    "TOOL_CALL_ARGS": {"type": "TOOL_CALL_ARGS", "toolCallId": "tc1", "delta": '{"q":'},
    "TOOL_CALL_END": {"type": "TOOL_CALL_END", "toolCallId": "tc1"},
    "TOOL_CALL_CHUNK": {
        "type": "TOOL_CALL_CHUNK",
        "toolCallId": "tc2",
        "toolCallName": "f",
        "parentMessageId": "m1",
        "delta": "{}",
    },
    "TOOL_CALL_RESULT": {
        "type": "TOOL_CALL_RESULT",
        "messageId": "t1",
        "toolCallId": "tc1",
        "content": [
            {"type": "text", "text": "ok"},
            {"type": "image", "source": {"type": "url", "value": "https://x/y.png", "mimeType": "image/png"}},
        ],
        "role": "tool",
    },
    "STATE_SNAPSHOT": {"type": "STATE_SNAPSHOT", "snapshot": None},
    "STATE_DELTA": {
        "type": "STATE_DELTA",
        "delta": [
            {"op": "add", "path": "/a", "value": None},
            {"op": "remove", "path": "/b", "value": "leftover"},
            {"op": "move", "from": "/c", "path": "/d"},
            {"op": "test", "path": "/a", "value": None},
        ],
    },
    "MESSAGES_SNAPSHOT": {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [
            {"id": "u1", "role": "user", "content": "hi"},
            {
                "id": "a1",
                "role": "assistant",
                "content": "hello",
                "toolCalls": [
                    {"id": "tc1", "type": "function", "function": {"name": "search", "arguments": "{}"}}
                ],
            },
            {"id": "t1", "role": "tool", "content": "42", "toolCallId": "tc1"},
            {"id": "s1", "role": "system", "content": "be nice"},
            {"id": "d1", "role": "developer", "content": "dev"},
            {"id": "r1", "role": "reasoning", "content": "hmm", "encryptedValue": "xx"},
            {"id": "act1", "role": "activity", "activityType": "PLAN", "content": {"steps": []}},
        ],
    },
    "ACTIVITY_SNAPSHOT": {
        "type": "ACTIVITY_SNAPSHOT",
        "messageId": "act1",
        "activityType": "PLAN",
        "content": {"steps": [1]},
        "replace": False,
    },
    "ACTIVITY_DELTA": {
        "type": "ACTIVITY_DELTA",
        "messageId": "act1",
        "activityType": "PLAN",
        "patch": [{"op": "replace", "path": "/steps/0", "value": 2}],
    },
    "RAW": {"type": "RAW", "event": {"provider": "x", "n": None}, "source": "openai"},
    "CUSTOM": {"type": "CUSTOM", "name": "ping", "value": None},
    "RUN_STARTED": {
        "type": "RUN_STARTED",
        "threadId": THREAD,
        "runId": RUN,
        "protocolVersion": "1.0",
        "parentRunId": "run-0",
        "input": {
            "threadId": THREAD,
            "runId": RUN,
            "state": {"x": 1},
            "messages": [{"id": "u1", "role": "user", "content": "hi"}],
            "tools": [{"name": "search", "description": "web", "parameters": {"type": "object"}}],
            "context": [{"description": "tz", "value": "UTC"}],
            "forwardedProps": {"a": None},
            "resume": [{"interruptId": "i1", "status": "resolved", "payload": {"approved": False}}],
        },
    },
    "RUN_FINISHED": {
        "type": "RUN_FINISHED",
        "threadId": THREAD,
        "runId": RUN,
        "outcome": {
            "type": "interrupt",
            "interrupts": [
                {
                    "id": "i1",
                    "reason": "confirmation",
                    "message": "Sure?",
                    "toolCallId": "tc1",
                    "responseSchema": {"type": "object"},
                    "expiresAt": "2026-01-01T00:00:00Z",
                }
            ],
        },
        "usage": [
            {"provider": "openai", "model": "m", "inputTokens": 3, "outputTokens": 4, "totalTokens": 7}
        ],
    },
    "RUN_ERROR": {"type": "RUN_ERROR", "message": "boom", "code": "E42"},
    "STEP_STARTED": {"type": "STEP_STARTED", "stepName": "plan"},
    "STEP_FINISHED": {"type": "STEP_FINISHED", "stepName": "plan"},
    "REASONING_START": {"type": "REASONING_START", "messageId": "rs1"},
    "REASONING_MESSAGE_START": {"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"},
    "REASONING_MESSAGE_CONTENT": {
        "type": "REASONING_MESSAGE_CONTENT",
        "messageId": "r1",
        "delta": "thinking",
    },
    "REASONING_MESSAGE_END": {"type": "REASONING_MESSAGE_END", "messageId": "r1"},
    "REASONING_MESSAGE_CHUNK": {"type": "REASONING_MESSAGE_CHUNK", "messageId": "r2", "delta": "x"},
    "REASONING_END": {"type": "REASONING_END", "messageId": "rs1"},
    "REASONING_ENCRYPTED_VALUE": {
        "type": "REASONING_ENCRYPTED_VALUE",
        "subtype": "message",
        "entityId": "r1",
        "encryptedValue": "opaque==",
    },
    "SUBAGENT_STARTED": {
        "type": "SUBAGENT_STARTED",
        "subagentRunId": "sa-1",
        "name": "researcher",
        "description": "finds",
        "parentToolCallId": "tc1",
        "parentMessageId": "m1",
    },
    "SUBAGENT_FINISHED": {
        "type": "SUBAGENT_FINISHED",
        "subagentRunId": "sa-1",
        "result": {"ok": True},
        "outcome": {"type": "suspended", "interruptIds": ["i1"]},
    },
    "SUBAGENT_ERROR": {"type": "SUBAGENT_ERROR", "subagentRunId": "sa-2", "message": "x", "code": "c"},
}
